// Headless Chromium (Debian's, JavaScript off, no network) renders
// report.lua's pages into PNGs (build/consumers/out/report-*.png): every
// example's page lays out with its charts drawn and asks for nothing outside
// the file; on sample.vprof the frame-time envelope as Chromium lays it out
// reaches the worst frame's time that vpscript's API reports.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CHROMIUM, HAVE_CHROMIUM, OUT, ROOT, browserPage, truth, vpscript } from './lib.mjs';

function captures() {
  const list = [];
  const walk = (dir) => {
    for (const name of readdirSync(path.join(ROOT, dir)).sort()) {
      const rel = path.join(dir, name);
      if (statSync(path.join(ROOT, rel)).isDirectory()) { if (name !== 'gen' && name !== 'ci' && name !== 'rules') walk(rel); continue; }
      if (/\.(vprof|devt|dlag|dm|dw)$/.test(name) || dir === 'examples/laige') list.push(rel);
    }
  };
  walk('examples');
  return list;
}

function pngSize(file) {
  const b = readFileSync(file);
  assert.equal(b.toString('latin1', 1, 4), 'PNG', `${file} is no PNG`);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), bytes: b.length };
}

describe('report.lua in Chromium', { skip: !HAVE_CHROMIUM && `SKIPPED: no Chromium at ${CHROMIUM} (make deps installs Debian's chromium)` }, () => {
  let b;
  before(async () => { b = await browserPage({ javaScript: false, width: 1000, height: 800 }); });
  after(async () => { await b?.close(); });

  const list = captures();
  it('finds the examples', () => { assert.ok(list.length >= 14, list.join(' ')); });

  for (const capture of list) {
    it(`${capture}: renders with its charts drawn, offline, into a PNG`, async () => {
      const name = capture.replace(/^examples\//, '').replace(/\//g, '_');
      const html = path.join(OUT, `report-${name}.html`);
      vpscript('scripts/report.lua', capture, '-o', html);
      await b.page.goto('file://' + html);
      const charts = await b.page.evaluate(() => [...document.querySelectorAll('svg')].map((s) => {
        const r = s.getBoundingClientRect();
        return { w: r.width, h: r.height, shapes: s.querySelectorAll('path, rect, circle, line, polyline').length };
      }));
      // .devt and .dm pages are tables (the issue asks no chart of them)
      if (!/\.(devt|dm)$/.test(capture)) assert.ok(charts.length >= 1, 'no chart');
      const tables = await b.page.evaluate(() => document.querySelectorAll('table tr').length);
      assert.ok(charts.length + tables > 3, 'an empty page');
      for (const c of charts) {
        assert.ok(c.w > 100 && c.h > 50 && c.shapes > 0, `an empty or collapsed chart: ${JSON.stringify(c)}`);
      }
      const png = path.join(OUT, `report-${name}.png`);
      await b.page.screenshot({ path: png, fullPage: true });
      const size = pngSize(png);
      assert.ok(size.width >= 1000 && size.height > 400, JSON.stringify(size));
      assert.deepEqual(b.requests, [], 'the page asked for something outside the file');
    });
  }

  it('sample.vprof: the drawn envelope reaches the worst frame, its bottom the best one', async () => {
    const want = truth('examples/sample.vprof');
    const min = Math.min(...want.frames.map((f) => f.frame_ms));
    const html = path.join(OUT, 'report-envelope.html');
    vpscript('scripts/report.lua', 'examples/sample.vprof', '-o', html);
    await b.page.goto('file://' + html);
    const got = await b.page.evaluate(() => {
      const env = document.querySelector('#frametime path.envelope');
      const svg = env.ownerSVGElement;
      const box = env.getBBox(); // the geometry Chromium laid out, stroke excluded
      return {
        yZero: Number(svg.dataset.yZero), perMs: Number(svg.dataset.pxPerUnit),
        top: box.y, bottom: box.y + box.height, maxMs: Number(env.dataset.maxMs),
      };
    });
    const drawnMax = (got.yZero - got.top) / got.perMs, drawnMin = (got.yZero - got.bottom) / got.perMs;
    const px = 0.5 / got.perMs; // coordinates are written to a tenth of a pixel or better
    assert.ok(Math.abs(drawnMax - want.max_ms) <= px,
      `the envelope's top is ${drawnMax.toFixed(3)} ms, the worst frame ${want.max_ms} ms`);
    assert.ok(Math.abs(drawnMin - min) <= px, `the envelope's bottom is ${drawnMin.toFixed(3)} ms, the best frame ${min} ms`);
    assert.equal(got.maxMs, want.max_ms, 'data-max-ms');
  });
});
