-- gen/devt.lua: write OUTDIR/sample.devt, an event profiler export,
-- deterministically (own xorshift32 PRNG with a fixed seed, no
-- math.random, no clock).
--
--   vpscript examples/gen/devt.lua OUTDIR      (or via examples/generate.lua)
--
-- The capture: 30 s of client time starting at time1 = 500,000 (read as
-- ms), prefix 11 with the bits of the 11 event types set (graph_duration
-- 10,000), four groups:
--   1 frames         Frame events (type 0) about every 16.7 ms (60 fps,
--                    intervals of 15..18 ms), with three planted long frames:
--                    intervals of 80, 120 and 250 ms ending at frames 600,
--                    1200 and 1500 of the group;
--   2 updates        Update events (type 1) every 33 or 34 ms;
--   3 weapon_inputs  bursts of FireBurst (2) / FireEnd (3), reloads (4, then
--                    5 about 2 s later), a scope toggle (6), a fire mode
--                    change (7) and weapon switches (8);
--   4 weapons        per burst, a Weapon_Burst (9) and 3..6
--                    Weapon_FireWeaponProjectile (10) 90 ms apart.
-- time2 is time1 plus 0..3 (its meaning is not known).
local vp = require "vp"

local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("devt.lua", ...)

local rand, irand = lib.xorshift32(0x2545F491)

local T0, SPAN = 500000, 30000

local function ev(t, type) return { time1 = t, time2 = t + irand(0, 3), type = type } end

-- frames: 60 fps with jitter and three planted long frames
local frames = {}
do
  local t, n = T0, 0
  local long = { [600] = 80, [1200] = 120, [1500] = 250 }
  while t < T0 + SPAN do
    n = n + 1
    frames[n] = ev(t, 0)
    local next_n = n + 1
    t = t + (long[next_n] or (16 + irand(0, 2) - (irand(0, 2) == 0 and 1 or 0)))
  end
end

local updates = {}
do
  local t = T0 + 5
  while t < T0 + SPAN do
    updates[#updates + 1] = ev(t, 1)
    t = t + (irand(0, 1) == 0 and 33 or 34)
  end
end

local inputs, weapons = {}, {}
do
  local t = T0 + 1500
  local shots = 0
  while t < T0 + SPAN - 3000 do
    local r = rand()
    if r < 0.6 then
      inputs[#inputs + 1] = ev(t, 2)
      local n = irand(3, 6)
      weapons[#weapons + 1] = ev(t + 2, 9)
      for k = 0, n - 1 do weapons[#weapons + 1] = ev(t + 4 + 90 * k, 10) end
      inputs[#inputs + 1] = ev(t + 90 * n, 3)
      shots = shots + n
      t = t + 90 * n + irand(300, 1200)
    elseif r < 0.75 then
      inputs[#inputs + 1] = ev(t, 4)
      inputs[#inputs + 1] = ev(t + 2000 + irand(0, 200), 5)
      t = t + 2500
    elseif r < 0.85 then
      inputs[#inputs + 1] = ev(t, 6)
      t = t + irand(400, 900)
    elseif r < 0.92 then
      inputs[#inputs + 1] = ev(t, 7)
      t = t + irand(200, 500)
    else
      inputs[#inputs + 1] = ev(t, 8)
      t = t + irand(600, 1000)
    end
  end
end

local path = outdir .. "/sample.devt"
local w = vp.writer("devt", path, {
  time = T0 + SPAN, unknown = 0, graph_duration = 10000, prefix = 11,
  bitfield = "\255\7\0\0\0\0\0\0",
})
w:group(frames)
w:group(updates)
w:group(inputs)
w:group(weapons)
local bytes = w:close()
return string.format("%s: %d events in 4 groups, %d bytes", path,
  #frames + #updates + #inputs + #weapons, bytes)
