// Chrome DevTools' own trace engine (@paulirish/trace_engine: the
// Performance panel's model, run under node) reads our Chrome Trace Event
// export and builds its call tree; the tree is checked against what
// vpscript's API says about the same frames: each frame's top-level events
// add up to its frame time, every child lies inside its parent, and the
// trace spans the frames' total time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exported, moduleUrl, truth } from './lib.mjs';

const FIRST = 1101, LAST = 1300; // the streaming hitch (frame 1200) inside

describe('DevTools trace engine', () => {
  it('parses our chrome export into one tree per frame that adds up to the frame times', async () => {
    const { analyzeTrace } = await import(moduleUrl('@paulirish/trace_engine/analyze-trace.mjs'));
    const file = exported(`c${FIRST}-${LAST}.trace.json`, 'examples/sample.vprof', '--to', 'chrome',
      '--frames', `${FIRST}:${LAST}`);
    const want = truth('examples/sample.vprof', FIRST, LAST);
    const { parsedTrace } = await analyzeTrace(file);
    const threads = [...parsedTrace.data.Renderer.processes.values()].flatMap((p) => [...p.threads.values()]);
    assert.equal(threads.length, 1);
    const thread = threads[0];
    assert.equal(thread.name, 'frames');

    // frame i occupies [start_i, start_i + frame_ms_i) in microseconds
    const starts = [];
    let t = 0;
    for (const f of want.frames) { starts.push(t); t += f.frame_ms * 1000; }
    const roots = [...thread.tree.roots].sort((a, b) => a.entry.ts - b.entry.ts);
    const sums = new Array(want.frames.length).fill(0);
    let k = 0;
    for (const r of roots) {
      const ts = Number(r.entry.ts);
      while (k + 1 < starts.length && ts >= starts[k + 1] - 1) k++;
      sums[k] += Number(r.entry.dur);
    }
    want.frames.forEach((f, i) => {
      // whole microseconds: one rounding per top-level event
      assert.ok(Math.abs(sums[i] - f.frame_ms * 1000) <= 1,
        `frame ${f.frame}: the engine's top-level events add up to ${sums[i]} us, the frame is ${f.frame_ms} ms`);
    });

    // every node the engine nested lies inside its parent
    let nodes = 0;
    const walk = (n) => {
      nodes++;
      for (const c of n.children) {
        assert.ok(c.entry.ts >= n.entry.ts && c.entry.ts + c.entry.dur <= n.entry.ts + n.entry.dur,
          `${c.entry.name} outside ${n.entry.name}`);
        walk(c);
      }
    };
    roots.forEach(walk);
    assert.equal(nodes, thread.entries.length, 'every complete event is in the tree');
    assert.ok(nodes > 200 * 50, `${nodes} events`);

    // the hitch frame's slowest path is in the tree with its time
    const hitch = want.frames.find((f) => f.frame === 1200);
    assert.ok(hitch.frame_ms > 40);
    const chunk = thread.entries.filter((e) => e.name === 'Stream_LoadChunk');
    assert.ok(chunk.some((e) => Math.abs(Number(e.dur) - 30000) <= 1), 'the 30 ms Stream_LoadChunk of frame 1200');
  });
});
