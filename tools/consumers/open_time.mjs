// node tools/consumers/open_time.mjs PAGE.html [RUNS]
// How long report.lua's page takes to become interactive in headless
// Debian Chromium (tools/consumers/chromium.mjs): from the start of the
// navigation to the end of report.js (window.vpReport.readyAt), the median
// of RUNS (default 3) loads, each in a new browser; then how long a zoom
// takes to draw (a wheel step over the frame-time chart). One line for
// make bench.
import path from 'node:path';
import { launch } from './chromium.mjs';

const [page_, runs_ = '3'] = process.argv.slice(2);
if (!page_) {
  console.error('usage: node tools/consumers/open_time.mjs PAGE.html [RUNS]');
  process.exit(2);
}
const ready = [], zoom = [];
for (let i = 0; i < Number(runs_); i++) {
  const b = await launch({ javaScript: true, width: 1000, height: 900 });
  try {
    const errors = [];
    b.page.on('pageerror', (e) => errors.push(e.message));
    await b.page.goto('file://' + path.resolve(page_));
    await b.page.waitForFunction(() => window.vpReport && window.vpReport.ready, null, { timeout: 60000 });
    if (errors.length || b.requests.length) throw new Error(`${page_}: ${[...errors, ...b.requests].join('; ')}`);
    ready.push(await b.page.evaluate(() => window.vpReport.readyAt));
    zoom.push(await b.page.evaluate(() => {
      const svg = document.querySelector('#vp-live-frametime svg');
      if (!svg) return NaN;
      const r = svg.getBoundingClientRect();
      const t0 = performance.now();
      svg.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: r.left + r.width / 2,
        clientY: r.top + r.height / 2, bubbles: true, cancelable: true }));
      return performance.now() - t0;
    }));
  } finally {
    await b.close();
  }
}
const median = (l) => [...l].sort((a, b) => a - b)[Math.floor(l.length / 2)];
const r = median(ready), z = median(zoom);
console.log(`interactive after ${r.toFixed(0)} ms (target < 2000 ms${r < 2000 ? '' : ': OVER'}), a zoom drawn in `
  + `${z.toFixed(1)} ms; median of ${ready.length} loads`);
if (r >= 2000) process.exitCode = 1;
