-- seeds_dm.lua: write a seed corpus for the .dm fuzzer.
--
--   ./vpscript tests/fuzz/seeds_dm.lua DIR
--
-- Small movement traces built with the writer: plain and extended groups,
-- collision blocks, empty records, arrays of 0, 255 and 300 elements, bits
-- 20..31, and broken files (a truncated record, a missing final count byte,
-- garbage after the array).
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local vp = require "vp"

local path = S.file_seeds("seeds_dm.lua", "dm")

local function group(i, ext, coll)
  local g = {
    short_time = i, position = { x = i, y = 0, z = 1 }, orientation = { w = 1 },
    direction = { x = 1 }, state = i % 4,
  }
  if ext then
    g.velocity = { x = 3, y = 0, z = 0 }
    g.jetpack_energy = 1000 - i
    g.ground_time = (i % 2 == 0) and 50 or -50
    g.time_since_last_jump = i
  end
  if coll then
    g.arrows = { { origin = { x = 1 }, direction = { z = -1 } } }
    g.floats = { 0.25, 0.5 }
  end
  return g
end

local w = vp.writer("dm", path("basic"))
for i = 1, 6 do
  w:record { time = 100 * i, groups = { [0] = group(i, true, i == 3), [4] = group(i), [19] = group(i, true) } }
  if i == 2 then w:empty() end
end
w:close()

w = vp.writer("dm", path("zero"))
w:close()

for _, n in ipairs { 255, 300 } do
  w = vp.writer("dm", path("n" .. n))
  for i = 1, n do w:record { time = i, groups = { [1] = group(i) } } end
  w:close()
end

w = vp.writer("dm", path("highbits"))
w:record { time = 1, bitfield = 0x00300001, groups = { [0] = group(1) } }
w:close()

w = vp.writer("dm", path("garbage"))
w:record { time = 1, groups = { [2] = group(1, true) } }
w:close { trailing = "garbage!" }

w = vp.writer("dm", path("noterm"))
for _ = 1, 255 do w:empty() end
w:close { terminate = false }

S.cut(path("basic"), path("cut"), -30)
