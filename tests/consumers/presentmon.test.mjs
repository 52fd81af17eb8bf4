// csv-parse (an RFC 4180 parser from npm) reads our PresentMon and per-frame
// CSV files: the documented PresentMon columns in order with their fill
// values (docs/export.md), one row per frame whose msBetweenPresents is the
// frame time vpscript's API reports and whose TimeInSeconds is the running
// total; a laige budget report's rows match hitches.lua's frame count and
// worst frame.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { exported, requireModule, truth, vpscript } from './lib.mjs';

const { parse } = requireModule('csv-parse/sync');
const read = (file) => parse(readFileSync(file), { columns: true, strict: true, skip_empty_lines: false });

const COLUMNS = ['Application', 'ProcessID', 'SwapChainAddress', 'Runtime', 'SyncInterval', 'PresentFlags',
  'AllowsTearing', 'PresentMode', 'WasBatched', 'DwmNotified', 'Dropped', 'TimeInSeconds', 'msInPresentAPI',
  'msBetweenPresents', 'msBetweenDisplayChange', 'msUntilRenderComplete', 'msUntilDisplayed'];
const FILL = { ProcessID: '0', SwapChainAddress: '0x0000000000000000', Runtime: 'Other', SyncInterval: '0',
  PresentFlags: '0', AllowsTearing: '0', PresentMode: 'Unknown', WasBatched: '0', DwmNotified: '0', Dropped: '0',
  msInPresentAPI: '0.000', msUntilRenderComplete: '0.000', msUntilDisplayed: '0.000' };

describe('csv-parse', () => {
  it('reads our PresentMon CSV of a VProf capture: columns, fill values, frame times', () => {
    const rows = read(exported('sample.presentmon.csv', 'examples/sample.vprof', '--to', 'presentmon'));
    const want = truth('examples/sample.vprof');
    assert.deepEqual(Object.keys(rows[0]), COLUMNS);
    assert.equal(rows.length, want.frames.length);
    let t = 0;
    rows.forEach((r, i) => {
      const ms = want.frames[i].frame_ms;
      t += ms;
      assert.equal(r.Application, 'sample.vprof');
      for (const [k, v] of Object.entries(FILL)) assert.equal(r[k], v, `row ${i + 1} ${k}`);
      assert.ok(Math.abs(Number(r.msBetweenPresents) - ms) < 5e-4, `row ${i + 1}: ${r.msBetweenPresents} vs ${ms}`);
      assert.equal(r.msBetweenDisplayChange, r.msBetweenPresents);
      assert.ok(Math.abs(Number(r.TimeInSeconds) - t / 1000) < 5e-6, `row ${i + 1}: TimeInSeconds ${r.TimeInSeconds}`);
    });
  });

  it('reads the PresentMon CSV of a laige budget report: a row per frame, the worst frame', () => {
    const capture = 'examples/laige/budget_fail.txt';
    const rows = read(exported('laige.presentmon.csv', capture, '--to', 'presentmon'));
    const doc = JSON.parse(vpscript('scripts/hitches.lua', capture, '--json').toString('utf8'));
    assert.deepEqual(Object.keys(rows[0]), COLUMNS);
    assert.equal(rows.length, doc.frames);
    assert.equal(Math.max(...rows.map((r) => Number(r.msBetweenPresents))), doc.frame_ms.max);
  });

  it('reads our per-frame CSV: a row per frame, the group columns add up to no more than the frame', () => {
    const rows = read(exported('s.frames.csv', 'examples/sample.vprof', '--to', 'csv', '--frames', '1101:1300',
      '--node', 'Root/CEngine::Frame/FileSystem_Update/Stream_Update/Stream_LoadChunk'));
    const want = truth('examples/sample.vprof', 1101, 1300);
    assert.equal(rows.length, 200);
    const fixed = ['frame', 'tick', 'start_ms', 'frame_ms', 'node_ms', 'node_self_ms', 'node_calls'];
    let start = 0;
    rows.forEach((r, i) => {
      assert.equal(Number(r.frame), want.frames[i].frame);
      assert.ok(Math.abs(Number(r.frame_ms) - want.frames[i].frame_ms) < 5e-4);
      assert.ok(Math.abs(Number(r.start_ms) - start) < 5e-3, `frame ${r.frame} start ${r.start_ms} vs ${start}`);
      start += want.frames[i].frame_ms;
      const groups = Object.keys(r).filter((k) => !fixed.includes(k));
      const sum = groups.reduce((a, k) => a + Number(r[k] || 0), 0);
      assert.ok(sum <= Number(r.frame_ms) + 0.05, `frame ${r.frame}: groups ${sum} > frame ${r.frame_ms}`);
    });
    const hitch = rows.find((r) => r.frame === '1200');
    assert.ok(Number(hitch.node_self_ms) >= 30, `Stream_LoadChunk in frame 1200: ${hitch.node_self_ms}`);
  });
});
