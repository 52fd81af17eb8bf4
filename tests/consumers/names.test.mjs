// Names that inject (issue 27), read back by parsers nobody here wrote:
// markdown-it (CommonMark with GitHub's tables, HTML and linkify on, as a
// job summary renders) parses compare.lua --markdown of captures whose node
// and group names carry backticks, headings, HTML, links, pipes and line
// breaks; csv-parse reads top.lua --csv of the same names. A name stays
// inside its code span or its field: the documents have the tokens of the
// same comparison with plain names, and no HTML, link or extra heading.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { requireModule, vpscript } from './lib.mjs';

const MarkdownIt = requireModule('markdown-it');
const { parse } = requireModule('csv-parse/sync');

const dir = mkdtempSync(path.join(os.tmpdir(), 'vpscript-names-'));
// tests/hostile/gen.lua CASE --n K: the capture with the times K times as long.
function gen(name, k) {
  const d = mkdtempSync(path.join(dir, `${name}-${k}-`));
  vpscript('tests/hostile/gen.lua', d, name, '--n', String(k));
  return path.join(d, `${name}.vprof`);
}
const hostile = gen('vprof_hostile_names', 1), hostileSlow = gen('vprof_hostile_names', 2);
const plain = gen('vprof_plain_names', 1), plainSlow = gen('vprof_plain_names', 2);

const md = new MarkdownIt({ html: true, linkify: true });

// A document's block tokens in order (headings, tables, rows, cells, list
// items: its structure), its inline tokens' types, and its code spans.
function tokens(a, b) {
  const text = vpscript('scripts/compare.lua', a, b, '--markdown', '--limit', '0').toString('utf8');
  const types = [], inline = [], spans = [];
  for (const t of md.parse(text, {})) {
    types.push(t.type);
    for (const c of t.children || []) {
      inline.push(c.type);
      if (c.type === 'code_inline') spans.push(c.content);
    }
  }
  return { types, inline, spans };
}

describe('markdown-it', () => {
  it('reads compare.lua --markdown of hostile names with the structure of plain names', () => {
    const h = tokens(hostile, hostileSlow), p = tokens(plain, plainSlow);
    assert.deepEqual(h.types, p.types);
    for (const bad of ['html_inline', 'html_block', 'link_open', 'image']) {
      assert.ok(!h.types.includes(bad) && !h.inline.includes(bad), bad);
    }
    // each name is a code span's content, with its control bytes shown as escapes
    assert.ok(h.spans.some((s) => s.includes('osc\\x1b]0;pwned\\x07title')), 'the OSC name');
    assert.ok(h.spans.some((s) => s.includes('<img src=x onerror=alert(1)>')), 'the HTML name, as text');
    assert.ok(h.spans.some((s) => s.includes('tick`s` and ``more``')), 'the backticks name');
    assert.ok(h.spans.some((s) => s.includes('pipe|in|name')), 'the pipes name');
  });

  it('reads the only-in lists: one item per node and group, headings only ours', () => {
    const h = tokens(plain, hostile), p = tokens(plain, plain);
    const count = (l, type) => l.types.filter((t) => t === type).length;
    assert.equal(count(h, 'heading_open'), count(p, 'heading_open') + 2); // "only in A", "only in B"
    assert.equal(count(h, 'list_item_open'), 4 * 18);
    for (const bad of ['html_inline', 'html_block', 'link_open']) {
      assert.equal(count(h, bad) + h.inline.filter((t) => t === bad).length, 0, bad);
    }
  });
});

describe('csv-parse', () => {
  it('reads top.lua --csv of hostile names: one record per node, formulas quoted as text', () => {
    const text = vpscript('scripts/top.lua', hostile, '--csv', '--limit', '0');
    const rows = parse(text, { columns: true, strict: true, relax_column_count: false });
    assert.equal(rows.length, 19); // A and the 18 names
    const paths = rows.map((r) => r.path);
    assert.ok(paths.includes('Root/A/forged\n::error::ALL GATES PASSED'));
    assert.ok(paths.includes('Root/A/pipe|in|name'));
    for (const r of rows) assert.ok(!/^[=+\-@\t\r]/.test(r.path) && !/^[=+\-@\t\r]/.test(r.group), r.path);
    assert.ok(rows.some((r) => r.group === "'=HYPERLINK(\"http://evil.example\")"), 'the formula group');
  });
});
