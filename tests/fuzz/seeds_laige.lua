-- seeds_laige.lua: the seed corpus of the laige readers harness
-- (lua_laige.lua): the shipped laige examples (text and JSON profiles,
-- budget reports that pass and fail) and small variants (CRLF line ends, a
-- BOM, a cut last line), each behind the selector byte (0 profile, 1
-- budget report, 2 detect).
--
--   ./vpscript tests/fuzz/seeds_laige.lua DIR
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local seeds = S.start("seeds_laige.lua")

for _, ex in ipairs({ "profile.txt", "profile.json", "budget_pass.txt", "budget_fail.txt" }) do
  local bytes = S.read(S.root .. "/examples/laige/" .. ex)
  local sel = ex:match("^budget") and 1 or 0
  seeds.put(ex, sel, bytes)
  seeds.put("detect_" .. ex, 2, bytes)
  seeds.put("crlf_" .. ex, sel, (bytes:gsub("\n", "\r\n")))
  seeds.put("bom_" .. ex, sel, "\239\187\191" .. bytes)
  seeds.put("cut_" .. ex, sel, bytes:sub(1, #bytes * 2 // 3))
end
seeds.done()
