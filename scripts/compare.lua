-- compare.lua: every metric of two captures (or sets of runs) side by side, with 95 % intervals and significance
-- (each change with its interval and p-value, Cliff's delta, the Hodges-Lehmann shift, a test of the shape)
--
-- usage: vpscript compare.lua [options] A B      (B: several files or directories, see vp.multi)
--        vpscript compare.lua [options] A B... --runs          (B's captures are one side's runs)
--        vpscript compare.lua [options] --baseline A... B...  (several baseline captures)
-- The comparison, its definitions and the --json shape are vp.compare's (docs/compare.md);
-- this script parses the options and prints a table, Markdown, CSV or JSON.
local cli = require "vp.cli"
local compare = require "vp.compare"
local render = require "vp.compare.render"
local multi = require "vp.multi"

local function choices(set)
  local l = {}
  for k in pairs(set) do l[#l + 1] = k end
  table.sort(l)
  return l
end

local SPEC = {
  name = "compare.lua",
  schema = compare.schema, -- printed by --help
  summary = "Every metric of two captures (or two sets of runs) side by side: change, 95 % interval, "
    .. "significance, effect sizes and shape.",
  description = compare.DEFINITIONS,
  options = {
    { "--alpha", type = "number", default = compare.DEFAULTS.alpha, min = 0, max = 1, metavar = "X",
      help = "significance level (Holm-adjusted p-values)" },
    { "--baseline", metavar = "BASE", multi = true,
      help = "a baseline capture or directory of runs (repeat for several); every positional argument is then B" },
    { "--runs", type = "flag",
      help = "B's captures (files and directories) are runs of one build: one comparison, not one per capture" },
    { "--shape", default = compare.DEFAULTS.shape, choices = choices(compare.SHAPES), metavar = "NAME",
      help = "shape test: grid (quantile grid), ks (Kolmogorov-Smirnov) or ad (Anderson-Darling)" },
    { "--evidence", default = compare.DEFAULTS.evidence, choices = choices(compare.EVIDENCE), metavar = "NAME",
      help = "what decides: auto (runs with 2 or more a side, else frames), runs or frames" },
    { "--pairing", default = compare.DEFAULTS.pairing, choices = choices(compare.PAIRINGS), metavar = "NAME",
      help = "one capture a side: aligned (pair them stretch by stretch), independent, or auto (aligned when "
        .. "their stretch profiles agree)" },
    { "--nodes", type = "integer", default = compare.DEFAULTS.nodes, min = 0, metavar = "N",
      help = "VProf nodes tested and given percentiles: the N whose mean time changed most (0 = all)" },
    { "--limit", type = "integer", default = 30, min = 0, metavar = "N",
      help = "rows per section in text and Markdown output; 0 = all" },
    { "--all", type = "flag", help = "also list metrics that did not change" },
    { "--match", metavar = "PATTERN", multi = true,
      help = "only metrics whose name contains this Lua pattern (repeat for several: any of them)" },
    { "--markdown", type = "flag", help = "print Markdown tables (for a code review)" },
    multi.jobs_option("with several B captures compared one by one: N at a time, in parallel processes"),
    multi.SHARD,
    cli.FRAMES,
    cli.BASELINE_FRAMES,
  },
  positional = {
    { "A", help = "the baseline: a capture or a directory of its runs (left out with --baseline)", optional = true },
    { "B", help = "the capture to compare with A; several files or directories run one by one (or, with "
      .. "--runs, as one side's runs)", files = true, rest = true },
  },
}

local opts, pos, at = cli.parse(arg, SPEC)
if opts.markdown and (opts.json or opts.csv) then
  cli.fail(2, "--markdown excludes --json and --csv (try 'vpscript compare.lua --help')")
end
for _, pat in ipairs(opts.match) do
  local ok, err = pcall(string.find, "", pat)
  if not ok then cli.fail(2, "option --match: bad pattern '%s': %s", pat, tostring(err)) end
end

-- The sides: A from --baseline or the first argument, B the rest.
local a_paths, b_paths, b_from = opts.baseline, {}, 1
if #a_paths == 0 then
  a_paths, b_from = { pos[1] }, 2
end
for i = b_from, #pos do b_paths[#b_paths + 1] = pos[i] end
if #b_paths == 0 then cli.fail(2, "missing argument B (try 'vpscript compare.lua --help')") end
local b_files = multi.expand(b_paths, opts)
if #b_files == 0 then cli.fail(2, "no capture files in %s", table.concat(b_paths, ", ")) end
if opts.shard and opts.runs then
  cli.fail(2, "--shard splits B captures compared one by one; --runs makes them one side")
end
b_files = multi.shard(b_files, opts.shard)
if not opts.runs and (#b_files > 1 or b_files[1] ~= b_paths[1]) then
  multi.run(b_files, opts, SPEC, at, b_from) -- one comparison per B capture; never returns
end
local a_files = multi.expand(a_paths, opts)
if #a_files == 0 then cli.fail(2, "no capture files in %s", table.concat(a_paths, ", ")) end

-- Every group and node metric is read (cli.open_runs: a VProf capture's
-- statistics are computed while it is read; both sides are read together).
local caps_a, caps_b = cli.open_runs(a_files, opts, opts.baseline_frames or opts.frames, b_files, nil, opts.frames)
local r = compare.analyze(caps_a, caps_b, { alpha = opts.alpha, nodes = opts.nodes, match = opts.match,
  shape = opts.shape, evidence = opts.evidence, pairing = opts.pairing })
for _, c in ipairs(caps_a) do c:close() end
for _, c in ipairs(caps_b) do c:close() end
for _, w in ipairs(r.warnings) do io.stderr:write("vpscript: warning: ", require("vp.fmt").visible(w), "\n") end

if opts.json then
  cli.json(render.document(r), compare.schema)
else
  render.emit(r, opts)
end
