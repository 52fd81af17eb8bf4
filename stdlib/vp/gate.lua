-- vp.gate: the regression gate: a rules file's limits checked against a
-- capture (and a baseline). The analysis behind check.lua.
--
--   local gate = require "vp.gate"
--   local rules = gate.rules("gate.lua", {baseline = true})   -- load + validate
--   local r = gate.evaluate(rules, cap, base, {alpha = 0.01, source = "gate.lua"})
--   print(r.status, r.passed, r.failed, r.skipped)
--   for _, x in ipairs(r.results) do print(x.index, x.metric, x.status, x.value) end
--
-- A rules file is a Lua chunk returning a list of rules, run in a sandbox
-- (gate.load, vp.host.sandbox); each rule checks one metric of the catalogue (vp.metrics):
-- gate.DESCRIPTION states the fields, docs/check.md the rest. Problems with
-- the rules (a malformed file, an unknown metric, a metric of another
-- format, max_regress_pct without a baseline) are raised as vp.error
-- objects with code EUSAGE (exit 2), their message naming the file and the
-- rule: "gate.lua: rule 4 (frame_ms.maen): unknown metric 'frame_ms.maen'
-- (did you mean 'frame_ms.mean'?)"; a group or node that no input has is
-- one too (gate.evaluate), optional or not.
--
-- gate.evaluate returns plain data (nil for absent, never NaN or infinity):
--   {file, format, baseline, rules, status = "pass" | "fail", passed, failed,
--    skipped, runs, baseline_runs, warnings, results = [ {index, name,
--    metric, unit, status = "pass" | "fail" | "skip", value, baseline,
--    change, change_pct, regress_pct, normalised, evidence, p_value, ci =
--    {level, change_lo, change_hi, pct_lo, pct_hi, impact_lo, impact_hi},
--    limits = {max, min, max_regress_pct, ci_above, min_effect, significant,
--    alpha}, hitch_causes = [{path, group, count, worst_frame}] (a
--    failed rule of a metric that counts hitches, VProf: the hitches by
--    first cause, the 3 largest), message, checks} ]}
-- The capture and the baseline are each one capture or a list of runs
-- (compare.side): a value is the mean of the runs' values. message explains
-- a rule that could not be checked ("group.X.mean_ms: not measured: ...");
-- otherwise it is nil and `checks` lists what was checked, in order, for
-- the report to explain: {kind = "max" | "min", failed}, {kind =
-- "regress", failed, over (worse by more than max_regress_pct), big (the
-- change is at least min_effect), significant (p < alpha, true without the
-- test), a, b (the compared values: per frame when normalised), per (what
-- a normalised value is per: "frame", ...)} and {kind = "interval", failed,
-- above (the whole interval of the regression lies above ci_above), big,
-- a, b, per}. The change, its interval and its p-value are
-- vp.compare.metric's (the same methods as compare.lua: runs decide with 2
-- or more a side, else the per-frame values with batch means; evidence
-- says which). regress_pct is nil for a change from 0 (an infinite
-- regression when worse). The --json document is gate.schema: the result
-- with each result's message and without `checks`.
local E = require "vp.error"
local metrics = require "vp.metrics"
local compare = require "vp.compare"

local gate = {}

gate.DEFAULTS = { alpha = 0.01, pairing = "auto" }

--- The --json document (docs/architecture.md notation).
gate.schema = [[{
  file, format, frame_range: {first, last},
  baseline, rules, status, passed, failed, skipped, runs, baseline_runs, warnings: [],
  phases: [{phase, first, last, frames, typical_ms}],
  pairing: {method, decided, axis, stretches, agreement, why,
            phases_a: [{phase, first, last, frames, typical_ms}],
            phases_b: [{phase, first, last, frames, typical_ms}]},
  results: [{index, name, metric, unit, status, scope: {phase, first, last}, value, baseline, change,
             change_pct, regress_pct, normalised, evidence, p_value, cannot_tell,
             ci: {level, change_lo, change_hi, pct_lo, pct_hi, impact_lo, impact_hi},
             limits: {max, min, max_regress_pct, ci_above, min_effect, significant, alpha},
             hitch_causes: [{path, group, count, worst_frame}],
             message}]
}]]

--- What each rule field does, as check.lua --help prints it.
gate.DESCRIPTION = [[
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
  ci_above = P         (needs --baseline) fails only when the whole 95 %
                       interval of the regression lies above P %: the
                       metric is worse by more than P % beyond reasonable
                       doubt. The interval is compare.lua's: from Welch's t
                       on the run values with 2 or more runs a side, else
                       from the per-frame values by batch means, which
                       allow for slow drift (max and min have none).
  min_effect = E       ... either only when |value - baseline| >= E (in
                       the metric's unit): changes smaller than E are noise.
  significant = true   ... max_regress_pct only when the change is
                       significant: p < alpha (the rule's `alpha`, else
                       --alpha) from the same test as the interval (for
                       max and min with one run a side: the distribution's
                       shape test). Only for metrics with per-frame values
                       (frame_ms.*, group.*, node.*, lag.*) or with runs.
  optional = true      a metric this capture cannot give (a group that has
                       no nodes in it, no frames) is skipped instead of
                       failed. A group, node, ... that no input has at
                       all is a mistake in the rules file: exit 2, with
                       the nearest names, optional or not.
  format = "vprof"     the rule applies only to captures of that format (or
                       list of formats); others skip it.
  phase = N            the rule is checked on the capture's Nth phase only
                       (compare.lua and check.lua print the phases: the
                       stretches whose typical frame time stays put), and
                       against the baseline's Nth phase.
  frames = "A:B"       ... on frames A..B only (the capture's frame numbers;
                       negative ones count from the end), in the baseline too.
Besides its rules, the returned list may hold two settings for the file:
  min_frames = N       a VProf capture needs at least N complete frames
                       (default 1); with fewer it cannot be measured.
  unmeasurable = "skip" a capture that cannot be measured (too few frames,
                       every node time 0) is expected: every rule is
                       skipped with the reason, exit 0. The default,
                       "fail", refuses it: exit 2 naming the file.
Metric names, units and which way is better: docs/metrics-table.md.
With several runs (--baseline given several times or a directory, --runs
for the capture side) a value is the mean of the runs' values.
Exit status: 0 all rules passed, 3 a rule failed, 2 a malformed rules file
(the message names the rule), an unknown metric, a group or node no input
has, contradictory limits, a metric of another format, or an unreadable
capture.]]

--- Rule fields and the type each takes ("format": a format name or a list of them).
gate.FIELDS = {
  metric = "string", max = "number", min = "number", max_regress_pct = "number", ci_above = "number",
  min_effect = "number", significant = "boolean", alpha = "number", optional = "boolean",
  name = "string", format = "format", phase = "phase", frames = "frames",
}

--- Settings of the whole rules file (keys of the returned list beside its
-- rules): how many frames a capture needs, and whether one that cannot be
-- measured is expected ("skip") or refused ("fail", the default).
gate.SETTINGS = { min_frames = compare.MIN_FRAMES, unmeasurable = "fail" }

-- Loading ------------------------------------------------------------------------------

--- How long a rules file may run and how much it may hold and give back:
-- CPU time and memory while it runs (limits its code can neither catch nor
-- escape, vp.host.sandbox), the file's size, and the data it returns (its
-- rules; its values and keys, the bytes of its strings, the bytes of one
-- string), so that a small file cannot cost check.lua seconds or hundreds
-- of MB, nor its messages grow without end.
gate.LIMITS = { cpu_ms = 1000, memory_mb = 256, size = 1 << 20, rules = 10000, values = 100000,
  bytes = 1 << 20, string_bytes = 4096 }

-- The refusal of a name that is not a regular file, before opening it (a
-- FIFO would block io.open).
local function regular_file(path)
  local ok, lfs = pcall(require, "lfs")
  local mode = ok and type(lfs) == "table" and lfs.attributes(path, "mode")
  if mode and mode ~= "file" then
    E.raise("EINPUT", "%s: is a %s, not a rules file", path, mode == "named pipe" and "FIFO (named pipe)" or mode)
  end
end

-- Where a value the file returned was refused: "rule 4.max".
local function where(keys)
  if #keys == 0 then return "the value it returns" end
  local w = "rule " .. tostring(keys[1])
  for i = 2, #keys do
    local k = keys[i]
    w = w .. (type(k) == "string" and ("." .. k) or ("[" .. tostring(k) .. "]"))
  end
  return w
end

--- gate.load(path [, params]) -> list: run a rules file in its sandbox
-- (vp.host.sandbox: a Lua state of its own with math, string and table
-- without the pattern functions and table.move, and the plain base
-- functions; no io, os, require, load, setmetatable or debug) and return
-- the list it returns, as plain data, within gate.LIMITS
-- (params.limits to change them): a file that loops (even one that
-- catches every error) or allocates without end is stopped. Raises EINPUT
-- (the file cannot be read) or EUSAGE (it is too big, does not compile,
-- fails, runs too long, needs too much memory or does not return a
-- non-empty list of plain data within the limits).
function gate.load(path, params)
  local limits = {}
  for k, v in pairs(gate.LIMITS) do limits[k] = v end
  for k, v in pairs(params and params.limits or {}) do limits[k] = v end
  regular_file(path)
  local f, msg = io.open(path, "rb")
  if not f then E.raise("EINPUT", "%s", tostring(msg or (path .. ": cannot open"))) end
  local src, rmsg = f:read(limits.size + 1)
  f:close()
  src = src or ""
  if rmsg then E.raise("EINPUT", "%s: %s", path, tostring(rmsg)) end
  local function bad(fmt, ...) E.raise("EUSAGE", "%s: " .. fmt, path, ...) end
  if #src > limits.size then bad("the rules file is larger than %d bytes", limits.size) end
  local result, why, kind, keys = require("vp.host").sandbox(src, "@" .. path, limits)
  if kind == "syntax" then E.raise("EUSAGE", "%s", why) end
  if kind == "error" then bad("error while running: %s", why) end
  if kind == "cpu" then bad("the rules file runs too long (it ran for more than %d ms of CPU time)", limits.cpu_ms) end
  if kind == "memory" then bad("the rules file needs too much memory (more than %d MB)", limits.memory_mb) end
  if kind == "value" then bad("%s: %s", where(keys), why) end
  if type(result) ~= "table" then bad("expected the file to return a list of rules, got %s", type(result)) end
  local n = #result
  for k in pairs(result) do
    if gate.SETTINGS[k] == nil and (math.type(k) ~= "integer" or k < 1 or k > n) then
      bad("expected a list of rules (and the settings min_frames, unmeasurable); found the key %s", tostring(k))
    end
  end
  if n == 0 then bad("the list of rules is empty") end
  if n > limits.rules then bad("more than %d rules", limits.rules) end
  return result
end

local finite = metrics.finite

local function field(k, v, bad)
  local want = gate.FIELDS[k]
  if k == "test" then -- 0.2's test = "mann-whitney"
    bad("unknown field 'test': significant takes the test the pairing chooses (paired stretches, batch means or "
      .. "the runs: docs/check.md)")
  end
  if not want then
    local known = {}
    for name in pairs(gate.FIELDS) do known[#known + 1] = name end
    table.sort(known)
    bad("unknown field '%s' (fields: %s)", tostring(k), table.concat(known, ", "))
  end
  if want == "number" then
    if not finite(v) then bad("%s must be a finite number, got %s", k, tostring(v)) end
  elseif want == "phase" then
    if math.type(v) ~= "integer" or v < 1 then
      bad("phase must be a phase's number (1, 2, ...), got %s", tostring(v))
    end
  elseif want == "frames" then
    local a, b
    if type(v) == "string" then
      local x, y = v:match("^%s*(%-?%d+)%s*:%s*(%-?%d+)%s*$")
      a, b = math.tointeger(tonumber(x)), math.tointeger(tonumber(y))
    elseif type(v) == "table" then
      a, b = math.tointeger(v[1]), math.tointeger(v[2])
    end
    if not a or not b or a == 0 or b == 0 then
      bad("frames must be \"A:B\" or {A, B}: frame numbers, negative ones counting from the end, got %s",
        tostring(v))
    end
    return { a, b }
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
    return set
  elseif type(v) ~= want then
    bad("%s must be a %s, got %s", k, want, type(v))
  end
  return v
end

--- gate.validate(list [, params]) -> rules: check each rule of a loaded
-- list; raise EUSAGE naming the rule for the first problem. params: source
-- (the file name the messages give), baseline (true when a baseline will
-- be given: max_regress_pct needs one). A rule comes back with its fields
-- (format as a set), index, label (name or metric), and its catalogue
-- entry and param.
function gate.validate(list, params)
  params = params or {}
  local source = params.source or "rules"
  local rules = {}
  for k, default in pairs(gate.SETTINGS) do
    local v = list[k]
    if v == nil then
      v = default
    elseif k == "min_frames" and (math.type(v) ~= "integer" or v < 1) then
      E.raise("EUSAGE", "%s: min_frames must be an integer of 1 or more, got %s", source, tostring(v))
    elseif k == "unmeasurable" and v ~= "fail" and v ~= "skip" then
      E.raise("EUSAGE", "%s: unmeasurable must be \"fail\" or \"skip\", got %s", source, tostring(v))
    end
    rules[k] = v
  end
  for i, r in ipairs(list) do
    local function bad(fmt, ...)
      local what = type(r) == "table" and type(r.metric) == "string" and (" (" .. r.metric .. ")") or ""
      E.raise("EUSAGE", "%s: rule %d%s: " .. fmt, source, i, what, ...)
    end
    if type(r) ~= "table" then bad("expected a table like {metric = \"frame_ms.p99\", max = 20}, got %s", type(r)) end
    local rule = { index = i }
    for k, v in pairs(r) do rule[k] = field(k, v, bad) end
    if rule.metric == nil then bad("the field 'metric' is missing") end
    local e, param = metrics.lookup(rule.metric)
    if not e then bad("%s", param) end
    rule.entry, rule.param = e, param
    if rule.max == nil and rule.min == nil and rule.max_regress_pct == nil and rule.ci_above == nil then
      bad("nothing to check: give max, min, max_regress_pct or ci_above")
    end
    if rule.max ~= nil and rule.min ~= nil and rule.min > rule.max then
      bad("min = %s is above max = %s: no value can pass", rule.min, rule.max)
    end
    if rule.max_regress_pct == nil and rule.ci_above == nil and rule.min_effect ~= nil then
      bad("min_effect only goes with max_regress_pct or ci_above")
    end
    if rule.max_regress_pct == nil then
      if rule.significant ~= nil then bad("significant only goes with max_regress_pct") end
    end
    for _, k in ipairs({ "max_regress_pct", "ci_above" }) do
      if rule[k] ~= nil then
        if not params.baseline then bad("%s needs a baseline (--baseline BASE)", k) end
        if metrics.polarity(e, param) == "none" then
          bad("%s has no better direction, so it cannot regress; use max or min", rule.metric)
        end
      end
    end
    if rule.alpha ~= nil and (rule.alpha <= 0 or rule.alpha >= 1) then bad("alpha must be between 0 and 1") end
    if rule.phase and rule.frames then bad("a rule is scoped to a phase or to frames, not both") end
    if rule.max_regress_pct ~= nil and rule.max_regress_pct < 0 then bad("max_regress_pct must be at least 0") end
    if rule.min_effect ~= nil and rule.min_effect < 0 then bad("min_effect must be at least 0") end
    if rule.significant and not e.dist and not params.runs then
      bad("significant = true needs a metric with per-frame values (frame_ms.*, group.*, node.*, lag.*), "
        .. "or several runs a side")
    end
    for f in pairs(rule.format or {}) do
      if not metrics.applies(e, f) then
        bad("metric %s does not apply to %s captures (it applies to %s)", rule.metric, f, table.concat(e.formats, ", "))
      end
    end
    rule.label = rule.name or rule.metric
    if rule.phase then rule.label = rule.label .. " [phase " .. rule.phase .. "]" end
    if rule.frames then rule.label = string.format("%s [frames %d:%d]", rule.label, rule.frames[1], rule.frames[2]) end
    rules[i] = rule
  end
  return rules
end

--- gate.open_stats(rules) -> vp.open's `stats` for the captures the rules
-- are checked on: only what their metrics read (metrics.open_stats).
function gate.open_stats(rules)
  local entries, params = {}, {}
  for i, r in ipairs(rules) do entries[i], params[i] = r.entry, r.param end
  return metrics.open_stats(entries, params)
end

--- gate.rules(path [, params]) -> rules: gate.load then gate.validate
-- (params as validate's; source defaults to path).
function gate.rules(path, params)
  local p = { source = path }
  for k, v in pairs(params or {}) do p[k] = v end
  return gate.validate(gate.load(path), p)
end

-- Evaluation ---------------------------------------------------------------------------

local function sorted_formats(set)
  local l = {}
  for f in pairs(set) do l[#l + 1] = f end
  table.sort(l)
  return table.concat(l, ", ")
end

-- A metric's value in each run of a side, or nil, why.
local function run_values(side, name)
  local vals = {}
  for i, cap in ipairs(side.runs) do
    local v, why = metrics.value(cap, name)
    if v == nil then
      if #side.runs > 1 then why = tostring(cap.path) .. ": " .. tostring(why) end
      return nil, why
    end
    vals[i] = v
  end
  return vals
end

local function mean(list)
  local s = 0
  for _, v in ipairs(list) do s = s + v end
  return s / #list
end

-- The regression checks of rule r (max_regress_pct, ci_above): fills res,
-- returns the checks or nil when the rule cannot be checked (res.status
-- and res.message set).
local function regression(r, vals, S, base, p, res)
  local bvals, bwhy = run_values(base, r.metric)
  if not bvals then
    res.status = r.optional and "skip" or "fail"
    res.message = string.format("%s: not measured in the baseline: %s", r.metric, tostring(bwhy))
    return nil
  end
  local alpha = r.alpha or p.alpha
  local row, why = compare.metric(base, S, r.metric, bvals, vals, { alpha = alpha })
  if not row then
    res.status = "fail"
    res.message = string.format("%s: %s", r.metric, tostring(why))
    return nil
  end
  res.baseline, res.change, res.change_pct = row.a_raw, row.change, row.change_pct
  res.regress_pct, res.normalised, res.evidence, res.p_value, res.ci = row.impact, row.normalised, row.evidence,
    row.p_value, row.ci
  res.cannot_tell = row.cannot_tell
  local per = row.normalised and row.unit:match("/(.*)$") or nil
  local big = math.abs(row.change or 0) >= (r.min_effect or 0)
  local checks = {}
  if r.max_regress_pct then
    local check = { kind = "regress", over = row.worse_pct > r.max_regress_pct, big = big, significant = true,
      a = row.a, b = row.b, per = per }
    if r.significant then
      local pv = row.p_value
      if pv == nil and (metrics.statistic(r.metric) or {}).kind == "extreme" then
        -- max, min: no interval of their own; the distribution's shape decides
        local dd = compare.distribution(base, S, r.metric)
        if dd and dd.shape then pv, res.evidence, res.p_value = dd.shape.p, "shape", dd.shape.p end
      end
      if pv == nil then
        res.status = "fail"
        res.message = string.format("%s: no test of the change: %s", r.metric, tostring(row.note))
        return nil
      end
      check.significant = pv < alpha
    end
    check.failed = check.over and check.big and check.significant
    checks[#checks + 1] = check
  end
  if r.ci_above then
    local ci = row.ci
    if not (ci and ci.impact_lo) then
      res.status = "fail"
      res.message = string.format("%s: no interval of the change in %%: %s", r.metric,
        tostring(row.note or (row.change_pct == nil and "the baseline is 0" or "no test")))
      return nil
    end
    local check = { kind = "interval", above = ci.impact_lo > r.ci_above, big = big, a = row.a, b = row.b,
      per = per }
    check.failed = check.above and check.big
    checks[#checks + 1] = check
  end
  return checks
end

-- What testing the rules on these sides needs, done before any rule is
-- evaluated: the captures measurable and alike, and with a baseline the
-- sides paired when they line up, then both sides' passes at once.
local function prepare(rules, S, B, p, min_frames)
  if not B then
    compare.like_with_like(S, nil, min_frames)
    return
  end
  compare.like_with_like(B, S, min_frames)
  local runs, tested = {}, {}
  for _, side in ipairs({ S, B }) do
    for _, c in ipairs(side.runs) do
      metrics.will_test(c)
      runs[#runs + 1] = c
    end
  end
  for _, r in ipairs(rules) do
    if r.max_regress_pct or r.ci_above then tested[#tested + 1] = r.metric end
  end
  if #tested > 0 then compare.pair(B, S, { pairing = p.pairing }) end
  metrics.prepare_tests(runs, tested)
end

-- The frames (first, last: the capture's frame numbers) a rule's scope
-- holds in one capture, or nil, why.
local function scope_range(cap, r)
  if cap.frame_count == nil then
    return nil, string.format("%s: a %s capture has no frames to scope a rule to", tostring(cap.path),
      tostring(cap.format))
  end
  local lo, hi = cap.first_frame, cap.last_frame
  if not lo then return nil, string.format("%s holds no frames", tostring(cap.path)) end
  if r.phase then
    local list = compare.phases(cap) or {}
    local ph = list[r.phase]
    if not ph then
      return nil, string.format("%s has %d phase%s, no phase %d", tostring(cap.path), #list, #list == 1 and "" or "s",
        r.phase)
    end
    return ph.first, ph.last
  end
  local a, b = r.frames[1], r.frames[2]
  if a < 0 then a = hi + 1 + a end
  if b < 0 then b = hi + 1 + b end
  a, b = math.max(a, lo), math.min(b, hi)
  if a > b then
    return nil, string.format("frames %d:%d are not within %s's frames %d..%d", r.frames[1], r.frames[2],
      tostring(cap.path), lo, hi)
  end
  return a, b
end

-- A side's captures restricted to a rule's scope: copies (each file read
-- again), so that the captures the other rules read stay whole.
local function scoped(side, r)
  local vp = require "vp"
  local runs = {}
  for i, cap in ipairs(side.runs) do
    local first, last = scope_range(cap, r)
    if not first then
      for _, c in ipairs(runs) do c:close() end
      return nil, last
    end
    local copy, err = vp.open(cap.path, { format = cap.format, frames = { first, last } })
    if not copy then return nil, err end
    runs[i] = copy
  end
  return compare.side(#runs == 1 and runs[1] or runs)
end

local function evaluate(r, S, base, p)
  local cap = S.runs[1]
  local regress = r.max_regress_pct or r.ci_above
  local res = { index = r.index, name = r.label, metric = r.metric, unit = r.entry.unit, normalised = false,
    limits = { max = r.max, min = r.min, max_regress_pct = r.max_regress_pct, ci_above = r.ci_above,
      min_effect = r.min_effect, significant = r.significant,
      alpha = r.max_regress_pct and r.significant and (r.alpha or p.alpha) or nil } }
  if r.format and not r.format[cap.format] then
    res.status = "skip"
    res.message = string.format("skipped: the rule is for %s captures", sorted_formats(r.format))
    return res
  end
  if p.unmeasurable then
    res.status = "skip"
    res.message = "skipped: " .. p.unmeasurable .. " (the rules file expects it: unmeasurable = \"skip\")"
    return res
  end
  local vals, why = run_values(S, r.metric)
  if vals == nil then
    res.status = r.optional and "skip" or "fail"
    res.message = string.format("%s: not measured: %s", r.metric, tostring(why))
    return res
  end
  local v = mean(vals)
  if v ~= v or v == math.huge or v == -math.huge then
    -- infinite or undefined: never a pass
    res.status = r.optional and "skip" or "fail"
    res.message = string.format("%s: not measured: the value is %s", r.metric, v ~= v and "undefined" or "infinite")
    return res
  end
  res.value = finite(v)
  local checks = {}
  if r.max then checks[#checks + 1] = { kind = "max", failed = v > r.max } end
  if r.min then checks[#checks + 1] = { kind = "min", failed = v < r.min } end
  if regress then
    local c = regression(r, vals, S, base, p, res)
    if not c then return res end
    for _, x in ipairs(c) do checks[#checks + 1] = x end
  end
  res.status = "pass"
  for _, c in ipairs(checks) do
    if c.failed then res.status = "fail" end
  end
  res.checks = checks
  return res
end

-- Why no capture of either side has the group, node, ... rule r's metric
-- names (a typo in the rules file, whatever `optional` says), or nil when
-- one has it or r does not apply to the side's format.
local function unknown_name(r, S, B)
  if r.format and not r.format[S.format] then return nil end
  local first
  for _, side in ipairs({ S, B }) do
    for _, c in ipairs(side.runs) do
      local ok, why = metrics.known(c, r.metric)
      if ok then return nil end
      first = first or why
    end
  end
  return first
end

-- The metrics that count hitch frames: a rule of one that fails says where
-- to look.
local HITCH_METRICS = { hitches = true, hitches_per_min = true, stutter_pct = true }

-- Where a failed hitch rule should send the reader: the capture's hitches
-- grouped by their first cause (vp.hitches.by_cause), the 3 that caused
-- the most excess; nil for a capture without causes (not VProf).
local function hitch_causes(cap)
  if cap.format ~= "vprof" then return nil end
  local hitches = require "vp.hitches"
  local out = {}
  for i, g in ipairs(hitches.by_cause(hitches.analyze(cap, { causes = 1 }).hitches)) do
    if i > 3 then break end
    out[i] = { path = g.path, group = g.group, count = g.count, worst_frame = g.worst_frame }
  end
  return out
end

--- gate.evaluate(rules, cap [, base [, params]]) -> result (see the top of
-- this file). rules: from gate.rules / gate.validate. cap, base: a capture
-- or a list of captures (runs) each; base is needed by max_regress_pct and
-- ci_above rules. params: alpha (the default of rules with significant =
-- true, 0.01), source
-- (the rules file's name). Raises EUSAGE when a rule that applies to the
-- capture's format (no `format` restricting it) names a metric of another
-- format, and EINPUT when a capture cannot be measured or the baseline is of
-- another format (compare.like_with_like). A rule whose value is infinite
-- or undefined fails (is skipped when optional): never a pass.
function gate.evaluate(rules, cap, base, params)
  params = params or {}
  local p = { alpha = params.alpha or gate.DEFAULTS.alpha, pairing = params.pairing or gate.DEFAULTS.pairing }
  local source = params.source or "rules"
  local S = compare.side(cap)
  local B = base and compare.side(base) or nil
  local min_frames = rules.min_frames or compare.MIN_FRAMES
  if rules.unmeasurable == "skip" then
    for _, side in ipairs({ S, B or nil }) do
      for _, c in ipairs(side.runs) do
        local why = not p.unmeasurable and compare.unmeasurable(c, min_frames)
        if why then p.unmeasurable = string.format("%s cannot be measured: %s", tostring(c.path), why) end
      end
    end
  end
  if p.unmeasurable then
    if B then compare.like_with_like(B, S, false) end -- the formats still have to agree
  else
    prepare(rules, S, B, p, min_frames)
  end
  for _, r in ipairs(rules) do
    if (not r.format or r.format[S.format]) and not metrics.applies(r.entry, S.format) then
      E.raise("EUSAGE", "%s: rule %d (%s): metric %s does not apply to %s captures (it applies to %s); "
        .. "restrict the rule with format = \"...\"", source, r.index, r.metric, r.metric,
        tostring(S.format), table.concat(r.entry.formats, ", "))
    end
    local why = not p.unmeasurable and unknown_name(r, S, B)
    if why then E.raise("EUSAGE", "%s: rule %d (%s): no input has it: %s", source, r.index, r.metric, why) end
    local k = r.max_regress_pct and "max_regress_pct" or (r.ci_above and "ci_above")
    if k and not B then
      E.raise("EUSAGE", "%s: rule %d (%s): %s needs a baseline (--baseline BASE)", source, r.index, r.metric, k)
    end
  end
  local results, counts = {}, { pass = 0, fail = 0, skip = 0 }
  local scopes = {}
  for i, r in ipairs(rules) do
    if (r.phase or r.frames) and not p.unmeasurable then
      local key = r.phase and ("phase " .. r.phase) or ("frames " .. r.frames[1] .. ":" .. r.frames[2])
      local sc = scopes[key]
      if not sc then
        sc = {}
        sc.S, sc.why = scoped(S, r)
        if sc.S and B then sc.B, sc.why = scoped(B, r, "the baseline") end
        if sc.S and (sc.B or not B) then
          local ok, err = pcall(prepare, rules, sc.S, sc.B, p, min_frames)
          if not ok then sc.why = E.message(err) end
        end
        scopes[key], scopes[#scopes + 1] = sc, sc
      end
      if sc.why then
        results[i] = { index = r.index, name = r.label, metric = r.metric, unit = r.entry.unit, normalised = false,
          status = r.optional and "skip" or "fail", message = string.format("%s: %s", r.metric, sc.why),
          limits = { max = r.max, min = r.min, max_regress_pct = r.max_regress_pct, ci_above = r.ci_above,
            min_effect = r.min_effect, significant = r.significant } }
      else
        results[i] = evaluate(r, sc.S, sc.B, p)
        local first, last = sc.S.runs[1].first_frame, sc.S.runs[1].last_frame
        results[i].scope = { phase = r.phase, first = first, last = last }
      end
    else
      results[i] = evaluate(r, S, B, p)
    end
    counts[results[i].status] = counts[results[i].status] + 1
    if results[i].status == "fail" and HITCH_METRICS[r.metric] and not (r.phase or r.frames) then
      results[i].hitch_causes = hitch_causes(S.runs[1])
    end
  end
  for _, sc in ipairs(scopes) do
    for _, side in ipairs({ sc.S, sc.B }) do
      for _, c in ipairs(side and side.runs or {}) do c:close() end
    end
  end
  local warnings = { p.unmeasurable }
  if B and not p.unmeasurable then
    local na, nb = #B.runs, #S.runs
    if na >= 2 and nb >= 2 and (na < compare.MIN_RUNS or nb < compare.MIN_RUNS) then
      warnings[1] = string.format("%d baseline run%s against %d: the run-level test has little power below %d "
        .. "runs a side", na, na == 1 and "" or "s", nb, compare.MIN_RUNS)
    elseif (na > 1) ~= (nb > 1) then
      warnings[1] = string.format("%d baseline run%s against %d: runs decide only with 2 or more a side; the "
        .. "per-frame values decide", na, na == 1 and "" or "s", nb)
    end
  end
  local pairing = B and B.pairing or nil
  local blind = 0
  for _, x in ipairs(results) do
    if x.cannot_tell and x.limits.significant and x.status == "pass" then blind = blind + 1 end
  end
  if blind > 0 then
    warnings[#warnings + 1] = string.format("%d rule%s passed for want of significance: %s", blind,
      blind == 1 and "" or "s", compare.CANNOT_TELL)
  end
  return {
    file = S.runs[1].path, format = S.format, frame_range = metrics.frame_range(S.runs[1]),
    baseline = B and B.runs[1].path, rules = params.source,
    phases = pairing and pairing.phases_b or compare.phases(S.runs[1]), pairing = pairing,
    status = counts.fail > 0 and "fail" or "pass", passed = counts.pass, failed = counts.fail,
    skipped = counts.skip, runs = #S.runs, baseline_runs = B and #B.runs or nil, warnings = warnings,
    results = results,
  }
end

return gate
