// report.lua's interactive page driven in headless Debian Chromium
// (JavaScript on, offline, a new empty profile) the way a user drives it,
// with the mouse: every figure it shows is held to what vpscript's own API
// says (tests/consumers/report_truth.lua, hitches.lua --json): zooming
// into a range shows those frames, each pixel column their fastest and
// slowest; hovering a frame shows its number, tick, time and top group; a
// hitch opens its call tree with the API's node times and hitches.lua's
// causes; a cause marks its frames; picking a budget group draws its self
// time; the comparison's differential tree of a stretch is the node totals'
// change. A screenshot of each view goes to build/consumers/out/.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CHROMIUM, HAVE_CHROMIUM, OUT, browserPage, shownPrecision, vpscript } from './lib.mjs';

const SAMPLE = 'examples/sample.vprof';
const W = 960, ML = 60, MR = 16, PW = W - ML - MR;

function json(...args) {
  return JSON.parse(vpscript(...args).toString('utf8'));
}
const truth = (...args) => json('tests/consumers/report_truth.lua', ...args);

// A number shown on the page ("1,234.5", "−0.04", "+45.00") and its precision.
function shown(text) {
  const t = text.trim().replace(/\u2212/g, '-').replace(/,/g, '');
  return { value: Number(t), tol: shownPrecision(t.replace(/^[-+]/, '')) };
}
function near(text, want, what) {
  const s = shown(text);
  assert.ok(Math.abs(s.value - want) <= s.tol + 1e-9, `${what}: the page shows ${text}, the API says ${want}`);
}

// The pixel (in the page) of a chart's x coordinate x (in the chart's 960 units).
async function chartPoint(page, selector, x, yFrac = 0.5) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  const box = await page.locator(selector).boundingBox();
  return { x: box.x + x * box.width / W, y: box.y + box.height * yFrac };
}
// The chart x of position p (0-based, may be fractional) in a view of positions a..b-1.
const xOf = (p, a, b) => ML + (p - a) / (b - a) * PW;

async function drag(page, selector, x1, x2, modifiers) {
  const p1 = await chartPoint(page, selector, x1), p2 = await chartPoint(page, selector, x2);
  if (modifiers) await page.keyboard.down('Shift');
  await page.mouse.move(p1.x, p1.y);
  await page.mouse.down();
  await page.mouse.move((p1.x + p2.x) / 2, p1.y, { steps: 4 });
  await page.mouse.move(p2.x, p2.y, { steps: 4 });
  await page.mouse.up();
  if (modifiers) await page.keyboard.up('Shift');
}

// bounded: a browser that hangs fails the suite instead of stalling it
describe('report.lua interactive in Chromium', { timeout: 300000,
  skip: !HAVE_CHROMIUM && `SKIPPED: no Chromium at ${CHROMIUM}` }, () => {
  let b;
  const errors = [];
  before(async () => {
    b = await browserPage({ javaScript: true, width: 1000, height: 900 });
    b.page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => { await b?.close(); });

  async function open(file) {
    const t0 = Date.now();
    await b.page.goto('file://' + file);
    await b.page.waitForFunction(() => window.vpReport && window.vpReport.ready, null, { timeout: 10000 });
    assert.deepEqual(errors, [], 'the page raised');
    assert.deepEqual(b.requests, [], 'the page asked for something outside the file');
    return Date.now() - t0;
  }
  const page = () => b.page;

  describe('one capture', () => {
    const html = path.join(OUT, 'live-sample.html');
    before(async () => {
      vpscript('scripts/report.lua', SAMPLE, '-o', html);
      await open(html);
    });

    it('draws every frame at first: each column the fastest and slowest of its frames', async () => {
      const frames = json('tests/consumers/truth.lua', SAMPLE).frames;
      const cols = await page().evaluate(() => window.vpReport.columns());
      assert.equal(cols.length, Math.min(960, frames.length));
      assert.equal(cols[0].first, 1);
      assert.equal(cols.at(-1).last, 4000);
      // (the API's figures come through JSON's 14 significant digits)
      for (const c of cols) {
        const ms = frames.slice(c.first - 1, c.last).map((f) => f.frame_ms);
        assert.ok(Math.abs(c.lo - Math.min(...ms)) < 1e-9, `frames ${c.first}..${c.last}: ${c.lo}`);
        assert.ok(Math.abs(c.hi - Math.max(...ms)) < 1e-9, `frames ${c.first}..${c.last}: ${c.hi}`);
      }
      // the capture's phases as shaded bands, where the page has them (vp.phases)
      const phases = await page().evaluate(() => (window.vpReport.D.phases || []).length);
      assert.equal(await page().locator('#vp-live-frametime rect.vp-phase').count(), phases);
      // the same columns as the static chart's (vp.charts)
      const doc = json('scripts/report.lua', SAMPLE, '--json');
      assert.deepEqual(cols.map((c) => [c.first, c.last]), doc.frametime.columns.map((c) => [c.first, c.last]));
      cols.forEach((c, i) => assert.ok(Math.abs(c.hi - doc.frametime.columns[i].hi) < 1e-9, `column ${i + 1}`));
      await page().locator('#frametime').screenshot({ path: path.join(OUT, 'live-frametime.png') });
    });

    it('zooms into a dragged range, showing those frames; the wheel zooms; shift+drag pans; Reset', async () => {
      const svg = '#vp-live-frametime svg';
      // drag from frame 3,000 to frame 3,200 (positions 2,999 and 3,199)
      await drag(page(), svg, xOf(2999.5, 0, 4000), xOf(3199.5, 0, 4000));
      const v = await page().evaluate(() => window.vpReport.view());
      // the pointer moves by whole pixels: 4.5 frames each at this zoom
      assert.ok(Math.abs(v.first - 3000) <= 7 && Math.abs(v.last - 3200) <= 7, JSON.stringify(v));
      const frames = json('tests/consumers/truth.lua', SAMPLE, String(v.first), String(v.last)).frames;
      const cols = await page().evaluate(() => window.vpReport.columns());
      assert.equal(cols.length, frames.length, 'a column per frame when the frames fit');
      cols.forEach((c, i) => {
        assert.equal(c.first, frames[i].frame);
        assert.ok(Math.abs(c.hi - frames[i].frame_ms) < 1e-9, `frame ${c.first}`);
      });
      // the drawn band reaches the slowest frame of the range: 3,100's 59.27 ms
      const top = await page().evaluate(() => {
        const env = document.querySelector('#vp-live-frametime path.envelope');
        const s = env.ownerSVGElement;
        return (Number(s.dataset.yZero) - env.getBBox().y) / Number(s.dataset.pxPerUnit);
      });
      assert.ok(Math.abs(top - Math.max(...frames.map((f) => f.frame_ms))) < 0.05, `the band's top is ${top} ms`);
      await page().locator('#frametime').screenshot({ path: path.join(OUT, 'live-frametime-zoomed.png') });
      // the wheel at the middle zooms in around it
      const mid = await chartPoint(page(), svg, ML + PW / 2);
      await page().mouse.move(mid.x, mid.y);
      await page().mouse.wheel(0, -100);
      const z = await page().evaluate(() => window.vpReport.view());
      assert.ok(z.last - z.first < v.last - v.first, JSON.stringify(z));
      assert.ok(z.first >= v.first && z.last <= v.last, JSON.stringify(z));
      // shift+drag to the left moves the view to later frames by the width dragged
      await drag(page(), svg, ML + PW * 0.75, ML + PW * 0.25, true);
      const p = await page().evaluate(() => window.vpReport.view());
      assert.equal(p.last - p.first, z.last - z.first);
      assert.ok(p.first > z.first, `${JSON.stringify(z)} -> ${JSON.stringify(p)}`);
      await page().locator('#vp-live-frametime .vp-reset').click();
      assert.deepEqual(await page().evaluate(() => window.vpReport.view()), { first: 1, last: 4000 });
    });

    it('shows a frame\'s number, tick, time and top group on hover', async () => {
      await page().evaluate(() => window.vpReport.setView(3090, 3110));
      const want = truth('frames', SAMPLE, '3100', '3100')[0];
      const at = await chartPoint(page(), '#vp-live-frametime svg', xOf(3099.5, 3089, 3110), 0.6);
      await page().mouse.move(at.x, at.y);
      const tip = await page().locator('.vp-tip').innerText();
      assert.match(tip, /frame 3,100 · tick 51,249/);
      near(/([\d.]+) ms/.exec(tip)[1], want.frame_ms, 'frame time');
      assert.match(tip, new RegExp(`top group: ${want.top_group}`));
      assert.match(tip, /hitch: \+44\.9\d ms over its baseline/);
      // another frame: its top group from the API
      const other = truth('frames', SAMPLE, '3095', '3095')[0];
      const at2 = await chartPoint(page(), '#vp-live-frametime svg', xOf(3094.5, 3089, 3110), 0.6);
      await page().mouse.move(at2.x, at2.y);
      const tip2 = await page().locator('.vp-tip').innerText();
      assert.match(tip2, new RegExp(`frame 3,095 · tick ${other.tick.toLocaleString('en-US')}`));
      assert.match(tip2, new RegExp(`top group: ${other.top_group}`));
      await page().evaluate(() => window.vpReport.setView(1, 4000));
    });

    it('opens a hitch\'s call tree from the hitch table: the API\'s node times, hitches.lua\'s causes', async () => {
      await page().locator('#hitches tr[data-frame="3100"]').click();
      const host = page().locator('#vp-live-tree');
      assert.equal(await host.getAttribute('data-frame'), '3100');
      const want = truth('tree', SAMPLE, '3100');
      const hit = json('scripts/hitches.lua', SAMPLE, '--json').hitches.find((x) => x.frame === 3100);
      // the causes first, as hitches.lua prints them
      const causes = await host.locator('table.vp-causes tbody tr').evaluateAll((rows) => rows.map((r) =>
        [...r.cells].map((c) => c.textContent)));
      assert.equal(causes.length, hit.causes.length);
      causes.forEach((c, i) => {
        assert.equal(c[0], hit.causes[i].path);
        assert.equal(c[1], hit.causes[i].group);
        near(c[2], hit.causes[i].self_ms, `${c[0]} self`);
        near(c[4], hit.causes[i].excess_ms, `${c[0]} excess`);
      });
      await page().locator('#tree').screenshot({ path: path.join(OUT, 'live-tree.png') });
      // the icicle: the cause is the reddest node, its time the API's
      const reddest = await host.locator('.vp-node').evaluateAll((els) => {
        const g = (e) => Number(/rgb\(\d+, (\d+)/.exec(getComputedStyle(e).backgroundColor)[1]);
        return els.reduce((best, e) => (g(e) < g(best) ? e : best)).dataset.path;
      });
      assert.equal(reddest, hit.causes[0].path);
      // every node in the table view
      await host.locator('button[data-mode="table"]').click();
      const rows = await host.locator('table.vp-tree-table tbody tr').evaluateAll((trs) => trs.map((r) => ({
        path: r.dataset.path, time: r.querySelector('.vp-time').textContent, self: r.querySelector('.vp-self').textContent,
        calls: r.querySelector('.vp-calls').textContent, excess: r.querySelector('.vp-excess').textContent })));
      assert.equal(rows.length, want.nodes.length);
      rows.forEach((r, i) => {
        const n = want.nodes[i];
        assert.equal(r.path, n.path);
        near(r.time, n.time_ms, `${n.path} time`);
        near(r.self, n.self_ms, `${n.path} self`);
        assert.equal(Number(r.calls.replace(/,/g, '')), n.calls, `${n.path} calls`);
        if (want.excess[n.path] != null) near(r.excess, want.excess[n.path], `${n.path} excess`);
        else assert.equal(r.excess, '', `${n.path} is not above its baseline`);
      });
      await host.locator('button[data-mode="icicle"]').click();
    });

    it('opens the tree of a frame clicked on the chart, and says when the page does not hold it', async () => {
      await page().evaluate(() => window.vpReport.setView(1195, 1205));
      const at = await chartPoint(page(), '#vp-live-frametime svg', xOf(5.5, 0, 11));
      await page().mouse.click(at.x, at.y);
      assert.equal(await page().locator('#vp-live-tree').getAttribute('data-frame'), '1200');
      const at2 = await chartPoint(page(), '#vp-live-frametime svg', xOf(2.5, 0, 11));
      await page().mouse.click(at2.x, at2.y);
      assert.equal(await page().locator('#vp-live-tree').getAttribute('data-frame'), '1197');
      assert.match(await page().locator('#vp-live-tree .vp-missing').innerText(), /--tree 1197/);
      await page().evaluate(() => window.vpReport.setView(1, 4000));
    });

    it('picks budget groups, stacked or as lines, each column the groups\' mean self time of its frames', async () => {
      const host = page().locator('#vp-live-budget');
      await host.getByRole('button', { name: 'none' }).click();
      await host.locator('input[data-group="Streaming"]').check();
      await host.locator('input[data-group="Physics"]').check();
      let got = await page().evaluate(() => window.vpReport.budget());
      assert.deepEqual(got.groups, ['Physics', 'Streaming']);
      assert.equal(await host.locator('path.vp-budget-band').count(), 2);
      await host.locator('button[data-mode="lines"]').click();
      got = await page().evaluate(() => window.vpReport.budget());
      assert.equal(got.stacked, false);
      assert.equal(await host.locator('path.vp-budget-line').count(), 2);
      for (const [k, name] of got.groups.entries()) {
        const per = truth('group', SAMPLE, name);
        for (const c of [got.columns[0], got.columns[Math.floor(got.columns.length / 2)], got.columns.at(-1)]) {
          const s = per.slice(c.first - 1, c.last);
          const mean = s.reduce((a, v) => a + v, 0) / s.length;
          assert.ok(Math.abs(c.vals[k] - mean) < 1e-9, `${name} frames ${c.first}..${c.last}: ${c.vals[k]} vs ${mean}`);
        }
      }
      await page().locator('#budget').screenshot({ path: path.join(OUT, 'live-budget.png') });
    });
  });

  describe('hitches by cause', () => {
    const capture = path.join(OUT, 'hitchy.vprof');
    const html = path.join(OUT, 'live-hitchy.html');
    before(async () => {
      vpscript('tests/consumers/report_truth.lua', 'hitchy', capture);
      vpscript('scripts/report.lua', capture, '-o', html);
      await open(html);
    });

    it('groups the hitches by their first cause and marks a cause\'s frames when it is clicked', async () => {
      const list = json('scripts/hitches.lua', capture, '--json').hitches;
      const rows = await page().locator('#causes tr[data-cause]').evaluateAll((trs) => trs.map((r) =>
        [...r.cells].map((c) => c.textContent)));
      const by = new Map();
      for (const x of list) {
        const c = x.causes[0];
        const e = by.get(c.path) || { path: c.path, count: 0, excess: 0, frames: [] };
        e.count++; e.excess += c.excess_ms; e.frames.push(x.frame);
        by.set(c.path, e);
      }
      const want = [...by.values()].sort((a, c) => c.excess - a.excess);
      assert.equal(rows.length, want.length);
      rows.forEach((r, i) => {
        assert.equal(r[0], want[i].path);
        assert.equal(Number(r[2]), want[i].count);
        near(r[3], want[i].excess, `${r[0]} total excess`);
      });
      await page().locator('#causes tr[data-cause="1"]').click();
      assert.deepEqual(await page().evaluate(() => window.vpReport.markedFrames()), want[0].frames);
      await page().locator('#causes tr[data-cause="2"]').click();
      assert.deepEqual(await page().evaluate(() => window.vpReport.markedFrames()), want[1].frames);
      await page().locator('#frametime').screenshot({ path: path.join(OUT, 'live-causes.png') });
    });
  });

  describe('against a baseline', () => {
    const base = 'examples/runs/base/run1.vprof', capture = 'examples/runs/new/run1.vprof';
    const html = path.join(OUT, 'live-compare.html');
    before(async () => {
      vpscript('scripts/report.lua', capture, '--baseline', base, '-o', html);
      await open(html);
    });

    it('lines both captures up on one timeline with compare\'s verdicts, the changed groups and nodes first',
      async () => {
        const doc = json('scripts/compare.lua', base, capture, '--json');
        const changed = await page().locator('#baseline table').first().locator('tbody tr td:first-child')
          .allInnerTexts();
        const want = doc.metrics.filter((m) => m.significant && ['worse', 'better'].includes(m.direction)
          && /^(group|node)\./.test(m.metric)).map((m) => m.metric);
        assert.deepEqual(changed, want);
        assert.equal(await page().locator('#vp-live-compare path.vp-side-0').count(), 1);
        assert.equal(await page().locator('#vp-live-compare path.vp-side-1').count(), 1);
      });

    it('shows the differential tree of the stretch clicked: the node totals\' change per frame', async () => {
      const svg = '#vp-live-compare svg';
      // stretch 3 of 10 of 3,000 frames: positions 600..899
      const at = await chartPoint(page(), svg, xOf(750, 0, 3000));
      await page().mouse.click(at.x, at.y);
      assert.deepEqual(await page().evaluate(() => window.vpReport.compare.stretches()), { first: 3, last: 3 });
      const a = truth('stretch', base, '10', '3'), c = truth('stretch', capture, '10', '3');
      const rows = await page().locator('#vp-live-compare table.vp-diff-table tbody tr').evaluateAll((trs) =>
        trs.map((r) => ({ path: r.dataset.path, cells: [...r.cells].map((x) => x.textContent) })));
      assert.ok(rows.length >= 3);
      for (const r of rows) {
        near(r.cells[2], a.nodes[r.path].self_ms / a.frames, `${r.path} baseline self`);
        near(r.cells[3], c.nodes[r.path].self_ms / c.frames, `${r.path} capture self`);
        near(r.cells[5], c.nodes[r.path].time_ms / c.frames - a.nodes[r.path].time_ms / a.frames, `${r.path} change`);
      }
      await page().locator('#baseline').screenshot({ path: path.join(OUT, 'live-compare.png') });
    });
  });

  it('a 100,000-frame page becomes interactive in under 2 s', async () => {
    // the long example capture shapes: sample.vprof's frames 25 times over
    const big = path.join(OUT, 'big.vprof');
    vpscript('-e', `local w = vp.writer("vprof", ${JSON.stringify(big)}); w:default_groups()
      local f = w:node(w.root_id, "CEngine::Frame", 3); local kids = {}
      for k = 1, 40 do kids[k] = w:node(f, "Node" .. k, k % 31) end
      for i = 1, 100000 do local t = {[w.root_id] = 0, [f] = 0}; local s = 0
        for k = 1, 40 do local us = 200 + (i * k * 7919) % 300; if i % 4999 == 0 and k == 7 then us = us + 40000 end
          t[kids[k]] = us; s = s + us end
        t[f] = s; w:frame(i, t) end
      w:close()`);
    const html = path.join(OUT, 'live-big.html');
    vpscript('scripts/report.lua', big, '-o', html);
    const ms = await open(html);
    assert.ok(ms < 2000, `interactive after ${ms} ms`);
    const cols = await page().evaluate(() => window.vpReport.columns().length);
    assert.equal(cols, 960);
  });
});
