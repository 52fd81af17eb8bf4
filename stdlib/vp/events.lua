-- vp.events: counts, rates and intervals per group and event type of a
-- .devt event profiler export, and frame pacing: the analysis behind
-- scripts/events.lua and the metric catalogue's events.* (one definition for
-- both).
--
--   local events = require "vp.events"
--   local doc = events.analyze(cap)          -- plain data (events.schema)
--   print(doc.frame_pacing.interval_p95_ms)
--
-- The definitions (time1 read as ms, span, rate, interval, frame pacing) are
-- events.DEFINITIONS (events.lua's --help) and docs/devt.md.
local E = require "vp.error"
local stats = require "vp.stats"

local events = {}

--- The shape of the result (and of `events.lua --json`); by_type sorted by
-- group, then type; frame_pacing nil with fewer than two Frame events.
events.schema = "{file, format, time, graph_duration, groups, events, time_field, time_unit, first_time, "
  .. "last_time, span_ms, by_type: [{group, group_name, type, type_name, type_uncertain, count, rate_per_s, "
  .. "interval_p50_ms, interval_p95_ms, interval_max_ms}], frame_pacing: {frames, intervals, "
  .. "interval_mean_ms, interval_p50_ms, interval_p95_ms, interval_p99_ms, interval_max_ms, mean_fps, "
  .. "low_1pct_fps}}"

--- Every definition the analysis uses, as events.lua's --help prints it.
events.DEFINITIONS = [[
Definitions:
  time         every event carries two u32 times, time1 and time2. This
               script uses time1 and reads it as milliseconds of the client's
               clock. That is an assumption: the spec names neither field's
               meaning nor its unit. The network message of the same system
               (DebugEventSample) carries a short time and a received time,
               so time1 is taken as when the event happened and time2 is
               left alone.
  span         last time1 - first time1 over all events of the capture (ms).
  rate         count / (span / 1000): events per second over the capture's
               span; null when the span is 0.
  interval     per group and type, the differences between successive
               time1 values after sorting them (ms); p50/p95 are nearest
               rank (the value at rank ceil(p/100 * n)).
  frame pacing the intervals between successive Frame events (type 0, any
               group) by time1: mean, p50, p95, p99, max (ms);
               mean fps = 1000 / mean interval; 1 % low fps = 1000 / mean
               of the slowest max(1, floor(n / 100)) intervals.
Event types 5..7 (WeaponInput_Unk5, _UseScope, _SelectFireMode) are shown
with a '?': later protocol definitions call 5 ReloadEnd and swap 6 and 7.]]

-- Successive differences of the sorted times.
local function intervals(times)
  local s = {}
  for i = 1, #times do s[i] = times[i] end
  table.sort(s)
  local d = {}
  for i = 2, #s do d[i - 1] = s[i] - s[i - 1] end
  return d
end

--- events.analyze(cap, params) -> result
-- result (plain data, nil where absent; shaped as events.schema): {file,
-- format = "devt", time, graph_duration, groups, events, time_field =
-- "time1", time_unit = "ms", first_time, last_time, span_ms, by_type = [
-- {group, group_name, type, type_name, type_uncertain, count, rate_per_s,
-- interval_p50_ms, interval_p95_ms, interval_max_ms} ], frame_pacing =
-- {frames, intervals, interval_mean_ms, interval_p50_ms, interval_p95_ms,
-- interval_p99_ms, interval_max_ms, mean_fps, low_1pct_fps} | nil}.
-- params (optional): file (the name the result gives when cap.path is
-- unset). Raises a vp.error EINPUT on a capture of another format, and the
-- reader's error on corrupt data.
function events.analyze(cap, params)
  params = params or {}
  if cap.format ~= "devt" then
    E.raise("EINPUT", "vp.events: a devt capture is needed, not %s", tostring(cap.format))
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

  local by_type = {}
  for _, key in ipairs(order) do
    local b = buckets[key]
    local d = intervals(b.times)
    local p = stats.percentiles(d, { 50, 95 })
    by_type[#by_type + 1] = {
      group = b.group, group_name = b.group_name, type = b.type, type_name = b.type_name,
      type_uncertain = b.type_uncertain, count = #b.times,
      rate_per_s = (span and span > 0) and #b.times / (span / 1000) or nil,
      interval_p50_ms = p[50], interval_p95_ms = p[95], interval_max_ms = stats.max(d),
    }
  end

  local pacing
  local d = intervals(frame_times)
  if #d > 0 then
    local p = stats.percentiles(d, { 50, 95, 99 })
    local mean = stats.mean(d)
    pacing = {
      frames = #frame_times, intervals = #d, interval_mean_ms = mean,
      interval_p50_ms = p[50], interval_p95_ms = p[95], interval_p99_ms = p[99],
      interval_max_ms = stats.max(d),
      mean_fps = mean > 0 and 1000 / mean or nil,
      low_1pct_fps = (stats.low_fps(d, 1)),
    }
  end

  return {
    file = cap.path or params.file, format = "devt", time = cap.time, graph_duration = cap.graph_duration,
    groups = cap.group_count, events = n_events, time_field = "time1", time_unit = "ms",
    first_time = first, last_time = last, span_ms = span,
    by_type = by_type, frame_pacing = pacing,
  }
end

return events
