-- check.lua: the regression gate: a rules file's limits checked against a capture (and a baseline)
--
-- usage: vpscript check.lua [options] RULES CAPTURE
--   --baseline BASE   the capture regressions are measured against
--   --alpha X         default significance level of rules with
--                     `significant = true` (default 0.01)
--   --junit FILE      also write JUnit XML (one testcase per rule)
--   --jobs N          with several captures: N at a time
--   --json, --csv, --help
--
-- RULES is a Lua file returning a list of rules, run in a sandbox (no
-- globals but math, string, table, ipairs, pairs, next, select, type,
-- tonumber, tostring, error, assert, pcall; a bounded instruction count):
--   return {
--     { metric = "frame_ms.p99", max = 20 },
--     { metric = "low_1pct_fps", min = 45 },
--     { metric = "group.Physics.mean_ms", max_regress_pct = 10, min_effect = 0.2,
--       significant = true },
--     { metric = "hitdiff.rate_pct", max = 1, format = "dw" },
--   }
-- Rule fields: metric (required; a name from the catalogue, see
-- docs/metrics-table.md), max, min, max_regress_pct (needs --baseline),
-- min_effect (absolute change below which a regression is ignored; the
-- metric's unit), significant (true: a regression also needs the
-- Mann-Whitney U test of the per-frame values to reject "no change" at
-- alpha), alpha, optional (true: a metric this capture cannot give is
-- skipped instead of failed), format (a format or list of formats: the rule
-- is skipped for captures of other formats), name (a label for reports).
--
-- Exit status: 0 every rule passed (or was skipped), 3 a rule failed, 2 the
-- rules file is malformed (the message names the rule and the problem), a
-- rule names an unknown metric or one that does not apply to the capture,
-- or a capture cannot be read.
--
-- JSON (one document):
--   { file, format, baseline, rules, status = "pass" | "fail",
--     passed, failed, skipped,
--     results = [ {index, name, metric, unit, status = "pass"|"fail"|"skip",
--                  value, baseline, change, change_pct, regress_pct,
--                  normalised, p_value,
--                  limits = {max, min, max_regress_pct, min_effect, significant, alpha},
--                  message} ] }
--   baseline, change, change_pct, regress_pct and p_value are null when
--   they do not apply; value is null when the metric could not be measured.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local metrics = require "vp.metrics"
local mwu = require "vp.mwu"
local multi = require "vp.multi"

local DESCRIPTION = [[
Each rule checks one metric of the capture:
  max = X              fails when the value is above X
  min = X              fails when the value is below X
  max_regress_pct = P  (needs --baseline) fails when the metric got worse
                       than the baseline by more than P %: for a metric
                       where lower is better, 100 x (value - baseline) /
                       |baseline| > P; for higher-is-better metrics the sign
                       turns. Totals (hitches, counts) are divided by the
                       frames (compared traces, ...) first when the two
                       captures differ in them. A baseline of 0 and any
                       worsening counts as an infinite regression.
  min_effect = E       ... but only when |value - baseline| >= E (in the
                       metric's unit): changes smaller than E are noise.
  significant = true   ... and only when a two-sided Mann-Whitney U test of
                       the capture's per-frame values against the
                       baseline's gives p < alpha (the rule's `alpha`, else
                       --alpha). Only for metrics with a per-frame
                       distribution (frame_ms.*, group.*, node.*, lag.*).
  optional = true      a metric this capture cannot give (no such group) is
                       skipped instead of failed.
  format = "vprof"     the rule applies only to captures of that format (or
                       list of formats); others skip it.
Metric names, units and which way is better: docs/metrics-table.md.
Exit status: 0 all rules passed, 3 a rule failed, 2 a malformed rules file
(the message names the rule), an unknown metric, a metric of another
format, or an unreadable capture.]]

local function merge_junit(parts, dest)
  local junit = require "vp.junit"
  junit.merge(parts, dest)
end

local SPEC = {
  name = "check.lua",
  summary = "The regression gate: check a capture against a rules file (and a baseline).",
  description = DESCRIPTION,
  options = {
    { "--baseline", metavar = "BASE", help = "the capture regressions are measured against" },
    { "--alpha", type = "number", default = 0.01, min = 0, max = 1, metavar = "X",
      help = "significance level for rules with significant = true" },
    { "--junit", metavar = "FILE", help = "also write JUnit XML (one testcase per rule) to FILE",
      merge = merge_junit },
  },
  positional = {
    { "RULES", help = "a Lua file returning a list of rules" },
    { "CAPTURE", help = "the capture to check", files = true },
  },
}

local opts, args = multi.parse(arg, SPEC)
local rules_path, path = args[1], args[2]

-- The rules file ---------------------------------------------------------------------------

local RULE_FIELDS = {
  metric = "string", max = "number", min = "number", max_regress_pct = "number",
  min_effect = "number", significant = "boolean", alpha = "number", optional = "boolean",
  name = "string", format = "format",
}

local function bad_rules(fmt_, ...)
  cli.fail(2, "%s: " .. fmt_, rules_path, ...)
end

local function sandbox()
  local function copy(t)
    local c = {}
    for k, v in pairs(t) do c[k] = v end
    return c
  end
  return {
    math = copy(math), string = copy(string), table = copy(table),
    ipairs = ipairs, pairs = pairs, next = next, select = select, type = type,
    tonumber = tonumber, tostring = tostring, error = error, assert = assert, pcall = pcall,
  }
end

local function load_rules()
  local f = io.open(rules_path, "rb")
  if not f then
    local _, msg = io.open(rules_path, "rb")
    cli.fail(2, "%s", tostring(msg or (rules_path .. ": cannot open")))
  end
  local src = f:read("a")
  f:close()
  local chunk, err = load(src, "@" .. rules_path, "t", sandbox())
  if not chunk then cli.fail(2, "%s", tostring(err)) end
  -- Run it in a coroutine with an instruction budget: a rules file that
  -- loops forever must not hang a CI job.
  local co = coroutine.create(chunk)
  local budget = 200
  debug.sethook(co, function()
    budget = budget - 1
    if budget <= 0 then error("the rules file runs too long (more than 20 million instructions)", 2) end
  end, "", 100000)
  local ok, result = coroutine.resume(co)
  if not ok then bad_rules("error while running: %s", tostring(result)) end
  if coroutine.status(co) ~= "dead" then bad_rules("the rules file yielded instead of returning") end
  if type(result) ~= "table" then
    bad_rules("expected the file to return a list of rules, got %s", type(result))
  end
  local n = #result
  for k in pairs(result) do
    if math.type(k) ~= "integer" or k < 1 or k > n then
      bad_rules("expected a list of rules; found the key %s", tostring(k))
    end
  end
  if n == 0 then bad_rules("the list of rules is empty") end
  return result
end

local function finite_number(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge
end

local function validate(list)
  local rules = {}
  for i, r in ipairs(list) do
    local function bad(fmt_, ...)
      local what = type(r) == "table" and type(r.metric) == "string" and (" (" .. r.metric .. ")") or ""
      cli.fail(2, "%s: rule %d%s: " .. fmt_, rules_path, i, what, ...)
    end
    if type(r) ~= "table" then bad("expected a table like {metric = \"frame_ms.p99\", max = 20}, got %s", type(r)) end
    local rule = { index = i }
    for k, v in pairs(r) do
      local want = RULE_FIELDS[k]
      if not want then
        local known = {}
        for name in pairs(RULE_FIELDS) do known[#known + 1] = name end
        table.sort(known)
        bad("unknown field '%s' (fields: %s)", tostring(k), table.concat(known, ", "))
      end
      if want == "number" then
        if not finite_number(v) then bad("%s must be a finite number, got %s", k, tostring(v)) end
      elseif want == "format" then
        local set = {}
        if type(v) == "string" then
          set[v] = true
        elseif type(v) == "table" and #v > 0 then
          for _, x in ipairs(v) do
            if type(x) ~= "string" then bad("format must be a format name or a list of them") end
            set[x] = true
          end
        else
          bad("format must be a format name or a list of them")
        end
        v = set
      elseif type(v) ~= want then
        bad("%s must be a %s, got %s", k, want, type(v))
      end
      rule[k] = v
    end
    if rule.metric == nil then bad("the field 'metric' is missing") end
    local e, param = metrics.lookup(rule.metric)
    if not e then bad("%s", param) end
    rule.entry, rule.param = e, param
    if rule.max == nil and rule.min == nil and rule.max_regress_pct == nil then
      bad("nothing to check: give max, min or max_regress_pct")
    end
    if rule.max_regress_pct == nil then
      for _, k in ipairs({ "min_effect", "significant" }) do
        if rule[k] ~= nil then bad("%s only goes with max_regress_pct", k) end
      end
    end
    if rule.alpha ~= nil and (rule.alpha <= 0 or rule.alpha >= 1) then bad("alpha must be between 0 and 1") end
    if rule.max_regress_pct ~= nil then
      if rule.max_regress_pct < 0 then bad("max_regress_pct must be at least 0") end
      if not opts.baseline then bad("max_regress_pct needs a baseline (--baseline BASE)") end
      if metrics.polarity(e, param) == "none" then
        bad("%s has no better direction, so it cannot regress; use max or min", rule.metric)
      end
    end
    if rule.min_effect ~= nil and rule.min_effect < 0 then bad("min_effect must be at least 0") end
    if rule.significant and not e.dist then
      bad("significant = true needs a metric with per-frame values (frame_ms.*, group.*, node.*, lag.*)")
    end
    if rule.format then
      for f in pairs(rule.format) do
        if not metrics.applies(e, f) then
          bad("metric %s does not apply to %s captures (it applies to %s)", rule.metric, f,
            table.concat(e.formats, ", "))
        end
      end
    end
    rule.label = rule.name or rule.metric
    rules[i] = rule
  end
  return rules
end

local rules = validate(load_rules())

-- Captures ----------------------------------------------------------------------------------

local cap = cli.open(path)
local base = opts.baseline and cli.open(opts.baseline) or nil

for _, r in ipairs(rules) do
  if not r.format or r.format[cap.format] then
    if not metrics.applies(r.entry, cap.format) then
      cli.fail(2, "%s: rule %d (%s): metric %s does not apply to %s captures (it applies to %s); "
        .. "restrict the rule with format = \"...\"", rules_path, r.index, r.metric, r.metric,
        tostring(cap.format), table.concat(r.entry.formats, ", "))
    end
  end
end

-- Evaluation --------------------------------------------------------------------------------

local function show(v, unit)
  if v == nil or v ~= v then return "-" end
  if v == math.huge then return "inf" end
  local s
  if unit == "ms" then s = fmt.ms(v) else s = fmt.number(v, 3) end
  if unit == "%" then return s .. " %" end
  if unit and unit ~= "count" and unit ~= "value" and unit ~= "1 = PASS" then return s .. " " .. unit end
  return s
end

local function per_value(c, e)
  if not e.per then return nil end
  return metrics.value(c, e.per)
end

local function evaluate(r)
  local res = { index = r.index, name = r.label, metric = r.metric, unit = r.entry.unit,
    limits = { max = r.max, min = r.min, max_regress_pct = r.max_regress_pct, min_effect = r.min_effect,
      significant = r.significant, alpha = r.max_regress_pct and (r.alpha or opts.alpha) or nil } }
  if r.format and not r.format[cap.format] then
    res.status = "skip"
    res.message = string.format("skipped: the rule is for %s captures", table.concat((function()
      local l = {}
      for f in pairs(r.format) do l[#l + 1] = f end
      table.sort(l)
      return l
    end)(), ", "))
    return res
  end
  local v, why = metrics.value(cap, r.metric)
  res.value = v
  if v == nil then
    res.status = r.optional and "skip" or "fail"
    res.message = string.format("%s: not measured: %s", r.metric, tostring(why))
    return res
  end
  local unit = r.entry.unit
  local problems, notes = {}, {}
  if r.max and v > r.max then
    problems[#problems + 1] = string.format("%s = %s, above the maximum %s", r.metric, show(v, unit), show(r.max, unit))
  elseif r.max then
    notes[#notes + 1] = string.format("%s <= %s", show(v, unit), show(r.max, unit))
  end
  if r.min and v < r.min then
    problems[#problems + 1] = string.format("%s = %s, below the minimum %s", r.metric, show(v, unit), show(r.min, unit))
  elseif r.min then
    notes[#notes + 1] = string.format("%s >= %s", show(v, unit), show(r.min, unit))
  end
  if r.max_regress_pct then
    local b, bwhy = metrics.value(base, r.metric)
    if b == nil then
      res.status = r.optional and "skip" or "fail"
      res.message = string.format("%s: not measured in the baseline: %s", r.metric, tostring(bwhy))
      return res
    end
    local d = metrics.delta(r.metric, b, v, per_value(base, r.entry), per_value(cap, r.entry))
    res.baseline, res.change, res.change_pct = d.a_raw, d.change, d.change_pct
    res.regress_pct, res.normalised = d.worse_pct, d.normalised
    local over = d.worse_pct > r.max_regress_pct
    local big = math.abs(d.change) >= (r.min_effect or 0)
    local sig = true
    if r.significant then
      local sa, sawhy = metrics.distribution(base, r.metric)
      local sb, sbwhy = metrics.distribution(cap, r.metric)
      local t
      if sa and sb then t = mwu.test(sa, sb) end
      if not t then
        res.status = "fail"
        res.message = string.format("%s: no per-frame values to test: %s", r.metric, tostring(sawhy or sbwhy
          or "an empty sample"))
        return res
      end
      res.p_value = t.p
      sig = t.p < (r.alpha or opts.alpha)
    end
    -- "group.Physics.mean_ms 2.000 ms -> 2.604 ms (+0.603 ms, +30.2 %, p = 1e-20)"
    local u = d.normalised and "value" or unit
    local function pct(x)
      if x == nil then return "new" end
      if x == math.huge then return "inf %" end
      return (x > 0 and "+" or "") .. fmt.fixed(x, 1) .. " %"
    end
    local what = string.format("%s%s %s -> %s (%s%s, %s%s)", r.metric,
      d.normalised and (" per " .. d.unit:match("/(.*)$")) or "", show(d.a, u), show(d.b, u),
      d.change >= 0 and "+" or "", show(d.change, u), pct(d.change_pct),
      res.p_value and (res.p_value == 0 and ", p < 1e-300" or string.format(", p = %.3g", res.p_value)) or "")
    local allowed = fmt.number(r.max_regress_pct, 3)
    local worse = d.worse_pct == math.huge and "inf" or fmt.fixed(d.worse_pct, 1)
    if over and big and sig then
      problems[#problems + 1] = string.format("%s: worse by %s %%, more than the allowed %s %%", what, worse,
        allowed)
    elseif not over then
      notes[#notes + 1] = string.format("%s: within the allowed %s %%", what, allowed)
    elseif not big then
      notes[#notes + 1] = string.format("%s: worse by %s %% but the change is below min_effect %s", what, worse,
        show(r.min_effect, unit))
    else
      notes[#notes + 1] = string.format("%s: worse by %s %% but not significant (p >= %s)", what, worse,
        fmt.number(r.alpha or opts.alpha, 4))
    end
  end
  if #problems > 0 then
    res.status = "fail"
    res.message = table.concat(problems, "; ")
  else
    res.status = "pass"
    res.message = table.concat(notes, "; ")
  end
  return res
end

local results = {}
local counts = { pass = 0, fail = 0, skip = 0 }
for i, r in ipairs(rules) do
  results[i] = evaluate(r)
  counts[results[i].status] = counts[results[i].status] + 1
end

-- Output ----------------------------------------------------------------------------------------

local null = cli.null
local function nz(v)
  if v == nil or v ~= v or v == math.huge or v == -math.huge then return null end
  return v
end

local doc_results = cli.array()
for i, r in ipairs(results) do
  doc_results[i] = {
    index = r.index, name = r.name, metric = r.metric, unit = r.unit, status = r.status,
    value = nz(r.value), baseline = nz(r.baseline), change = nz(r.change), change_pct = nz(r.change_pct),
    regress_pct = nz(r.regress_pct), normalised = r.normalised or false, p_value = nz(r.p_value),
    limits = {
      max = nz(r.limits.max), min = nz(r.limits.min), max_regress_pct = nz(r.limits.max_regress_pct),
      min_effect = nz(r.limits.min_effect),
      significant = r.limits.significant == nil and null or r.limits.significant,
      alpha = nz(r.limits.alpha),
    },
    message = r.message,
  }
end

local status = counts.fail > 0 and "fail" or "pass"
local doc = {
  file = cap.path or path, format = cap.format, baseline = base and (base.path or opts.baseline) or null,
  rules = rules_path, status = status, passed = counts.pass, failed = counts.fail, skipped = counts.skip,
  results = doc_results,
}

if opts.junit then
  local junit = require "vp.junit"
  local ok, err = pcall(junit.write, opts.junit, junit.suite(doc))
  if not ok then cli.fail(2, "--junit %s: %s", opts.junit, tostring(err)) end
end

local function limit_text(_, r)
  local t = {}
  local l = r.limits
  if l.max then t[#t + 1] = "<= " .. show(l.max, r.unit) end
  if l.min then t[#t + 1] = ">= " .. show(l.min, r.unit) end
  if l.max_regress_pct then
    local s = "regress <= " .. fmt.number(l.max_regress_pct, 3) .. " %"
    if l.min_effect then s = s .. " (effect >= " .. show(l.min_effect, r.unit) .. ")" end
    if l.significant then s = s .. " (if p < " .. fmt.number(l.alpha, 4) .. ")" end
    t[#t + 1] = s
  end
  return table.concat(t, ", ")
end

local notes = {}
for _, r in ipairs(results) do
  if r.status == "fail" then notes[#notes + 1] = string.format("  FAIL rule %d: %s", r.index, r.message) end
end
if #notes > 0 then table.insert(notes, 1, "\nfailures") end

report.emit(opts, {
  json = doc,
  title = string.format("check: %s against %s%s", doc.file, rules_path,
    base and (" (baseline " .. doc.baseline .. ")") or ""),
  header = {
    { "result", string.format("%s: %d passed, %d failed, %d skipped", status:upper(), counts.pass,
      counts.fail, counts.skip) },
  },
  sections = {
    { title = "rules", rows = results, columns = {
      { key = "index", title = "#" },
      { key = "name", title = "rule", align = "left" },
      { key = "value", title = "value", format = function(v, r) return show(v, r.unit) end, align = "right" },
      { key = "baseline", title = "baseline", format = function(v, r) return v and show(v, r.unit) or "" end,
        align = "right" },
      { key = "limits", title = "limit", format = limit_text, align = "left" },
      { key = "status", title = "result", format = function(v) return v:upper() end, align = "left" },
    }, notes = notes },
  },
  csv = {
    rows = results,
    columns = {
      { key = "index" }, { key = "name" }, { key = "metric" }, { key = "status" }, { key = "value" },
      { key = "baseline" }, { key = "change" }, { key = "change_pct" }, { key = "regress_pct" },
      { key = "p_value" }, { key = "message" },
    },
  },
})
cap:close()
if base then base:close() end
if counts.fail > 0 then
  cli.fail(3, "%s: %d of %d rules failed", doc.file, counts.fail, #results)
end
