-- generate.lua: write every example capture into OUTDIR.
--
--   vpscript examples/generate.lua OUTDIR
--
-- Runs each examples/gen/*.lua in name order, passing OUTDIR as its first
-- argument. Each generator is deterministic (its own fixed-seed PRNG), so
-- the same sources always give byte-identical captures.
local outdir = arg and arg[1]
if not outdir or outdir == "-h" or outdir == "--help" then
    io.stdout:write("usage: vpscript examples/generate.lua OUTDIR\n",
        "Writes the example captures (examples/gen/*.lua, in name order) into OUTDIR.\n")
    os.exit(outdir and 0 or 2)
end

local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
local gendir = here .. "/gen"

-- Sorted names of gen/*.lua; lfs when present, else the shell.
local function generators()
    local names = {}
    local ok, lfs = pcall(require, "lfs")
    if ok then
        for name in lfs.dir(gendir) do
            if name:match("%.lua$") then names[#names + 1] = name end
        end
    else
        local p = assert(io.popen("ls '" .. gendir:gsub("'", "'\\''") .. "'"))
        for name in p:lines() do
            if name:match("%.lua$") then names[#names + 1] = name end
        end
        p:close()
    end
    table.sort(names)
    return names
end

local lib = dofile(here .. "/genlib.lua")
lib.mkdir(outdir)
local list = generators()
if #list == 0 then
    io.stderr:write("vpscript: no generators in ", gendir, "\n")
    os.exit(1)
end
for _, name in ipairs(list) do
    local chunk = assert(loadfile(gendir .. "/" .. name))
    local clock = os.clock()
    local written = chunk(outdir, lib)
    io.stdout:write(string.format("examples: %-12s %s (%.2f s)\n", name,
        written and tostring(written) or "done", os.clock() - clock))
end
