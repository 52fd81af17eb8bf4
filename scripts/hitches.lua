-- hitches.lua: frame time statistics and the hitch frames of a capture, each with its causes
--
-- Reads any capture that has per-frame times (cap:frame_times()): VProf
-- recordings, and laige budget reports' per-frame lines. Causes (nodes and
-- budget groups) are reported for VProf captures only.
--
-- usage: vpscript hitches.lua [options] CAPTURE
--   --factor X          a hitch is at least X times its baseline (default 2.5)
--   --window N          baseline = median of the N preceding frames (default 30)
--   --min-excess-ms X   ... and at least X ms above the baseline (default 5)
--   --threshold-ms X    use the engine's absolute rule instead: frame_ms > X
--   --causes N          causes (nodes, groups) listed per hitch (default 5)
--   --json, --csv, --help
--
-- Definitions: see DESCRIPTION below (printed by --help) and docs/metrics.md.
--
-- JSON (one document):
--   { file, format, frames,
--     frame_ms = {mean, p50, p95, p99, max},         -- null when there are no frames
--     low_1pct_fps, low_01pct_fps, stutter_pct,
--     params = {factor, window, min_excess_ms, threshold_ms},  -- threshold_ms null unless given
--     hitches = [ { frame, tick, frame_ms, baseline_ms,       -- frame 1-based; tick/baseline may be null
--                   causes = [ {node, path, group, self_ms, excess_ms} ],  -- by excess_ms, descending
--                   groups = [ {group, excess_ms} ] } ] }                  -- by excess_ms, descending
-- Performance: whole-capture work happens in C (frame_times, group_self_ms);
-- per hitch only the hitch frame and its window frames are decoded.
local cli = require "vp.cli"
local stats = require "vp.stats"
local fmt = require "vp.fmt"
local report = require "vp.report"

local DESCRIPTION = [[
Definitions:
  frame time      VProf: the sum of the inclusive times of the root's direct
                  children (the root's own time when that is larger). Other
                  formats: the frame time they record.
  mean, p50..max  over all frames; percentiles are nearest rank: the value at
                  rank ceil(p/100 * n) of the ascending order (p0 = min).
  1 % low FPS     1000 / (mean of the slowest 1 % of frame times, in ms):
                  the slowest floor(n/100) frames, at least one. 0.1 % low
                  likewise with floor(n/1000), at least one.
  baseline        the median of the frame times of the --window frames just
                  before the frame (hitch frames included; for an even count,
                  the mean of the two middle values). Frames 2..window use
                  the fewer frames before them; frame 1 has no baseline.
  hitch           default rule: frame time >= --factor x baseline AND
                  frame time - baseline >= --min-excess-ms; frame 1 is never
                  a hitch under this rule. With --threshold-ms X the engine's
                  absolute rule replaces it (vprof_dump_spikes): frame time > X
                  (any frame, frame 1 included).
  stutter %       100 x (sum of the hitch frames' times) / (sum of all frame
                  times): the share of the time spent in hitch frames.
  self time       a node's inclusive time minus its children's inclusive
                  times, clamped at 0.
  causes          nodes whose self time in the hitch frame exceeds their own
                  baseline: the median of the node's self time over the same
                  window frames (0 in frames where the node does not exist;
                  0 for frame 1). excess_ms = self_ms - that baseline. The
                  --causes largest, by excess_ms.
  groups          the same for budget-group self time (the sum of the self
                  times of the group's nodes in a frame).
Frame numbers are 1-based positions in the capture (the tick is the game tick).]]

local SPEC = {
  name = "hitches.lua",
  summary = "Frame time statistics and the hitch frames of a capture, each with its causes.",
  description = DESCRIPTION,
  options = {
    { "--factor", type = "number", default = 2.5, positive = true, metavar = "X",
      help = "a hitch takes at least X times its baseline" },
    { "--window", type = "integer", default = 30, min = 1, metavar = "N",
      help = "the baseline is the median of the N preceding frames" },
    { "--min-excess-ms", type = "number", default = 5, min = 0, metavar = "X",
      help = "a hitch is also at least X ms above its baseline" },
    { "--threshold-ms", type = "number", min = 0, metavar = "X",
      help = "use the absolute rule instead: a hitch is a frame taking more than X ms" },
    { "--causes", type = "integer", default = 5, min = 0, metavar = "N",
      help = "nodes and groups listed per hitch" },
  },
  positional = { { "CAPTURE", help = "a .vprof capture, or a laige budget report" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open(path)

-- Generic: any capture with cap:frame_times() works. A reader error while
-- decoding (corrupt data) is malformed input: exit 2 with its message.
local ok_ft, ft = pcall(function() return cap:frame_times() end)
if not ok_ft or ft == nil then
  cli.fail(2, "%s: %s", path, ok_ft and ("a " .. tostring(cap.format) .. " capture has no per-frame times")
    or tostring(ft))
end

local times = stats.values(ft) -- a Lua list: the scan below is the hot loop
local n = #times
local is_vprof = cap.format == "vprof"

-- The tick of frame i when the capture has random access to frames.
local function tick_of(i)
  local ok, t = pcall(function()
    local f = cap:frame(i)
    return f and f.tick
  end)
  if ok and math.type(t) then return t end
  return nil
end

-- Frame time statistics -------------------------------------------------------

local frame_stats, low1, low01
if n > 0 then
  -- From the C Series: its sorted copy is made once and cached.
  frame_stats = {
    mean = ft:mean(), p50 = ft:percentile(50), p95 = ft:percentile(95), p99 = ft:percentile(99),
    max = ft:max(),
  }
  low1 = stats.low_fps(ft, 1)
  low01 = stats.low_fps(ft, 0.1)
end

-- Hitch detection -----------------------------------------------------------
-- The median of every window costs a sorted-window update per frame. The
-- window's minimum is cheaper (a monotonic deque) and bounds the median from
-- below, so "t >= factor x min and t - min >= min_excess" is necessary for a
-- hitch: only frames passing it get the exact median (a sort of <= window
-- values). When that prefilter passes too many frames, one pass with the
-- sorted window is cheaper and gives the same answer.

local factor, window, min_excess = opts.factor, opts.window, opts.min_excess_ms
local threshold = opts.threshold_ms
local hitches = {}

local function window_median(i) -- median of the frames before i (nil for frame 1)
  local vals = {}
  for j = math.max(1, i - window), i - 1 do vals[#vals + 1] = times[j] end
  return stats.median(vals)
end

local function relative_hitch(t, b)
  return t >= factor * b and t - b >= min_excess
end

if threshold then
  for i = 1, n do
    if times[i] > threshold then
      hitches[#hitches + 1] = { frame = i, frame_ms = times[i], baseline_ms = window_median(i) }
    end
  end
else
  local cands = {}
  local dq, head, tail = {}, 1, 0 -- indices of the window, values increasing
  local limit = n // 8 + 64
  for i = 2, n do
    local prev = times[i - 1]
    while tail >= head and times[dq[tail]] >= prev do tail = tail - 1 end
    tail = tail + 1
    dq[tail] = i - 1
    if dq[head] < i - window then head = head + 1 end
    local t, mn = times[i], times[dq[head]]
    if t >= min_excess and relative_hitch(t, mn) then
      cands[#cands + 1] = i
      if #cands > limit then break end
    end
  end
  if #cands <= limit then
    for _, i in ipairs(cands) do
      local b = window_median(i)
      if relative_hitch(times[i], b) then
        hitches[#hitches + 1] = { frame = i, frame_ms = times[i], baseline_ms = b }
      end
    end
  else
    local w = stats.window(window)
    for i = 1, n do
      local t = times[i]
      if i > 1 and t >= min_excess then
        local b = w.median()
        if relative_hitch(t, b) then
          hitches[#hitches + 1] = { frame = i, frame_ms = t, baseline_ms = b }
        end
      end
      w:push(t)
    end
  end
end

local total_ms = stats.sum(ft)
local hitch_ms = 0
for _, h in ipairs(hitches) do hitch_ms = hitch_ms + h.frame_ms end
local stutter_pct = 0
if hitch_ms > 0 and total_ms > 0 then stutter_pct = 100 * hitch_ms / total_ms end

-- Causes ------------------------------------------------------------------------

local function window_of(i)
  return math.max(1, i - window), i - 1 -- empty (first > last) for frame 1
end

local function by_excess(a, b)
  if a.excess_ms ~= b.excess_ms then return a.excess_ms > b.excess_ms end
  return (a.path or a.group) < (b.path or b.group)
end

-- Frames decoded for the current hitch's window; consecutive hitches share
-- most of their windows, so keep the previous set.
local frame_cache, frame_cache_prev = {}, {}
local function get_frame(i)
  local f = frame_cache[i] or frame_cache_prev[i]
  if not f then f = cap:frame(i) end
  frame_cache[i] = f
  return f
end

local function node_causes(h, limit)
  local out = cli.array()
  if limit == 0 then return out end
  local frame = get_frame(h.frame)
  local cands = {}
  for node in frame:nodes() do
    local s = frame:self_ms(node)
    if s > 0 then cands[#cands + 1] = { node = node, self_ms = s } end
  end
  table.sort(cands, function(a, b) return a.self_ms > b.self_ms end)
  local first, last = window_of(h.frame)
  local found = {}
  for _, c in ipairs(cands) do
    -- excess <= self time (baselines are >= 0): nothing further can make the list
    if #found >= limit and c.self_ms <= found[limit].excess_ms then break end
    local vals = {}
    for j = first, last do vals[#vals + 1] = get_frame(j):self_ms(c.node) end
    local base = stats.median(vals) or 0
    local excess = c.self_ms - base
    if excess > 1e-9 then
      local node = c.node
      found[#found + 1] = {
        node = node.name, path = node.path, group = node.group and node.group.name or cli.null,
        self_ms = c.self_ms, excess_ms = excess,
      }
      table.sort(found, by_excess)
      if #found > limit then found[#found] = nil end
    end
  end
  for i, c in ipairs(found) do out[i] = c end
  return out
end

local group_series -- {[group] = Series}, computed once, only when needed
local function group_causes(h, limit)
  local out = cli.array()
  if limit == 0 then return out end
  local first, last = window_of(h.frame)
  local found = {}
  for g, s in pairs(group_series) do
    local self_ms = s[h.frame] or 0
    if self_ms > 0 then
      local vals = {}
      for j = first, last do vals[#vals + 1] = s[j] end
      local excess = self_ms - (stats.median(vals) or 0)
      if excess > 1e-9 then found[#found + 1] = { group = g.name, excess_ms = excess } end
    end
  end
  table.sort(found, by_excess)
  for i = 1, math.min(limit, #found) do out[i] = found[i] end
  return out
end

if is_vprof and #hitches > 0 then
  group_series = cap:group_self_ms()
end

local update, done = cli.progress("hitches: causes", #hitches)
for k, h in ipairs(hitches) do
  h.tick = tick_of(h.frame)
  if is_vprof then
    frame_cache_prev, frame_cache = frame_cache, {}
    h.causes = node_causes(h, opts.causes)
    h.groups = group_causes(h, opts.causes)
  else
    h.causes, h.groups = cli.array(), cli.array()
  end
  update(k)
end
done()

-- Output -------------------------------------------------------------------------

local function null(v)
  if v == nil then return cli.null end
  return v
end

local doc_hitches = cli.array()
for i, h in ipairs(hitches) do
  doc_hitches[i] = {
    frame = h.frame, tick = null(h.tick), frame_ms = h.frame_ms, baseline_ms = null(h.baseline_ms),
    causes = h.causes, groups = h.groups,
  }
end

local doc = {
  file = cap.path or path,
  format = cap.format,
  frames = n,
  frame_ms = frame_stats or cli.null,
  low_1pct_fps = null(low1),
  low_01pct_fps = null(low01),
  stutter_pct = stutter_pct,
  params = { factor = factor, window = window, min_excess_ms = min_excess, threshold_ms = null(threshold) },
  hitches = doc_hitches,
}

local function fps(v)
  if v == nil then return "-" end
  return fmt.fixed(v, 1) .. " fps"
end

local rule
if threshold then
  rule = string.format("frame time > %s ms (absolute rule)", fmt.number(threshold))
else
  rule = string.format("frame time >= %s x the median of the preceding %d frames and >= %s ms above it",
    fmt.number(factor), window, fmt.number(min_excess))
end

local header = {
  { "frames", fmt.int(n) .. (n > 0 and ("  (" .. fmt.duration(total_ms) .. " of frame time)") or "") },
}
if frame_stats then
  header[#header + 1] = { "frame time (ms)", string.format("mean %s  p50 %s  p95 %s  p99 %s  max %s",
    fmt.ms(frame_stats.mean), fmt.ms(frame_stats.p50), fmt.ms(frame_stats.p95), fmt.ms(frame_stats.p99),
    fmt.ms(frame_stats.max)) }
  header[#header + 1] = { "1 % low", fps(low1) }
  header[#header + 1] = { "0.1 % low", fps(low01) }
end
header[#header + 1] = { "stutter", string.format("%s of frame time in %s hitch frame%s",
  fmt.pct(stutter_pct, 2), fmt.int(#hitches), #hitches == 1 and "" or "s") }
header[#header + 1] = { "hitch rule", rule }

local rows = {}
for i, h in ipairs(hitches) do
  local c, g = h.causes[1], h.groups[1]
  rows[i] = {
    frame = h.frame, tick = h.tick, frame_ms = h.frame_ms, baseline_ms = h.baseline_ms,
    excess_ms = h.baseline_ms and (h.frame_ms - h.baseline_ms) or nil,
    cause = c and c.path, cause_excess_ms = c and c.excess_ms,
    group = g and g.group, group_excess_ms = g and g.excess_ms,
  }
end
local columns = {
  { key = "frame", title = "frame" },
  { key = "tick", title = "tick", align = "right" },
  { key = "frame_ms", title = "frame ms", format = fmt.ms },
  { key = "baseline_ms", title = "baseline", format = fmt.ms, align = "right" },
  { key = "excess_ms", title = "excess", format = fmt.ms, align = "right" },
}
if is_vprof then
  columns[#columns + 1] = { key = "group", title = "top group", align = "left" }
  columns[#columns + 1] = { key = "group_excess_ms", title = "group +ms", format = fmt.ms, align = "right" }
  columns[#columns + 1] = { key = "cause_excess_ms", title = "node +ms", format = fmt.ms, align = "right" }
  columns[#columns + 1] = { key = "cause", title = "top cause (node path)", align = "left" }
end

-- The text lists the causes worth reading: those with at least a tenth of
-- the largest one's excess (the JSON has all of them, up to --causes).
local function worth(list)
  local out, floor = {}, list[1] and list[1].excess_ms / 10 or 0
  for _, c in ipairs(list) do
    if c.excess_ms >= floor then out[#out + 1] = c end
  end
  return out, #list - #out
end

local detail = { "\ncauses (excess over each one's own baseline; smaller ones in --json)" }
if is_vprof and opts.causes > 0 then
  for _, h in ipairs(hitches) do
    if #h.causes > 0 or #h.groups > 0 then
      detail[#detail + 1] = string.format("\nframe %d%s: %s ms, baseline %s ms", h.frame,
        h.tick and (" (tick " .. h.tick .. ")") or "", fmt.ms(h.frame_ms), fmt.ms(h.baseline_ms))
      local groups, gmore = worth(h.groups)
      for _, g in ipairs(groups) do
        detail[#detail + 1] = string.format("  group  %9s ms  %s", "+" .. fmt.ms(g.excess_ms), g.group)
      end
      local causes, cmore = worth(h.causes)
      for _, c in ipairs(causes) do
        detail[#detail + 1] = string.format("  node   %9s ms  %s  [%s]  self %s ms", "+" .. fmt.ms(c.excess_ms),
          c.path, tostring(c.group), fmt.ms(c.self_ms))
      end
      if gmore + cmore > 0 then
        detail[#detail + 1] = string.format("  (%d smaller group%s, %d smaller node%s)", gmore,
          gmore == 1 and "" or "s", cmore, cmore == 1 and "" or "s")
      end
    end
  end
end

local csv_cols = {
  { key = "frame" }, { key = "tick" }, { key = "frame_ms" }, { key = "baseline_ms" }, { key = "excess_ms" },
  { key = "group", csv = "top_group" }, { key = "group_excess_ms", csv = "top_group_excess_ms" },
  { key = "cause", csv = "top_cause_path" }, { key = "cause_excess_ms", csv = "top_cause_excess_ms" },
}

report.emit(opts, {
  json = doc,
  title = string.format("hitches: %s (%s)", doc.file, tostring(cap.format)),
  header = header,
  sections = {
    { title = string.format("hitch frames (%d)", #hitches), columns = columns, rows = rows,
      empty = "no hitch frames", notes = #detail > 1 and detail or nil },
  },
  csv = { columns = csv_cols, rows = rows },
})
cap:close()
