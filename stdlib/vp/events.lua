-- vp.events: counts, rates and intervals per group and event type of a
-- .devt event profiler export, and frame pacing: the analysis behind
-- scripts/events.lua and the metric catalogue's events.* (one definition for
-- both).
--
--   local events = require "vp.events"
--   local doc = events.analyze(cap)          -- the --json document
--   print(doc.frame_pacing.interval_p95_ms)
--
-- The definitions (time1 read as ms, span, rate, interval, frame pacing) are
-- stated in events.lua's --help and docs/devt.md.
local cli = require "vp.cli"
local stats = require "vp.stats"

local events = {}

local function null(v)
  if v == nil or v ~= v then return cli.null end
  return v
end

-- Successive differences of the sorted times.
local function intervals(times)
  local s = {}
  for i = 1, #times do s[i] = times[i] end
  table.sort(s)
  local d = {}
  for i = 2, #s do d[i - 1] = s[i] - s[i - 1] end
  return d
end

--- events.analyze(cap, params) -> doc
-- doc: exactly the document `events.lua --json` prints (cli.null where the
-- JSON has null): {file, format = "devt", time, graph_duration, groups,
-- events, time_field = "time1", time_unit = "ms", first_time, last_time,
-- span_ms, by_type = [ {group, group_name, type, type_name, type_uncertain,
-- count, rate_per_s, interval_p50_ms, interval_p95_ms, interval_max_ms} ],
-- frame_pacing = {frames, intervals, interval_mean_ms, interval_p50_ms,
-- interval_p95_ms, interval_p99_ms, interval_max_ms, mean_fps, low_1pct_fps}
-- | null}. params (optional): file (the name the document gives when
-- cap.path is unset). Raises on a capture of another format, and the
-- reader's error on corrupt data.
function events.analyze(cap, params)
  params = params or {}
  if cap.format ~= "devt" then
    error(string.format("vp.events: a devt capture is needed, not %s", tostring(cap.format)), 2)
  end

  -- One pass over the events: time1 per (group, type), and the Frame times.
  local buckets, order = {}, {}
  local frame_times = {}
  local first, last
  local n_events = 0
  for ev, g in cap:events() do
    n_events = n_events + 1
    local key = ev.group * 256 + ev.type
    local b = buckets[key]
    if not b then
      b = { group = ev.group, group_name = g.name, type = ev.type, type_name = ev.type_name,
        type_uncertain = ev.type_uncertain, times = {} }
      buckets[key] = b
      order[#order + 1] = key
    end
    local t = ev.time1
    b.times[#b.times + 1] = t
    if ev.type == 0 then frame_times[#frame_times + 1] = t end
    if not first or t < first then first = t end
    if not last or t > last then last = t end
  end
  table.sort(order)

  local span = first and (last - first) or nil

  local by_type = cli.array()
  for _, key in ipairs(order) do
    local b = buckets[key]
    local d = intervals(b.times)
    local p = stats.percentiles(d, { 50, 95 })
    by_type[#by_type + 1] = {
      group = b.group, group_name = b.group_name, type = b.type, type_name = b.type_name,
      type_uncertain = b.type_uncertain, count = #b.times,
      rate_per_s = null((span and span > 0) and #b.times / (span / 1000) or nil),
      interval_p50_ms = null(p[50]), interval_p95_ms = null(p[95]), interval_max_ms = null(stats.max(d)),
    }
  end

  local pacing = cli.null
  local d = intervals(frame_times)
  if #d > 0 then
    local p = stats.percentiles(d, { 50, 95, 99 })
    local mean = stats.mean(d)
    local low = stats.low_fps(d, 1)
    if low == math.huge then low = nil end
    pacing = {
      frames = #frame_times, intervals = #d, interval_mean_ms = null(mean),
      interval_p50_ms = null(p[50]), interval_p95_ms = null(p[95]), interval_p99_ms = null(p[99]),
      interval_max_ms = null(stats.max(d)),
      mean_fps = null(mean > 0 and 1000 / mean or nil),
      low_1pct_fps = null(low),
    }
  end

  return {
    file = cap.path or params.file, format = "devt", time = cap.time, graph_duration = cap.graph_duration,
    groups = cap.group_count, events = n_events, time_field = "time1", time_unit = "ms",
    first_time = null(first), last_time = null(last), span_ms = null(span),
    by_type = by_type, frame_pacing = pacing,
  }
end

return events
