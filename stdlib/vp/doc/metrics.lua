-- vp.doc.metrics: documentation of the stdlib modules behind compare.lua and
-- check.lua (vp.metrics, vp.compare, vp.gate, vp.mwu, vp.multi, vp.junit).
-- Read by vp.doc (the REPL's help() and tools/gen_readme.lua).
local doc = require "vp.doc"
local fn = doc.fn

return {
  {
    class = "vp.metrics",
    title = "the metric catalogue",
    doc = "Every metric compare.lua and check.lua know, by name, with its unit, polarity (lower or "
      .. "higher is better, or none), definition, formats and per-frame distribution; the table in "
      .. "docs/metrics-table.md is generated from it. Pattern names (group.NAME.mean_ms, "
      .. "node.PATH.p99_ms, ...) take a group, node path, system, budget or measurement name. "
      .. "Only the names asked are computed; frame, group and node metrics come from the C passes. "
      .. "Figures a shipped script also reports come from that script's analysis module, in-process "
      .. "(hitches: vp.hitches, hitdiff.*: vp.hitdiff, events.*: vp.events, movement.*: vp.movement, "
      .. "group.*: vp.budget, lag.*: vp.lag), so a metric and the script agree.",
    members = {
      fn("compute", "metrics.compute(cap, names) -> values, problems",
        "values[name] = number for each name measured; problems[name] = why not (unknown name, "
          .. "another format's metric, no such group in this capture, no frames, ...)",
        'local m = require "vp.metrics"\nlocal v = m.compute(cap, {"frame_ms.p99", "group.Physics.mean_ms"})\n'
          .. 'print(v["frame_ms.p99"])'),
      fn("value", "metrics.value(cap, name) -> number | nil, why", "one metric of a capture",
        'print(require("vp.metrics").value(cap, "low_1pct_fps"))'),
      fn("distribution", "metrics.distribution(cap, name) -> Series | nil, why",
        "the per-frame (per-sample, per-trace) values a metric summarises, for significance tests",
        'local s = require("vp.metrics").distribution(cap, "group.Physics.mean_ms")\nprint(#s, s:mean())'),
      fn("list", "metrics.list() -> {{name, unit, polarity, formats, doc, pattern, distribution, per}, ...}",
        "the whole catalogue in order (what docs/metrics-table.md shows)",
        'for _, e in ipairs(require("vp.metrics").list()) do print(e.name, e.unit, e.polarity) end'),
      fn("lookup", "metrics.lookup(name) -> entry, param | nil, message",
        "the catalogue entry of a metric name and its NAME part",
        'local e, group = require("vp.metrics").lookup("group.World Rendering.p99_ms")  -- group = "World Rendering"'),
      fn("available", "metrics.available(cap [, {series_pass = false}]) -> {{name =, entity =}, ...}",
        "every metric this capture has (per group, node, system, ...); series_pass = false leaves out node "
          .. "percentiles, which cost a C pass over every frame (one for all the nodes compute() is given)",
        'for _, r in ipairs(require("vp.metrics").available(cap)) do print(r.name) end'),
      fn("delta", "metrics.delta(name, a, b [, per_a, per_b]) -> change",
        "the change from a to b: {a, b, change, change_pct, worse_pct (positive = worse), direction, "
          .. "normalised, unit}; totals are divided by per_a/per_b (frames, ...) when those differ",
        'local d = require("vp.metrics").delta("frame_ms.p99", 16, 18)  -- d.direction == "worse"'),
      fn("polarity", "metrics.polarity(entry, param) -> \"lower\" | \"higher\" | \"none\"",
        "which way the metric is better", 'local m = require "vp.metrics"\nprint(m.polarity(m.lookup("overall")))'),
      fn("finite", "metrics.finite(v) -> v | nil", "v when it is a finite number, else nil: the values a "
        .. "result hands on are never NaN or infinite", 'print(require("vp.metrics").finite(1 / 0))  -- nil'),
      fn("script_document", "metrics.script_document(cap, name) -> doc | nil, message",
        "the analysis \"hitches\", \"hitdiff\", \"events\" or \"movement\" of this capture with the "
          .. "script's default options (its module's analyze(cap)), once per capture",
        'print(#require("vp.metrics").script_document(cap, "hitches").hitches)'),
    },
  },
  {
    class = "vp.compare",
    title = "two captures side by side",
    doc = "The analysis behind compare.lua: every catalogue metric both captures have, with the change, "
      .. "the impact (change % signed so that positive is worse), totals normalised per frame when the "
      .. "frame counts differ, the groups, nodes, ... found in one capture only, and a two-sided "
      .. "Mann-Whitney U test per distribution, Holm-adjusted over the comparison. Plain data: nil for "
      .. "absent, never NaN or infinity; compare.schema is the --json document.",
    members = {
      fn("analyze", "compare.analyze(cap_a, cap_b [, {alpha, nodes, match}]) -> result",
        "{a, b, alpha, test, correction, tests, summary, metrics = {{metric, a, b, change, change_pct, impact, "
          .. "direction, p_adjusted, significant, ...}}, only_in_a, only_in_b}; A is the baseline; bad "
          .. "parameters raise EUSAGE",
        'local r = require("vp.compare").analyze(cap_a, cap_b, {match = {"^group%."}})\n'
          .. 'for _, m in ipairs(r.metrics) do print(m.metric, m.impact, m.significant) end'),
      fn("significance", "compare.significance({{a = values, b = values}, ...} [, alpha]) -> tests, m",
        "one family of distributions: per pair {p, p_adjusted (Holm over the m testable pairs), "
          .. "prob_b_greater, significant}, nil for an empty sample",
        'local t = require("vp.compare").significance({{a = {1, 2, 3}, b = {4, 5, 6}}})\nprint(t[1].p_adjusted)'),
      doc.field("schema", "the --json document's shape (docs/architecture.md notation)",
        'print(require("vp.compare").schema)'),
      doc.field("DEFAULTS", "the parameters' defaults: alpha 0.01, nodes 10"),
      doc.field("DEFINITIONS", "the definitions compare.lua --help prints"),
    },
  },
  {
    class = "vp.gate",
    title = "the regression gate",
    doc = "The analysis behind check.lua: a rules file run in a sandbox, its rules validated against the "
      .. "catalogue and evaluated against a capture (and a baseline): max, min, max_regress_pct with "
      .. "min_effect and the significance test. Rules that cannot be used raise EUSAGE (exit 2) naming the "
      .. "rule. Plain data: each result with its status, values and the checks that decided it; "
      .. "gate.schema is the --json document.",
    members = {
      fn("rules", "gate.rules(path [, {baseline = true}]) -> rules", "load and validate a rules file",
        'local rules = require("vp.gate").rules("gate.lua", {baseline = true})'),
      fn("load", "gate.load(path [, {limits = {cpu_ms, memory_mb}}]) -> list",
        "run a rules file in its sandbox (no io, os, require or load), in a child process under CPU-time "
          .. "and memory limits it cannot catch (gate.LIMITS)",
        'local list = require("vp.gate").load("gate.lua")'),
      fn("validate", "gate.validate(list [, {source, baseline}]) -> rules",
        "check each rule's fields and metric; the first problem raises EUSAGE naming the rule",
        'local rules = require("vp.gate").validate({{metric = "frame_ms.p99", max = 20}})'),
      fn("evaluate", "gate.evaluate(rules, cap [, base [, {alpha, source}]]) -> result",
        "{file, format, baseline, rules, status, passed, failed, skipped, results = {{index, metric, status, "
          .. "value, baseline, regress_pct, p_value, limits, message, checks}, ...}}",
        'local r = require("vp.gate").evaluate(rules, cap)\nprint(r.status, r.failed)'),
      doc.field("schema", "the --json document's shape (docs/architecture.md notation)",
        'print(require("vp.gate").schema)'),
      doc.field("FIELDS", "the rule fields and the type each takes"),
      doc.field("DEFAULTS", "the parameters' defaults: alpha 0.01"),
      doc.field("DESCRIPTION", "what each rule field does, as check.lua --help prints it"),
    },
  },
  {
    class = "vp.mwu",
    title = "Mann-Whitney U test",
    doc = "Two-sided Mann-Whitney U test by the normal approximation, with the tie correction and a "
      .. "continuity correction, and Holm's adjustment for a family of tests. Assumes independent "
      .. "values: on frame series the p-value is optimistic.",
    members = {
      fn("test", "mwu.test(a, b) -> {u_a, u_b, z, p, prob_b_greater, ties, ...} | nil, message",
        "a and b are Series or lists; prob_b_greater = U_b / (n_a n_b), the chance a value of b "
          .. "exceeds one of a (0.5: no shift)",
        'local r = require("vp.mwu").test(cap_a:frame_times(), cap_b:frame_times())\nprint(r.p, r.prob_b_greater)'),
      fn("holm", "mwu.holm(ps) -> adjusted", "Holm step-down adjusted p-values, in the given order",
        'print(table.unpack(require("vp.mwu").holm({0.01, 0.04, 0.03})))'),
      fn("erfc", "mwu.erfc(x) -> number", "the complementary error function",
        'print(require("vp.mwu").erfc(1))'),
      fn("p_two_sided", "mwu.p_two_sided(z) -> p", "2 (1 - Phi(|z|))",
        'print(require("vp.mwu").p_two_sided(1.96))'),
    },
  },
  {
    class = "vp.multi",
    title = "many files per run",
    doc = "Lets a script take several files and directories: `local opts, args = "
      .. "require(\"vp.multi\").parse(arg, SPEC)` instead of cli.parse. One file: as before. Several: "
      .. "one child process per file (--jobs N at a time), outputs in input order, NDJSON with --json, "
      .. "a bad file reported as {file, error, exit} without stopping the others; exit 2 when a file "
      .. "failed, else 3 when a gate failed.",
    members = {
      fn("parse", "multi.parse(arg, spec) -> opts, positional",
        "cli.parse plus --jobs and a repeatable capture argument (the positional with files = true, "
          .. "else the last); runs every file and ends the script when there are several",
        'local opts, args = require("vp.multi").parse(arg, SPEC)'),
      fn("expand", "multi.expand(paths) -> files",
        "files as given, directories walked (sorted, hidden entries skipped, capture extensions; "
          .. ".json and .txt only when vp.detect recognises them)",
        'for _, f in ipairs(require("vp.multi").expand({"captures/"})) do print(f) end'),
    },
  },
  {
    class = "vp.junit",
    title = "JUnit XML for check.lua",
    doc = "One testsuite per capture, one testcase per rule; everything escaped, control characters "
      .. "and bytes that are not UTF-8 replaced, so odd node names cannot break a CI report.",
    members = {
      fn("suite", "junit.suite(check_doc) -> {xml, tests, failures, errors, skipped}",
        "the <testsuite> for one check.lua JSON document",
        'local s = require("vp.junit").suite(doc)'),
      fn("write", "junit.write(path, suite | {suite, ...})", "write the whole document",
        'require("vp.junit").write("report.xml", s)'),
      fn("merge", "junit.merge(parts, dest)", "combine per-capture documents (vp.multi parts) into one",
        'require("vp.junit").merge({{file = "a.vprof", path = "/tmp/1.junit"}}, "all.xml")'),
      fn("escape", "junit.escape(s) -> string", "text safe in XML content and quoted attributes",
        'print(require("vp.junit").escape("a < b & \\"c\\""))'),
    },
  },
}
