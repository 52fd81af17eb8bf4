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

--- Parameter defaults: max_types, the (group, type) rows listed (the ones
-- with the most events; real exports have at most 4 groups x 11 types, a
-- hostile one may have millions of groups). 0 lists every one.
events.DEFAULTS = { max_types = 100 }

--- The shape of the result (and of `events.lua --json`); by_type sorted by
-- group, then type; unlisted_types counts the (group, type) pairs beyond
-- max_types and their events; frame_pacing nil with fewer than two Frame
-- events.
events.schema = "{file, format, time, graph_duration, groups, events, time_field, time_unit, first_time, "
  .. "last_time, span_ms, by_type: [{group, group_name, type, type_name, type_uncertain, count, rate_per_s, "
  .. "interval_p50_ms, interval_p95_ms, interval_max_ms}], unlisted_types: {types, events}, frame_pacing: "
  .. "{frames, intervals, interval_mean_ms, interval_p50_ms, interval_p95_ms, interval_p99_ms, "
  .. "interval_max_ms, mean_fps, low_1pct_fps}}"

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
  rows         one per (group, type) that has events, sorted by group, then
               type; past the 100 with the most events (real exports have
               at most 44) the rest are counted, not listed.
Event types 5..7 (WeaponInput_Unk5, _UseScope, _SelectFireMode) are shown
with a '?': later protocol definitions call 5 ReloadEnd and swap 6 and 7.]]

--- events.analyze(cap, params) -> result
-- result (plain data, nil where absent; shaped as events.schema): {file,
-- format = "devt", time, graph_duration, groups, events, time_field =
-- "time1", time_unit = "ms", first_time, last_time, span_ms, by_type = [
-- {group, group_name, type, type_name, type_uncertain, count, rate_per_s,
-- interval_p50_ms, interval_p95_ms, interval_max_ms} ], frame_pacing =
-- {frames, intervals, interval_mean_ms, interval_p50_ms, interval_p95_ms,
-- interval_p99_ms, interval_max_ms, mean_fps, low_1pct_fps} | nil}.
-- params (optional): file (the name the result gives when cap.path is
-- unset), max_types (events.DEFAULTS). Raises a vp.error EINPUT on a capture of another format, and the
-- reader's error on corrupt data.
function events.analyze(cap, params)
  params = params or {}
  E.check_format(cap, "devt", "vp.events")
  local max_types = params.max_types or events.DEFAULTS.max_types
  E.check_count(max_types, "max_types", "vp.events")

  -- The events grouped by (group, type) in C, times sorted: no table per event.
  local scan = cap:event_stats(max_types)
  local first, last = scan.first_time, scan.last_time
  local span = first and (last - first) or nil

  local by_type = {}
  for _, b in ipairs(scan.by_type) do
    local d = b.intervals
    local p = stats.percentiles(d, { 50, 95 })
    by_type[#by_type + 1] = {
      group = b.group, group_name = b.group_name, type = b.type, type_name = b.type_name,
      type_uncertain = b.type_uncertain, count = b.count,
      rate_per_s = (span and span > 0) and b.count / (span / 1000) or nil,
      interval_p50_ms = p[50], interval_p95_ms = p[95], interval_max_ms = stats.max(d),
    }
  end

  local pacing
  local d = scan.frame_intervals
  if #d > 0 then
    local p = stats.percentiles(d, { 50, 95, 99 })
    local mean = stats.mean(d)
    pacing = {
      frames = #d + 1, intervals = #d, interval_mean_ms = mean,
      interval_p50_ms = p[50], interval_p95_ms = p[95], interval_p99_ms = p[99],
      interval_max_ms = stats.max(d),
      mean_fps = mean > 0 and 1000 / mean or nil,
      low_1pct_fps = (stats.low_fps(d, 1)),
    }
  end

  return {
    file = cap.path or params.file, format = "devt", time = cap.time, graph_duration = cap.graph_duration,
    groups = cap.group_count, events = scan.events, time_field = "time1", time_unit = "ms",
    first_time = first, last_time = last, span_ms = span,
    by_type = by_type, unlisted_types = { types = scan.more_types.buckets, events = scan.more_types.events },
    frame_pacing = pacing,
  }
end

return events
