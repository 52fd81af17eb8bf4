-- vp.doc.metrics: documentation of the stdlib modules behind compare.lua and
-- check.lua (vp.metrics, vp.compare, vp.gate, vp.infer, vp.multi, vp.junit).
-- Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse [=[
class vp.metrics: the metric catalogue
  Every metric compare.lua and check.lua know, by name, with its unit, polarity (lower or higher is better, or
  none), definition, formats and per-frame distribution; the table in docs/metrics-table.md is generated from
  it. Pattern names (group.NAME.mean_ms, node.PATH.p99_ms, ...) take a group, node path, system, budget or
  measurement name. Only the names asked are computed; frame, group and node metrics come from the C passes.
  Figures a shipped script also reports come from that script's analysis module, in-process (hitches:
  vp.hitches, hitdiff.*: vp.hitdiff, events.*: vp.events, movement.*: vp.movement, group.*: vp.budget, lag.*:
  vp.lag), so a metric and the script agree.
function metrics.compute(cap, names) -> values, problems
  values[name] = number for each name measured; problems[name] = why not (unknown name, another format's
  metric, no such group in this capture, no frames, ...)
  > local m = require "vp.metrics"
  > local v = m.compute(cap, {"frame_ms.p99", "group.Physics.mean_ms"})
  > print(v["frame_ms.p99"])
function metrics.value(cap, name) -> number | nil, why
  one metric of a capture; nil and why (a sentence) for an unknown name, another format's metric or a value
  this capture does not have
  > print(require("vp.metrics").value(cap, "low_1pct_fps"))
function metrics.distribution(cap, name) -> Series | nil, why
  the per-frame (per-sample, per-trace) values a metric summarises, for significance tests; nil and why when
  there are none
  > local s = require("vp.metrics").distribution(cap, "group.Physics.mean_ms")
  > print(#s, s:mean())
function metrics.list() -> {{name, unit, polarity, formats, doc, pattern, distribution, per}, ...}
  the whole catalogue in order (what docs/metrics-table.md shows)
  > for _, e in ipairs(require("vp.metrics").list()) do print(e.name, e.unit, e.polarity) end
function metrics.lookup(name) -> entry | nil, param | message, arg
  the catalogue entry of a metric name and its param (the NAME part: "Physics" of group.Physics.p99_ms); nil
  and a message for an unknown name, with the nearest names; arg: the X of a family of any percentile or
  threshold (group.Physics.p90_ms: "90", frames_over_ms.33.3: "33.3")
  > local e, group = require("vp.metrics").lookup("group.World Rendering.p99_ms")  -- group = "World Rendering"
function metrics.available(cap [, {series_pass = false}]) -> {{name =, entity =}, ...}
  every metric this capture has (per group, node, system, ...); series_pass = false leaves out node
  percentiles, which cost a C pass over every frame (one for all the nodes compute() is given)
  > for _, r in ipairs(require("vp.metrics").available(cap)) do print(r.name) end
function metrics.delta(name, a, b [, per_a, per_b]) -> change
  the change from a to b: {a, b, change, change_pct, worse_pct (positive = worse), direction, normalised,
  unit}; totals are divided by per_a/per_b (frames, ...) when those differ
  > local d = require("vp.metrics").delta("frame_ms.p99", 16, 18)  -- d.direction == "worse"
function metrics.statistic(name) -> {kind, p, pct, scale, independent} | nil
  what the metric computes from its per-frame values, for vp.infer: kind "mean", "quantile" (p), "low_fps"
  (pct), "share", "count" or "extreme" (max, min: no interval)
  > print(require("vp.metrics").statistic("frame_ms.p99").p)  -- 0.99
function metrics.polarity(entry, param) -> "lower" | "higher" | "none"
  which way the metric is better
  > local m = require "vp.metrics"
  > print(m.polarity(m.lookup("overall")))
function metrics.finite(v) -> v | nil
  v when it is a finite number, else nil: the values a result hands on are never NaN or infinite
  > print(require("vp.metrics").finite(1 / 0))  -- nil
function metrics.script_document(cap, name) -> doc | nil, message
  the analysis "hitches", "hitdiff", "events" or "movement" of this capture with the script's default options
  (its module's analyze(cap)), once per capture; nil and a message when that analysis does not apply
  > print(#require("vp.metrics").script_document(cap, "hitches").hitches)

class vp.compare: two captures (or two sets of runs) side by side
  The analysis behind compare.lua: every catalogue metric both sides have, with the change, the impact (change
  % signed so that positive is worse), its 95 % interval and p-value (Welch's t on run values with 2 or more
  runs a side, else vp.infer's batch-means tests of the per-frame values), Holm-adjusted over the comparison;
  per distribution a shape test, Cliff's delta and the Hodges-Lehmann shift; totals normalised per frame when
  the frame counts differ; the groups, nodes, ... found on one side only. Plain data: nil for absent, never
  NaN or infinity; compare.schema is the --json document.
function compare.analyze(a, b [, {alpha, level, nodes, match, test, shape, evidence}]) -> result
  a, b: a capture or a list of captures (runs) each, A the baseline. {a, b, alpha, level, test, shape_test,
  correction, evidence, tests, summary, warnings, metrics = {{metric, a, b, change, change_pct, impact,
  direction, evidence, p_value, p_adjusted, significant, ci, effect, shape, frames, runs, note}, ...},
  only_in_a, only_in_b}; bad parameters raise EUSAGE
  > local r = require("vp.compare").analyze(cap_a, cap_b, {match = {"^group%."}})
  > for _, m in ipairs(r.metrics) do print(m.metric, m.impact, m.ci and m.ci.pct_lo, m.significant) end
function compare.side(cap | {cap, ...}) -> side
  one side's runs (one format) with the cache its per-frame samples share
  > local A = require("vp.compare").side({a1, a2, a3})
function compare.metric(A, B, name, va, vb [, params]) -> row | nil, why
  one metric compared: va, vb its value in each run of A and B; the row as in analyze's metrics, without the
  Holm adjustment (what check.lua's regression rules use); nil and why (a sentence) when the metric cannot be
  compared
  > local c = require "vp.compare"
  > local row = c.metric(c.side(base), c.side(cap), "frame_ms.mean", {16.1}, {16.6})
function compare.distribution(A, B, name [, params]) -> {shape, effects} | nil, why
  the shape test and the effect sizes (vp.infer) of the per-frame values behind a metric; nil and why when the
  metric has no per-frame values
  > local c = require "vp.compare"
  > print(c.distribution(c.side(a), c.side(b), "frame_ms.mean").shape.p)
field schema
  the --json document's shape (docs/architecture.md notation)
  > print(require("vp.compare").schema)
field DEFAULTS
  the parameters' defaults: alpha 0.01, level 0.95, nodes 10, test batch-means, shape grid, evidence auto
field DEFINITIONS
  the definitions compare.lua --help prints
field MIN_RUNS
  below this many runs a side (5) the run-level test comes with a warning

class vp.infer: tests, intervals and effect sizes for dependent frames
  The statistics behind vp.compare and vp.gate (docs/compare.md states them and their calibration): batch
  means with a lag-1 inflation for the variance of a mean, Woodruff intervals for percentiles, tail means for
  low FPS, ratios for shares; Welch's t for two estimates and for run values; a quantile-grid shape test (and
  Kolmogorov-Smirnov, Anderson-Darling with an effective n); Cliff's delta and the Hodges-Lehmann shift with
  intervals. The loops run in C (host/core/infer.c, the preloaded module vp.infer.core).
function infer.sample(x [, {batches, min_batch, independent}]) -> sample
  a series in time order (Series or list) with its batch count and a sorted copy made on first use
  > local infer = require "vp.infer"
  > local s = infer.sample(cap:frame_times())
function infer.compare(stat, sa, sb [, {level, den_a, den_b}]) -> {a, b, diff, se, df, p, lo, hi} | nil, why
  a statistic ({kind = "mean"}, {kind = "quantile", p = 0.99}, {kind = "low_fps", pct = 1}, ...) on two
  samples and its change with the interval and the two-sided p; nil and why when a side has too few values for
  it
  > local d = infer.compare({kind = "mean"}, infer.sample(a), infer.sample(b))
  > print(d.diff, d.lo, d.hi, d.p)
function infer.estimate(stat, s [, opts]) -> {value, var, df} | nil, why
  one statistic and the variance of its estimator; nil and why when s has too few values for it
  > print(infer.estimate({kind = "mean"}, s).var)
function infer.difference(ea, eb [, level]) -> {diff, se, df, t, p, lo, hi}
  B - A by Welch-Satterthwaite over two estimates
  > local d = infer.difference(ea, eb)
function infer.runs(values_a, values_b [, level]) -> {a, b, diff, df, p, lo, hi} | nil, why
  Welch's t on one value per run; nil and why with fewer than 2 runs a side
  > print(infer.runs({16.1, 16.3, 16.0}, {16.9, 16.7, 17.0}).p)
function infer.shape(sa, sb [, "grid" | "ks" | "ad"]) -> {test, statistic, p, at} | nil, why
  a dependence-aware test of the whole distribution; nil and why when a side is too short
  > print(infer.shape(sa, sb).p)
function infer.effects(sa, sb [, level]) -> {delta, delta_lo, delta_hi, hl, hl_lo, hl_hi, prob_b_greater}
  Cliff's delta and the Hodges-Lehmann shift over all pairs, with intervals
  > print(infer.effects(sa, sb).hl)
function infer.batch_variance(means [, {r, r_max, r_correct}]) -> {mean, var, df, r, k}
  the variance of a grand mean from its batch means, inflated by the lag-1 autocorrelation
  > print(infer.batch_variance({1, 2, 3, 4, 5}).var)
function infer.holm(ps) -> adjusted
  Holm's step-down adjustment of a table of p-values (same keys): a family of metrics tested at once keeps its
  chance of any false alarm at alpha
  > print(table.unpack(require("vp.infer").holm({0.01, 0.04, 0.03})))
field DEFAULTS
  batches 20, min_batch 10, level 0.95, min_tail 10, r_max 0.95, r_correct true

class vp.gate: the regression gate
  The analysis behind check.lua: a rules file run in a sandbox, its rules validated against the catalogue and
  evaluated against a capture (and a baseline; either may be several runs): max, min, max_regress_pct with
  min_effect and the significance test, ci_above on the 95 % interval (vp.compare.metric's). Rules that cannot
  be used raise EUSAGE (exit 2) naming the rule. Plain data: each result with its status, values and the
  checks that decided it; gate.schema is the --json document.
function gate.rules(path [, {baseline = true}]) -> rules
  load and validate a rules file
  > local rules = require("vp.gate").rules("gate.lua", {baseline = true})
function gate.load(path [, {limits = {cpu_ms, memory_mb, ...}}]) -> list
  run a rules file in its sandbox (no io, os, require or load; vp.host.sandbox), under CPU-time and memory
  limits it cannot catch, its size and what it returns bounded (gate.LIMITS)
  > local list = require("vp.gate").load("gate.lua")
function gate.validate(list [, {source, baseline}]) -> rules
  check each rule's fields and metric; the first problem raises EUSAGE naming the rule
  > local rules = require("vp.gate").validate({{metric = "frame_ms.p99", max = 20}})
function gate.evaluate(rules, cap [, base [, {alpha, test, source}]]) -> result
  cap, base: a capture or a list of runs each. {file, format, baseline, rules, status, passed, failed,
  skipped, runs, baseline_runs, warnings, results = {{index, metric, status, value, baseline, regress_pct,
  evidence, p_value, ci, limits, message, checks}, ...}}
  > local r = require("vp.gate").evaluate(rules, cap)
  > print(r.status, r.failed)
field schema
  the --json document's shape (docs/architecture.md notation)
  > print(require("vp.gate").schema)
field FIELDS
  the rule fields and the type each takes
field DEFAULTS
  the parameters' defaults: alpha 0.01, test batch-means
field DESCRIPTION
  what each rule field does, as check.lua --help prints it

class vp.multi: many files per run
  Lets a script take several files and directories: `local opts, args = require("vp.multi").parse(arg, SPEC)`
  instead of cli.parse. One file: as before. Several: one child process per file (--jobs N at a time), outputs
  in input order, NDJSON with --json, a bad file reported as {file, error, exit} without stopping the others;
  exit 2 when a file failed, else 3 when a gate failed.
function multi.parse(arg, spec) -> opts, positional
  cli.parse plus --jobs and a repeatable capture argument (the positional with files = true, else the last);
  runs every file and ends the script when there are several
  > local opts, args = require("vp.multi").parse(arg, SPEC)
function multi.expand(paths [, opts [, reads [, forced]]]) -> files, skipped
  files as given, directories walked (sorted, hidden entries skipped) for the captures the script reads
  (opts: cli.parse's, whose --strict makes a directory that cannot be listed an error; reads: a script spec
  with formats, or nil for every format; forced: a --format id); skipped = {count, seen, formats = {format =
  count}} over the captures the walks left out
  > for _, f in ipairs(require("vp.multi").expand({"captures/"})) do print(f) end
function multi.shard(files, spec) -> files
  part I of N of a file list (spec "I/N", the --shard option; nil: all): the k-th file is in part (k - 1) % N + 1;
  a part left empty ends the script with exit 0, a bad spec with exit 2
  > print(#require("vp.multi").shard({"a", "b", "c"}, "1/2"))  --> 2

class vp.junit: JUnit XML for check.lua
  One testsuite per capture, one testcase per rule; everything escaped, control characters and bytes that are
  not UTF-8 replaced, so odd node names cannot break a CI report.
function junit.suite(check_doc) -> {xml, tests, failures, errors, skipped}
  the <testsuite> for one check.lua JSON document
  > local s = require("vp.junit").suite(doc)
function junit.write(path, suite | {suite, ...} [, name])
  write the whole document
  > require("vp.junit").write("report.xml", s)
function junit.merge(parts, dest)
  combine per-capture documents (vp.multi parts) into one
  > require("vp.junit").merge({{file = "a.vprof", path = "/tmp/1.junit"}}, "all.xml")
function junit.escape(s) -> string
  text safe in XML content and quoted attributes
  > print(require("vp.junit").escape("a < b & \"c\""))
]=]
