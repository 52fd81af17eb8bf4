-- events.lua: event profiler (.devt) counts, rates and intervals per group and event type, and frame pacing
--
-- The client's debugevent overlay, over the whole export: how often each
-- kind of event happened in each of the four groups (frames, updates,
-- weapon inputs, weapons), how regularly, and how evenly frames were paced.
--
-- usage: vpscript events.lua [options] CAPTURE
--   --json, --csv, --help
--
-- Definitions: see DESCRIPTION below (printed by --help) and docs/devt.md.
--
-- JSON (one document):
--   { file, format = "devt", time, graph_duration, groups, events,
--     time_field = "time1", time_unit = "ms",
--     first_time, last_time, span_ms,
--     by_type = [ {group, group_name, type, type_name, type_uncertain, count,
--                  rate_per_s, interval_p50_ms, interval_p95_ms,
--                  interval_max_ms} ],          -- sorted by group, then type
--     frame_pacing = { frames, intervals, interval_mean_ms, interval_p50_ms,
--                      interval_p95_ms, interval_p99_ms, interval_max_ms,
--                      mean_fps, low_1pct_fps } }
-- Statistics that do not exist (no events, a single event, a zero span)
-- are null; frame_pacing is null when the capture has fewer than two Frame
-- events.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local stats = require "vp.stats"

local DESCRIPTION = [[
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

local SPEC = {
  name = "events.lua",
  summary = "Counts, rates and intervals per group and event type of a .devt export, and frame pacing.",
  description = DESCRIPTION,
  positional = { { "CAPTURE", help = "a .devt event profiler export" } },
}

local opts, args = cli.parse(arg, SPEC)
local path = args[1]
local cap = cli.open(path)
if cap.format ~= "devt" then
  cli.fail(2, "%s: events.lua reads .devt event profiler exports; this is a %s capture", path,
    tostring(cap.format))
end

local function null(v)
  if v == nil or v ~= v then return cli.null end
  return v
end

-- One pass over the events: time1 per (group, type), and the Frame times.
local buckets, order = {}, {}
local frame_times = {}
local first, last
local n_events = 0
local ok, err = pcall(function()
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
end)
if not ok then cli.fail(2, "%s", tostring(err)) end
table.sort(order)

local span = first and (last - first) or nil

-- Successive differences of the sorted times.
local function intervals(times)
  local s = {}
  for i = 1, #times do s[i] = times[i] end
  table.sort(s)
  local d = {}
  for i = 2, #s do d[i - 1] = s[i] - s[i - 1] end
  return d
end

local rows = {}
for _, key in ipairs(order) do
  local b = buckets[key]
  local d = intervals(b.times)
  local p = stats.percentiles(d, { 50, 95 })
  rows[#rows + 1] = {
    group = b.group, group_name = b.group_name, type = b.type, type_name = b.type_name,
    type_uncertain = b.type_uncertain, count = #b.times,
    rate_per_s = (span and span > 0) and #b.times / (span / 1000) or nil,
    interval_p50_ms = p[50], interval_p95_ms = p[95], interval_max_ms = stats.max(d),
  }
end

local pacing
do
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
    if pacing.low_1pct_fps == math.huge then pacing.low_1pct_fps = nil end
  end
end

local doc_rows = cli.array()
for i, r in ipairs(rows) do
  doc_rows[i] = {
    group = r.group, group_name = r.group_name, type = r.type, type_name = r.type_name,
    type_uncertain = r.type_uncertain, count = r.count, rate_per_s = null(r.rate_per_s),
    interval_p50_ms = null(r.interval_p50_ms), interval_p95_ms = null(r.interval_p95_ms),
    interval_max_ms = null(r.interval_max_ms),
  }
end
local doc_pacing = cli.null
if pacing then
  doc_pacing = {}
  for k, v in pairs(pacing) do doc_pacing[k] = null(v) end
  for _, k in ipairs({ "mean_fps", "low_1pct_fps" }) do doc_pacing[k] = null(pacing[k]) end
end

local doc = {
  file = cap.path or path, format = "devt", time = cap.time, graph_duration = cap.graph_duration,
  groups = cap.group_count, events = n_events, time_field = "time1", time_unit = "ms",
  first_time = null(first), last_time = null(last), span_ms = null(span),
  by_type = doc_rows, frame_pacing = doc_pacing,
}

local function type_text(_, r)
  return r.type_name .. (r.type_uncertain and " ?" or "")
end

local function rate_text(v)
  if v == nil then return "-" end
  return fmt.number(v, 2)
end

local notes = {}
if pacing then
  notes[#notes + 1] = "\nframe pacing (Frame events, intervals of time1 in ms)"
  notes[#notes + 1] = (fmt.kv({
    { "frames", fmt.int(pacing.frames) },
    { "interval mean", fmt.ms(pacing.interval_mean_ms) },
    { "interval p50 / p95 / p99", string.format("%s / %s / %s", fmt.ms(pacing.interval_p50_ms),
      fmt.ms(pacing.interval_p95_ms), fmt.ms(pacing.interval_p99_ms)) },
    { "interval max", fmt.ms(pacing.interval_max_ms) },
    { "mean fps", fmt.number(pacing.mean_fps, 1) },
    { "1 % low fps", fmt.number(pacing.low_1pct_fps, 1) },
  }, "  "):gsub("\n$", ""))
else
  notes[#notes + 1] = "\nframe pacing: fewer than two Frame events"
end

local model = {
  json = doc,
  title = string.format("events: %s", cap.path or path),
  header = {
    { "groups", fmt.int(cap.group_count) },
    { "events", fmt.int(n_events) },
    { "graph duration", fmt.int(cap.graph_duration) },
    { "time1 span", span and (fmt.int(span) .. " ms (" .. fmt.int(first) .. " .. " .. fmt.int(last) .. ")")
      or "-" },
  },
  sections = {
    { title = "events by group and type (intervals of time1 in ms; '?' = name uncertain)",
      rows = rows, empty = "no events",
      columns = {
        { key = "group", title = "#" },
        { key = "group_name", title = "group", align = "left" },
        { key = "type", title = "type" },
        { key = "type_name", title = "name", format = type_text, align = "left" },
        { key = "count", title = "count", format = fmt.int },
        { key = "rate_per_s", title = "per s", format = rate_text, align = "right" },
        { key = "interval_p50_ms", title = "p50", format = fmt.ms, align = "right" },
        { key = "interval_p95_ms", title = "p95", format = fmt.ms, align = "right" },
        { key = "interval_max_ms", title = "max", format = fmt.ms, align = "right" },
      },
      notes = notes },
  },
  csv = {
    rows = rows,
    columns = {
      { key = "group" }, { key = "group_name" }, { key = "type" }, { key = "type_name" },
      { key = "type_uncertain" }, { key = "count" }, { key = "rate_per_s" },
      { key = "interval_p50_ms" }, { key = "interval_p95_ms" }, { key = "interval_max_ms" },
    },
  },
}
report.emit(opts, model)
cap:close()
