-- seeds_bindings.lua: the seed corpus of the bindings harness
-- (lua_bindings.lua): every trace and VProf seed of the per-format seed
-- scripts, the laige examples and the small shipped samples, each behind
-- the selector byte that opens it as its format (and a few behind 0,
-- detection).
--
--   ./vpscript tests/fuzz/seeds_bindings.lua DIR
local dir = arg and arg[1]
if not dir or dir == "--help" or dir == "-h" then
  io.stderr:write("usage: vpscript tests/fuzz/seeds_bindings.lua DIR\n")
  os.exit(dir and 0 or 2)
end
local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."

-- lua_bindings.lua's FORMATS, 0-based.
local SELECT = { vprof = 1, devt = 2, dlag = 3, dm = 4, dw = 5, ["laige-profile"] = 6, ["laige-budget"] = 7 }

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
for _, fmt in ipairs({ "vprof", "devt", "dlag", "dm", "dw" }) do
  local d = tmp .. "_" .. fmt
  assert(os.execute("mkdir -p '" .. d .. "'"))
  assert(os.execute(string.format("'%s' '%s/seeds_%s.lua' '%s' >/dev/null", bin, here, fmt, d)))
  local p = io.popen("ls '" .. d .. "'")
  for name in p:lines() do
    local bytes = read(d .. "/" .. name)
    -- The VProf seeds start with the C harness's escape-width byte.
    if fmt == "vprof" then bytes = bytes:sub(2) end
    seed(fmt .. "_" .. name, SELECT[fmt], bytes)
  end
  p:close()
  os.execute("rm -rf '" .. d .. "'")
end
for _, ex in ipairs({ "sample.devt", "sample.dw" }) do
  local fmt = ex:match("%.(%w+)$")
  seed("example_" .. fmt, SELECT[fmt], read(root .. "/examples/" .. ex))
  seed("detect_" .. fmt, 0, read(root .. "/examples/" .. ex))
end
for _, ex in ipairs({ "profile.txt", "profile.json", "budget_pass.txt" }) do
  local fmt = ex:match("^budget") and "laige-budget" or "laige-profile"
  seed("laige_" .. ex, SELECT[fmt], read(root .. "/examples/laige/" .. ex))
  seed("detect_" .. ex, 0, read(root .. "/examples/laige/" .. ex))
end
print(string.format("seeds_bindings.lua: %d seeds in %s", count, dir))
