-- vp.movement: distance, speed, ground/air time, jumps, jetpack use and
-- corrections of one group bit of a .dm movement trace: the analysis behind
-- scripts/movement.lua and the metric catalogue's movement.* (one definition
-- for both).
--
--   local movement = require "vp.movement"
--   local doc = movement.analyze(cap, {min_correction = 0.5})  -- the --json document
--   print(doc.distance, doc.corrections.count)
--
-- The definitions (samples, distance, speeds, ground/air, jumps, jetpack,
-- corrections) are stated in movement.lua's --help and docs/dm.md.
local cli = require "vp.cli"
local stats = require "vp.stats"

local movement = {}

movement.DEFAULTS = { min_correction = 0.5, max_gap_ms = 1000, time_scale = 1 }

local function null(v)
  if v == nil or v ~= v then return cli.null end
  return v
end

local function sub(a, b) return { x = a.x - b.x, y = a.y - b.y, z = a.z - b.z } end
local function len(a) return math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z) end

local function state_of(s)
  if not s.ground_time or s.ground_time == 0 then return "unknown" end
  return s.ground_time > 0 and "ground" or "air"
end

local function dist_stats(list)
  local p = stats.percentiles(list, { 50, 95 })
  return { mean = #list > 0 and stats.mean(list) or nil, p50 = p[50], p95 = p[95],
    max = #list > 0 and stats.max(list) or nil }
end

--- movement.analyze(cap, params) -> doc
-- doc: exactly the document `movement.lua --json` prints (cli.null where the
-- JSON has null): {file, format = "dm", bit, bits = [ {bit, groups} ],
-- records, samples, ext_samples, time_scale, first_time, last_time,
-- duration_ms, distance, speed_velocity = {samples, mean, p50, p95, max},
-- speed_position = {pairs, overall, mean, p50, p95, max}, ground_ms, air_ms,
-- unknown_ms, ground_pct, air_pct, jumps, takeoffs, landings, jetpack =
-- {samples, first, last, min, max, used, recharged}, corrections = {count,
-- total_size, max_size, min_correction, max_gap_ms, checked_pairs, list =
-- [ {time, record, size, dt_ms, from, to, expected} ]}}.
-- params (all optional): bit (default: the bit with the most groups),
-- min_correction (0.5), max_gap_ms (1000), time_scale (1), file (the name
-- used when cap.path is unset). Raises cli.fail(2, ...) when no record has a
-- group under params.bit, an error on a capture of another format, and the
-- reader's error on corrupt data.
function movement.analyze(cap, params)
  params = params or {}
  if cap.format ~= "dm" then
    error(string.format("vp.movement: a dm capture is needed, not %s", tostring(cap.format)), 2)
  end
  local min_correction = params.min_correction or movement.DEFAULTS.min_correction
  local max_gap_ms = params.max_gap_ms or movement.DEFAULTS.max_gap_ms
  local time_scale = params.time_scale or movement.DEFAULTS.time_scale
  local file = cap.path or params.file

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
  local bit = params.bit or best
  if params.bit and not cap.groups_by_bit[params.bit] then
    local present = {}
    for i, b in ipairs(bits) do present[i] = tostring(b.bit) end
    cli.fail(2, "%s: no record has a group under bit %d (bits present: %s)", tostring(file), params.bit,
      #present > 0 and table.concat(present, " ") or "none")
  end

  -- Collect the samples.
  local samples = {}
  if bit then
    for r in cap:records() do
      local g = r:group(bit)
      if g then
        samples[#samples + 1] = {
          time = r.time * time_scale, record = r.index, p = g.position,
          v = g.velocity, ground_time = g.ground_time, tslj = g.time_since_last_jump,
          energy = g.jetpack_energy,
        }
      end
    end
  end
  table.sort(samples, function(a, b)
    if a.time ~= b.time then return a.time < b.time end
    return a.record < b.record
  end)

  local distance = 0
  local vel_speeds, pos_speeds = {}, {}
  local time_in = { ground = 0, air = 0, unknown = 0 }
  local jumps, takeoffs, landings = 0, 0, 0
  local used, recharged, e_samples = 0, 0, 0
  local e_first, e_last, e_min, e_max
  local corrections, checked = cli.array(), 0
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
      if prev.v and s.v and dt > 0 and dt <= max_gap_ms then
        checked = checked + 1
        local t = dt / 1000
        local expected = {
          x = prev.p.x + (prev.v.x + s.v.x) / 2 * t,
          y = prev.p.y + (prev.v.y + s.v.y) / 2 * t,
          z = prev.p.z + (prev.v.z + s.v.z) / 2 * t,
        }
        local size = len(sub(s.p, expected))
        if size > min_correction then
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

  local vs, ps = dist_stats(vel_speeds), dist_stats(pos_speeds)
  local overall = (duration and duration > 0) and distance / (duration / 1000) or nil

  local total_size, max_size = 0, nil
  for _, c in ipairs(corrections) do
    total_size = total_size + c.size
    max_size = math.max(max_size or c.size, c.size)
  end

  local function pct(x)
    if not duration or duration <= 0 then return nil end
    return 100 * x / duration
  end

  return {
    file = file, format = "dm", bit = null(bit), bits = bits,
    records = cap.record_count, samples = #samples, ext_samples = ext_samples,
    time_scale = time_scale, first_time = null(first), last_time = null(last),
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
      min_correction = min_correction, max_gap_ms = max_gap_ms, checked_pairs = checked,
      list = corrections },
  }
end

return movement
