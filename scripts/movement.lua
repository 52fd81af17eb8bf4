-- movement.lua: distance, speed, ground/air time, jumps, jetpack use and corrections from a movement trace (.dm)
--
-- A .dm record holds, per recorded group (one of 20 debugmovement
-- channels, picked by a bit), a position, an orientation and, when the
-- extended block is present, velocity, jetpack energy, ground/air time and
-- time since the last jump. This script follows ONE group bit through the
-- records (sorted by time) and derives the movement figures; see
-- DESCRIPTION (printed by --help) for every definition.
--
-- usage: vpscript movement.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --bit N              group bit to follow (default: the bit with the most groups)
--   --min-correction X   smallest unexplained position jump reported (0.5 units)
--   --max-gap-ms X       pairs further apart than this are not checked (1000)
--   --time-scale X       milliseconds per record time unit (1)
--   --json, --csv, --help
--
-- JSON: movement.schema (stdlib/vp/movement.lua), one document; absent
-- values are null:
--   { file, format = "dm", bit, bits = [ {bit, groups} ], records, samples,
--     ext_samples, time_scale, first_time, last_time, duration_ms,
--     distance, speed_velocity = {samples, mean, p50, p95, max},
--     speed_position = {pairs, overall, mean, p50, p95, max},
--     ground_ms, air_ms, unknown_ms, ground_pct, air_pct,
--     jumps, takeoffs, landings,
--     jetpack = {samples, first, last, min, max, used, recharged},
--     corrections = {count, total_size, max_size, min_correction, max_gap_ms,
--                    checked_pairs,
--                    list = [ {time, record, size, dt_ms, from = {x,y,z},
--                              to = {x,y,z}, expected = {x,y,z}} ]} }
-- --csv prints the corrections.
-- The analysis is stdlib/vp/movement.lua (movement.analyze, which the metric
-- catalogue uses too); this script parses the options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local movement = require "vp.movement"

local SPEC = {
  name = "movement.lua",
  schema = movement.schema, -- printed by --help
  formats = { "dm" },
  summary = "Distance, speed, ground/air time, jumps, jetpack use and corrections of a .dm trace.",
  description = movement.DEFINITIONS,
  options = {
    { "--bit", type = "integer", min = 0, max = 19, metavar = "N",
      help = "group bit to follow (default: the bit with the most groups)" },
    { "--min-correction", type = "number", default = 0.5, min = 0, metavar = "X",
      help = "smallest unexplained position jump reported, in world units" },
    { "--max-gap-ms", type = "number", default = 1000, positive = true, metavar = "X",
      help = "successive samples further apart are not checked for corrections" },
    { "--time-scale", type = "number", default = 1, positive = true, metavar = "X",
      help = "milliseconds per record time unit" },
  },
  positional = { { "CAPTURE", help = "a .dm movement trace" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open_as(path, opts, "dm")

local doc = cli.run(movement.analyze, cap, {
  bit = opts.bit, min_correction = opts.min_correction, max_gap_ms = opts.max_gap_ms,
  time_scale = opts.time_scale, file = path,
})

-- Text --------------------------------------------------------------------

local vs, ps, jet, corr = doc.speed_velocity, doc.speed_position, doc.jetpack, doc.corrections
local bit, duration = doc.bit, doc.duration_ms

local function num(v, d) return fmt.number(v, d or 2) end
local function speeds(s)
  return string.format("mean %s, p50 %s, p95 %s, max %s", num(s.mean), num(s.p50), num(s.p95),
    num(s.max))
end
local function xyz(p)
  return string.format("(%s, %s, %s)", num(p.x), num(p.y), num(p.z))
end

local crow = {}
for i, c in ipairs(corr.list) do
  crow[i] = {
    time = c.time, record = c.record, size = c.size, dt_ms = c.dt_ms,
    from = xyz(c.from), to = xyz(c.to), expected = xyz(c.expected),
    from_x = c.from.x, from_y = c.from.y, from_z = c.from.z,
    to_x = c.to.x, to_y = c.to.y, to_z = c.to.z,
  }
end

local model = {
  json = doc,
  schema = movement.schema,
  title = string.format("movement: %s", cap.path or path),
  header = {
    { "group bit", bit and string.format("%d (%s groups; bits present: %d)", bit,
      fmt.int(cap.groups_by_bit[bit] or 0), #doc.bits) or "- (no groups)" },
    { "samples", string.format("%s (%s with the extended block)", fmt.int(doc.samples),
      fmt.int(doc.ext_samples)) },
    { "duration", duration and fmt.duration(duration) or "-" },
    { "distance", num(doc.distance) .. " units" },
    { "speed from velocity", vs.samples > 0 and speeds(vs) or "-" },
    { "speed from positions", ps.pairs > 0 and (speeds(ps) .. ", overall " .. num(ps.overall)) or "-" },
    { "on ground", string.format("%s (%s)", fmt.duration(doc.ground_ms), fmt.pct(doc.ground_pct)) },
    { "in air", string.format("%s (%s)", fmt.duration(doc.air_ms), fmt.pct(doc.air_pct)) },
    { "unknown", fmt.duration(doc.unknown_ms) },
    { "jumps", string.format("%d (takeoffs %d, landings %d)", doc.jumps, doc.takeoffs, doc.landings) },
    { "jetpack energy", jet.samples > 0 and string.format("used %s, recharged %s (first %s, last %s, min %s, max %s)",
      fmt.int(jet.used), fmt.int(jet.recharged), fmt.int(jet.first), fmt.int(jet.last), fmt.int(jet.min),
      fmt.int(jet.max)) or "-" },
    { "corrections", string.format("%d of %s checked pairs (> %s units), largest %s",
      corr.count, fmt.int(corr.checked_pairs), num(corr.min_correction), num(corr.max_size)) },
  },
  sections = {
    { title = "corrections (position jumps velocity x dt does not explain)", rows = crow,
      empty = "none",
      columns = {
        { key = "time", title = "time ms", format = function(v) return fmt.number(v) end },
        { key = "record", title = "record", format = fmt.int },
        { key = "size", title = "size", format = function(v) return num(v) end },
        { key = "dt_ms", title = "dt ms", format = function(v) return fmt.number(v) end },
        { key = "from", title = "from", align = "left" },
        { key = "expected", title = "expected", align = "left" },
        { key = "to", title = "to", align = "left" },
      } },
  },
  csv = {
    rows = crow,
    columns = {
      "time", "record", "size", "dt_ms", "from_x", "from_y", "from_z", "to_x", "to_y", "to_z",
    },
  },
}
report.emit(opts, model)
cap:close()
