-- vp.charts: what the pictures show, as plain data (vp.svg draws it): the
-- frame time downsampled by pixel column, its distribution and its tail,
-- a node's or a budget group's time over the capture, budget groups over
-- time, percentile curves, sparklines. Works on any capture with per-frame
-- times (VProf, laige budget reports); nodes and budget groups need VProf.
--
--   local charts = require "vp.charts"
--   local ft = charts.frametime(cap, {width = 960})
--   print(ft.max_ms, #ft.columns)                  -- every column: {lo, hi, first, last, threshold}
--
-- Downsampling keeps each pixel column's minimum and maximum, so no hitch
-- is averaged away: the envelope's maximum is the worst frame, however many
-- frames a column holds, and the chart's size depends on its width only.
-- Column c of `cols` over n frames holds positions charts.span(c, cols, n);
-- the C passes behind the budget columns split the frames the same way.
local E = require "vp.error"
local stats = require "vp.stats"

local charts = {}

charts.DEFAULTS = { width = 960, bins = 48, groups = 8, detail_groups = 64, target_fps = { 60, 30 }, factor = 2.5,
  window = 30, min_excess_ms = 5 }

--- charts.schema: the shape of charts.frametime's result.
charts.schema = "{frames, first_frame, max_ms, max_frame, min_ms, rule, targets: [{fps, ms}], "
  .. "columns: [{first, last, lo, hi, threshold}], hitches: []}"

--- charts.span(c, cols, n) -> first, last: the positions (1-based) that
-- column c (1-based) of `cols` columns over n frames holds.
function charts.span(c, cols, n)
  return (c - 1) * n // cols + 1, c * n // cols
end

--- charts.column_of(p, n, cols) -> c: the column that holds position p
-- (the inverse of charts.span: ceil(p x cols / n)).
function charts.column_of(p, n, cols)
  return (p * cols + n - 1) // n
end

-- The frame times as a Series, and the first frame number.
local function frame_times(cap)
  if type(cap.frame_times) ~= "function" then
    E.raise("EINPUT", "%s: a %s capture has no per-frame times", tostring(cap.path), tostring(cap.format))
  end
  local ok, s = pcall(cap.frame_times, cap)
  if not ok or s == nil then
    E.raise("EINPUT", "%s: a %s capture has no per-frame times", tostring(cap.path), tostring(cap.format))
  end
  local first = cap.first_frame or 1
  return s, first or 1
end

-- "<path>: <what> a VProf capture, not <format>" unless it is one.
local function need_vprof(cap, what)
  if cap.format ~= "vprof" then
    E.raise("EINPUT", "%s: %s a VProf capture, not %s", tostring(cap.path), what, tostring(cap.format))
  end
end

-- The envelope of the values v[1..n] (a Lua list; NaN skipped) in
-- min(width, n) columns, frames numbered from `first`: the columns
-- {first, last, lo, hi}, the largest value and its frame, the smallest.
local function envelope(v, n, first, width)
  local cols = math.min(width, n)
  local columns, maxv, maxi, minv = {}, nil, nil, nil
  for c = 1, cols do
    local a, b = charts.span(c, cols, n)
    local lo, hi = math.huge, -math.huge
    for i = a, b do
      local x = v[i]
      if x == x then
        if x < lo then lo = x end
        if x > hi then hi = x end
        if maxv == nil or x > maxv then maxv, maxi = x, i end
        if minv == nil or x < minv then minv = x end
      end
    end
    columns[c] = { first = a + first - 1, last = b + first - 1, lo = stats.defined(lo), hi = stats.defined(hi) }
  end
  return columns, maxv, maxi and maxi + first - 1, minv
end

--- charts.targets([fps]) -> [{fps, ms}]: the frame-time budgets (1000 /
-- fps ms) of the frame rates in the list `fps` (default
-- charts.DEFAULTS.target_fps: 60 and 30 fps, 16.7 and 33.3 ms), the
-- highest rate first. Raises EUSAGE for a rate that is not a positive number.
function charts.targets(fps)
  local list = {}
  for i, f in ipairs(fps or charts.DEFAULTS.target_fps) do
    E.check_number(f, "target_fps[" .. i .. "]", "vp.charts", 0, true)
    list[#list + 1] = { fps = f, ms = 1000 / f }
  end
  table.sort(list, function(a, b) return a.fps > b.fps end)
  return list
end

--- charts.frametime(cap, params) -> {frames, first_frame, max_ms, max_frame,
-- min_ms, rule, targets, columns = [{first, last, lo, hi, threshold}],
-- hitches}: columns = min(width, frames) pixel columns, each with its
-- frames (the capture's numbers), their smallest and largest time and the
-- hitch rule's threshold (the lowest of its frames': max(factor x
-- baseline, baseline + min_excess_ms), baseline the median of the window
-- frames before; the absolute rule's threshold_ms when given). params:
-- width, factor, window, min_excess_ms, threshold_ms (hitches.lua's rule),
-- hitches (frame numbers to mark; default none), target_fps (the target
-- lines: charts.targets).
function charts.frametime(cap, params)
  params = params or {}
  local D = charts.DEFAULTS
  local s, first = frame_times(cap)
  local n = #s
  local v = s:totable()
  local out = { frames = n, first_frame = first, hitches = params.hitches or {},
    targets = charts.targets(params.target_fps) }
  out.columns, out.max_ms, out.max_frame, out.min_ms = envelope(v, n, first, params.width or D.width)
  local factor, window = params.factor or D.factor, params.window or D.window
  local min_excess, threshold = params.min_excess_ms or D.min_excess_ms, params.threshold_ms
  local base = (not threshold and n > 1) and s:rolling(window, "median"):totable() or nil
  for _, col in ipairs(out.columns) do
    local th = math.huge
    for i = col.first - first + 1, col.last - first + 1 do
      local t = threshold
      if not t and base and i > 1 then
        local bl = base[i - 1]
        t = math.max(factor * bl, bl + min_excess)
      end
      if t and t < th then th = t end
    end
    col.threshold = stats.defined(th)
  end
  out.rule = threshold and string.format("frame time > %g ms", threshold)
    or string.format("frame time >= %g x the median of the preceding %d frames and >= %g ms above it", factor,
      window, min_excess)
  return out
end

-- A node given as a node, an id or a path (cap:node), or a name that one
-- node has; else a usage error saying what would do.
local function find_node(cap, x)
  if type(x) == "userdata" then return x end
  local nd = cap:node(x)
  if nd then return nd end
  local named = type(x) == "string" and cap:find(x, { exact = true }) or {}
  if #named == 1 then return named[1] end
  if #named > 1 then
    local paths = {}
    for i, m in ipairs(named) do paths[i] = m.path end
    table.sort(paths)
    E.raise("EUSAGE", "%s: %d nodes are named '%s': give one's path (%s)", tostring(cap.path), #named, x,
      table.concat(paths, ", "))
  end
  E.raise("EUSAGE", "%s: no node '%s' (give a node's path, such as %s, or its name)", tostring(cap.path),
    tostring(x), cap.root.path)
end

--- charts.node(cap, node, params) -> {frames, first_frame, what, name,
-- max_ms, max_frame, min_ms, columns = [{first, last, lo, hi}]}: a VProf
-- node's inclusive time per frame (0 where it is absent), each pixel
-- column's smallest and largest (as charts.frametime); `node` a node, its
-- id or path, or a name only one node has. params: width.
function charts.node(cap, node, params)
  params = params or {}
  need_vprof(cap, "a node's chart needs")
  local nd = find_node(cap, node)
  local first = cap.first_frame or 1
  local s = cap:series(nd, "time_ms")
  local out = { frames = #s, first_frame = first, what = "node time", name = nd.path }
  out.columns, out.max_ms, out.max_frame, out.min_ms = envelope(s:totable(), #s, first,
    params.width or charts.DEFAULTS.width)
  return out
end

-- The budget columns of a VProf capture (vp.export.core.columns: one pass):
-- {frames, cols, first, sum, min, max, other, frames_per, top, tick} where
-- each of sum, min and max is {[group id] = {ms per column}} of the groups
-- listed by id (ids; nil: every group with nodes), other the other groups'
-- together per column; top and tick (with per_frame) are per frame.
local function group_columns(cap, width, ids, minmax, per_frame)
  local n = cap.frame_count
  local cols = math.min(width, n)
  if cols == 0 then return { frames = 0, cols = 0, first = 1, sum = {} } end
  local c = require("vp.export.core").columns(cap, cols, { groups = ids, minmax = minmax, per_frame = per_frame })
  return { frames = n, cols = cols, first = cap.first_frame, sum = c.sum, min = c.min, max = c.max, other = c.other,
    frames_per = c.frames, top = c.top, tick = c.tick }
end

-- A budget group by name or id, or a usage error naming the groups there are.
local function find_group(cap, name)
  local g = cap:group(name)
  if g then return g end
  local names = {}
  for x in cap:groups() do names[#names + 1] = x.name end
  E.raise("EUSAGE", "%s: no budget group '%s' (the groups: %s)", tostring(cap.path), tostring(name),
    table.concat(names, ", "))
end

--- charts.group(cap, group, params) -> the shape of charts.node's result:
-- a VProf budget group's self time per frame (the sum of its nodes' self
-- times), each pixel column's smallest and largest (one C pass); `group`
-- a group, its name or id. params: width.
function charts.group(cap, group, params)
  params = params or {}
  need_vprof(cap, "a budget group's chart needs")
  local g = type(group) == "userdata" and group or find_group(cap, group)
  local gc = group_columns(cap, params.width or charts.DEFAULTS.width, { g.id }, true)
  local out = { frames = gc.frames, first_frame = gc.first, what = "group self time", name = g.name, columns = {} }
  local lo, hi = gc.min and gc.min[g.id], gc.max and gc.max[g.id]
  for c = 1, gc.cols do
    local a, b = charts.span(c, gc.cols, gc.frames)
    -- a group without nodes has no column: 0 in every frame
    local l, u = lo and lo[c] or 0, hi and hi[c] or 0
    out.columns[c] = { first = a + gc.first - 1, last = b + gc.first - 1, lo = l, hi = u }
    if out.max_ms == nil or u > out.max_ms then out.max_ms = u end
    if out.min_ms == nil or l < out.min_ms then out.min_ms = l end
  end
  if gc.frames > 0 then
    local d = cap:dist("groups")[g]
    out.max_frame = d and d:argmax() and d:argmax() + gc.first - 1 or gc.first
  end
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
-- above = {from, count, max} | nil, curve = [{p, ms}], marks = {p50, p95,
-- p99, low_1pct_ms, low_01pct_ms, max}}: a histogram of the frame times,
-- the percentile curve (p = 0, 0.5, .. 100, nearest rank) and its marks
-- (the 1 % and 0.1 % lows as the mean of the slowest 1 % / 0.1 % of
-- frames, in ms: 1000 / that is the low FPS). The bins run from the
-- fastest frame to the p99.9 or the slowest mark, whichever is larger, so
-- every mark lies on the axis at its value; the frames above are counted
-- in one last bar, so a 300 ms hitch does not squash the rest. The bins
-- are (p99.9 - fastest) / params.bins wide, wider when more than 4 x bins
-- of them would be needed to reach the slowest mark.
function charts.distribution(cap, params)
  params = params or {}
  local s = frame_times(cap)
  local n = #s
  local out = { frames = n, bins = {}, curve = {}, marks = {} }
  if n == 0 then return out end
  local D = stats.defined -- a mark that is not a number (NaN or inf frame times) is not drawn
  local function low(pct)
    local k = stats.slowest_count(n, pct)
    if cap.format == "vprof" then return cap:dist("frame_ms"):top_sum(k) / k end
    return 1000 / stats.low_fps(s, pct)
  end
  local max = s:max()
  out.marks = { p50 = D(s:percentile(50)), p95 = D(s:percentile(95)), p99 = D(s:percentile(99)),
    low_1pct_ms = D(low(1)), low_01pct_ms = D(low(0.1)), max = D(max) }
  for k = 0, 200 do
    local p = k / 2
    out.curve[k + 1] = { p = p, ms = s:percentile(p) }
  end
  local bins = params.bins or charts.DEFAULTS.bins
  local edges = bin_edges(s, s:min(), s:percentile(99.9), bins)
  local lo, top = edges[1], edges[#edges]
  local width = (top - lo) / (#edges - 1)
  for _, key in ipairs({ "p99", "low_1pct_ms", "low_01pct_ms" }) do
    local v = out.marks[key]
    if v and v > top and finite(v) then top = v end
  end
  if top > edges[#edges] then
    edges = bin_edges(s, lo, top, math.min(4 * bins, math.ceil((top - lo) / width - 1e-9)))
  end
  local nb = #edges - 1
  local h = s:histogram(edges)
  for i = 1, nb do out.bins[i] = { lo = edges[i], hi = edges[i + 1], count = h.counts[i] } end
  if h.above > 0 then out.above = { from = edges[nb + 1], count = h.above, max = max } end
  return out
end

--- charts.exceedance(cap, params) -> {frames, min_ms, max_ms, points =
-- [{ms, pct}]}: the tail of the frame times: for each distinct frame time
-- ms, pct = 100 x (frames at least that slow) / frames, from the fastest
-- (100 %) to the slowest (100 / frames %): on a log scale of pct the few
-- slowest frames stay apart. Only finite frame times count (a NaN or
-- infinite one is no point on the axis). With more distinct times than
-- 2 x params.width, each of `width` equal stretches of the time axis
-- keeps its first and last point (the curve steps down only between them).
function charts.exceedance(cap, params)
  params = params or {}
  local sorted = {}
  for _, x in ipairs(frame_times(cap):sort():totable()) do
    if finite(x) then sorted[#sorted + 1] = x end
  end
  local n = #sorted
  local out = { frames = n, points = {} }
  if n == 0 then return out end
  local lo, hi = sorted[1], sorted[n]
  out.min_ms, out.max_ms = lo, hi
  local all = {}
  for i = 1, n do
    if i == 1 or sorted[i] ~= sorted[i - 1] then all[#all + 1] = { ms = sorted[i], pct = 100 * (n - i + 1) / n } end
  end
  local width = params.width or charts.DEFAULTS.width
  if #all <= 2 * width or hi <= lo then
    out.points = all
    return out
  end
  local function slot(ms) return math.min(width, math.floor((ms - lo) / (hi - lo) * width) + 1) end
  for i, p in ipairs(all) do
    local sl = slot(p.ms)
    if i == 1 or i == #all or slot(all[i - 1].ms) ~= sl or slot(all[i + 1].ms) ~= sl then
      out.points[#out.points + 1] = p
    end
  end
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
-- [{name, id, total_ms, values = [ms]}], others = {count, total_ms} | nil,
-- detail, per_frame}: VProf budget groups' self time per frame, averaged
-- over each pixel column (one C pass). params: width; groups: the groups
-- to draw (a list of names or ids, in that order; "all": every group with
-- nodes, largest first), default the charts.DEFAULTS.groups largest by
-- total. others: how many groups with nodes are not drawn and their total
-- self time. params.detail = k: the pass splits each column into up to k
-- buckets (fewer when a column holds fewer frames), and detail =
-- {buckets, groups = [{name, id, total_ms, sums = [ms per bucket]}],
-- other = {count, total_ms, sums} | nil} holds the params.detail_groups
-- (charts.DEFAULTS.detail_groups) largest groups and the drawn ones at
-- that resolution, largest first, and the rest together as other (bucket
-- b holds the positions charts.span(b, buckets, frames)); the columns are
-- the buckets' sums. params.per_frame: per_frame = {top = [group id, or
-- -1 when no group has self time], tick = [tick]}, frame by frame (the
-- group with the most self time of all; the lower id of a tie).
-- Memory is the columns of the groups shown, whatever the groups a file
-- declares. Raises EUSAGE for a group the capture does not have.
function charts.budget(cap, params)
  params = params or {}
  need_vprof(cap, "budget groups need")
  local width = params.width or charts.DEFAULTS.width
  local n = cap.frame_count
  local cols = math.min(width, n)
  local out = { frames = n, columns = {}, groups = {} }
  -- every group with nodes by total self time (their summaries: no pass)
  local ranked = {}
  for g, d in pairs(cap:dist("groups")) do ranked[#ranked + 1] = { g = g, total_ms = d:sum() } end
  table.sort(ranked, function(a, b)
    if a.total_ms ~= b.total_ms then return a.total_ms > b.total_ms end
    return a.g.id < b.g.id
  end)
  local drawn, order = {}, {}
  if type(params.groups) == "table" then
    for _, name in ipairs(params.groups) do
      local g = find_group(cap, name)
      if not drawn[g.id] then order[#order + 1] = g end
      drawn[g.id] = true
    end
  else
    local keep = params.groups == "all" and #ranked or charts.DEFAULTS.groups
    for i = 1, math.min(keep, #ranked) do
      order[i] = ranked[i].g
      drawn[ranked[i].g.id] = true
    end
  end
  -- the groups given columns: the drawn ones, and with detail the largest
  local ids, listed = {}, {}
  local function list(g)
    if not listed[g.id] then ids[#ids + 1] = g.id end
    listed[g.id] = true
  end
  for _, g in ipairs(order) do list(g) end
  if params.detail then
    for i = 1, math.min(params.detail_groups or charts.DEFAULTS.detail_groups, #ranked) do list(ranked[i].g) end
  end
  for _, r in ipairs(ranked) do
    if not drawn[r.g.id] then
      out.others = out.others or { count = 0, total_ms = 0 }
      out.others.count = out.others.count + 1
      out.others.total_ms = out.others.total_ms + r.total_ms
    end
  end
  local k = cols > 0 and math.max(1, math.min(params.detail or 1, n // cols)) or 1
  local gc = group_columns(cap, cols * k, ids, false, params.per_frame)
  if params.per_frame then out.per_frame = { top = gc.top or {}, tick = gc.tick or {} } end
  if cols == 0 then return out end
  for c = 1, cols do
    local a, b = charts.span(c, cols, n)
    out.columns[c] = { first = a + gc.first - 1, last = b + gc.first - 1 }
  end
  -- the k buckets of a column nest in it: span(c, cols, n) is the union of
  -- span(b, cols x k, n) over its buckets b
  local function row(g)
    local sums = gc.sum[g.id]
    local total, values = 0, {}
    for c = 1, cols do
      local sum = 0
      for b = (c - 1) * k + 1, c * k do sum = sum + sums[b] end
      total = total + sum
      local cf = out.columns[c]
      values[c] = sum / (cf.last - cf.first + 1)
    end
    return { name = g.name, id = g.id, total_ms = total, values = values, sums = sums }
  end
  for i, g in ipairs(order) do
    local r = row(g)
    out.groups[i] = { name = r.name, id = r.id, total_ms = r.total_ms, values = r.values }
  end
  if params.detail then
    out.detail = { buckets = cols * k, groups = {} }
    local rest = { count = 0, total_ms = 0, sums = gc.other }
    for _, rk in ipairs(ranked) do
      if listed[rk.g.id] then
        local r = row(rk.g)
        out.detail.groups[#out.detail.groups + 1] = { name = r.name, id = r.id, total_ms = r.total_ms, sums = r.sums }
      else
        rest.count, rest.total_ms = rest.count + 1, rest.total_ms + rk.total_ms
      end
    end
    if rest.count > 0 then out.detail.other = rest end
  end
  return out
end

--- charts.sparkline(cap, width) -> [ms]: each of `width` columns' largest
-- frame time (so a hitch shows), fewer when there are fewer frames.
function charts.sparkline(cap, width)
  local s = frame_times(cap)
  local out = {}
  for c, col in ipairs((envelope(s:totable(), #s, 1, width))) do out[c] = col.hi or 0 end
  return out
end

return charts
