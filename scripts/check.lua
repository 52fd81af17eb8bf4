-- check.lua: the regression gate: a rules file's limits checked against a capture (and a baseline)
--
-- usage: vpscript check.lua [options] RULES CAPTURE   (CAPTURE: several files or directories, see vp.multi)
-- The rules, their sandbox, the evaluation and the --json shape are vp.gate's (docs/check.md), each
-- result's explanation and the tables vp.gate.render's; this script parses the options, runs the gate
-- and writes a table, CSV, JSON or JUnit XML.
-- Exit status: 0 every rule passed (or was skipped), 3 a rule failed, 2 a rules file, rule or capture
-- that cannot be used.
local cli = require "vp.cli"
local E = require "vp.error"
local gate = require "vp.gate"
local render = require "vp.gate.render"
local junit = require "vp.junit"
local multi = require "vp.multi"

local SPEC = {
  name = "check.lua",
  schema = gate.schema, -- printed by --help
  summary = "The regression gate: check a capture against a rules file (and a baseline).",
  description = gate.DESCRIPTION,
  options = {
    { "--baseline", metavar = "BASE", multi = true,
      help = "the capture regressions are measured against; repeat it, or give a directory, for several runs" },
    { "--runs", type = "flag",
      help = "the CAPTURE files and directories are runs of one build, gated together (values: the runs' mean)" },
    { "--alpha", type = "number", default = gate.DEFAULTS.alpha, min = 0, max = 1, metavar = "X",
      help = "significance level for rules with significant = true" },
    { "--junit", metavar = "FILE", help = "also write JUnit XML (one testcase per rule) to FILE",
      merge = junit.merge, output = true },
    { "--pairing", default = gate.DEFAULTS.pairing, choices = { "aligned", "auto", "independent" }, metavar = "NAME",
      help = "one capture against one baseline: aligned (pair them stretch by stretch), independent, or auto "
        .. "(aligned when their stretch profiles agree)" },
    multi.jobs_option("with several captures checked one by one: N at a time, in parallel processes"),
    multi.SHARD,
    cli.FRAMES,
    cli.BASELINE_FRAMES,
  },
  positional = {
    { "RULES", help = "a Lua file returning a list of rules" },
    { "CAPTURE", help = "the capture to check", files = true, rest = true },
  },
}

local opts, args = cli.parse(arg, SPEC)
if opts.runs and opts.shard then cli.fail(2, "--shard splits captures checked one by one; --runs gates them as one") end
-- several captures: one check each; a rules file that cannot be used is said once, before any
if not opts.runs then
  cli.check_order(SPEC, args[1], args[2])
  gate.rules(args[1], { baseline = #opts.baseline > 0 })
  opts, args = multi.parse(arg, SPEC)
end
local rules_path = args[1]
cli.check_order(SPEC, rules_path, args[2])
local base_files = #opts.baseline > 0 and multi.expand(opts.baseline, opts) or {}
if #opts.baseline > 0 and #base_files == 0 then
  cli.fail(2, "no capture files in %s", table.concat(opts.baseline, ", "))
end
local cap_files = { args[2] }
if opts.runs then
  cap_files = multi.expand(table.move(args, 2, #args, 1, {}), opts)
  if #cap_files == 0 then cli.fail(2, "no capture files in %s", table.concat(args, ", ", 2)) end
end
local rules = gate.rules(rules_path, { baseline = #base_files > 0, runs = #base_files > 1 and #cap_files > 1 })
-- With --junit, a run whose capture cannot be used still leaves a report:
-- an <error> case, as vp.multi's merge writes for each of several
-- captures. The error itself goes on untouched (its exit status, a bug's
-- traceback).
local reported = false
local _ <close> = setmetatable({}, { __close = function(_, err)
  if err ~= nil and opts.junit and not reported then
    junit.write(opts.junit, junit.error_suite(cap_files[1], (E.message(err):match("^[^\n]*"))))
  end
end })
-- The captures and the baseline are read together, each computing the
-- statistics the rules read (cli.open_runs, gate.open_stats).
local caps, base = cli.open_runs(cap_files, opts, opts.frames, #base_files > 0 and base_files or nil,
  gate.open_stats(rules), opts.baseline_frames or opts.frames)
local r = gate.evaluate(rules, caps, base, { alpha = opts.alpha, source = rules_path, pairing = opts.pairing })
for _, c in ipairs(caps) do c:close() end
for _, c in ipairs(base or {}) do c:close() end
for _, w in ipairs(r.warnings) do io.stderr:write("vpscript: warning: ", require("vp.fmt").visible(w), "\n") end

local doc = render.document(r)
if opts.junit then
  reported = true
  junit.write(opts.junit, junit.suite(doc)) -- exit 2 naming the file when it fails
end

if opts.json then
  cli.json(doc, gate.schema)
else
  render.emit(doc, opts, rules_path)
end
if r.failed > 0 then cli.fail(3, "%s: %d of %d rules failed", r.file, r.failed, #r.results) end
