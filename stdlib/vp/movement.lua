-- vp.movement: distance, speed, ground/air time, jumps, jetpack use and
-- corrections of one group bit of a .dm movement trace: the analysis behind
-- scripts/movement.lua and the metric catalogue's movement.* (one definition
-- for both).
--
--   local movement = require "vp.movement"
--   local doc = movement.analyze(cap, {min_correction = 0.5})  -- plain data (movement.schema)
--   print(doc.distance, doc.corrections.count)
--
-- The definitions (samples, distance, speeds, ground/air, jumps, jetpack,
-- corrections) are movement.DEFINITIONS (movement.lua's --help) and
-- docs/dm.md.
local E = require "vp.error"
local stats = require "vp.stats"

local movement = {}

--- Parameter defaults; max_corrections: corrections listed (the first by
-- time; all are counted and summed), 0 for all.
movement.DEFAULTS = { min_correction = 0.5, max_gap_ms = 1000, time_scale = 1, max_corrections = 1000 }

local XYZ = "{x, y, z}"

--- The shape of the result (and of `movement.lua --json`).
movement.schema = "{file, format, bit, bits: [{bit, groups}], records, samples, ext_samples, time_scale, "
  .. "first_time, last_time, duration_ms, distance, speed_velocity: {samples, mean, p50, p95, max}, "
  .. "speed_position: {pairs, overall, mean, p50, p95, max}, ground_ms, air_ms, unknown_ms, ground_pct, "
  .. "air_pct, jumps, takeoffs, landings, jetpack: {samples, first, last, min, max, used, recharged}, "
  .. "corrections: {count, total_size, max_size, min_correction, max_gap_ms, checked_pairs, list: [{time, "
  .. "record, size, dt_ms, from: " .. XYZ .. ", to: " .. XYZ .. ", expected: " .. XYZ .. "}]}}"

--- Every definition the analysis uses, as movement.lua's --help prints it.
movement.DEFINITIONS = [[
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
                  reported when size > --min-correction. All are counted;
                  the first 1,000 by time are listed.]]

local function check_params(p)
  E.check_number(p.min_correction, "min_correction", "vp.movement")
  E.check_number(p.max_gap_ms, "max_gap_ms", "vp.movement", 0, true)
  E.check_number(p.time_scale, "time_scale", "vp.movement", 0, true)
  E.check_count(p.max_corrections, "max_corrections", "vp.movement")
  local bit = p.bit
  if bit ~= nil and (math.type(bit) ~= "integer" or bit < 0 or bit > 19) then
    E.raise("EUSAGE", "vp.movement: params.bit must be an integer in 0..19, not %s", tostring(bit))
  end
end

local function dist_stats(list)
  local p = stats.percentiles(list, { 50, 95 })
  return { mean = #list > 0 and stats.mean(list) or nil, p50 = p[50], p95 = p[95],
    max = #list > 0 and stats.max(list) or nil }
end

--- movement.analyze(cap, params) -> result
-- result (plain data, nil where absent; shaped as movement.schema): {file,
-- format = "dm", bit, bits = [ {bit, groups} ],
-- records, samples, ext_samples, time_scale, first_time, last_time,
-- duration_ms, distance, speed_velocity = {samples, mean, p50, p95, max},
-- speed_position = {pairs, overall, mean, p50, p95, max}, ground_ms, air_ms,
-- unknown_ms, ground_pct, air_pct, jumps, takeoffs, landings, jetpack =
-- {samples, first, last, min, max, used, recharged}, corrections = {count,
-- total_size, max_size, min_correction, max_gap_ms, checked_pairs, list =
-- [ {time, record, size, dt_ms, from, to, expected} ]}}.
-- params (all optional): bit (default: the bit with the most groups),
-- min_correction (0.5), max_gap_ms (1000), time_scale (1), max_corrections
-- (1000), file (the name used when cap.path is unset). Raises a vp.error: EUSAGE for a bad
-- parameter or a bit no record has a group under, EINPUT on a capture of
-- another format; and the reader's error on corrupt data.
function movement.analyze(cap, params)
  params = params or {}
  E.check_format(cap, "dm", "vp.movement")
  check_params(params)
  local min_correction = params.min_correction or movement.DEFAULTS.min_correction
  local max_gap_ms = params.max_gap_ms or movement.DEFAULTS.max_gap_ms
  local time_scale = params.time_scale or movement.DEFAULTS.time_scale
  local file = cap.path or params.file

  -- The bit to follow.
  local bits = {}
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
    E.raise("EUSAGE", "%s: no record has a group under bit %d (bits present: %s)", tostring(file), params.bit,
      #present > 0 and table.concat(present, " ") or "none")
  end

  -- The samples, as columns sorted by record time (then record): one list
  -- per field from C, never a table per record.
  local tr = bit and cap:track(bit) or { time = {} }
  local T, R, X, Y, Z = tr.time, tr.record, tr.x, tr.y, tr.z
  local EXT, VX, VY, VZ = tr.ext, tr.vx, tr.vy, tr.vz
  local GT, TSLJ, EN = tr.ground_time, tr.since_jump, tr.energy
  local n = #T
  local max_list = params.max_corrections or movement.DEFAULTS.max_corrections

  local distance = 0
  local vel_speeds, pos_speeds = {}, {}
  local time_in = { ground = 0, air = 0, unknown = 0 }
  local jumps, takeoffs, landings = 0, 0, 0
  local used, recharged, e_samples = 0, 0, 0
  local e_first, e_last, e_min, e_max
  local corrections, n_corr, total_size, max_size, checked = {}, 0, 0, nil, 0
  local ext_samples = 0
  local sqrt = math.sqrt

  -- A sample's ground/air state: ground_time > 0 on the ground, < 0 in the
  -- air, 0 or no extended block unknown.
  local function state_of(i)
    local g = EXT[i] and GT[i] or 0
    if g == 0 then return "unknown" end
    return g > 0 and "ground" or "air"
  end
  local function vec(i) return { x = X[i], y = Y[i], z = Z[i] } end

  for i = 1, n do
    local t = T[i] * time_scale
    local ext = EXT[i]
    if ext then
      ext_samples = ext_samples + 1
      vel_speeds[#vel_speeds + 1] = sqrt(VX[i] * VX[i] + VY[i] * VY[i] + VZ[i] * VZ[i])
      local e = EN[i]
      e_samples = e_samples + 1
      e_first = e_first or e
      e_last = e
      e_min = math.min(e_min or e, e)
      e_max = math.max(e_max or e, e)
    end
    if i > 1 then
      local j = i - 1
      local dt = t - T[j] * time_scale
      local dx, dy, dz = X[i] - X[j], Y[i] - Y[j], Z[i] - Z[j]
      local step = sqrt(dx * dx + dy * dy + dz * dz)
      distance = distance + step
      if dt > 0 then pos_speeds[#pos_speeds + 1] = step / (dt / 1000) end
      local a, b = state_of(j), state_of(i)
      time_in[a] = time_in[a] + dt
      if a == "ground" and b == "air" then takeoffs = takeoffs + 1 end
      if a == "air" and b == "ground" then landings = landings + 1 end
      if EXT[j] and ext then
        if TSLJ[i] < TSLJ[j] then jumps = jumps + 1 end
        local d = EN[i] - EN[j]
        if d < 0 then used = used - d else recharged = recharged + d end
        if dt > 0 and dt <= max_gap_ms then
          checked = checked + 1
          local h = dt / 1000
          local ex = X[j] + (VX[j] + VX[i]) / 2 * h
          local ey = Y[j] + (VY[j] + VY[i]) / 2 * h
          local ez = Z[j] + (VZ[j] + VZ[i]) / 2 * h
          local cx, cy, cz = X[i] - ex, Y[i] - ey, Z[i] - ez
          local size = sqrt(cx * cx + cy * cy + cz * cz)
          if size > min_correction then
            n_corr = n_corr + 1
            total_size = total_size + size
            max_size = math.max(max_size or size, size)
            if max_list == 0 or #corrections < max_list then
              corrections[#corrections + 1] = {
                time = t, record = R[i], size = size, dt_ms = dt,
                from = vec(j), to = vec(i), expected = { x = ex, y = ey, z = ez },
              }
            end
          end
        end
      end
    end
  end

  local first = n > 0 and T[1] * time_scale or nil
  local last = n > 0 and T[n] * time_scale or nil
  local duration = first and (last - first) or nil

  local vs, ps = dist_stats(vel_speeds), dist_stats(pos_speeds)
  local overall = (duration and duration > 0) and distance / (duration / 1000) or nil

  local function pct(x)
    if not duration or duration <= 0 then return nil end
    return 100 * x / duration
  end

  local d = stats.defined
  return {
    file = file, format = "dm", bit = bit, bits = bits,
    records = cap.record_count, samples = n, ext_samples = ext_samples,
    time_scale = time_scale, first_time = d(first), last_time = d(last),
    duration_ms = d(duration), distance = distance,
    speed_velocity = { samples = #vel_speeds, mean = d(vs.mean), p50 = d(vs.p50), p95 = d(vs.p95),
      max = d(vs.max) },
    speed_position = { pairs = #pos_speeds, overall = d(overall),
      mean = d(ps.mean), p50 = d(ps.p50), p95 = d(ps.p95), max = d(ps.max) },
    ground_ms = time_in.ground, air_ms = time_in.air, unknown_ms = time_in.unknown,
    ground_pct = d(pct(time_in.ground)), air_pct = d(pct(time_in.air)),
    jumps = jumps, takeoffs = takeoffs, landings = landings,
    jetpack = { samples = e_samples, first = d(e_first), last = d(e_last), min = d(e_min),
      max = d(e_max), used = used, recharged = recharged },
    corrections = { count = n_corr, total_size = total_size, max_size = d(max_size),
      min_correction = min_correction, max_gap_ms = max_gap_ms, checked_pairs = checked,
      list = corrections },
  }
end

return movement
