-- movement.lua: distance, speed, ground/air time, jumps, jetpack use and corrections from a movement trace (.dm)
--
-- A .dm record holds, per recorded group (one of 20 debugmovement
-- channels, picked by a bit), a position, an orientation and, when the
-- extended block is present, velocity, jetpack energy, ground/air time and
-- time since the last jump. This script follows ONE group bit through the
-- records (sorted by time) and derives the movement figures; see
-- DESCRIPTION (printed by --help) for every definition.
--
-- usage: vpscript movement.lua [options] CAPTURE
--   --bit N              group bit to follow (default: the bit with the most groups)
--   --min-correction X   smallest unexplained position jump reported (0.5 units)
--   --max-gap-ms X       pairs further apart than this are not checked (1000)
--   --time-scale X       milliseconds per record time unit (1)
--   --json, --csv, --help
--
-- JSON (one document; absent values are null):
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
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local stats = require "vp.stats"

local DESCRIPTION = [[
Samples: the group recorded under --bit in every record that has it, sorted
by record time (the file is a ring of slots, so file order need not be time
order). Times are record times x --time-scale, in ms. Positions and
velocities are in world units; velocity is read as units per second.
Definitions:
  distance        sum of |p[i] - p[i-1]| over successive samples.
  speed (vel.)    |velocity| of each sample with the extended block:
                  mean, p50, p95 (nearest rank), max.
  speed (pos.)    |p[i] - p[i-1]| / dt over successive samples with dt > 0:
                  mean, p50, p95, max; overall = distance / duration.
  on ground/air   a sample's state holds from its time to the next sample's:
                  ground_time > 0 is on the ground, < 0 in the air (the
                  notes: positive on the ground, negative in the air); 0 or
                  no extended block is unknown. Shares are of the duration.
  jumps           samples whose time_since_last_jump is below the previous
                  sample's (the counter restarted).
  takeoffs        ground -> air changes between successive samples (jumps
                  and falls); landings: air -> ground.
  jetpack used    sum of the drops of jetpack_energy between successive
                  samples with the extended block; recharged: sum of rises.
  correction      a position jump that velocity x dt cannot explain: for
                  successive samples both with velocity and 0 < dt <=
                  --max-gap-ms, expected = p[i-1] + (v[i-1] + v[i]) / 2 x dt
                  (exact for constant acceleration), size = |p[i] - expected|;
                  reported when size > --min-correction.]]

local SPEC = {
  name = "movement.lua",
  summary = "Distance, speed, ground/air time, jumps, jetpack use and corrections of a .dm trace.",
  description = DESCRIPTION,
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

local opts, args = cli.parse(arg, SPEC)
local path = args[1]
local cap = cli.open(path)
if cap.format ~= "dm" then
  cli.fail(2, "%s: movement.lua reads .dm movement traces; this is a %s capture", path,
    tostring(cap.format))
end

local function null(v)
  if v == nil or v ~= v then return cli.null end
  return v
end

-- The bit to follow.
local bits = cli.array()
local best, best_n
for b = 0, 19 do
  local n = cap.groups_by_bit[b]
  if n then
    bits[#bits + 1] = { bit = b, groups = n }
    if not best_n or n > best_n then best, best_n = b, n end
  end
end
local bit = opts.bit or best
if opts.bit and not cap.groups_by_bit[opts.bit] then
  local present = {}
  for i, b in ipairs(bits) do present[i] = tostring(b.bit) end
  cli.fail(2, "%s: no record has a group under bit %d (bits present: %s)", path, opts.bit,
    #present > 0 and table.concat(present, " ") or "none")
end

-- Collect the samples.
local samples = {}
local ok, err = pcall(function()
  if not bit then return end
  for r in cap:records() do
    local g = r:group(bit)
    if g then
      samples[#samples + 1] = {
        time = r.time * opts.time_scale, record = r.index, p = g.position,
        v = g.velocity, ground_time = g.ground_time, tslj = g.time_since_last_jump,
        energy = g.jetpack_energy,
      }
    end
  end
end)
if not ok then cli.fail(2, "%s", tostring(err)) end
table.sort(samples, function(a, b)
  if a.time ~= b.time then return a.time < b.time end
  return a.record < b.record
end)

local function sub(a, b) return { x = a.x - b.x, y = a.y - b.y, z = a.z - b.z } end
local function len(a) return math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z) end

local function state_of(s)
  if not s.ground_time or s.ground_time == 0 then return "unknown" end
  return s.ground_time > 0 and "ground" or "air"
end

local distance = 0
local vel_speeds, pos_speeds = {}, {}
local time_in = { ground = 0, air = 0, unknown = 0 }
local jumps, takeoffs, landings = 0, 0, 0
local used, recharged, e_samples = 0, 0, 0
local e_first, e_last, e_min, e_max
local corrections, checked = {}, 0
local ext_samples = 0

for i, s in ipairs(samples) do
  if s.v then
    ext_samples = ext_samples + 1
    vel_speeds[#vel_speeds + 1] = len(s.v)
  end
  if s.energy then
    e_samples = e_samples + 1
    e_first = e_first or s.energy
    e_last = s.energy
    e_min = math.min(e_min or s.energy, s.energy)
    e_max = math.max(e_max or s.energy, s.energy)
  end
  local prev = samples[i - 1]
  if prev then
    local dt = s.time - prev.time
    local step = len(sub(s.p, prev.p))
    distance = distance + step
    if dt > 0 then pos_speeds[#pos_speeds + 1] = step / (dt / 1000) end
    local st = state_of(prev)
    time_in[st] = time_in[st] + dt
    local a, b = state_of(prev), state_of(s)
    if a == "ground" and b == "air" then takeoffs = takeoffs + 1 end
    if a == "air" and b == "ground" then landings = landings + 1 end
    if prev.tslj and s.tslj and s.tslj < prev.tslj then jumps = jumps + 1 end
    if prev.energy and s.energy then
      local d = s.energy - prev.energy
      if d < 0 then used = used - d else recharged = recharged + d end
    end
    if prev.v and s.v and dt > 0 and dt <= opts.max_gap_ms then
      checked = checked + 1
      local t = dt / 1000
      local expected = {
        x = prev.p.x + (prev.v.x + s.v.x) / 2 * t,
        y = prev.p.y + (prev.v.y + s.v.y) / 2 * t,
        z = prev.p.z + (prev.v.z + s.v.z) / 2 * t,
      }
      local size = len(sub(s.p, expected))
      if size > opts.min_correction then
        corrections[#corrections + 1] = {
          time = s.time, record = s.record, size = size, dt_ms = dt,
          from = prev.p, to = s.p, expected = expected,
        }
      end
    end
  end
end

local first = samples[1] and samples[1].time
local last = samples[#samples] and samples[#samples].time
local duration = first and (last - first) or nil

local function dist_stats(list)
  local p = stats.percentiles(list, { 50, 95 })
  return { mean = #list > 0 and stats.mean(list) or nil, p50 = p[50], p95 = p[95],
    max = #list > 0 and stats.max(list) or nil }
end
local vs, ps = dist_stats(vel_speeds), dist_stats(pos_speeds)
local overall = (duration and duration > 0) and distance / (duration / 1000) or nil

local total_size, max_size = 0, nil
local clist = cli.array()
for i, c in ipairs(corrections) do
  total_size = total_size + c.size
  max_size = math.max(max_size or c.size, c.size)
  clist[i] = { time = c.time, record = c.record, size = c.size, dt_ms = c.dt_ms, from = c.from,
    to = c.to, expected = c.expected }
end

local function pct(x)
  if not duration or duration <= 0 then return nil end
  return 100 * x / duration
end

local doc = {
  file = cap.path or path, format = "dm", bit = null(bit), bits = bits,
  records = cap.record_count, samples = #samples, ext_samples = ext_samples,
  time_scale = opts.time_scale, first_time = null(first), last_time = null(last),
  duration_ms = null(duration), distance = distance,
  speed_velocity = { samples = #vel_speeds, mean = null(vs.mean), p50 = null(vs.p50),
    p95 = null(vs.p95), max = null(vs.max) },
  speed_position = { pairs = #pos_speeds,
    overall = null(overall),
    mean = null(ps.mean), p50 = null(ps.p50), p95 = null(ps.p95), max = null(ps.max) },
  ground_ms = time_in.ground, air_ms = time_in.air, unknown_ms = time_in.unknown,
  ground_pct = null(pct(time_in.ground)), air_pct = null(pct(time_in.air)),
  jumps = jumps, takeoffs = takeoffs, landings = landings,
  jetpack = { samples = e_samples, first = null(e_first), last = null(e_last), min = null(e_min),
    max = null(e_max), used = used, recharged = recharged },
  corrections = { count = #corrections, total_size = total_size, max_size = null(max_size),
    min_correction = opts.min_correction, max_gap_ms = opts.max_gap_ms, checked_pairs = checked,
    list = clist },
}

-- Text --------------------------------------------------------------------

local function num(v, d) return fmt.number(v, d or 2) end
local function speeds(s)
  return string.format("mean %s, p50 %s, p95 %s, max %s", num(s.mean), num(s.p50), num(s.p95),
    num(s.max))
end
local function xyz(p)
  return string.format("(%s, %s, %s)", num(p.x), num(p.y), num(p.z))
end

local crow = {}
for i, c in ipairs(corrections) do
  crow[i] = {
    time = c.time, record = c.record, size = c.size, dt_ms = c.dt_ms,
    from = xyz(c.from), to = xyz(c.to), expected = xyz(c.expected),
    from_x = c.from.x, from_y = c.from.y, from_z = c.from.z,
    to_x = c.to.x, to_y = c.to.y, to_z = c.to.z,
  }
end

local model = {
  json = doc,
  title = string.format("movement: %s", cap.path or path),
  header = {
    { "group bit", bit and string.format("%d (%s groups; bits present: %d)", bit,
      fmt.int(cap.groups_by_bit[bit] or 0), #bits) or "- (no groups)" },
    { "samples", string.format("%s (%s with the extended block)", fmt.int(#samples),
      fmt.int(ext_samples)) },
    { "duration", duration and fmt.duration(duration) or "-" },
    { "distance", num(distance) .. " units" },
    { "speed from velocity", #vel_speeds > 0 and speeds(vs) or "-" },
    { "speed from positions", #pos_speeds > 0 and (speeds(ps) .. ", overall " .. num(overall)) or "-" },
    { "on ground", string.format("%s (%s)", fmt.duration(time_in.ground),
      fmt.pct(pct(time_in.ground))) },
    { "in air", string.format("%s (%s)", fmt.duration(time_in.air), fmt.pct(pct(time_in.air))) },
    { "unknown", fmt.duration(time_in.unknown) },
    { "jumps", string.format("%d (takeoffs %d, landings %d)", jumps, takeoffs, landings) },
    { "jetpack energy", e_samples > 0 and string.format("used %s, recharged %s (%s .. %s)",
      fmt.int(used), fmt.int(recharged), fmt.int(e_first), fmt.int(e_last)) or "-" },
    { "corrections", string.format("%d of %s checked pairs (> %s units), largest %s",
      #corrections, fmt.int(checked), num(opts.min_correction), num(max_size)) },
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
      { key = "time" }, { key = "record" }, { key = "size" }, { key = "dt_ms" },
      { key = "from_x" }, { key = "from_y" }, { key = "from_z" },
      { key = "to_x" }, { key = "to_y" }, { key = "to_z" },
    },
  },
}
report.emit(opts, model)
cap:close()
