-- events.lua: event profiler (.devt) counts, rates and intervals per group and event type, and frame pacing
--
-- The client's debugevent overlay, over the whole export: how often each
-- kind of event happened in each of the four groups (frames, updates,
-- weapon inputs, weapons), how regularly, and how evenly frames were paced.
--
-- usage: vpscript events.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --json, --csv, --help
--
-- Definitions: events.DEFINITIONS (printed by --help) and docs/devt.md.
--
-- JSON: events.schema (stdlib/vp/events.lua), one document:
--   { file, format = "devt", time, graph_duration, groups, events,
--     time_field = "time1", time_unit = "ms",
--     first_time, last_time, span_ms,
--     by_type = [ {group, group_name, type, type_name, type_uncertain, count,
--                  rate_per_s, interval_p50_ms, interval_p95_ms,
--                  interval_max_ms} ],          -- sorted by group, then type;
--                                               -- the 100 with the most events
--     unlisted_types = { types, events },       -- the pairs not listed
--     frame_pacing = { frames, intervals, interval_mean_ms, interval_p50_ms,
--                      interval_p95_ms, interval_p99_ms, interval_max_ms,
--                      mean_fps, low_1pct_fps } }
-- Statistics that do not exist (no events, a single event, a zero span)
-- are null; frame_pacing is null when the capture has fewer than two Frame
-- events.
-- The analysis is stdlib/vp/events.lua (events.analyze, which the metric
-- catalogue uses too); this script parses the options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local events = require "vp.events"

local SPEC = {
  name = "events.lua",
  schema = events.schema, -- printed by --help
  formats = { "devt" },
  summary = "Counts, rates and intervals per group and event type of a .devt export, and frame pacing.",
  description = events.DEFINITIONS,
  positional = { { "CAPTURE", help = "a .devt event profiler export" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open_as(path, opts, "devt")

local doc = cli.run(events.analyze, cap, { file = path })

-- Text --------------------------------------------------------------------

local rows, pacing, n_events = doc.by_type, doc.frame_pacing, doc.events
local first, last, span = doc.first_time, doc.last_time, doc.span_ms

local function type_text(_, r)
  return r.type_name .. (r.type_uncertain and " ?" or "")
end

local function rate_text(v)
  if v == nil then return "-" end
  return fmt.number(v, 2)
end

local notes = {}
if doc.unlisted_types.types > 0 then
  notes[#notes + 1] = string.format("  (%s more group/type pairs with %s events are not listed: the %d with "
    .. "the most events are)", fmt.int(doc.unlisted_types.types), fmt.int(doc.unlisted_types.events), #rows)
end
if pacing then
  notes[#notes + 1] = "\nframe pacing (Frame events, intervals of time1 in ms)"
  local kv = fmt.kv({
    { "frames", fmt.int(pacing.frames) },
    { "interval mean", fmt.ms(pacing.interval_mean_ms) },
    { "interval p50 / p95 / p99", string.format("%s / %s / %s", fmt.ms(pacing.interval_p50_ms),
      fmt.ms(pacing.interval_p95_ms), fmt.ms(pacing.interval_p99_ms)) },
    { "interval max", fmt.ms(pacing.interval_max_ms) },
    { "mean fps", fmt.number(pacing.mean_fps, 1) },
    { "1 % low fps", fmt.number(pacing.low_1pct_fps, 1) },
  }, "  ")
  for l in kv:gmatch("[^\n]+") do notes[#notes + 1] = l end -- a note is one line
else
  notes[#notes + 1] = "\nframe pacing: fewer than two Frame events"
end

local model = {
  json = doc,
  schema = events.schema,
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
      "group", "group_name", "type", "type_name", "type_uncertain", "count", "rate_per_s", "interval_p50_ms",
      "interval_p95_ms", "interval_max_ms",
    },
  },
}
report.emit(opts, model)
cap:close()
