// report.js: the interactive views of report.lua's page. vp.html inlines
// this file after the page's data (<script type="application/json"
// id="vp-data">, vp.overview's `explore` as vp.html packs it); with
// scripting off the page keeps its static charts and tables, and nothing
// here is needed. No request to anywhere: everything is in the page.
//
// Views: the frame-time chart (drag a range to zoom, the wheel zooms at
// the pointer, shift+drag or shift+wheel pans, Reset; each pixel column
// shows its fastest..slowest frame at every zoom; target lines, phases,
// hitches; hovering shows a frame's number, tick, time and top group; a
// click opens its call tree), the call tree of a frame (icicle, flame or
// table; a hitch frame's nodes coloured by their excess over their own
// baseline, its causes first), the hitches grouped by cause (a click marks
// a cause's frames), the budget groups over time (any groups, stacked or
// as lines, zoomed with the frame-time chart), and with a baseline both
// captures on one timeline with a differential tree of the stretches
// chosen. The figures are vpscript's (vp.hitches, the capture API,
// vp.compare): this file only draws them, and picks the frames of a pixel
// column by the split vp.charts uses (charts.span).
(function () {
  'use strict';
  const dataEl = document.getElementById('vp-data');
  if (!dataEl) return;
  const D = JSON.parse(dataEl.textContent);
  document.documentElement.classList.add('vp-js');

  const SVGNS = 'http://www.w3.org/2000/svg';
  const W = 960, H = 300, ML = 60, MR = 16, MT = 30, MB = 40;
  const PW = W - ML - MR, PH = H - MT - MB;
  const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7',
    '#9c755f', '#bab0ac', '#1f77b4', '#aec7e8', '#ff7f0e', '#ffbb78', '#2ca02c', '#98df8a', '#d62728', '#ff9896',
    '#9467bd', '#c5b0d5', '#8c564b', '#c49c94', '#e377c2', '#f7b6d2', '#7f7f7f', '#c7c7c7', '#bcbd22', '#dbdb8d',
    '#17becf', '#9edae5'];

  // ---- the data ------------------------------------------------------------------------------

  // vp.html's packing: unsigned LEB128 varints (zigzag when signed), base64.
  function unpack(s, signed) {
    const bin = atob(s || '');
    let count = 0;
    for (let i = 0; i < bin.length; i++) if (bin.charCodeAt(i) < 128) count++;
    const out = new Float64Array(count);
    let v = 0, mul = 1, k = 0;
    for (let i = 0; i < bin.length; i++) {
      const b = bin.charCodeAt(i);
      v += (b & 127) * mul;
      if (b < 128) {
        out[k++] = signed ? (v % 2 ? -(v + 1) / 2 : v / 2) : v;
        v = 0;
        mul = 1;
      } else {
        mul *= 128;
      }
    }
    return out;
  }

  // A frame column: times (ms), ticks, top groups; positions 0..count-1.
  function frameColumn(f) {
    const units = unpack(f.ms);
    const ms = new Float64Array(units.length);
    for (let i = 0; i < units.length; i++) ms[i] = units[i] * f.unit_ms;
    let tick = null;
    if (f.tick) {
      tick = unpack(f.tick, true);
      for (let i = 1; i < tick.length; i++) tick[i] += tick[i - 1];
    }
    return { first: f.first, n: ms.length, ms, tick, top: f.top ? unpack(f.top) : null };
  }

  const fmtMs = (v) => (v == null ? '-' : Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 10 ? v.toFixed(2)
    : v.toFixed(3));
  const fmtInt = (v) => String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const signed = (v, f) => (v > 0 ? '+' : v < 0 ? '\u2212' : '') + f(Math.abs(v));

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  function sv(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v != null) e.setAttribute(k, v);
    return e;
  }
  const px = (v) => (Math.round(v * 10) / 10).toString();

  // 1/2/5 x 10^k steps giving about `count` ticks from 0 (vp.svg's axis).
  function ticks(max, count) {
    if (!(max > 0)) return { step: 1, top: 1 };
    const raw = max / (count || 5), mag = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = mag;
    for (const m of [1, 2, 5, 10]) if (m * mag >= raw) { step = m * mag; break; }
    return { step, top: Math.ceil(max / step - 1e-9) * step };
  }

  // The positions column c of `cols` over positions a..b-1 holds (charts.span).
  function span(c, cols, a, b) {
    const n = b - a;
    return [a + Math.floor(c * n / cols), a + Math.floor((c + 1) * n / cols)];
  }
  function envelope(vals, a, b) {
    const cols = Math.min(W, b - a), lo = new Float64Array(cols), hi = new Float64Array(cols);
    const slow = new Int32Array(cols);
    for (let c = 0; c < cols; c++) {
      const [s, e] = span(c, cols, a, b);
      let l = Infinity, h = -Infinity, at = s;
      for (let i = s; i < e; i++) {
        const v = vals[i];
        if (v < l) l = v;
        if (v > h) { h = v; at = i; }
      }
      lo[c] = l; hi[c] = h; slow[c] = at;
    }
    return { cols, lo, hi, slow, a, b };
  }

  // A zoom range over n positions, shared by the charts that show it.
  function View(n) {
    const v = { a: 0, b: n, n, subs: [] };
    v.set = (a, b) => {
      const min = Math.min(n, 5);
      a = Math.round(a); b = Math.round(b);
      if (b - a < min) { const m = (a + b) / 2; a = Math.round(m - min / 2); b = a + min; }
      if (a < 0) { b -= a; a = 0; }
      if (b > n) { a -= b - n; b = n; }
      v.a = Math.max(0, a); v.b = Math.min(n, b);
      v.subs.forEach((f) => f());
    };
    v.zoom = (factor, at) => { // at: the position kept under the pointer
      const a = at - (at - v.a) * factor, b = at + (v.b - at) * factor;
      v.set(a, b);
    };
    v.pan = (d) => { const w = v.b - v.a; const a = Math.max(0, Math.min(n - w, v.a + d)); v.set(a, a + w); };
    return v;
  }

  // An empty chart: the <svg>, its value axis and the frame axis of view v
  // (positions numbered from `first`), and x(position) / y(value) / pos(x).
  function axes(g, v, first, ymax, ylabel, xlabel) {
    g.replaceChildren();
    const t = ticks(ymax);
    const scale = PH / t.top, y0 = MT + PH;
    const y = (val) => y0 - val * scale;
    const w = v.b - v.a;
    // as vp.svg's charts: the pixel row of 0 and pixels per unit, for a reader
    g.ownerSVGElement.dataset.yZero = y0;
    g.ownerSVGElement.dataset.pxPerUnit = scale;
    const x = (p) => ML + (p - v.a) / w * PW;
    g.append(sv('rect', { x: 0, y: 0, width: W, height: H, fill: '#fff' }));
    for (let val = 0; val <= t.top + t.step / 2; val += t.step) {
      g.append(sv('line', { x1: ML, x2: ML + PW, y1: px(y(val)), y2: px(y(val)), stroke: '#ddd' }));
      const tx = sv('text', { x: ML - 6, y: px(y(val) + 4), 'text-anchor': 'end' });
      tx.textContent = String(+val.toFixed(6));
      g.append(tx);
    }
    const xt = ticks(Math.max(1, w - 1), 8);
    for (let f = Math.ceil((first + v.a) / xt.step) * xt.step; f <= first + v.b - 1; f += xt.step) {
      const xx = x(f - first + 0.5);
      g.append(sv('line', { x1: px(xx), x2: px(xx), y1: MT + PH, y2: MT + PH + 4, stroke: '#999' }));
      const tx = sv('text', { x: px(xx), y: MT + PH + 16, 'text-anchor': 'middle', class: 'xtick' });
      tx.textContent = String(f);
      g.append(tx);
    }
    const yl = sv('text', { x: 14, y: px(MT + PH / 2), transform: `rotate(-90 14 ${px(MT + PH / 2)})`,
      'text-anchor': 'middle' });
    yl.textContent = ylabel;
    const xl = sv('text', { x: px(ML + PW / 2), y: MT + PH + 34, 'text-anchor': 'middle' });
    xl.textContent = xlabel;
    g.append(yl, xl);
    return { x, y, top: t.top, pos: (xx) => v.a + (xx - ML) / PW * w };
  }

  // The envelope as vp.svg draws it: one band, the slowest values left to
  // right and the fastest back, outlined so a one-frame column is a line;
  // a column without frames (past a shorter run's end) breaks it.
  function band(env, y, color, cls, opacity) {
    const cw = PW / env.cols;
    const parts = [];
    let top = [], bottom = [];
    const flush = () => {
      if (top.length) parts.push(top.join('') + bottom.reverse().join('') + 'Z');
      top = []; bottom = [];
    };
    for (let c = 0; c < env.cols; c++) {
      if (!(env.hi[c] >= env.lo[c])) { flush(); continue; }
      const xx = px(ML + (c + 0.5) * cw);
      top.push(`${top.length ? 'L' : 'M'}${xx} ${px(y(env.hi[c]))}`);
      bottom.push(`L${xx} ${px(y(env.lo[c]))}`);
    }
    flush();
    return sv('path', { class: cls, d: parts.join(''), fill: color, stroke: color, 'stroke-width': 1,
      'stroke-linejoin': 'round', 'fill-opacity': opacity, 'stroke-opacity': opacity });
  }

  // Drag to zoom (shift+drag pans), wheel to zoom (shift+wheel pans), a
  // click without a drag calls onClick(x): the pointer handling of a chart.
  function interact(svg, v, onClick, onHover, onLeave) {
    let down = null, sel = null;
    const local = (ev) => {
      const r = svg.getBoundingClientRect();
      return (ev.clientX - r.left) * W / r.width;
    };
    const posOf = (xx) => v.a + (Math.min(Math.max(xx, ML), ML + PW) - ML) / PW * (v.b - v.a);
    svg.addEventListener('mousedown', (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      down = { x: local(ev), shift: ev.shiftKey, a: v.a, b: v.b, moved: false };
    });
    window.addEventListener('mousemove', (ev) => {
      if (!down) return;
      const xx = local(ev);
      if (Math.abs(xx - down.x) > 3) down.moved = true;
      if (!down.moved) return;
      if (down.shift) {
        const d = (down.x - xx) / PW * (down.b - down.a);
        const w = down.b - down.a;
        const a = Math.max(0, Math.min(v.n - w, down.a + d));
        v.set(a, a + w);
      } else {
        if (!sel) { sel = sv('rect', { class: 'vp-sel', y: MT, height: PH, fill: '#4e79a7', 'fill-opacity': 0.15 }); }
        const l = Math.max(ML, Math.min(down.x, xx)), r = Math.min(ML + PW, Math.max(down.x, xx));
        sel.setAttribute('x', px(l));
        sel.setAttribute('width', px(Math.max(0, r - l)));
        svg.append(sel);
      }
    });
    window.addEventListener('mouseup', (ev) => {
      if (!down) return;
      const d = down;
      down = null;
      if (sel) { sel.remove(); sel = null; }
      const xx = local(ev);
      if (!d.moved) { if (onClick) onClick(xx); return; }
      if (d.shift) return;
      const p1 = posOf(Math.min(d.x, xx)), p2 = posOf(Math.max(d.x, xx));
      v.set(Math.floor(p1), Math.ceil(p2));
    });
    svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const xx = local(ev);
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        v.pan((ev.deltaX || ev.deltaY) / PW * (v.b - v.a));
      } else {
        v.zoom(ev.deltaY > 0 ? 1.25 : 0.8, posOf(xx));
      }
    }, { passive: false });
    if (onHover) svg.addEventListener('mousemove', (ev) => { if (!down) onHover(local(ev), ev); });
    if (onLeave) svg.addEventListener('mouseleave', onLeave);
  }

  function toolbar(v, first, what, hint) {
    const label = el('span', { class: 'vp-range' });
    const update = () => {
      label.textContent = `${what} ${fmtInt(first + v.a)}..${fmtInt(first + v.b - 1)} of ${fmtInt(v.n)}`;
    };
    v.subs.push(update);
    update();
    const w = () => v.b - v.a;
    return el('div', { class: 'vp-toolbar' },
      el('button', { type: 'button', text: 'Reset', class: 'vp-reset', onclick: () => v.set(0, v.n) }),
      el('button', { type: 'button', text: '\u2212', title: 'zoom out', onclick: () => v.zoom(1.5, (v.a + v.b) / 2) }),
      el('button', { type: 'button', text: '+', title: 'zoom in', onclick: () => v.zoom(1 / 1.5, (v.a + v.b) / 2) }),
      el('button', { type: 'button', text: '\u25c0', title: 'pan left', onclick: () => v.pan(-w() / 2) }),
      el('button', { type: 'button', text: '\u25b6', title: 'pan right', onclick: () => v.pan(w() / 2) }),
      label,
      el('span', { class: 'vp-hint', text: hint }));
  }

  const tip = el('div', { class: 'vp-tip', role: 'tooltip' });
  document.body.append(tip);
  function showTip(ev, lines) {
    tip.replaceChildren(...lines.map((l) => el('div', { text: l })));
    tip.style.display = 'block';
    const x = Math.min(ev.pageX + 14, window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 8);
    tip.style.left = x + 'px';
    tip.style.top = (ev.pageY + 14) + 'px';
  }
  const hideTip = () => { tip.style.display = 'none'; };

  // ---- the capture's frames ------------------------------------------------------------------

  const app = { D };
  window.vpReport = app;
  if (!D.frames) return;
  const F = frameColumn(D.frames);
  const groups = D.groups || [];
  const hitchAt = new Map();
  const HL = D.hitches || { frame: [] };
  HL.frame.forEach((f, i) => hitchAt.set(f, i));
  const view = View(F.n);
  app.view = () => ({ first: F.first + view.a, last: F.first + view.b - 1 });
  app.setView = (first, last) => view.set(first - F.first, last - F.first + 1);
  const state = { frame: null, cause: null };
  const causes = D.causes || [];

  function frameLines(p) {
    const f = F.first + p;
    const lines = [`frame ${fmtInt(f)}` + (F.tick ? ` \u00b7 tick ${fmtInt(F.tick[p])}` : ''),
      `${fmtMs(F.ms[p])} ms`];
    if (F.top) lines.push('top group: ' + (F.top[p] > 0 ? groups[F.top[p] - 1].name : 'none'));
    const h = hitchAt.get(f);
    if (h != null) {
      lines.push(`hitch: ${signed(HL.frame_ms[h] - HL.baseline_ms[h], fmtMs)} ms over its baseline `
        + `${fmtMs(HL.baseline_ms[h])} ms`);
    }
    return lines;
  }

  // The frame-time chart.
  const ftHost = document.getElementById('vp-live-frametime');
  if (ftHost) {
    const svg = sv('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'vp-chart vp-live-chart',
      'font-family': 'sans-serif', 'font-size': 12 });
    const g = sv('g');
    svg.append(g);
    ftHost.append(toolbar(view, F.first, 'frames', 'drag: zoom to a range; wheel: zoom; shift+drag or shift+wheel: '
      + 'pan; click: the frame\'s call tree'), svg,
      el('p', { class: 'note', text: 'Each pixel column spans the fastest to the slowest of its frames at every '
        + 'zoom; red: hitch frames; green: target frame times; a cause picked below marks its frames in purple.' }));
    let env = null, ax = null;
    const draw = () => {
      env = envelope(F.ms, view.a, view.b);
      let max = 0;
      for (let c = 0; c < env.cols; c++) max = Math.max(max, env.hi[c]);
      // as vp.svg's chart: the axis reaches every target line
      const targets = D.targets || [];
      for (const t of targets) max = Math.max(max, t.ms);
      ax = axes(g, view, F.first, max * 1.05, 'frame time (ms)', 'frame');
      for (const [i, ph] of (D.phases || []).entries()) {
        const a = Math.max(view.a, ph.first - F.first), b = Math.min(view.b, ph.last - F.first + 1);
        if (b <= a) continue;
        // under the grid: right after the background
        g.insertBefore(sv('rect', { class: 'vp-phase', x: px(ax.x(a)), width: px(ax.x(b) - ax.x(a)), y: MT,
          height: PH, fill: i % 2 ? '#f4f4f8' : '#eef3f8', 'data-phase': ph.phase }), g.children[1]);
        const t = sv('text', { x: px(ax.x(a) + 3), y: MT + PH - 4, 'font-size': 10, fill: '#667' });
        t.textContent = `phase ${ph.phase} \u00b7 ${fmtMs(ph.typical_ms)} ms`;
        g.append(t);
      }
      const cw = PW / env.cols;
      const cx = (c) => ML + (c + 0.5) * cw;
      g.append(band(env, ax.y, '#4e79a7', 'envelope'));
      for (const t of targets) {
        g.append(sv('line', { class: 'target', x1: ML, x2: ML + PW, y1: px(ax.y(t.ms)), y2: px(ax.y(t.ms)),
          stroke: '#59a14f', 'stroke-dasharray': '6 3', 'data-ms': t.ms }));
        const tx = sv('text', { x: ML + PW - 2, y: px(ax.y(t.ms) - 3), 'font-size': 11, 'text-anchor': 'end',
          fill: '#3b7a35' });
        tx.textContent = t.label;
        g.append(tx);
      }
      const colOf = (p) => Math.min(env.cols - 1, Math.floor((p - view.a) * env.cols / (view.b - view.a)));
      const marked = new Set();
      for (const f of HL.frame) {
        const p = f - F.first;
        if (p < view.a || p >= view.b) continue;
        const c = colOf(p);
        if (marked.has(c)) continue;
        marked.add(c);
        g.append(sv('circle', { class: 'hitch', cx: px(cx(c)), cy: px(ax.y(env.hi[c])), r: 3.5, fill: '#e15759',
          'data-frame': f }));
      }
      if (state.cause != null) {
        for (const f of causes[state.cause].frames) {
          const p = f - F.first;
          if (p < view.a || p >= view.b) continue;
          const xx = px(cx(colOf(p)));
          g.append(sv('line', { class: 'cause-mark', x1: xx, x2: xx, y1: MT, y2: MT + PH, stroke: '#b07aa1',
            'stroke-width': 2, 'stroke-opacity': 0.7, 'data-frame': f }));
        }
      }
      if (state.frame != null) {
        const p = state.frame - F.first;
        if (p >= view.a && p < view.b) {
          const xx = px(cx(colOf(p)));
          g.append(sv('line', { class: 'picked', x1: xx, x2: xx, y1: MT, y2: MT + PH, stroke: '#222',
            'stroke-dasharray': '2 2' }));
        }
      }
    };
    // the frame under the pointer: the column's slowest when it holds several
    const frameAt = (xx) => {
      if (!env || xx < ML || xx > ML + PW) return null;
      const c = Math.min(env.cols - 1, Math.max(0, Math.floor((xx - ML) / PW * env.cols)));
      const [s, e] = span(c, env.cols, env.a, env.b);
      return { p: env.slow[c], s, e };
    };
    interact(svg, view, (xx) => {
      const at = frameAt(xx);
      if (at) openFrame(F.first + at.p);
    }, (xx, ev) => {
      const at = frameAt(xx);
      if (!at) { hideTip(); return; }
      const lines = frameLines(at.p);
      if (at.e - at.s > 1) {
        lines.unshift(`frames ${fmtInt(F.first + at.s)}..${fmtInt(F.first + at.e - 1)}: `
          + `${fmtMs(env.lo[Math.floor((xx - ML) / PW * env.cols)])}..${fmtMs(F.ms[at.p])} ms; the slowest:`);
      }
      showTip(ev, lines);
    }, hideTip);
    view.subs.push(draw);
    app.redraw = draw;
    // what the chart shows, for a reader (the browser specs)
    app.columns = () => {
      const out = [];
      for (let c = 0; c < env.cols; c++) {
        const [s, e] = span(c, env.cols, env.a, env.b);
        out.push({ first: F.first + s, last: F.first + e - 1, lo: env.lo[c], hi: env.hi[c] });
      }
      return out;
    };
    draw();
  }

  // ---- the call tree of a frame --------------------------------------------------------------

  const nodes = D.nodes ? {
    path: D.nodes.path, name: D.nodes.name, parent: unpack(D.nodes.parent), group: unpack(D.nodes.group),
  } : null;
  const trees = new Map();
  for (const t of D.trees || []) trees.set(t.frame, t);

  function decodeTree(t) {
    if (t.decoded) return t.decoded;
    const v = unpack(t.data);
    const rows = [];
    let at = 0;
    for (let i = 0; i + 3 < v.length; i += 4) {
      at += v[i];
      rows.push({ node: at, time: v[i + 1] / 1000, self: v[i + 2] / 1000, calls: v[i + 3], excess: null });
    }
    const byNode = new Map(rows.map((r) => [r.node, r]));
    if (t.excess != null) {
      const e = unpack(t.excess, true);
      let k = 0;
      for (let i = 0; i + 1 < e.length; i += 2) {
        k += e[i];
        const r = byNode.get(k);
        if (r) r.excess = e[i + 1] / 1000;
      }
    }
    const kids = new Map();
    for (const r of rows) {
      const p = nodes.parent[r.node - 1];
      r.depth = p ? (byNode.get(p) ? byNode.get(p).depth + 1 : 0) : 0;
      if (p && byNode.get(p)) {
        if (!kids.has(p)) kids.set(p, []);
        kids.get(p).push(r);
      }
    }
    t.decoded = { rows, byNode, kids };
    return t.decoded;
  }

  const treeHost = document.getElementById('vp-live-tree');
  let treeMode = 'icicle';
  function groupName(i) { return i > 0 && groups[i - 1] ? groups[i - 1].name : '-'; }
  function groupColor(i) { return i > 0 ? PALETTE[(i - 1) % PALETTE.length] : '#bab0ac'; }
  function heat(x) { // 0..1: pale to red
    const a = Math.max(0, Math.min(1, x));
    return `rgb(${Math.round(240 - 15 * a)},${Math.round(240 - 170 * a)},${Math.round(240 - 180 * a)})`;
  }

  function nodeTitle(r, t) {
    const lines = [nodes.path[r.node - 1], `group ${groupName(nodes.group[r.node - 1])}`,
      `inclusive ${fmtMs(r.time)} ms \u00b7 self ${fmtMs(r.self)} ms \u00b7 ${fmtInt(r.calls)} calls`];
    if (t.excess != null) {
      lines.push(r.excess != null ? `self ${signed(r.excess, fmtMs)} ms over its baseline ${fmtMs(r.self - r.excess)} ms`
        : 'self not above its baseline');
    }
    return lines.join('\n');
  }

  // An icicle (root on top) or a flame graph (root at the bottom): each
  // node's children share its width by inclusive time; children that add
  // up to more than their parent (VProf's clock; the root has no time of
  // its own) share all of it.
  function icicle(t, tr, flame) {
    const rowH = 20, maxDepth = tr.rows.reduce((m, r) => Math.max(m, r.depth), 0);
    const box = el('div', { class: 'vp-icicle', style: `height:${(maxDepth + 1) * rowH}px` });
    const maxExcess = tr.rows.reduce((m, r) => Math.max(m, r.excess || 0), 0);
    const place = (r, x, w) => {
      if (w < 1) return;
      const top = flame ? (maxDepth - r.depth) * rowH : r.depth * rowH;
      const color = t.excess != null ? heat(maxExcess > 0 ? (r.excess || 0) / maxExcess : 0)
        : groupColor(nodes.group[r.node - 1]);
      const d = el('div', { class: 'vp-node' + (r.excess > 0 ? ' vp-above' : ''), title: nodeTitle(r, t),
        style: `left:${x.toFixed(1)}px;top:${top}px;width:${Math.max(1, w - 1).toFixed(1)}px;background:${color}`,
        'data-path': nodes.path[r.node - 1] });
      if (w > 40) d.textContent = `${nodes.name[r.node - 1]} ${fmtMs(r.time)}`;
      d.addEventListener('click', () => highlight(nodes.path[r.node - 1]));
      box.append(d);
      const ks = tr.kids.get(r.node) || [];
      const whole = Math.max(r.time, ks.reduce((s, k) => s + k.time, 0));
      let at = x;
      for (const k of ks) {
        const kw = whole > 0 ? k.time / whole * w : 0;
        place(k, at, kw);
        at += kw;
      }
    };
    if (tr.rows.length) place(tr.rows[0], 0, W);
    return box;
  }

  function treeTable(t, tr) {
    const head = ['node', 'group', 'inclusive ms', 'self ms', 'calls'];
    if (t.excess != null) head.push('self over baseline ms');
    const body = el('tbody');
    for (const r of tr.rows) {
      const tr_ = el('tr', { 'data-path': nodes.path[r.node - 1] },
        el('td', { class: 'vp-name', style: `padding-left:${8 + 14 * r.depth}px`, title: nodes.path[r.node - 1],
          text: nodes.name[r.node - 1] }),
        el('td', { text: groupName(nodes.group[r.node - 1]) }),
        el('td', { class: 'n vp-time', text: fmtMs(r.time) }),
        el('td', { class: 'n vp-self', text: fmtMs(r.self) }),
        el('td', { class: 'n vp-calls', text: fmtInt(r.calls) }));
      if (t.excess != null) tr_.append(el('td', { class: 'n vp-excess', text: r.excess != null ? signed(r.excess, fmtMs) : '' }));
      body.append(tr_);
    }
    return el('table', { class: 'vp-tree-table' }, el('thead', {}, el('tr', {}, ...head.map((h, i) =>
      el('th', { class: i >= 2 ? 'n' : null, text: h })))), body);
  }

  function highlight(path) {
    for (const e of treeHost.querySelectorAll('.vp-hl')) e.classList.remove('vp-hl');
    for (const e of treeHost.querySelectorAll('[data-path]')) if (e.dataset.path === path) e.classList.add('vp-hl');
  }

  function openFrame(f, scroll) {
    state.frame = f;
    if (app.redraw) app.redraw();
    if (!treeHost) return;
    const t = trees.get(f);
    const p = f - F.first;
    const head = el('h3', { text: `Frame ${fmtInt(f)}` + (F.tick ? ` \u00b7 tick ${fmtInt(F.tick[p])}` : '')
      + ` \u00b7 ${fmtMs(F.ms[p])} ms` });
    treeHost.replaceChildren(head);
    treeHost.dataset.frame = f;
    if (!t || !nodes) {
      const near = [...trees.keys()].sort((a, b) => Math.abs(a - f) - Math.abs(b - f)).slice(0, 5).sort((a, b) => a - b);
      const out = D.trees_left_out ? ` (${D.trees_left_out} more were left out: the trees a page holds are bounded)`
        : '';
      treeHost.append(el('p', { class: 'vp-missing', text: `This page holds the call trees of the hitch frames, the `
        + `slowest frame and the frames chosen with --tree${out}; frame ${f}'s is not among them `
        + `(vpscript report.lua CAPTURE --tree ${f} adds it).` }));
      if (near.length) {
        treeHost.append(el('p', {}, 'The nearest frames with a tree: ', ...near.map((k) =>
          el('button', { type: 'button', class: 'vp-link', text: fmtInt(k), onclick: () => openFrame(k) }))));
      }
      if (scroll) treeHost.scrollIntoView({ block: 'nearest' });
      return;
    }
    const tr = decodeTree(t);
    if (t.baseline_ms != null) {
      treeHost.append(el('p', { class: 'vp-hitch-line', text: `A hitch: ${signed(t.frame_ms - t.baseline_ms, fmtMs)}`
        + ` ms over its baseline ${fmtMs(t.baseline_ms)} ms (the median of the ${D.window} frames before). Each node `
        + 'is coloured by its self time over its own baseline (the median of its self time in those frames); '
        + 'the causes first:' }));
      const rows = (t.causes || []).map((c) => el('tr', { 'data-path': c.path, class: 'vp-cause-row',
        onclick: () => highlight(c.path) },
        el('td', { text: c.path }), el('td', { text: c.group || '-' }),
        el('td', { class: 'n vp-self', text: fmtMs(c.self_ms) }),
        el('td', { class: 'n vp-base', text: fmtMs(c.self_ms - c.excess_ms) }),
        el('td', { class: 'n vp-excess', text: signed(c.excess_ms, fmtMs) })));
      treeHost.append(el('table', { class: 'vp-causes' }, el('thead', {}, el('tr', {},
        el('th', { text: 'cause (node path)' }), el('th', { text: 'group' }), el('th', { class: 'n', text: 'self ms' }),
        el('th', { class: 'n', text: 'baseline ms' }), el('th', { class: 'n', text: 'excess ms' }))),
      el('tbody', {}, ...rows)));
    } else {
      treeHost.append(el('p', { class: 'note', text: `Frame ${f} (${t.kind}): each node coloured by its budget group.` }));
    }
    const modes = el('div', { class: 'vp-toolbar' }, ...['icicle', 'flame', 'table'].map((m) =>
      el('button', { type: 'button', class: 'vp-mode' + (m === treeMode ? ' vp-on' : ''), text: m,
        'data-mode': m, onclick: () => { treeMode = m; openFrame(f); } })));
    treeHost.append(modes, treeMode === 'table' ? treeTable(t, tr) : icicle(t, tr, treeMode === 'flame'));
    if (scroll) treeHost.scrollIntoView({ block: 'nearest' });
  }
  app.openFrame = openFrame;

  // rows of the static tables that name a frame open its tree
  for (const row of document.querySelectorAll('tr[data-frame]')) {
    row.classList.add('vp-clickable');
    row.addEventListener('click', () => openFrame(Number(row.dataset.frame), true));
  }

  // ---- hitches by cause ----------------------------------------------------------------------

  const causeList = document.getElementById('vp-live-causes');
  for (const row of document.querySelectorAll('tr[data-cause]')) {
    row.classList.add('vp-clickable');
    row.addEventListener('click', () => {
      const i = Number(row.dataset.cause) - 1;
      state.cause = state.cause === i ? null : i;
      for (const r of document.querySelectorAll('tr[data-cause]')) {
        r.classList.toggle('vp-on', Number(r.dataset.cause) - 1 === state.cause);
      }
      if (causeList) {
        causeList.replaceChildren();
        if (state.cause != null) {
          const c = causes[state.cause];
          causeList.append(el('p', {}, `${c.frames.length} hitch frame${c.frames.length === 1 ? '' : 's'} of `
            + `${c.path || 'no cause found'} (marked on the frame-time chart): `, ...c.frames.map((f) =>
            el('button', { type: 'button', class: 'vp-link', text: fmtInt(f), onclick: () => openFrame(f, true) }))));
        }
      }
      if (app.redraw) app.redraw();
    });
  }
  app.markedFrames = () => [...document.querySelectorAll('#vp-live-frametime .cause-mark')]
    .map((e) => Number(e.dataset.frame));

  // ---- budget groups over time ---------------------------------------------------------------

  const budgetHost = document.getElementById('vp-live-budget');
  if (budgetHost && D.budget && groups.length) {
    const R = D.budget.buckets;
    const sums = D.budget.sums.map((s) => {
      const v = unpack(s);
      for (let i = 0; i < v.length; i++) v[i] *= D.frames.unit_ms;
      return v;
    });
    const bucketFrames = new Float64Array(R);
    for (let b = 0; b < R; b++) { const [s, e] = span(b, R, 0, F.n); bucketFrames[b] = e - s; }
    const bucketOf = (p) => Math.ceil((p + 1) * R / F.n) - 1;
    const chosen = new Set((D.budget_default || []).map((i) => i - 1));
    let stacked = true;
    const svg = sv('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'vp-chart vp-live-chart',
      'font-family': 'sans-serif', 'font-size': 12 });
    const g = sv('g');
    svg.append(g);
    const picks = el('div', { class: 'vp-groups' });
    groups.forEach((gr, i) => {
      const box = el('input', { type: 'checkbox', 'data-group': gr.name });
      box.checked = chosen.has(i);
      box.addEventListener('change', () => { if (box.checked) chosen.add(i); else chosen.delete(i); draw(); });
      picks.append(el('label', { class: 'vp-group' }, box, el('span', { class: 'vp-swatch',
        style: `background:${PALETTE[i % PALETTE.length]}` }), ` ${gr.name} `,
      el('span', { class: 'note', text: `${fmtMs(gr.total_ms / F.n)} ms/frame` })));
    });
    // the first k groups (the largest: the list is sorted by total)
    const setAll = (k) => app.pickGroups(groups.slice(0, k).map((x) => x.name));
    const mode = el('span', {},
      el('button', { type: 'button', class: 'vp-mode vp-on', 'data-mode': 'stacked', text: 'stacked',
        onclick: (ev) => { stacked = true; modeOn(ev.target); } }),
      el('button', { type: 'button', class: 'vp-mode', 'data-mode': 'lines', text: 'lines',
        onclick: (ev) => { stacked = false; modeOn(ev.target); } }));
    const modeOn = (b) => { for (const x of mode.children) x.classList.toggle('vp-on', x === b); draw(); };
    const note = el('p', { class: 'note' });
    budgetHost.append(toolbar(view, F.first, 'frames', 'zoomed with the frame-time chart; drag: zoom; wheel: '
      + 'zoom; shift+drag or shift+wheel: pan'), el('div', { class: 'vp-toolbar' }, mode,
      el('button', { type: 'button', text: 'the 8 largest', onclick: () => setAll(8) }),
      el('button', { type: 'button', text: 'all', onclick: () => setAll(groups.length) }),
      el('button', { type: 'button', text: 'none', onclick: () => setAll(0) })), svg, picks, note);
    let cols = null;
    const draw = () => {
      const b0 = bucketOf(view.a), b1 = bucketOf(view.b - 1) + 1;
      const nc = Math.min(PW, b1 - b0);
      const list = [...chosen].sort((x, y) => x - y);
      cols = [];
      let max = 0;
      for (let c = 0; c < nc; c++) {
        const [s, e] = span(c, nc, b0, b1);
        let fr = 0;
        for (let b = s; b < e; b++) fr += bucketFrames[b];
        const vals = list.map((gi) => { let t = 0; for (let b = s; b < e; b++) t += sums[gi][b]; return fr ? t / fr : 0; });
        const [p0] = span(s, R, 0, F.n), [, p1] = span(e - 1, R, 0, F.n);
        cols.push({ first: F.first + p0, last: F.first + p1 - 1, vals });
        max = Math.max(max, stacked ? vals.reduce((a, v) => a + v, 0) : Math.max(0, ...vals));
      }
      // the x axis is the buckets' frames, which may reach past the view
      const bv = { a: span(b0, R, 0, F.n)[0], b: span(b1 - 1, R, 0, F.n)[1] };
      const ax = axes(g, bv, F.first, (max || 1) * 1.05, 'self ms per frame', 'frame');
      const cw = PW / Math.max(1, nc);
      const base = new Float64Array(nc);
      list.forEach((gi, k) => {
        const color = PALETTE[gi % PALETTE.length];
        if (stacked) {
          const top = [], bottom = [];
          cols.forEach((col, c) => {
            const x0 = px(ML + c * cw), x1 = px(ML + (c + 1) * cw), t = base[c] + col.vals[k];
            top.push(`${c ? 'L' : 'M'}${x0} ${px(ax.y(t))}L${x1} ${px(ax.y(t))}`);
            bottom.push(`L${x1} ${px(ax.y(base[c]))}L${x0} ${px(ax.y(base[c]))}`);
            base[c] = t;
          });
          bottom.reverse();
          g.append(sv('path', { d: top.join('') + bottom.join('') + 'Z', fill: color, class: 'vp-budget-band',
            'data-group': groups[gi].name }));
        } else {
          const d = cols.map((col, c) => `${c ? 'L' : 'M'}${px(ML + (c + 0.5) * cw)} ${px(ax.y(col.vals[k]))}`);
          g.append(sv('path', { d: d.join(''), fill: 'none', stroke: color, 'stroke-width': 1.5, class: 'vp-budget-line',
            'data-group': groups[gi].name }));
        }
      });
      const per = F.n / R;
      note.textContent = `${list.length} of ${groups.length} groups; each column the mean self time per frame of its `
        + `frames (the page holds the groups in ${fmtInt(R)} stretches of about ${per.toFixed(1)} frames: a closer `
        + 'zoom shows those stretches).';
    };
    interact(svg, view, null, (xx, ev) => {
      if (!cols || !cols.length || xx < ML || xx > ML + PW) { hideTip(); return; }
      const c = Math.min(cols.length - 1, Math.floor((xx - ML) / PW * cols.length));
      const list = [...chosen].sort((x, y) => x - y);
      showTip(ev, [`frames ${fmtInt(cols[c].first)}..${fmtInt(cols[c].last)}`,
        ...list.map((gi, k) => `${groups[gi].name}: ${fmtMs(cols[c].vals[k])} ms`)]);
    }, hideTip);
    view.subs.push(draw);
    app.budget = () => ({ groups: [...chosen].sort((x, y) => x - y).map((i) => groups[i].name), stacked,
      columns: cols });
    app.pickGroups = (names) => {
      chosen.clear();
      for (const nm of names) {
        const i = groups.findIndex((x) => x.name === nm);
        if (i >= 0) chosen.add(i);
      }
      for (const b of picks.querySelectorAll('input')) {
        b.checked = chosen.has(groups.findIndex((x) => x.name === b.dataset.group));
      }
      draw();
    };
    draw();
  }

  // ---- the comparison ------------------------------------------------------------------------

  const cmpHost = document.getElementById('vp-live-compare');
  const C = D.compare;
  if (cmpHost && C && C.sides) {
    const sides = C.sides.map((s) => ({ name: s.name, runs: s.runs.map((r) => ({ file: r.file, col: frameColumn(r.frames) })),
      stretches: (s.stretches || []).map((st) => ({ frames: st.frames, time: unpack(st.time), self: unpack(st.self) })) }));
    const n = Math.max(...sides.flatMap((s) => s.runs.map((r) => r.col.n)));
    const cv = View(n);
    const K = C.stretches;
    const chosenSt = { a: 0, b: K };
    const svg = sv('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'vp-chart vp-live-chart',
      'font-family': 'sans-serif', 'font-size': 12 });
    const g = sv('g');
    svg.append(g);
    const diffHost = el('div', { class: 'vp-diff' });
    const colors = ['#4e79a7', '#f28e2b'];
    cmpHost.append(toolbar(cv, 1, 'frame positions', 'wheel: zoom; shift+wheel: pan; click or drag: pick '
      + 'stretches'), svg, el('p', { class: 'note', text: 'Both captures\' frame '
      + 'times by position from each run\'s first frame (blue: the baseline, orange: the capture; fainter: their '
      + 'other runs), each pixel column\'s fastest..slowest. The shaded stretches are tenths of each run: a click '
      + 'picks one, a drag over several picks them, for the differential tree below.' }), diffHost);
    const draw = () => {
      let max = 0;
      // every run over the same positions: a shorter run's columns past its end are empty
      const envs = sides.map((s) => s.runs.map((r) => {
        const e = envelope(r.col.ms, cv.a, cv.b);
        for (let c = 0; c < e.cols; c++) if (e.hi[c] > max) max = e.hi[c];
        return e;
      }));
      const ax = axes(g, cv, 1, max * 1.05, 'frame time (ms)', 'frame position');
      if (K && sides[0].stretches.length) {
        const ref = sides[1].runs[0].col.n;
        for (let k = 0; k < K; k++) {
          const [s, e] = span(k, K, 0, ref);
          const a = Math.max(cv.a, s), b = Math.min(cv.b, e);
          if (b <= a) continue;
          const on = k >= chosenSt.a && k < chosenSt.b && !(chosenSt.a === 0 && chosenSt.b === K);
          g.append(sv('rect', { class: 'vp-stretch' + (on ? ' vp-on' : ''), x: px(ax.x(a)), width: px(ax.x(b) - ax.x(a)),
            y: MT, height: PH, fill: on ? '#fde7c4' : k % 2 ? '#f6f6f6' : '#fff', 'data-stretch': k + 1 }));
          const t = sv('text', { x: px(ax.x(a) + 3), y: MT + 12, 'font-size': 10, fill: '#888' });
          t.textContent = String(k + 1);
          g.append(t);
        }
      }
      envs.forEach((list, si) => list.forEach((e, ri) => {
        g.append(band(e, ax.y, colors[si], 'vp-side-' + si, ri === 0 ? 0.75 : 0.3));
      }));
      // each side's phase boundaries (compare's pairing), by position in its first run
      (C.phases || []).forEach((list, si) => (list || []).slice(1).forEach((ph) => {
        const p = ph.first - sides[si].runs[0].col.first;
        if (p < cv.a || p >= cv.b) return;
        const xx = px(ax.x(p));
        g.append(sv('line', { class: 'vp-phase-' + si, x1: xx, x2: xx, y1: MT, y2: MT + PH, stroke: colors[si],
          'stroke-dasharray': '5 3', 'stroke-width': 1.5 }));
      }));
    };
    const stretchAt = (xx) => {
      const ref = sides[1].runs[0].col.n;
      const p = cv.a + (xx - ML) / PW * (cv.b - cv.a);
      return Math.max(0, Math.min(K - 1, Math.ceil((p + 1) * K / ref) - 1));
    };
    // a drag picks stretches here, not a zoom: the toolbar and the wheel zoom
    let down = null;
    svg.addEventListener('mousedown', (ev) => {
      const r = svg.getBoundingClientRect();
      down = (ev.clientX - r.left) * W / r.width;
      ev.preventDefault();
    });
    window.addEventListener('mouseup', (ev) => {
      if (down == null) return;
      const r = svg.getBoundingClientRect();
      const up = (ev.clientX - r.left) * W / r.width;
      const k1 = stretchAt(Math.min(down, up)), k2 = stretchAt(Math.max(down, up));
      down = null;
      chosenSt.a = k1; chosenSt.b = k2 + 1;
      draw();
      diffTree();
    });
    svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const r = svg.getBoundingClientRect();
      const xx = (ev.clientX - r.left) * W / r.width;
      if (ev.shiftKey) cv.pan(ev.deltaY / PW * (cv.b - cv.a));
      else cv.zoom(ev.deltaY > 0 ? 1.25 : 0.8, cv.a + (xx - ML) / PW * (cv.b - cv.a));
    }, { passive: false });
    cv.subs.push(draw);

    // the differential tree: mean time per frame of each node over the
    // chosen stretches, the capture against the baseline
    const T = C.tree ? { path: C.tree.path, name: C.tree.name, parent: unpack(C.tree.parent),
      group: unpack(C.tree.group) } : null;
    function means(side) {
      const m = T.path.map(() => ({ time: 0, self: 0 }));
      let frames = 0;
      for (let k = chosenSt.a; k < chosenSt.b; k++) {
        const st = side.stretches[k];
        if (!st) continue;
        frames += st.frames;
        for (let i = 0; i < T.path.length; i++) { m[i].time += st.time[i] / 1000; m[i].self += st.self[i] / 1000; }
      }
      for (const x of m) { x.time = frames ? x.time / frames : 0; x.self = frames ? x.self / frames : 0; }
      return { m, frames };
    }
    function diffTree() {
      diffHost.replaceChildren();
      if (!T) return;
      const A = means(sides[0]), B = means(sides[1]);
      const rows = T.path.map((p, i) => ({ i, a: A.m[i], b: B.m[i], dt: B.m[i].time - A.m[i].time,
        ds: B.m[i].self - A.m[i].self }));
      diffHost.append(el('h3', { text: `Differential tree: stretch${chosenSt.b - chosenSt.a > 1 ? 'es' : ''} `
        + `${chosenSt.a + 1}${chosenSt.b - chosenSt.a > 1 ? '..' + chosenSt.b : ''} of ${K} (${fmtInt(A.frames)} `
        + `baseline frames, ${fmtInt(B.frames)} capture frames): mean ms per frame` }));
      // icicle of the capture's tree, coloured by the change of inclusive time
      const depth = new Int32Array(T.path.length), kids = new Map();
      for (let i = 0; i < T.path.length; i++) {
        const p = T.parent[i];
        depth[i] = p ? depth[p - 1] + 1 : 0;
        if (p) { if (!kids.has(p - 1)) kids.set(p - 1, []); kids.get(p - 1).push(i); }
      }
      const rowH = 20, maxD = Math.max(...depth);
      const box = el('div', { class: 'vp-icicle', style: `height:${(maxD + 1) * rowH}px` });
      const rootTotal = (kids.get(0) || []).reduce((s, k) => s + Math.max(rows[k].b.time, rows[k].a.time), 0)
        || Math.max(rows[0].b.time, rows[0].a.time);
      const maxD_ = rows.reduce((m, r) => Math.max(m, Math.abs(r.dt)), 0) || 1;
      const color = (d) => {
        const a = Math.min(1, Math.abs(d) / maxD_);
        return d > 0 ? `rgb(${240 - 15 * a | 0},${240 - 170 * a | 0},${240 - 180 * a | 0})`
          : `rgb(${240 - 170 * a | 0},${240 - 110 * a | 0},${240 - 15 * a | 0})`;
      };
      const place = (i, x, w) => {
        if (w < 1) return;
        const r = rows[i];
        const d = el('div', { class: 'vp-node', 'data-path': T.path[i], title: `${T.path[i]}\nbaseline `
          + `${fmtMs(r.a.time)} ms \u2192 capture ${fmtMs(r.b.time)} ms per frame (${signed(r.dt, fmtMs)}); self `
          + `${fmtMs(r.a.self)} \u2192 ${fmtMs(r.b.self)} (${signed(r.ds, fmtMs)})`,
        style: `left:${x.toFixed(1)}px;top:${depth[i] * rowH}px;width:${Math.max(1, w - 1).toFixed(1)}px;`
          + `background:${color(r.dt)}` });
        if (w > 50) d.textContent = `${T.name[i]} ${signed(r.dt, fmtMs)}`;
        box.append(d);
        const ks = kids.get(i) || [];
        const size = (k) => Math.max(rows[k].b.time, rows[k].a.time);
        const sum = ks.reduce((s, k) => s + size(k), 0);
        const f = sum > w / (W / rootTotal) && sum > 0 ? (w / (W / rootTotal)) / sum : 1;
        let at = x;
        for (const k of ks) { const kw = size(k) * (W / rootTotal) * f; place(k, at, kw); at += kw; }
      };
      if (rootTotal > 0) place(0, 0, W);
      diffHost.append(box);
      const top = rows.filter((r) => r.i > 0).sort((x, y) => Math.abs(y.ds) - Math.abs(x.ds) || x.i - y.i).slice(0, 25);
      diffHost.append(el('table', { class: 'vp-diff-table' }, el('thead', {}, el('tr', {}, el('th', { text: 'node' }),
        el('th', { text: 'group' }), el('th', { class: 'n', text: 'self ms/frame baseline' }),
        el('th', { class: 'n', text: 'capture' }), el('th', { class: 'n', text: 'change' }),
        el('th', { class: 'n', text: 'inclusive change' }))),
      el('tbody', {}, ...top.map((r) => el('tr', { 'data-path': T.path[r.i] }, el('td', { text: T.path[r.i] }),
        el('td', { text: T.group[r.i] > 0 ? C.groups[T.group[r.i] - 1] : '-' }),
        el('td', { class: 'n', text: fmtMs(r.a.self) }), el('td', { class: 'n', text: fmtMs(r.b.self) }),
        el('td', { class: 'n ' + (r.ds > 0 ? 'worse' : r.ds < 0 ? 'better' : ''), text: signed(r.ds, fmtMs) }),
        el('td', { class: 'n', text: signed(r.dt, fmtMs) }))))));
    }
    app.compare = { view: () => ({ a: cv.a, b: cv.b }), stretches: () => ({ first: chosenSt.a + 1, last: chosenSt.b }),
      pick: (k1, k2) => { chosenSt.a = k1 - 1; chosenSt.b = k2; draw(); diffTree(); } };
    draw();
    diffTree();
  }
  app.ready = true;
  app.readyAt = performance.now(); // ms since the page's navigation began
})();
