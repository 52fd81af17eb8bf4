-- genlib.lua: what every example generator (examples/gen/*.lua) shares.
--
--   -- generate.lua passes lib as a generator's second argument; run alone,
--   -- a generator loads this file beside its own directory:
--   local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
--   local outdir = lib.outdir("devt.lua", ...)          -- OUTDIR, or usage and exit
--   local rand, irand, frand = lib.xorshift32(0x2545F491)
--
-- The generators are deterministic: each draws from its own xorshift32
-- sequence with a fixed seed (no math.random, no clock), and every integer
-- stays within 32 bits, so every platform writes the same bytes.
local lib = {}

--- lib.xorshift32(seed) -> rand, irand, frand: rand() in [0, 1),
-- irand(a, b) an integer in a..b, frand(a, b) a number in [a, b).
function lib.xorshift32(seed)
  local state = seed & 0xFFFFFFFF
  assert(state ~= 0, "xorshift32: the seed must not be 0")
  local function rand()
    state = state ~ ((state << 13) & 0xFFFFFFFF)
    state = state ~ (state >> 17)
    state = state ~ ((state << 5) & 0xFFFFFFFF)
    return state / 4294967296
  end
  local function irand(a, b) return a + math.floor(rand() * (b - a + 1)) end
  local function frand(a, b) return a + rand() * (b - a) end
  return rand, irand, frand
end

--- lib.outdir(name, outdir, default) -> outdir: the generator's OUTDIR
-- argument, created when missing; without one (and no default), or with
-- -h/--help, prints the usage and exits (0 for help, 2 for a missing one).
function lib.outdir(name, outdir, default)
  if outdir == "-h" or outdir == "--help" or (not outdir and not default) then
    io.stdout:write("usage: vpscript examples/gen/" .. name .. " OUTDIR\n")
    os.exit(outdir and 0 or 2)
  end
  lib.mkdir(outdir or default)
  return outdir or default
end

--- lib.mkdir(dir): create dir and its missing parents (lfs when present,
-- else the shell); raises when it cannot.
function lib.mkdir(dir)
  local ok, lfs = pcall(require, "lfs")
  if not ok then
    assert(os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'"), "cannot create " .. dir)
    return
  end
  if lfs.attributes(dir, "mode") == "directory" then return end
  local parent = dir:match("^(.*)/[^/]+$")
  if parent and parent ~= "" then lib.mkdir(parent) end
  local made, err = lfs.mkdir(dir)
  if not made and lfs.attributes(dir, "mode") ~= "directory" then
    error("cannot create " .. dir .. ": " .. tostring(err), 0)
  end
end

return lib
