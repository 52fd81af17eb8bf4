-- gen/regress.lua: write OUTDIR/regress/again.vprof, physics.vprof and
-- slower.vprof: other runs of the sample's design (gen/vprof.lua with
-- another noise seed) of the same build, of one whose Physics is 1.5x
-- slower, and of one 3 % slower overall, for the regression gate against
-- examples/sample.vprof (README, docs/check.md):
--
--   vpscript check.lua examples/rules/vprof_regress.lua examples/regress/physics.vprof --baseline examples/sample.vprof
local given = select(2, ...)
local here = (arg and arg[0] or ""):match("^(.*)/") or "."
local lib = type(given) == "table" and given or dofile(here .. "/../genlib.lua")
local outdir = lib.outdir("regress.lua", (...), "examples") .. "/regress"
lib.mkdir(outdir)
local gen = assert(loadfile((debug.getinfo(1, "S").source:match("^@(.*)/") or here) .. "/vprof.lua"))
local SEED = 12345
local out = {}
for _, run in ipairs({ { "again.vprof", 1, 1 }, { "physics.vprof", 1.5, 1 }, { "slower.vprof", 1, 1.03 } }) do
  out[#out + 1] = gen(outdir, lib, run[1], SEED, run[2], run[3])
end
return table.concat(out, "; ")
