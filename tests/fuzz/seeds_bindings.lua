-- seeds_bindings.lua: the seed corpus of the bindings harness
-- (lua_bindings.lua): every trace and VProf seed of the per-format seed
-- scripts, the laige examples and the small shipped samples, each behind
-- the selector byte that opens it as its format (and a few behind 0,
-- detection).
--
--   ./vpscript tests/fuzz/seeds_bindings.lua DIR
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local seeds = S.start("seeds_bindings.lua")

-- lua_bindings.lua's FORMATS, 0-based.
local SELECT = { vprof = 1, devt = 2, dlag = 3, dm = 4, dw = 5, ["laige-profile"] = 6, ["laige-budget"] = 7 }

for _, fmt in ipairs({ "vprof", "devt", "dlag", "dm", "dw" }) do
  S.each_seed(fmt, function(name, bytes)
    -- The VProf seeds start with the C harness's escape-width byte.
    if fmt == "vprof" then bytes = bytes:sub(2) end
    seeds.put(fmt .. "_" .. name, SELECT[fmt], bytes)
  end)
end
for _, ex in ipairs({ "sample.devt", "sample.dw" }) do
  local fmt = ex:match("%.(%w+)$")
  local bytes = S.read(S.root .. "/examples/" .. ex)
  seeds.put("example_" .. fmt, SELECT[fmt], bytes)
  seeds.put("detect_" .. fmt, 0, bytes)
end
for _, ex in ipairs({ "profile.txt", "profile.json", "budget_pass.txt" }) do
  local fmt = ex:match("^budget") and "laige-budget" or "laige-profile"
  local bytes = S.read(S.root .. "/examples/laige/" .. ex)
  seeds.put("laige_" .. ex, SELECT[fmt], bytes)
  seeds.put("detect_" .. ex, 0, bytes)
end
seeds.done()
