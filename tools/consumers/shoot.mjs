// node tools/consumers/shoot.mjs PAGE.html OUT.png [CSS_SELECTOR] [--js EXPRESSION]
// A picture of a report page (or of one element of it, e.g. '#frametime')
// as headless Debian chromium draws it (tools/consumers/chromium.mjs), no
// network, 1000 pixels wide: with JavaScript off, or with --js, on, after
// EXPRESSION is evaluated in the page (report.js's window.vpReport: open a
// frame's tree, zoom, pick groups). make docs-png uses it for the pictures
// in docs/.
import path from 'node:path';
import { launch } from './chromium.mjs';

const argv = process.argv.slice(2);
const js = argv.indexOf('--js');
const expr = js >= 0 ? argv.splice(js, 2)[1] : null;
const [page_, out, selector] = argv;
if (!page_ || !out || (js >= 0 && !expr)) {
  console.error('usage: node tools/consumers/shoot.mjs PAGE.html OUT.png [CSS_SELECTOR] [--js EXPRESSION]');
  process.exit(2);
}
const b = await launch({ javaScript: expr != null, width: 1000, height: 800 });
try {
  const errors = [];
  b.page.on('pageerror', (e) => errors.push(e.message));
  await b.page.goto('file://' + path.resolve(page_));
  if (expr != null) {
    await b.page.waitForFunction(() => window.vpReport && window.vpReport.ready);
    await b.page.evaluate(expr);
  }
  if (errors.length) throw new Error(`${page_}: ${errors.join('; ')}`);
  if (selector) await b.page.locator(selector).screenshot({ path: out });
  else await b.page.screenshot({ path: out, fullPage: true });
} finally {
  await b.close();
}
