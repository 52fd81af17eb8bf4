-- tests/fuzz/seedlib.lua: what the seed scripts share. The per-format
-- ones (seeds_vprof, seeds_devt, seeds_dlag, seeds_dm, seeds_dw) write
-- their seeds with the writers:
--
--   local S = require "seedlib"          -- the script puts its directory on package.path
--   local path = S.file_seeds("seeds_dm.lua", "dm")  -- reads DIR from arg, or prints the usage
--   vp.writer("dm", path("basic"))         -- path(name) is DIR/seed_basic.dm
--   S.cut(path("basic"), path("cut"), -30) -- a copy without its last 30 bytes
--
-- The seed scripts of the selector-byte harnesses (seeds_bindings,
-- seeds_writers, seeds_laige, seeds_detect):
--
--   local seeds = S.start("seeds_x.lua")   -- reads DIR from arg, or prints the usage
--   seeds.put("name", selector, bytes)     -- DIR/seed_name: the selector byte, then the bytes
--   S.each_seed("dm", function(name, bytes) ... end)   -- the seeds of seeds_dm.lua
--   seeds.done()                           -- "seeds_x.lua: N seeds in DIR"
local S = {}

S.here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
S.root = S.here .. "/../.."

-- Files are read and written by the specs' helpers (tests/helpers.lua).
package.path = S.here .. "/../?.lua;" .. package.path
local h = require "helpers"

--- S.read(path [, n]) -> the file's bytes (its first n when given).
function S.read(path, n)
  local s = h.read_file(path)
  return n and s:sub(1, n) or s
end

--- S.write(path, bytes): the file at path holds bytes.
S.write = h.write_file

--- S.cut(src, dst, n): dst holds src's first n bytes (n < 0: all but the
-- last -n).
function S.cut(src, dst, n)
  local s = S.read(src)
  S.write(dst, s:sub(1, n < 0 and #s + n or n))
end

--- S.outdir(script) -> the output directory, arg[1]; without one, the
-- usage on stderr and exit 2 (0 for --help).
function S.outdir(script)
  local dir = arg and arg[1]
  if not dir or dir == "--help" or dir == "-h" then
    io.stderr:write("usage: vpscript tests/fuzz/" .. script .. " DIR\n")
    os.exit(dir and 0 or 2)
  end
  return dir
end

--- S.file_seeds(script, ext) -> path: for a seed script whose seeds are
-- the files its writers make; path(name) is DIR/seed_<name>.<ext>.
function S.file_seeds(script, ext)
  local dir = S.outdir(script)
  return function(name) return dir .. "/seed_" .. name .. "." .. ext end
end

--- S.start(script) -> seeds: the output directory from arg[1] (exit 2 with
-- the usage without one) and the writer of seeds into it.
function S.start(script)
  local dir = S.outdir(script)
  local count = 0
  local seeds = {}
  function seeds.put(name, selector, bytes)
    local f = assert(io.open(string.format("%s/seed_%s", dir, name), "wb"))
    f:write(string.char(selector), bytes)
    f:close()
    count = count + 1
  end
  function seeds.done() print(string.format("%s: %d seeds in %s", script, count, dir)) end
  return seeds
end

--- S.each_seed(fmt, fn): run seeds_<fmt>.lua into a temporary directory and
-- call fn(name, bytes) for every seed it wrote.
function S.each_seed(fmt, fn)
  local bin = os.getenv("VPSCRIPT_BIN") or (S.root .. "/vpscript")
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p '" .. d .. "'"))
  assert(os.execute(string.format("'%s' '%s/seeds_%s.lua' '%s' >/dev/null", bin, S.here, fmt, d)))
  local p = io.popen("ls '" .. d .. "'")
  for name in p:lines() do fn(name, S.read(d .. "/" .. name)) end
  p:close()
  os.execute("rm -rf '" .. d .. "'")
end

return S
