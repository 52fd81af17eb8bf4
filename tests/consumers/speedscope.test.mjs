// speedscope reads our speedscope, collapsed-stack and Chrome files: its
// JSON schema (file-format-schema.json, validated by ajv) and its app
// (dist/release/index.html from the npm package, in headless Chromium: the
// file goes through its own importers). Values are read back from the
// app's Sandwich table, not from our files.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  HAVE_CHROMIUM, CHROMIUM, MODULES, browserPage, displayed, exported, readJson, requireModule, shownPrecision, truth,
} from './lib.mjs';

const APP = 'file://' + path.join(MODULES, 'speedscope/dist/release/index.html');

// Folded lines -> {symbol: microseconds of self time} (the last frame of
// each stack), and the total.
function foldedSelf(file) {
  const self = {}, stacks = {};
  let total = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const cut = line.lastIndexOf(' ');
    const stack = line.slice(0, cut);
    const us = Number(line.slice(cut + 1));
    const sym = stack.slice(stack.lastIndexOf(';') + 1);
    self[sym] = (self[sym] || 0) + us;
    stacks[sym] = (stacks[sym] || 0) + 1;
    total += us;
  }
  return { self, stacks, total };
}

// Import `file` into the app; returns the page's text once it shows it.
async function load(page, file) {
  await page.goto(APP);
  await page.locator('input[type=file]').setInputFiles(file);
  await page.getByText('Sandwich').waitFor();
  await page.waitForFunction(() => !document.body.innerText.includes('Drag and drop'), null, { timeout: 60000 });
  return page.evaluate(() => document.body.innerText);
}

// The Sandwich table's rows: [{total, self, symbol}] (the text as shown).
async function sandwich(page) {
  await page.getByText('Sandwich').click();
  await page.getByText('Symbol Name').waitFor();
  const text = await page.evaluate(() => document.body.innerText);
  const lines = text.slice(text.indexOf('Symbol Name') + 'Symbol Name'.length).split('\n')
    .map((l) => l.trim()).filter((l) => l);
  const rows = [];
  for (let i = 0; i + 2 < lines.length; i += 3) {
    rows.push({ total: lines[i], self: lines[i + 1], symbol: lines[i + 2] });
  }
  return rows.filter((r) => /^[\d,.]/.test(r.total) && /^[\d,.]/.test(r.self));
}

// A symbol's self time over frames FIRST..LAST as the folded export says it
// (checked against vpscript's API), and the sandwich rows of a symbol at one
// place in the tree compared with it (speedscope keeps namesakes at
// different paths apart; collapsed stacks merge them).
function assertSelfTimes(rows, want) {
  const one = rows.filter((r) => want.stacks[r.symbol] === 1);
  assert.ok(one.length >= 8, `${one.length} rows to compare`);
  for (const r of one) {
    const got = displayed(r.self);
    assert.ok(Math.abs(got - want.self[r.symbol]) <= shownPrecision(r.self),
      `${r.symbol}: speedscope shows ${r.self}, folded says ${want.self[r.symbol]} us`);
  }
}

// The folded file's stacks are the API's self-time totals, path by path.
function assertFoldedIsTruth(file, first, last) {
  const api = truth('examples/sample.vprof', first, last).self_us;
  let n = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const cut = line.lastIndexOf(' ');
    const stack = line.slice(0, cut), us = Number(line.slice(cut + 1));
    assert.ok(stack in api, `${stack} is no node`);
    assert.ok(Math.abs(us - api[stack]) <= 1, `${stack}: folded ${us} us, the API ${api[stack]} us`);
    n++;
  }
  const nonzero = Object.values(api).filter((us) => us >= 0.5).length;
  assert.equal(n, nonzero, 'a line per node with self time');
}

describe('speedscope file-format schema', () => {
  it('validates our speedscope files against its file-format schema (ajv)', () => {
    const Ajv = requireModule('ajv');
    const schema = readJson(path.join(MODULES, 'speedscope/dist/release/file-format-schema.json'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    for (const opts of [[], ['--per-frame']]) {
      const file = exported(`schema${opts.join('')}.speedscope.json`, 'examples/sample.vprof', '--to', 'speedscope',
        '--frames', '1:200', ...opts);
      const ok = validate(readJson(file));
      assert.ok(ok, JSON.stringify(validate.errors?.slice(0, 3)));
    }
  });
});

describe('speedscope', { skip: !HAVE_CHROMIUM && `SKIPPED: no Chromium at ${CHROMIUM} (make deps installs Debian's chromium)` }, () => {
  let b;
  before(async () => { b = await browserPage(); });
  after(async () => { await b?.close(); });

  it('imports collapsed stacks: each symbol\'s self time equals the folded self-time totals', async () => {
    const file = exported('sample.folded', 'examples/sample.vprof', '--to', 'folded');
    assertFoldedIsTruth(file);
    const want = foldedSelf(file);
    const text = await load(b.page, file);
    assert.match(text, /sample\.folded/);
    const rows = await sandwich(b.page);
    assert.ok(rows.length >= 10, `the Sandwich table shows ${rows.length} rows`);
    for (const r of rows) {
      assert.equal(displayed(r.self), want.self[r.symbol], `self of ${r.symbol}: speedscope ${r.self}`);
    }
    const root = rows.find((r) => r.symbol === 'Root');
    if (root) assert.equal(displayed(root.total), want.total);
    assert.deepEqual(b.requests, []);
  });

  it('imports our speedscope file: its self times equal the folded totals of the same frames', async () => {
    const folded = exported('s300.folded', 'examples/sample.vprof', '--to', 'folded', '--frames', '1:300');
    assertFoldedIsTruth(folded, 1, 300);
    const want = foldedSelf(folded);
    const file = exported('s300.speedscope.json', 'examples/sample.vprof', '--to', 'speedscope', '--frames', '1:300');
    await load(b.page, file);
    const rows = await sandwich(b.page);
    assertSelfTimes(rows, want);
    // the profile's total: the top frame's total time is the frames' total
    const total = truth('examples/sample.vprof', 1, 300).frames.reduce((a, f) => a + f.frame_ms * 1000, 0);
    const top = rows.find((r) => r.symbol === 'CEngine::Frame');
    assert.ok(Math.abs(displayed(top.total) - total) <= shownPrecision(top.total),
      `CEngine::Frame total ${top.total}, the frames ${total} us`);
  });

  it('imports --per-frame as one profile per frame, named by frame', async () => {
    const file = exported('pf.speedscope.json', 'examples/sample.vprof', '--to', 'speedscope', '--per-frame',
      '--frames', '1195:1205');
    const text = await load(b.page, file);
    assert.match(text, /frame 1195 \(tick \d+, [\d.]+ ms\) \(1\/11\)/);
  });

  it('imports our Chrome trace (Trace Event Format)', async () => {
    const file = exported('c200.trace.json', 'examples/sample.vprof', '--to', 'chrome', '--frames', '1:200');
    const text = await load(b.page, file);
    assert.match(text, /sample\.vprof \(pid 1\), frames \(tid 1\)/);
    // speedscope's Chrome importer names a frame by the event's name and
    // args, so each instance's args (calls, self_ms) make it a symbol of its
    // own, merged only with instances of the same args: a row's self time,
    // which speedscope works out from the nesting, is a whole number of
    // instances of the self_ms our args state.
    const rows = await sandwich(b.page);
    assert.ok(rows.length >= 10, `${rows.length} rows`);
    for (const r of rows) {
      const m = /^(\S+) (\{.*\})$/.exec(r.symbol);
      assert.ok(m, `symbol ${r.symbol}`);
      const args = JSON.parse(m[2]);
      assert.ok(args.path.endsWith('/' + m[1]), `${m[1]} is not the end of ${args.path}`);
      const one = args.self_ms * 1000, got = displayed(r.self), k = Math.round(got / one);
      assert.ok(k >= 1 && Math.abs(got - k * one) <= shownPrecision(r.self) + k,
        `${r.symbol}: speedscope's self ${r.self} is not a multiple of self_ms ${args.self_ms}`);
    }
  });
});
