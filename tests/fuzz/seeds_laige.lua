-- seeds_laige.lua: the seed corpus of the laige readers harness
-- (lua_laige.lua): the shipped laige examples (text and JSON profiles,
-- budget reports that pass and fail) and small variants (CRLF line ends, a
-- BOM, a cut last line), each behind the selector byte (0 profile, 1
-- budget report, 2 detect).
--
--   ./vpscript tests/fuzz/seeds_laige.lua DIR
local dir = arg and arg[1]
if not dir or dir == "--help" or dir == "-h" then
  io.stderr:write("usage: vpscript tests/fuzz/seeds_laige.lua DIR\n")
  os.exit(dir and 0 or 2)
end
local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
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

for _, ex in ipairs({ "profile.txt", "profile.json", "budget_pass.txt", "budget_fail.txt" }) do
  local bytes = read(root .. "/examples/laige/" .. ex)
  local sel = ex:match("^budget") and 1 or 0
  seed(ex, sel, bytes)
  seed("detect_" .. ex, 2, bytes)
  seed("crlf_" .. ex, sel, (bytes:gsub("\n", "\r\n")))
  seed("bom_" .. ex, sel, "\239\187\191" .. bytes)
  seed("cut_" .. ex, sel, bytes:sub(1, #bytes * 2 // 3))
end
print(string.format("seeds_laige.lua: %d seeds in %s", n, dir))
