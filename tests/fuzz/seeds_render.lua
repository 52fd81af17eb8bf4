-- seeds_render.lua: the seed corpus of the renderers harness (lua_render.lua):
-- the names that inject (tests/hostile/cases.lua), alone and in fours,
-- behind widths of none, 20 and 80.
--
--   ./vpscript tests/fuzz/seeds_render.lua DIR
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. here .. "/../?.lua;" .. package.path
local S = require "seedlib"
local cases = require "hostile.cases"
local seeds = S.start("seeds_render.lua")
for i, name in ipairs(cases.HOSTILE_NAMES) do
  seeds.put("name" .. i, i % 3 == 0 and 0 or (i % 3 == 1 and 8 or 68), name)
end
for i = 1, #cases.HOSTILE_NAMES, 4 do
  seeds.put("four" .. i, 8, table.concat(cases.HOSTILE_NAMES, "\0", i, math.min(i + 3, #cases.HOSTILE_NAMES)))
end
seeds.done()
