-- seeds_detect.lua: the seed corpus of the detection harness
-- (fuzz_detect.c): the head of every shipped example and a few near
-- misses, behind a name selector byte (0 "capture.vprof", 2 "x.devt", 6
-- "report.json", 7 "report.txt", 9 "noext", + 0x80: a head shorter than
-- the file; see fuzz_detect.c).
--
--   ./vpscript tests/fuzz/seeds_detect.lua DIR
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local seeds = S.start("seeds_detect.lua")

for _, ex in ipairs({ "sample.vprof", "sample.devt", "sample.dlag", "sample.dm", "sample.dw",
  "laige/profile.txt", "laige/profile.json", "laige/budget_pass.txt" }) do
  local bytes = S.read(S.root .. "/examples/" .. ex, 4096)
  local name = ex:gsub("/", "_")
  for _, sel in ipairs({ 0, 2, 6, 7, 9, 0x80 + 9 }) do seeds.put(name .. "_" .. sel, sel, bytes) end
end
seeds.put("json_array", 6, "[1, 2, 3]")
seeds.put("json_version_only", 6, '{"version": 1}')
seeds.put("budget_header_only", 7, "laige-budget-report version=1\n")
seeds.done()
