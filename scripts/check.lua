-- check.lua: the regression gate: a rules file's limits checked against a capture (and a baseline)
--
-- usage: vpscript check.lua [options] RULES CAPTURE   (CAPTURE: several files or directories, see vp.multi)
-- The rules, their sandbox, the evaluation and the --json shape are vp.gate's (docs/check.md); this
-- script parses the options, explains each result and prints a table, CSV, JSON or JUnit XML.
-- Exit status: 0 every rule passed (or was skipped), 3 a rule failed, 2 a rules file, rule or capture
-- that cannot be used.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local gate = require "vp.gate"
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
    multi.jobs_option("with several captures checked one by one: N at a time, in parallel processes"),
    cli.FRAMES,
  },
  positional = {
    { "RULES", help = "a Lua file returning a list of rules" },
    { "CAPTURE", help = "the capture to check", files = true, rest = true },
  },
}

local opts, args = cli.parse(arg, SPEC)
if not opts.runs then opts, args = multi.parse(arg, SPEC) end -- several captures: one check each
local rules_path = args[1]
local base_files = #opts.baseline > 0 and multi.expand(opts.baseline) or {}
if #opts.baseline > 0 and #base_files == 0 then
  cli.fail(2, "no capture files in %s", table.concat(opts.baseline, ", "))
end
local cap_files = { args[2] }
if opts.runs then
  cap_files = multi.expand(table.move(args, 2, #args, 1, {}))
  if #cap_files == 0 then cli.fail(2, "no capture files in %s", table.concat(args, ", ", 2)) end
end
local rules = gate.rules(rules_path, { baseline = #base_files > 0, runs = #base_files > 1 and #cap_files > 1 })
-- Rules read a VProf capture's group and node statistics (cli.open_runs).
local caps = cli.open_runs(cap_files, opts.frames)
local base = #base_files > 0 and cli.open_runs(base_files, opts.frames) or nil
local r = gate.evaluate(rules, caps, base, { alpha = opts.alpha, source = rules_path })
for _, c in ipairs(caps) do c:close() end
for _, c in ipairs(base or {}) do c:close() end
for _, w in ipairs(r.warnings) do io.stderr:write("vpscript: warning: ", w, "\n") end

-- Explaining a result ----------------------------------------------------------------

local function show(v, unit)
  if v == nil then return "-" end
  local s = unit == "ms" and fmt.ms(v) or fmt.number(v, 3)
  if unit == "%" then return s .. " %" end
  if unit and unit ~= "count" and unit ~= "value" and unit ~= "1 = PASS" then return s .. " " .. unit end
  return s
end

local function signed_pct(v) return (v > 0 and "+" or "") .. fmt.fixed(v, 1) end

-- "group.Physics.mean_ms 2.000 ms -> 2.604 ms (+0.603 ms, +30.2 %, 95 % CI +28.4 .. +32.0 %, p = 1e-20)"
local function change_text(x, c)
  local u = c.per and "value" or x.unit
  local pct = x.change_pct and ((x.change_pct > 0 and "+" or "") .. fmt.fixed(x.change_pct, 1) .. " %") or "new"
  local ci = ""
  if x.ci and x.ci.pct_lo then
    ci = string.format(", %s %% CI %s .. %s %%", fmt.number(100 * x.ci.level, 3), signed_pct(x.ci.pct_lo),
      signed_pct(x.ci.pct_hi))
  end
  local p = x.p_value and (", p " .. (x.p_value < 1e-300 and "" or "= ") .. fmt.p_value(x.p_value)) or ""
  if x.evidence == "runs" then p = p .. string.format(" (%d runs against %d)", r.runs, r.baseline_runs) end
  return string.format("%s%s %s -> %s (%s%s, %s%s%s)", x.metric, c.per and (" per " .. c.per) or "",
    show(c.a, u), show(c.b, u), (x.change or 0) >= 0 and "+" or "", show(x.change, u), pct, ci, p)
end

local function regression_text(x, c)
  local what = change_text(x, c)
  local l = x.limits
  local allowed = fmt.number(l.max_regress_pct, 3)
  local worse = x.regress_pct and fmt.fixed(x.regress_pct, 1) or "inf" -- nil: worse from 0
  if c.failed then return string.format("%s: worse by %s %%, more than the allowed %s %%", what, worse, allowed) end
  if not c.over then return string.format("%s: within the allowed %s %%", what, allowed) end
  if not c.big then
    return string.format("%s: worse by %s %% but the change is below min_effect %s", what, worse,
      show(l.min_effect, x.unit))
  end
  return string.format("%s: worse by %s %% but not significant (p >= %s)", what, worse, fmt.number(l.alpha, 4))
end

-- ci_above: "... : the whole interval lies above a 2 % regression" and the rest
local function interval_text(x, c)
  local what = change_text(x, c)
  local limit = fmt.number(x.limits.ci_above, 3)
  local lo = fmt.fixed(x.ci.impact_lo, 1)
  if c.failed then
    return string.format("%s: worse by at least %s %%: the whole interval lies above a %s %% regression", what, lo,
      limit)
  end
  if not c.above then
    return string.format("%s: the interval of the regression starts at %s %%, not above %s %%", what, lo, limit)
  end
  return string.format("%s: worse by at least %s %% but the change is below min_effect %s", what, lo,
    show(x.limits.min_effect, x.unit))
end

-- The failed checks' explanations, or (none failed) every check's.
local function message(x)
  if x.message then return x.message end
  local failed, all = {}, {}
  for _, c in ipairs(x.checks) do
    local v, limit = show(x.value, x.unit), show(x.limits[c.kind], x.unit)
    local t = c.kind == "regress" and regression_text(x, c) or c.kind == "interval" and interval_text(x, c)
      or c.kind == "max" and (c.failed and string.format("%s = %s, above the maximum %s", x.metric, v, limit)
        or (v .. " <= " .. limit))
      or (c.failed and string.format("%s = %s, below the minimum %s", x.metric, v, limit) or (v .. " >= " .. limit))
    all[#all + 1] = t
    if c.failed then failed[#failed + 1] = t end
  end
  return table.concat(#failed > 0 and failed or all, "; ")
end

-- The document: the result with each result's message, without its checks
-- (a result row reads through to the result; json.encode writes the keys
-- the schema declares).
local doc = setmetatable({ results = {} }, { __index = r })
for i, x in ipairs(r.results) do doc.results[i] = setmetatable({ message = message(x) }, { __index = x }) end

if opts.junit then
  local ok, err = pcall(junit.write, opts.junit, junit.suite(doc))
  if not ok then cli.fail(2, "--junit %s: %s", opts.junit, tostring(err)) end
end

local function limit_text(l, x)
  local t = {}
  if l.max then t[#t + 1] = "<= " .. show(l.max, x.unit) end
  if l.min then t[#t + 1] = ">= " .. show(l.min, x.unit) end
  if l.max_regress_pct then
    local s = "regress <= " .. fmt.number(l.max_regress_pct, 3) .. " %"
    if l.min_effect then s = s .. " (effect >= " .. show(l.min_effect, x.unit) .. ")" end
    if l.significant then s = s .. " (if p < " .. fmt.number(l.alpha, 4) .. ")" end
    t[#t + 1] = s
  end
  if l.ci_above then
    local s = "95 % CI not above +" .. fmt.number(l.ci_above, 3) .. " %"
    if l.min_effect and not l.max_regress_pct then s = s .. " (effect >= " .. show(l.min_effect, x.unit) .. ")" end
    t[#t + 1] = s
  end
  return table.concat(t, ", ")
end

local notes = {}
for _, x in ipairs(doc.results) do
  if x.status == "fail" then notes[#notes + 1] = string.format("  FAIL rule %d: %s", x.index, x.message) end
end
if #notes > 0 then table.insert(notes, 1, "\nfailures") end

-- "new.vprof", or "run1.vprof (+4 runs)"
local function runs_text(file, n)
  if not n or n <= 1 then return file end
  return string.format("%s (+%d run%s)", file, n - 1, n == 2 and "" or "s")
end

-- the regression of a rule with a baseline: "+30.2 % (+28.4 .. +32.0)"
local function change_cell(x)
  if x.baseline == nil or x.change == nil then return "" end
  if x.change_pct == nil then return "new" end
  local t = (x.change_pct > 0 and "+" or "") .. fmt.fixed(x.change_pct, 1) .. " %"
  if x.ci and x.ci.pct_lo then t = t .. " (" .. signed_pct(x.ci.pct_lo) .. " .. " .. signed_pct(x.ci.pct_hi) .. ")" end
  return t
end

if opts.json then
  cli.json(doc, gate.schema)
else
  local columns = {
    { key = "index", title = "#" },
    { key = "name", title = "rule", align = "left" },
    { key = "value", title = "value", format = function(v, x) return show(v, x.unit) end, align = "right" },
    { key = "baseline", title = "baseline", format = function(v, x) return v and show(v, x.unit) or "" end,
      align = "right" },
    { key = "limits", title = "limit", format = limit_text, align = "left" },
    { key = "status", title = "result", format = function(v) return v:upper() end, align = "left" },
  }
  if base then -- the change and its interval, beside the baseline
    table.insert(columns, 5, { key = "change_pct", title = "change (95 % CI)",
      format = function(_, x) return change_cell(x) end, align = "right" })
  end
  report.emit(opts, {
    title = string.format("check: %s against %s%s", runs_text(r.file, r.runs), rules_path,
      base and (" (baseline " .. runs_text(r.baseline, r.baseline_runs) .. ")") or ""),
    header = { { "result", string.format("%s: %d passed, %d failed, %d skipped", r.status:upper(), r.passed, r.failed,
      r.skipped) } },
    sections = { { title = "rules", rows = doc.results, notes = notes, columns = columns } },
    csv = { rows = doc.results, columns = {
      "index", "name", "metric", "status", "value", "baseline", "change", "change_pct", "regress_pct",
      "evidence", "p_value",
      { key = "ci_pct_lo", csv_value = function(_, x) return x.ci and x.ci.pct_lo end },
      { key = "ci_pct_hi", csv_value = function(_, x) return x.ci and x.ci.pct_hi end }, "message",
    } },
    max_width = 160,
  })
end
if r.failed > 0 then cli.fail(3, "%s: %d of %d rules failed", r.file, r.failed, #r.results) end
