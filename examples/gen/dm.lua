-- gen/dm.lua: write OUTDIR/sample.dm, a movement trace, deterministically
-- (own xorshift32 PRNG with a fixed seed, no math.random, no clock).
--
--   vpscript examples/gen/dm.lua OUTDIR      (or via examples/generate.lua)
--
-- The capture: 60 s of a player running around, one record every 50 ms
-- from time 600,000 (read as ms; the same clock as sample.dw): 1,200
-- records, then 8 empty records (unused ring slots), so the record array
-- spans five chunked blocks (255 x 4 + 188). Each record has
--   bit 0  the client's movement state with the extended block: velocity,
--          jetpack energy (0..1000), ground_time (ms on the ground, negative
--          ms in the air), time since the last jump; a collision block
--          (the ground normal as an arrow, two floats) on landing samples;
--   bit 2  on every second record, the server's confirmed position (the
--          45-byte group without the extended block).
-- The player runs at 4..7 units/s on y = 0 (y is up), changing heading
-- every 2..4 s; jumps (vertical speed 5, gravity 9.8) at 12 planted times;
-- three jetpack flights (climb 3 units/s for 1.5 s, energy -400/s, refilled
-- at +150/s on the ground); and three planted server corrections: the
-- position snaps by 1.5, 2.5 and 4 units at 12.3 s, 31.0 s and 47.5 s into
-- the trace (movement.lua reports exactly these three, and 12 jumps among
-- 15 takeoffs: the jumps and the three flights). Positions follow
-- p += (v_old + v_new) / 2 x dt, so velocity x dt explains every other step.
local vp = require "vp"

local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("dm.lua", ...)

local _, _, frand = lib.xorshift32(0xBB67AE85)

local T0, STEP, RECORDS, EMPTY = 600000, 50, 1200, 8
local GRAVITY, JUMP_V = 9.8, 5
local JUMPS = { 2.0, 5.5, 9.0, 14.2, 20.0, 22.4, 27.0, 37.0, 39.9, 44.0, 54.0, 57.1 }
local FLIGHTS = { 16.0, 33.0, 50.0 }          -- jetpack start times (s), 1.5 s each
local CORRECTIONS = { [12.3] = 1.5, [31.0] = 2.5, [47.5] = 4.0 } -- time (s) -> snap size

local function at_time(list, t)
  for _, x in ipairs(list) do
    if math.abs(x - t) < STEP / 2000 then return true end
  end
  return false
end

local w = vp.writer("dm", outdir .. "/sample.dm")
local p = { x = 0, y = 0, z = 0 }
local v = { x = 0, y = 0, z = 0 }
local heading, speed, next_turn = 0, 5, 0
local energy, ground_ms, since_jump = 1000, 0, 3000
local flying_until = -1
local was_air = false
local dt = STEP / 1000

for i = 0, RECORDS - 1 do
  local t = i * dt
  -- steer
  if t >= next_turn then
    heading = heading + frand(-1.5, 1.5)
    speed = frand(4, 7)
    next_turn = t + frand(2, 4)
  end
  local v_old = { x = v.x, y = v.y, z = v.z }
  v.x, v.z = speed * math.cos(heading), speed * math.sin(heading)
  local on_ground = p.y <= 0 and v.y <= 0
  if on_ground and at_time(JUMPS, t) then
    v.y = JUMP_V
    since_jump = 0
    on_ground = false
  end
  if at_time(FLIGHTS, t) then flying_until = t + 1.5 end
  local flying = t < flying_until and energy > 0
  if flying then
    v.y = 3
    energy = math.max(0, energy - 400 * dt)
  elseif not on_ground then
    v.y = v.y - GRAVITY * dt
  else
    v.y = 0
    energy = math.min(1000, energy + 150 * dt)
  end
  if i > 0 then
    p.x = p.x + (v_old.x + v.x) / 2 * dt
    p.y = p.y + (v_old.y + v.y) / 2 * dt
    p.z = p.z + (v_old.z + v.z) / 2 * dt
  end
  if p.y < 0 then p.y, v.y = 0, 0 end
  for ct, size in pairs(CORRECTIONS) do
    if math.abs(ct - t) < dt / 2 then
      -- the server snaps the player sideways
      p.x = p.x - size * math.sin(heading)
      p.z = p.z + size * math.cos(heading)
    end
  end
  local in_air = p.y > 0 or v.y > 0
  if in_air then
    ground_ms = was_air and ground_ms - STEP or -STEP
  else
    ground_ms = was_air and STEP or ground_ms + STEP
  end
  ground_ms = math.max(-32768, math.min(32767, ground_ms))
  local landing = was_air and not in_air
  was_air = in_air
  since_jump = math.min(32767, since_jump + STEP)

  local time = T0 + i * STEP
  local half = heading / 2
  local group0 = {
    short_time = time % 65536,
    position = { x = p.x, y = p.y, z = p.z },
    orientation = { x = 0, y = math.sin(half), z = 0, w = math.cos(half) },
    direction = { x = math.cos(heading), y = 0, z = math.sin(heading) },
    state = flying and 3 or (in_air and 2 or 1),
    unknown_1 = 0,
    velocity = { x = v.x, y = v.y, z = v.z },
    jetpack_energy = math.floor(energy + 0.5),
    ground_time = ground_ms,
    time_since_last_jump = since_jump,
    unknown_4 = { x = 0, y = -GRAVITY, z = 0 },
  }
  if landing then
    group0.arrows = { { origin = { x = p.x, y = 0, z = p.z }, direction = { x = 0, y = 1, z = 0 } } }
    group0.floats = { 0.0, 1.0 }
  end
  local groups = { [0] = group0 }
  if i % 2 == 0 then
    groups[2] = {
      short_time = (time - 30) % 65536,
      position = { x = p.x, y = p.y, z = p.z },
      orientation = group0.orientation, direction = group0.direction,
      state = group0.state,
    }
  end
  w:record { time = time, groups = groups }
end
for _ = 1, EMPTY do w:empty() end
local bytes = w:close()
return string.format("sample.dm: %d records, %d empty, %d bytes", RECORDS, EMPTY, bytes)
