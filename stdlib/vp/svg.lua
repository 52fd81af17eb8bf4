-- vp.svg: the charts as standalone SVG (an output module: it draws the
-- plain data vp.charts and the analyses return). Every number is written
-- with one decimal, so the same data always gives the same bytes; no
-- script, no external reference: an <svg> here works inline in an HTML page
-- and as a file of its own.
--
--   local svg = require "vp.svg"
--   io.write(svg.frametime(require("vp.charts").frametime(cap)))
--
-- A chart's <svg> carries data-y-zero (the pixel row of 0 on the value axis)
-- and data-px-per-unit (pixels per unit of that axis), so a reader can turn
-- a drawn shape back into values: the frame-time envelope's top is the
-- worst frame.
local svg = {}

svg.W, svg.H = 960, 300
local ML, MR, MT, MB = 60, 16, 30, 40

svg.PALETTE = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
  "#9c755f", "#bab0ac" }

local function num(x)
  if x ~= x or x == math.huge or x == -math.huge then return "0.0" end -- never "nan" in an attribute
  local s = string.format("%.1f", x)
  if s == "-0.0" then s = "0.0" end
  return s
end
svg.num = num

--- svg.esc(s) -> s as XML text and attribute values: made valid XML
-- characters by vp.junit.clean (the one rule: valid UTF-8, no control byte
-- XML forbids), then &, <, >, " escaped, so a name never breaks the document.
function svg.esc(s)
  return (require("vp.junit").clean(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;" }))
end

local function label(v)
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
  local s = string.format("%.3g", v)
  return s
end

--- svg.ticks(max [, count]) -> step, top: a 1/2/5 x 10^k step giving about
-- `count` ticks from 0, and the axis top (a multiple of it, >= max).
function svg.ticks(max, count)
  count = count or 5
  if not max or max <= 0 or max ~= max or max == math.huge then return 1, 1 end
  local raw = max / count
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if m * mag >= raw then
      step = m * mag
      break
    end
  end
  return step, math.ceil(max / step - 1e-9) * step
end

-- The frame of a chart: the <svg> start, title, value axis with grid lines
-- and its label, the x axis label; returns the parts list, y(v) and the
-- plot box.
local function frame(o, ymax, ylabel, xlabel)
  local extra = o.extra_bottom or 0
  local W, H = o.width or svg.W, (o.height or svg.H) + extra
  local pw, ph = W - ML - MR, H - MT - MB - extra
  local step, top = svg.ticks(ymax)
  local scale = ph / top
  local y0 = MT + ph
  local function y(v) return y0 - v * scale end
  local p = {}
  p[#p + 1] = string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="sans-serif" font-size="12" data-y-zero="%s" data-px-per-unit="%s" class="vp-chart">',
    W, H, W, H, num(y0), string.format("%.6g", scale))
  p[#p + 1] = string.format('<title>%s</title>', svg.esc(o.title or ""))
  p[#p + 1] = string.format('<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>', W, H)
  p[#p + 1] = string.format('<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>', ML,
    svg.esc(o.title or ""))
  local v = 0
  while v <= top + step / 2 do
    p[#p + 1] = string.format('<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#ddd"/>', ML, ML + pw, num(y(v)),
      num(y(v)))
    p[#p + 1] = string.format('<text x="%d" y="%s" text-anchor="end">%s</text>', ML - 6, num(y(v) + 4), label(v))
    v = v + step
  end
  p[#p + 1] = string.format('<text x="14" y="%s" transform="rotate(-90 14 %s)" text-anchor="middle">%s</text>',
    num(MT + ph / 2), num(MT + ph / 2), svg.esc(ylabel))
  p[#p + 1] = string.format('<text x="%s" y="%d" text-anchor="middle">%s</text>', num(ML + pw / 2), MT + ph + 34,
    svg.esc(xlabel))
  return p, y, { x = ML, y = MT, w = pw, h = ph, top = top }
end

local function x_ticks(p, box, lo, hi, fmt_x)
  local step = svg.ticks(hi - lo, 8)
  local v = math.ceil(lo / step) * step
  while v <= hi + 1e-9 do
    local x = box.x + (hi > lo and (v - lo) / (hi - lo) or 0) * box.w
    p[#p + 1] = string.format('<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#999"/>', num(x), num(x),
      box.y + box.h, box.y + box.h + 4)
    p[#p + 1] = string.format('<text x="%s" y="%d" text-anchor="middle">%s</text>', num(x), box.y + box.h + 16,
      (fmt_x or label)(v))
    v = v + step
  end
end

local function finish(p)
  p[#p + 1] = "</svg>"
  return table.concat(p, "\n") .. "\n"
end

local function legend(p, box, items)
  local x = box.x + box.w
  for i = #items, 1, -1 do
    local it = items[i]
    local w = 14 + 7 * #it.name
    x = x - w - 10
    p[#p + 1] = string.format('<rect x="%s" y="8" width="10" height="10" fill="%s"/><text x="%s" y="17">%s</text>',
      num(x), it.color, num(x + 14), svg.esc(it.name))
  end
end

-- The column (1-based) that holds position i of n frames in `cols` columns.
local function column_of(i, n, cols)
  local c = math.max(1, (i * cols + n - 1) // n)
  while c > 1 and (c - 1) * n // cols >= i do c = c - 1 end
  while c < cols and c * n // cols < i do c = c + 1 end
  return c
end

--- svg.frametime(data [, opts]) -> string: charts.frametime's data: each
-- pixel column a vertical stroke from its fastest to its slowest frame (the
-- envelope), the hitch rule's threshold dashed, hitch frames marked red.
function svg.frametime(d, o)
  o = o or {}
  o.title = o.title or string.format("Frame time (%d frames, each column's min..max)", d.frames)
  local p, y, box = frame(o, (d.max_ms or 1) * 1.05, "frame time (ms)", "frame")
  local cols, n = #d.columns, d.frames
  if cols > 0 then
    local cw = box.w / cols
    local function cx(c) return box.x + (c - 0.5) * cw end
    local path = {}
    for c, col in ipairs(d.columns) do
      if col.hi then
        local y1, y2 = y(col.lo), y(col.hi)
        if y1 - y2 < 1 then y1 = y2 + 1 end
        path[#path + 1] = string.format("M%s %sV%s", num(cx(c)), num(y1), num(y2))
      end
    end
    p[#p + 1] = string.format('<path class="envelope" d="%s" stroke="#4e79a7" stroke-width="%s" fill="none" '
      .. 'data-max-ms="%s"/>', table.concat(path), num(math.max(1, cw)), string.format("%.6g", d.max_ms or 0))
    local th = {}
    for c, col in ipairs(d.columns) do
      if col.threshold and col.threshold <= box.top then
        th[#th + 1] = string.format("%s%s %s", #th == 0 and "M" or "L", num(cx(c)), num(y(col.threshold)))
      elseif #th > 0 and th[#th]:sub(1, 1) ~= "M" then
        th[#th + 1] = "" -- break the line where it leaves the chart
      end
    end
    p[#p + 1] = string.format('<path class="rule" d="%s" stroke="#f28e2b" stroke-dasharray="4 3" fill="none">'
      .. '<title>hitch rule: %s</title></path>', table.concat(th), svg.esc(d.rule or ""))
    local marked = {}
    for _, f in ipairs(d.hitches or {}) do
      local c = column_of(f - d.first_frame + 1, n, cols)
      if not marked[c] then
        marked[c] = true
        local col = d.columns[c]
        p[#p + 1] = string.format('<circle class="hitch" cx="%s" cy="%s" r="3.5" fill="#e15759"><title>hitch '
          .. 'frame %d</title></circle>', num(cx(c)), num(y(col.hi or 0)), f)
      end
    end
    x_ticks(p, box, d.first_frame, d.first_frame + n - 1)
  end
  legend(p, box, { { name = "min..max per column", color = "#4e79a7" }, { name = "hitch rule", color = "#f28e2b" },
    { name = "hitch", color = "#e15759" } })
  return finish(p)
end

--- svg.histogram(dist [, opts]) -> string: charts.distribution's bins as
-- bars (the frames above the p99.9 in a last, red bar) with p50/p95/p99
-- and the 1 % / 0.1 % lows marked.
function svg.histogram(d, o)
  o = o or {}
  o.title = o.title or string.format("Frame time distribution (%d frames)", d.frames)
  local maxc = 1
  for _, b in ipairs(d.bins) do maxc = math.max(maxc, b.count) end
  if d.above then maxc = math.max(maxc, d.above.count) end
  local p, y, box = frame(o, maxc, "frames", "frame time (ms)")
  local nb = #d.bins + (d.above and 1 or 0)
  if nb > 0 then
    local lo, hi = d.bins[1].lo, d.bins[#d.bins].hi
    local bw = box.w / nb
    for i, b in ipairs(d.bins) do
      p[#p + 1] = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="#4e79a7"><title>%s..%s ms: %d'
        .. '</title></rect>', num(box.x + (i - 1) * bw + 0.5), num(y(b.count)), num(math.max(bw - 1, 0.5)),
        num(box.y + box.h - y(b.count)), label(b.lo), label(b.hi), b.count)
    end
    if d.above then
      p[#p + 1] = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="#e15759"><title>above %s ms '
        .. '(to %s): %d</title></rect>', num(box.x + #d.bins * bw + 0.5), num(y(d.above.count)),
        num(math.max(bw - 1, 0.5)), num(box.y + box.h - y(d.above.count)), label(d.above.from),
        label(d.above.max), d.above.count)
    end
    local span = #d.bins * bw
    local function xv(v) return box.x + (v - lo) / (hi - lo) * span end
    x_ticks(p, { x = box.x, y = box.y, w = span, h = box.h }, lo, hi)
    local m = d.marks
    local marks = { { "p50", m.p50 }, { "p95", m.p95 }, { "p99", m.p99 }, { "1% low", m.low_1pct_ms },
      { "0.1% low", m.low_01pct_ms } }
    for k, mk in ipairs(marks) do
      local v = mk[2]
      if v then
        local x = v <= hi and xv(v) or box.x + span + bw / 2
        local right = x > box.x + box.w - 90 -- the label goes left of the line near the right edge
        p[#p + 1] = string.format('<line class="mark" x1="%s" x2="%s" y1="%d" y2="%d" stroke="#333" '
          .. 'stroke-dasharray="2 2"/><text x="%s" y="%d" font-size="11"%s>%s %s</text>', num(x), num(x), box.y,
          box.y + box.h, num(right and x - 3 or x + 3), box.y + 12 + 13 * (k - 1),
          right and ' text-anchor="end"' or "", mk[1], label(v))
      end
    end
  end
  return finish(p)
end

--- svg.percentiles(curves [, opts]) -> string: percentile curves ({name,
-- curve = [{p, ms}], color}), p on the x axis; opts.marks = {p50, ...}.
function svg.percentiles(curves, o)
  o = o or {}
  o.title = o.title or "Frame time by percentile"
  local maxv = 0
  for _, c in ipairs(curves) do
    for _, pt in ipairs(c.curve) do
      if pt.ms and pt.p <= 99.9 then maxv = math.max(maxv, pt.ms) end
    end
  end
  local p, y, box = frame(o, maxv * 1.05, "frame time (ms)", "percentile (up to p99.9)")
  local function x(pc) return box.x + pc / 99.9 * box.w end
  local items = {}
  for i, c in ipairs(curves) do
    local color = c.color or svg.PALETTE[i]
    local d = {}
    for _, pt in ipairs(c.curve) do
      if pt.ms and pt.p <= 99.9 then d[#d + 1] = string.format("%s%s %s", #d == 0 and "M" or "L", num(x(pt.p)),
        num(y(pt.ms))) end
    end
    p[#p + 1] = string.format('<path class="curve" d="%s" stroke="%s" stroke-width="2" fill="none"><title>%s'
      .. '</title></path>', table.concat(d), color, svg.esc(c.name))
    items[#items + 1] = { name = c.name, color = color }
  end
  for _, pc in ipairs({ 50, 95, 99 }) do
    p[#p + 1] = string.format('<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#999" stroke-dasharray="2 2"/>'
      .. '<text x="%s" y="%d" font-size="11">p%d</text>', num(x(pc)), num(x(pc)), box.y, box.y + box.h,
      num(x(pc) + 3), box.y + 12, pc)
  end
  x_ticks(p, box, 0, 99.9)
  legend(p, box, items)
  return finish(p)
end

--- svg.budget(data [, opts]) -> string: charts.budget's groups stacked,
-- each column the mean self time per frame of its frames.
function svg.budget(d, o)
  o = o or {}
  o.title = o.title or "Budget groups: self time per frame, stacked (column means)"
  o.extra_bottom = 20
  local cols = #d.columns
  local maxv = 0
  for c = 1, cols do
    local t = 0
    for _, g in ipairs(d.groups) do t = t + g.values[c] end
    maxv = math.max(maxv, t)
  end
  local p, y, box = frame(o, maxv * 1.05, "self ms per frame", "frame")
  if cols > 0 then
    local cw = box.w / cols
    local base = {}
    for c = 1, cols do base[c] = 0 end
    local items = {}
    for i, g in ipairs(d.groups) do
      local color = svg.PALETTE[(i - 1) % #svg.PALETTE + 1]
      local top, bottom = {}, {}
      for c = 1, cols do
        local x0, x1 = box.x + (c - 1) * cw, box.x + c * cw
        local b, t = base[c], base[c] + g.values[c]
        top[#top + 1] = string.format("%s%s %sL%s %s", c == 1 and "M" or "L", num(x0), num(y(t)), num(x1), num(y(t)))
        bottom[cols - c + 1] = string.format("L%s %sL%s %s", num(x1), num(y(b)), num(x0), num(y(b)))
        base[c] = t
      end
      p[#p + 1] = string.format('<path d="%s%sZ" fill="%s"><title>%s: %s ms in total</title></path>',
        table.concat(top), table.concat(bottom), color, svg.esc(g.name), label(g.total_ms))
      items[#items + 1] = { name = g.name, color = color }
    end
    x_ticks(p, box, d.columns[1].first, d.columns[cols].last)
    local lp = { x = box.x, y = box.y + box.h + 54, w = box.w }
    local x = lp.x
    local row = {}
    for _, it in ipairs(items) do
      row[#row + 1] = string.format('<rect x="%s" y="%d" width="9" height="9" fill="%s"/><text x="%s" y="%d" '
        .. 'font-size="11">%s</text>', num(x), lp.y - 8, it.color, num(x + 12), lp.y, svg.esc(it.name))
      x = x + 22 + 6.2 * #it.name
    end
    p[#p + 1] = table.concat(row)
  end
  return finish(p)
end

--- svg.bars(rows [, opts]) -> string: horizontal bars, one per row {label,
-- parts = [{name, value}]} stacked, with an optional row.limit drawn as a
-- black tick (a budget) and opts.unit for the axis.
function svg.bars(rows, o)
  o = o or {}
  local H = math.max(120, MT + MB + 22 * #rows + 10)
  local maxv = 0
  for _, r in ipairs(rows) do
    local t = 0
    for _, pt in ipairs(r.parts) do t = t + (pt.value or 0) end
    maxv = math.max(maxv, t, r.limit or 0)
  end
  local W = o.width or svg.W
  local left = 180
  local step, top = svg.ticks(maxv * 1.05)
  local pw = W - left - MR
  local function x(v) return left + v / top * pw end
  local p = {}
  p[#p + 1] = string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="sans-serif" font-size="12" data-x-zero="%d" data-px-per-unit="%s" class="vp-chart">', W, H, W,
    H, left, string.format("%.6g", pw / top))
  p[#p + 1] = string.format('<title>%s</title><rect x="0" y="0" width="%d" height="%d" fill="#fff"/>',
    svg.esc(o.title or ""), W, H)
  p[#p + 1] = string.format('<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>', 10,
    svg.esc(o.title or ""))
  local v = 0
  while v <= top + step / 2 do
    p[#p + 1] = string.format('<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#ddd"/><text x="%s" y="%d" '
      .. 'text-anchor="middle">%s</text>', num(x(v)), num(x(v)), MT, H - MB, num(x(v)), H - MB + 16, label(v))
    v = v + step
  end
  p[#p + 1] = string.format('<text x="%s" y="%d" text-anchor="middle">%s</text>', num(left + pw / 2), H - 6,
    svg.esc(o.unit or ""))
  local names = {}
  for i, r in ipairs(rows) do
    local yy = MT + 6 + (i - 1) * 22
    p[#p + 1] = string.format('<text x="%d" y="%d" text-anchor="end">%s</text>', left - 6, yy + 12,
      svg.esc(r.label))
    local at = 0
    for k, pt in ipairs(r.parts) do
      local color = pt.color or svg.PALETTE[(k - 1) % #svg.PALETTE + 1]
      names[k] = names[k] or { name = pt.name, color = color }
      if (pt.value or 0) > 0 then
        p[#p + 1] = string.format('<rect x="%s" y="%d" width="%s" height="16" fill="%s"><title>%s: %s</title></rect>',
          num(x(at)), yy, num(x(at + pt.value) - x(at)), color, svg.esc(r.label .. " " .. pt.name), label(pt.value))
      end
      at = at + (pt.value or 0)
    end
    if r.limit then
      p[#p + 1] = string.format('<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#000" stroke-width="2"><title>'
        .. 'budget %s</title></line>', num(x(r.limit)), num(x(r.limit)), yy - 2, yy + 18, label(r.limit))
    end
  end
  if o.legend ~= false then legend(p, { x = 0, y = 0, w = W - MR, h = 0 }, names) end
  return finish(p)
end

--- svg.lines(series [, opts]) -> string: line charts over a shared x axis:
-- series = [{name, points = [{x, y}]}], opts.xlabel, opts.ylabel.
function svg.lines(series, o)
  o = o or {}
  local maxv, xlo, xhi = 0, math.huge, -math.huge
  for _, s in ipairs(series) do
    for _, pt in ipairs(s.points) do
      if pt.y == pt.y then maxv = math.max(maxv, pt.y) end
      xlo, xhi = math.min(xlo, pt.x), math.max(xhi, pt.x)
    end
  end
  if xlo > xhi then xlo, xhi = 0, 1 end
  if xhi == xlo then xhi = xlo + 1 end
  local p, y, box = frame(o, maxv * 1.05, o.ylabel or "", o.xlabel or "")
  local function x(v) return box.x + (v - xlo) / (xhi - xlo) * box.w end
  local items = {}
  for i, s in ipairs(series) do
    local color = svg.PALETTE[(i - 1) % #svg.PALETTE + 1]
    local d = {}
    for _, pt in ipairs(s.points) do
      if pt.y == pt.y then d[#d + 1] = string.format("%s%s %s", #d == 0 and "M" or "L", num(x(pt.x)), num(y(pt.y)))
      end
    end
    p[#p + 1] = string.format('<path d="%s" stroke="%s" stroke-width="1.5" fill="none"><title>%s</title></path>',
      table.concat(d), color, svg.esc(s.name))
    items[#items + 1] = { name = s.name, color = color }
  end
  x_ticks(p, box, xlo, xhi)
  legend(p, box, items)
  return finish(p)
end

--- svg.sparkline(values, [width]) -> string: one line of block characters
-- (U+2581..U+2588), each a column's value scaled from 0 to the largest.
function svg.sparkline(values)
  local bars = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" }
  local max = 0
  for _, v in ipairs(values) do max = math.max(max, v) end
  local out = {}
  for i, v in ipairs(values) do
    out[i] = bars[max > 0 and math.min(8, math.floor(v / max * 7 + 0.5) + 1) or 1]
  end
  return table.concat(out)
end

return svg
