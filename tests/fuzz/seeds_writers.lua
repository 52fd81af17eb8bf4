-- seeds_writers.lua: the seed corpus of the writers harness
-- (lua_writers.lua): every seed of the four trace seed scripts and the
-- shipped trace samples up to 64 KiB, behind the selector byte of their
-- format (0 devt, 1 dlag, 2 dm, 3 dw).
--
--   ./vpscript tests/fuzz/seeds_writers.lua DIR
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local seeds = S.start("seeds_writers.lua")

for sel, fmt in ipairs({ "devt", "dlag", "dm", "dw" }) do
  S.each_seed(fmt, function(name, bytes) seeds.put(fmt .. "_" .. name, sel - 1, bytes) end)
  local ex = S.read(S.root .. "/examples/sample." .. fmt)
  if #ex <= 65536 then seeds.put("example_" .. fmt, sel - 1, ex) end
end
seeds.done()
