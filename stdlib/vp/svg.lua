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
local charts = require "vp.charts"
local fmt = require "vp.fmt"

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
  if v ~= v or v == math.huge or v == -math.huge then return (tostring(v):gsub("^%-?nan", "NaN")) end
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
-- o.ylog = {lo = a, hi = b, label = function(v)}: a log scale from 10^a to
-- 10^b (a grid line at each power of ten) instead of a linear one from 0;
-- o.attrs: more attributes for the <svg> element.
local function frame(o, ymax, ylabel, xlabel)
  local extra = o.extra_bottom or 0
  local W, H = o.width or svg.W, (o.height or svg.H) + extra
  local pw, ph = W - ML - MR, H - MT - MB - extra
  local y0 = MT + ph
  local top, y, grid, scale_attrs
  if o.ylog then
    local lo, hi = o.ylog.lo, o.ylog.hi
    local scale = ph / (hi - lo)
    function y(v) return y0 - (math.log(v, 10) - lo) * scale end
    grid, top = {}, 10 ^ hi
    for e = lo, hi do grid[#grid + 1] = 10 ^ e end
    scale_attrs = string.format('data-y-log="%d %d" data-px-per-decade="%s"', lo, hi, string.format("%.6g", scale))
  else
    local step
    step, top = svg.ticks(ymax)
    local scale = ph / top
    function y(v) return y0 - v * scale end
    grid = {}
    local v = 0
    while v <= top + step / 2 do
      grid[#grid + 1] = v
      v = v + step
    end
    scale_attrs = string.format('data-y-zero="%s" data-px-per-unit="%s"', num(y0), string.format("%.6g", scale))
  end
  local p = {}
  p[#p + 1] = string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="sans-serif" font-size="12" %s%s class="vp-chart">', W, H, W, H, scale_attrs,
    o.attrs and " " .. o.attrs or "")
  p[#p + 1] = string.format('<title>%s</title>', svg.esc(o.title or ""))
  p[#p + 1] = string.format('<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>', W, H)
  p[#p + 1] = string.format('<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>', ML,
    svg.esc(o.title or ""))
  for _, v in ipairs(grid) do
    p[#p + 1] = string.format('<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#ddd"/>', ML, ML + pw, num(y(v)),
      num(y(v)))
    p[#p + 1] = string.format('<text x="%d" y="%s" text-anchor="end">%s</text>', ML - 6, num(y(v) + 4),
      svg.esc((o.ylog and o.ylog.label or label)(v)))
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

-- The envelope of charts' columns ({lo, hi}) as one band: the slowest
-- values left to right, the fastest back, filled, with a 1 px outline so
-- that a column of one frame (lo = hi) still draws: a line through the
-- values when the columns hold a frame each. A column without a value
-- breaks the band.
local function band(p, d, box, y, color, cls)
  local cols = #d.columns
  local cw = box.w / cols
  local function cx(c) return box.x + (c - 0.5) * cw end
  local parts, run = {}, {}
  local function flush()
    if #run == 0 then return end
    local top, bottom = {}, {}
    for k, c in ipairs(run) do
      local col = d.columns[c]
      top[k] = string.format("%s%s %s", k == 1 and "M" or "L", num(cx(c)), num(y(col.hi)))
      bottom[#run - k + 1] = string.format("L%s %s", num(cx(c)), num(y(col.lo)))
    end
    parts[#parts + 1] = table.concat(top) .. table.concat(bottom) .. "Z"
    run = {}
  end
  for c, col in ipairs(d.columns) do
    if col.hi then run[#run + 1] = c else flush() end
  end
  flush()
  p[#p + 1] = string.format('<path class="%s" d="%s" fill="%s" stroke="%s" stroke-width="1" stroke-linejoin="round" '
    .. 'data-max-ms="%s"/>', cls, table.concat(parts), color, color, string.format("%.6g", d.max_ms or 0))
  return cx
end

--- svg.target_label(t) -> "16.7 ms (60 fps)": a target line's label.
function svg.target_label(t)
  return string.format("%s ms (%s fps)", fmt.fixed(t.ms, 1), label(t.fps))
end

-- Horizontal target lines (charts.targets) across the plot, labelled at the right.
local function target_lines(p, box, y, targets)
  for _, t in ipairs(targets or {}) do
    local yy = y(t.ms)
    p[#p + 1] = string.format('<line class="target" x1="%d" x2="%d" y1="%s" y2="%s" stroke="#59a14f" '
      .. 'stroke-dasharray="6 3" data-ms="%s"/><text x="%d" y="%s" font-size="11" text-anchor="end" fill="#3b7a35">'
      .. '%s</text>', box.x, box.x + box.w, num(yy), num(yy), string.format("%.6g", t.ms), box.x + box.w - 2,
      num(yy - 3), svg.esc(svg.target_label(t)))
  end
end

local function targets_max(targets)
  local m = 0
  for _, t in ipairs(targets or {}) do m = math.max(m, t.ms) end
  return m
end

--- svg.frametime(data [, opts]) -> string: charts.frametime's data: each
-- pixel column's fastest to slowest frame as one band (the envelope: a line
-- through the frames when a column holds one), the hitch rule's threshold
-- dashed, the target frame times (charts.targets) as green dashed lines,
-- hitch frames marked red.
function svg.frametime(d, o)
  o = o or {}
  o.title = o.title or string.format("Frame time (%d frames, each column's min..max)", d.frames)
  local p, y, box = frame(o, math.max(d.max_ms or 1, targets_max(d.targets)) * 1.05, "frame time (ms)", "frame")
  local cols, n = #d.columns, d.frames
  if cols > 0 then
    local cx = band(p, d, box, y, "#4e79a7", "envelope")
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
    target_lines(p, box, y, d.targets)
    local marked = {}
    for _, f in ipairs(d.hitches or {}) do
      local c = charts.column_of(f - d.first_frame + 1, n, cols)
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
    { name = "target", color = "#59a14f" }, { name = "hitch", color = "#e15759" } })
  return finish(p)
end

--- svg.series(data [, opts]) -> string: charts.node's or charts.group's
-- data: the value per frame over the capture as frametime's band.
function svg.series(d, o)
  o = o or {}
  o.title = o.title or string.format("%s: %s (%d frames, each column's min..max)", d.name, d.what, d.frames)
  local p, y, box = frame(o, (d.max_ms or 0) > 0 and d.max_ms * 1.05 or 1, d.what .. " (ms)", "frame")
  if #d.columns > 0 then
    band(p, d, box, y, "#4e79a7", "envelope")
    x_ticks(p, box, d.first_frame, d.first_frame + d.frames - 1)
  end
  return finish(p)
end

--- svg.mark_label(name, ms) -> "p99 17.02 ms", "1 % low 20.26 ms (49.4
-- fps)": a distribution mark as the page's text words it.
function svg.mark_label(name, ms)
  local s = string.format("%s %s ms", name, fmt.ms(ms))
  if name:find("low") then s = s .. string.format(" (%s fps)", fmt.fixed(1000 / ms, 1)) end
  return s
end

--- svg.histogram(dist [, opts]) -> string: charts.distribution's bins as
-- bars (the frames beyond the axis in a last, red bar) with p50/p95/p99
-- and the 1 % / 0.1 % lows marked at their values. The <svg> carries
-- data-x-zero (the pixel column of 0 ms) and data-x-px-per-unit.
function svg.histogram(d, o)
  o = o or {}
  o.title = o.title or string.format("Frame time distribution (%d frames)", d.frames)
  local maxc = 1
  for _, b in ipairs(d.bins) do maxc = math.max(maxc, b.count) end
  if d.above then maxc = math.max(maxc, d.above.count) end
  local nb = #d.bins + (d.above and 1 or 0)
  local W = o.width or svg.W
  local pw = W - ML - MR
  local lo, hi = 0, 1
  if nb > 0 then
    lo, hi = d.bins[1].lo, d.bins[#d.bins].hi
    local span = #d.bins * pw / nb
    o.attrs = string.format('data-x-zero="%s" data-x-px-per-unit="%s"', num(ML - lo / (hi - lo) * span),
      string.format("%.6g", span / (hi - lo)))
  end
  local p, y, box = frame(o, maxc, "frames", "frame time (ms)")
  if nb > 0 then
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
    local marks = { { "p50", m.p50 }, { "p95", m.p95 }, { "p99", m.p99 }, { "1 % low", m.low_1pct_ms },
      { "0.1 % low", m.low_01pct_ms } }
    for k, mk in ipairs(marks) do
      local v = mk[2]
      if v then
        local x = xv(math.min(v, hi)) -- charts.distribution's axis reaches every mark
        local right = x > box.x + box.w / 2 -- the label goes left of the line on the right half
        p[#p + 1] = string.format('<line class="mark" x1="%s" x2="%s" y1="%d" y2="%d" stroke="#333" '
          .. 'stroke-dasharray="2 2"/><text x="%s" y="%d" font-size="11"%s>%s</text>', num(x), num(x), box.y,
          box.y + box.h, num(right and x - 3 or x + 3), box.y + 12 + 13 * (k - 1),
          right and ' text-anchor="end"' or "", svg.esc(svg.mark_label(mk[1], v)))
      end
    end
  end
  return finish(p)
end

--- svg.exceedance(data [, opts]) -> string: charts.exceedance's curve:
-- the share of frames at least as slow as each frame time, on a log scale
-- (100 % down to the decade below 100 / frames %), so the tail's slowest
-- frames stay apart; opts.targets (charts.targets) as vertical lines.
function svg.exceedance(d, o)
  o = o or {}
  o.title = o.title or string.format("Frame time tail: share of frames at least that slow (%d frames)", d.frames)
  local lo_exp = d.frames > 0 and math.floor(math.log(100 / d.frames, 10) + 1e-9) or 0
  if lo_exp >= 2 then lo_exp = 1 end
  o.ylog = { lo = lo_exp, hi = 2, label = function(v)
    return fmt.pct(v, math.max(0, -math.floor(math.log(v, 10) + 1e-9)))
  end }
  local p, y, box = frame(o, nil, "share of frames (%)", "frame time (ms)")
  if #d.points > 0 then
    local xlo, xhi = d.min_ms, math.max(d.max_ms, targets_max(o.targets)) * 1.02
    if xhi <= xlo then xhi = xlo + 1 end
    local function x(v) return box.x + (v - xlo) / (xhi - xlo) * box.w end
    local path = { string.format("M%s %s", num(x(d.points[1].ms)), num(y(d.points[1].pct))) }
    for i = 2, #d.points do
      path[#path + 1] = string.format("V%sH%s", num(y(d.points[i].pct)), num(x(d.points[i].ms)))
    end
    p[#p + 1] = string.format('<path class="exceedance" d="%s" stroke="#4e79a7" stroke-width="1.5" fill="none"/>',
      table.concat(path))
    for _, t in ipairs(o.targets or {}) do
      if t.ms >= xlo and t.ms <= xhi then
        p[#p + 1] = string.format('<line class="target" x1="%s" x2="%s" y1="%d" y2="%d" stroke="#59a14f" '
          .. 'stroke-dasharray="6 3"/><text x="%s" y="%d" font-size="11" fill="#3b7a35">%s</text>', num(x(t.ms)),
          num(x(t.ms)), box.y, box.y + box.h, num(x(t.ms) + 3), box.y + 12, svg.esc(svg.target_label(t)))
      end
    end
    x_ticks(p, box, xlo, xhi)
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
-- each column the mean self time per frame of its frames; the title
-- counts the groups not drawn (data.others), never drawn as a band.
function svg.budget(d, o)
  o = o or {}
  o.title = o.title or string.format("Budget groups: self time per frame, stacked (column means%s)", d.others
    and string.format("; %d more group%s not drawn", d.others.count, d.others.count == 1 and "" or "s") or "")
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
-- series = [{name, points = [{x, y [, title]}]}], opts.xlabel, opts.ylabel;
-- a point with a title is drawn as a dot that shows it on hover; opts.marks
-- = [{x, label}]: dashed vertical lines (history.lua trend's change points).
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
    for _, pt in ipairs(s.points) do
      if pt.title and pt.y == pt.y then
        p[#p + 1] = string.format('<circle cx="%s" cy="%s" r="2.5" fill="%s"><title>%s</title></circle>',
          num(x(pt.x)), num(y(pt.y)), color, svg.esc(pt.title))
      end
    end
  end
  for _, m in ipairs(o.marks or {}) do
    p[#p + 1] = string.format('<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#e15759" stroke-dasharray="4 3">'
      .. '<title>%s</title></line>', num(x(m.x)), num(x(m.x)), box.y, box.y + box.h, svg.esc(m.label or ""))
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
