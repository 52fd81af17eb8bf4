-- seeds_detect.lua: the seed corpus of the detection harness
-- (fuzz_detect.c): the head of every shipped example and a few near
-- misses, behind a name selector byte (0 "capture.vprof", 2 "x.devt", 6
-- "report.json", 7 "report.txt", 9 "noext", ...; see fuzz_detect.c).
--
--   ./vpscript tests/fuzz/seeds_detect.lua DIR
local dir = arg and arg[1]
if not dir or dir == "--help" or dir == "-h" then
  io.stderr:write("usage: vpscript tests/fuzz/seeds_detect.lua DIR\n")
  os.exit(dir and 0 or 2)
end
local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."

local function head(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read(4096)
  f:close()
  return s
end

local n = 0
local function seed(name, selector, bytes)
  local f = assert(io.open(string.format("%s/seed_%s", dir, name), "wb"))
  f:write(string.char(selector), bytes)
  f:close()
  n = n + 1
end

for _, ex in ipairs({ "sample.vprof", "sample.devt", "sample.dlag", "sample.dm", "sample.dw",
  "laige/profile.txt", "laige/profile.json", "laige/budget_pass.txt" }) do
  local bytes = head(root .. "/examples/" .. ex)
  local name = ex:gsub("/", "_")
  for _, sel in ipairs({ 0, 2, 6, 7, 9, 0x80 + 9 }) do seed(name .. "_" .. sel, sel, bytes) end
end
seed("json_array", 6, "[1, 2, 3]")
seed("json_version_only", 6, '{"version": 1}')
seed("budget_header_only", 7, "laige-budget-report version=1\n")
print(string.format("seeds_detect.lua: %d seeds in %s", n, dir))
