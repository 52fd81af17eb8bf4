-- seeds_writers.lua: the seed corpus of the writers harness
-- (lua_writers.lua): every seed of the four trace seed scripts and the
-- shipped trace samples, behind the selector byte of their format (0 devt,
-- 1 dlag, 2 dm, 3 dw).
--
--   ./vpscript tests/fuzz/seeds_writers.lua DIR
local dir = arg and arg[1]
if not dir or dir == "--help" or dir == "-h" then
  io.stderr:write("usage: vpscript tests/fuzz/seeds_writers.lua DIR\n")
  os.exit(dir and 0 or 2)
end
local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."
local SELECT = { devt = 0, dlag = 1, dm = 2, dw = 3 }

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local count = 0
local function seed(name, selector, bytes)
  local f = assert(io.open(string.format("%s/seed_%s", dir, name), "wb"))
  f:write(string.char(selector), bytes)
  f:close()
  count = count + 1
end

local bin = os.getenv("VPSCRIPT_BIN") or (root .. "/vpscript")
local tmp = os.tmpname()
os.remove(tmp)
for fmt, sel in pairs(SELECT) do
  local d = tmp .. "_" .. fmt
  assert(os.execute("mkdir -p '" .. d .. "'"))
  assert(os.execute(string.format("'%s' '%s/seeds_%s.lua' '%s' >/dev/null", bin, here, fmt, d)))
  local p = io.popen("ls '" .. d .. "'")
  for name in p:lines() do seed(fmt .. "_" .. name, sel, read(d .. "/" .. name)) end
  p:close()
  os.execute("rm -rf '" .. d .. "'")
  -- The samples up to 64 KiB (the short runs' input size).
  local ex = read(root .. "/examples/sample." .. fmt)
  if #ex <= 65536 then seed("example_" .. fmt, sel, ex) end
end
print(string.format("seeds_writers.lua: %d seeds in %s", count, dir))
