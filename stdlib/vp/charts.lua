-- vp.charts: what the pictures show, as plain data (vp.svg draws it): the
-- frame time downsampled by pixel column, its distribution, budget groups
-- over time, percentile curves, sparklines. Works on any capture with
-- per-frame times (VProf, laige budget reports); budget groups need VProf.
--
--   local charts = require "vp.charts"
--   local ft = charts.frametime(cap, {width = 960})
--   print(ft.max_ms, #ft.columns)                  -- every column: {lo, hi, first, last, threshold}
--
-- Downsampling keeps each pixel column's minimum and maximum frame time, so
-- no hitch is averaged away: the envelope's maximum is the worst frame,
-- however many frames a column holds, and the chart's size depends on its
-- width only.
local E = require "vp.error"
local stats = require "vp.stats"

local charts = {}

charts.DEFAULTS = { width = 960, bins = 48, groups = 8, factor = 2.5, window = 30, min_excess_ms = 5 }

--- charts.schema: the shape of charts.frametime's result.
charts.schema = "{frames, first_frame, max_ms, max_frame, min_ms, rule, columns: [{first, last, lo, hi, threshold}], "
  .. "hitches: []}"

-- The frame times as a Series and a Lua list, and the first frame number.
local function frame_times(cap)
  if type(cap.frame_times) ~= "function" then
    E.raise("EINPUT", "%s: a %s capture has no per-frame times", tostring(cap.path), tostring(cap.format))
  end
  local ok, s = pcall(cap.frame_times, cap)
  if not ok or s == nil then
    E.raise("EINPUT", "%s: a %s capture has no per-frame times", tostring(cap.path), tostring(cap.format))
  end
  local first = type(cap.frame_range) == "function" and cap:frame_range() or 1
  return s, first or 1
end

-- Column c (1-based) of `cols` holds frames lo..hi (1-based positions).
local function span(c, cols, n)
  return (c - 1) * n // cols + 1, c * n // cols
end

--- charts.frametime(cap, params) -> {frames, first_frame, max_ms, max_frame,
-- min_ms, rule, columns = [{first, last, lo, hi, threshold}], hitches}:
-- columns = min(width, frames) pixel columns, each with its frames (the
-- capture's numbers), their smallest and largest time and the hitch rule's
-- threshold (the lowest of its frames': max(factor x baseline, baseline +
-- min_excess_ms), baseline the median of the window frames before; the
-- absolute rule's threshold_ms when given). params: width, factor, window,
-- min_excess_ms, threshold_ms (hitches.lua's rule), hitches (frame numbers
-- to mark; default none).
function charts.frametime(cap, params)
  params = params or {}
  local D = charts.DEFAULTS
  local s, first = frame_times(cap)
  local n = #s
  local width = params.width or D.width
  local cols = math.min(width, n)
  local v = s:totable()
  local factor, window = params.factor or D.factor, params.window or D.window
  local min_excess, threshold = params.min_excess_ms or D.min_excess_ms, params.threshold_ms
  local base = (not threshold and n > 1) and s:rolling(window, "median"):totable() or nil
  local out = { frames = n, first_frame = first, columns = {}, hitches = params.hitches or {} }
  local maxv, maxi, minv = nil, nil, nil
  for c = 1, cols do
    local a, b = span(c, cols, n)
    local lo, hi, th = math.huge, -math.huge, math.huge
    for i = a, b do
      local x = v[i]
      if x == x then
        if x < lo then lo = x end
        if x > hi then hi = x end
        if maxv == nil or x > maxv then maxv, maxi = x, i end
        if minv == nil or x < minv then minv = x end
      end
      local t = threshold
      if not t and base and i > 1 then
        local bl = base[i - 1]
        t = math.max(factor * bl, bl + min_excess)
      end
      if t and t < th then th = t end
    end
    out.columns[c] = { first = a + first - 1, last = b + first - 1, lo = stats.defined(lo),
      hi = stats.defined(hi), threshold = stats.defined(th) }
  end
  out.max_ms, out.min_ms = maxv, minv
  out.max_frame = maxi and maxi + first - 1 or nil
  out.rule = threshold and string.format("frame time > %g ms", threshold)
    or string.format("frame time >= %g x the median of the preceding %d frames and >= %g ms above it", factor,
      window, min_excess)
  return out
end

local function finite(x) return x == x and x ~= math.huge and x ~= -math.huge end

-- nb + 1 increasing edges from lo to top: the finite values' span when lo or
-- top is not finite (a laige frame_ms of inf), each edge a weighted mean of
-- the two (no overflow however far apart: -1e308 .. 1e308), one bin when
-- the span is too narrow for more at that magnitude.
local function bin_edges(s, lo, top, nb)
  if not finite(lo) or not finite(top) then
    lo, top = nil, nil
    for _, x in ipairs(s:totable()) do
      if finite(x) then
        if not lo or x < lo then lo = x end
        if not top or x > top then top = x end
      end
    end
    lo, top = lo or 0, top or 1
  end
  if top <= lo then top = lo + math.max(1, math.abs(lo) * 1e-6) end
  local edges = {}
  for i = 0, nb do
    local t = i / nb
    edges[i + 1] = lo * (1 - t) + top * t
  end
  edges[nb + 1] = top
  for i = 2, nb + 1 do
    if edges[i] <= edges[i - 1] then return { lo, top } end -- the edges are finite numbers
  end
  return edges
end

--- charts.distribution(cap, params) -> {frames, bins = [{lo, hi, count}],
-- above = {from, count} | nil, curve = [{p, ms}], marks = {p50, p95, p99,
-- low_1pct_ms, low_01pct_ms, max}}: a histogram of the frame times in
-- `bins` equal bins from the minimum to the p99.9 (the frames above it in
-- one last bar, so a 300 ms hitch does not squash the rest), the
-- percentile curve (p = 0, 0.5, .. 100, nearest rank) and its marks (the
-- 1 % and 0.1 % lows as the mean of the slowest 1 % / 0.1 % of frames, in
-- ms: 1000 / that is the low FPS).
function charts.distribution(cap, params)
  params = params or {}
  local s = frame_times(cap)
  local n = #s
  local out = { frames = n, bins = {}, curve = {}, marks = {} }
  if n == 0 then return out end
  local lo, top, max = s:min(), s:percentile(99.9), s:max()
  local nb = params.bins or charts.DEFAULTS.bins
  local edges = bin_edges(s, lo, top, nb)
  nb = #edges - 1
  local h = s:histogram(edges)
  for i = 1, nb do out.bins[i] = { lo = edges[i], hi = edges[i + 1], count = h.counts[i] } end
  if h.above > 0 then out.above = { from = edges[nb + 1], count = h.above, max = max } end
  for k = 0, 200 do
    local p = k / 2
    out.curve[k + 1] = { p = p, ms = s:percentile(p) }
  end
  local function low(pct)
    local k = stats.slowest_count(n, pct)
    if cap.format == "vprof" then return cap:slowest_sum(k) / k end
    return 1000 / stats.low_fps(s, pct)
  end
  local D = stats.defined -- a mark that is not a number (NaN or inf frame times) is not drawn
  out.marks = { p50 = D(s:percentile(50)), p95 = D(s:percentile(95)), p99 = D(s:percentile(99)),
    low_1pct_ms = D(low(1)), low_01pct_ms = D(low(0.1)), max = D(max) }
  return out
end

--- charts.percentiles(cap) -> [{p, ms}]: the percentile curve alone
-- (p = 0, 0.5, .. 100): what a comparison overlays.
function charts.percentiles(cap)
  local s = frame_times(cap)
  local curve = {}
  if #s == 0 then return curve end
  for k = 0, 200 do curve[k + 1] = { p = k / 2, ms = s:percentile(k / 2) } end
  return curve
end

--- charts.budget(cap, params) -> {frames, columns = [{first, last}], groups =
-- [{name, id, total_ms, values = [ms]}]}: VProf budget groups' self time
-- per frame, averaged over each pixel column (one C pass): the `groups`
-- largest groups by total, then the others summed as "other".
function charts.budget(cap, params)
  params = params or {}
  if cap.format ~= "vprof" then
    E.raise("EINPUT", "%s: budget groups need a VProf capture, not %s", tostring(cap.path), tostring(cap.format))
  end
  local n = cap.frame_count
  local cols = math.min(params.width or charts.DEFAULTS.width, n)
  local out = { frames = n, columns = {}, groups = {} }
  if cols == 0 then return out end
  -- The `groups` largest by total self time (from their summaries: no
  -- column per group), then one C pass for their columns and the others'
  -- together: memory by what the chart shows, never by the groups a file
  -- declares.
  local keep = params.groups or charts.DEFAULTS.groups
  local ranked = {}
  for g, d in pairs(cap:group_stats()) do ranked[#ranked + 1] = { id = g.id, total = d:sum() } end
  table.sort(ranked, function(a, b)
    if a.total ~= b.total then return a.total > b.total end
    return a.id < b.id
  end)
  local ids = {}
  for i, r in ipairs(ranked) do ids[i] = r.id end
  local sums, counts, other, other_total = require("vp.export.core").group_columns(cap, cols, ids, keep)
  local first = cap:frame_range()
  for c = 1, cols do
    local a, b = span(c, cols, n)
    out.columns[c] = { first = a + first - 1, last = b + first - 1 }
  end
  for i, col in ipairs(sums) do
    local total, values = 0, {}
    for c = 1, cols do
      total = total + col[c]
      values[c] = counts[c] > 0 and col[c] / counts[c] or 0
    end
    out.groups[i] = { name = cap:group(ids[i]).name, id = ids[i], total_ms = total, values = values }
  end
  if #ranked > keep then out.groups[#out.groups + 1] = { name = "other", total_ms = other_total, values = other } end
  return out
end

--- charts.sparkline(cap, width) -> [ms]: each of `width` columns' largest
-- frame time (so a hitch shows), fewer when there are fewer frames.
function charts.sparkline(cap, width)
  local s = frame_times(cap)
  local n = #s
  local cols, v, out = math.min(width, n), s:totable(), {}
  for c = 1, cols do
    local a, b = span(c, cols, n)
    local hi = 0
    for i = a, b do
      if v[i] == v[i] and v[i] > hi then hi = v[i] end
    end
    out[c] = hi
  end
  return out
end

return charts
