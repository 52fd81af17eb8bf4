-- vp.gate.render: check.lua's output: each result's explanation (the
-- message the --json document, the JUnit XML and the table carry), and the
-- text, Markdown and CSV tables of a vp.gate result. Presentation only:
-- every figure and verdict comes from vp.gate.evaluate.
--
--   local render = require "vp.gate.render"
--   local doc = render.document(r)     -- r = gate.evaluate(...)
--   if opts.json then cli.json(doc, gate.schema) else render.emit(doc, opts, rules_path) end
local fmt = require "vp.fmt"
local metrics = require "vp.metrics"
local report = require "vp.report"

local render = {}

local function show(v, unit)
  if v == nil then return "-" end
  local s = unit == "ms" and fmt.ms(v) or fmt.number(v, 3)
  if unit == "%" then return s .. " %" end
  if unit and unit ~= "count" and unit ~= "value" and unit ~= "1 = PASS" then return s .. " " .. unit end
  return s
end

local function signed_pct(v) return (v > 0 and "+" or "") .. fmt.fixed(v, 1) end

-- "group.Physics.mean_ms 2.000 ms -> 2.604 ms (+0.603 ms, +30.2 %, 95 % CI +28.4 .. +32.0 %, p = 1e-20)"
local function change_text(r, x, c)
  local u = c.per and "value" or x.unit
  local pct = x.change_pct and ((x.change_pct > 0 and "+" or "") .. fmt.fixed(x.change_pct, 1) .. " %") or "new"
  local ci = ""
  if x.ci and x.ci.pct_lo then
    ci = string.format(", %s %% CI %s .. %s %%", fmt.number(100 * x.ci.level, 3), signed_pct(x.ci.pct_lo),
      signed_pct(x.ci.pct_hi))
  end
  local p = x.p_value and (", p " .. (x.p_value < 1e-300 and "" or "= ") .. fmt.p_value(x.p_value)) or ""
  if x.evidence == "runs" then p = p .. string.format(" (%d runs against %d)", r.runs, r.baseline_runs) end
  if x.evidence == "aligned" then p = p .. " (paired stretches)" end
  return string.format("%s%s %s -> %s (%s%s, %s%s%s)", x.metric, c.per and (" per " .. c.per) or "",
    show(c.a, u), show(c.b, u), (x.change or 0) >= 0 and "+" or "", show(x.change, u), pct, ci, p)
end

local function regression_text(r, x, c)
  local what = change_text(r, x, c)
  local l = x.limits
  local allowed = fmt.number(l.max_regress_pct, 3)
  local worse = x.regress_pct and fmt.fixed(x.regress_pct, 1) or "inf" -- nil: worse from 0
  if c.failed then return string.format("%s: worse by %s %%, more than the allowed %s %%", what, worse, allowed) end
  if not c.over then return string.format("%s: within the allowed %s %%", what, allowed) end
  if not c.big then
    return string.format("%s: worse by %s %% but the change is below min_effect %s", what, worse,
      show(l.min_effect, x.unit))
  end
  if x.cannot_tell then
    return string.format("%s: worse by %s %% but not significant (p >= %s): one capture a side cannot tell", what,
      worse, fmt.number(l.alpha, 4))
  end
  return string.format("%s: worse by %s %% but not significant (p >= %s)", what, worse, fmt.number(l.alpha, 4))
end

-- ci_above: "... : the whole interval lies above a 2 % regression" and the rest
local function interval_text(r, x, c)
  local what = change_text(r, x, c)
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

-- " (where to look: 3 hitches caused first by PATH [GROUP], worst frame
-- 1,200; 1 by ...)" for a failed hitch rule (gate's hitch_causes).
local function where_to_look(causes)
  if not causes or #causes == 0 then return "" end
  local parts = {}
  for i, c in ipairs(causes) do
    parts[i] = string.format("%s %s%s%s, worst frame %s", fmt.int(c.count), i == 1 and (c.count == 1 and
      "hitch caused first by " or "hitches caused first by ") or "by ", c.path or "no node found",
      c.group and (" [" .. c.group .. "]") or "", fmt.int(c.worst_frame))
  end
  return " (where to look: " .. table.concat(parts, "; ") .. ")"
end

-- The failed checks' explanations, or (none failed) every check's.
local function message(r, x)
  if x.message then return x.message end
  local failed, all = {}, {}
  for _, c in ipairs(x.checks) do
    local v, limit = show(x.value, x.unit), show(x.limits[c.kind], x.unit)
    local t = c.kind == "regress" and regression_text(r, x, c) or c.kind == "interval" and interval_text(r, x, c)
      or c.kind == "max" and (c.failed and string.format("%s = %s, above the maximum %s", x.metric, v, limit)
        or (v .. " <= " .. limit))
      or (c.failed and string.format("%s = %s, below the minimum %s", x.metric, v, limit) or (v .. " >= " .. limit))
    all[#all + 1] = t
    if c.failed then failed[#failed + 1] = t end
  end
  return table.concat(#failed > 0 and failed or all, "; ") .. where_to_look(x.hitch_causes)
end

--- render.document(r) -> the --json document (and what junit.suite reads):
-- the result r of gate.evaluate with each result's message, without its
-- checks (a result row reads through to the result; json.encode writes the
-- keys gate.schema declares).
function render.document(r)
  local doc = setmetatable({ results = {} }, { __index = r })
  for i, x in ipairs(r.results) do doc.results[i] = setmetatable({ message = message(r, x) }, { __index = x }) end
  return doc
end

-- The limits, the regression limits in the sign of the change column: for
-- a metric where higher is better (FPS) a regression of P % is a change of
-- -P %, so its limits read "change >= -P %" and "95 % CI not below -P %"
-- (lower is better: "change <= +P %", "95 % CI not above +P %").
local function limit_text(l, x)
  local t = {}
  if l.max then t[#t + 1] = "<= " .. show(l.max, x.unit) end
  if l.min then t[#t + 1] = ">= " .. show(l.min, x.unit) end
  local e, param = metrics.lookup(x.metric)
  local higher = e and metrics.polarity(e, param) == "higher"
  if l.max_regress_pct then
    local p = fmt.number(l.max_regress_pct, 3)
    local s = higher and ("change >= -" .. p .. " %") or ("change <= +" .. p .. " %")
    if l.min_effect then s = s .. " (effect >= " .. show(l.min_effect, x.unit) .. ")" end
    if l.significant then s = s .. " (if p < " .. fmt.number(l.alpha, 4) .. ")" end
    t[#t + 1] = s
  end
  if l.ci_above then
    local p = fmt.number(l.ci_above, 3)
    local s = higher and ("95 % CI not below -" .. p .. " %") or ("95 % CI not above +" .. p .. " %")
    if l.min_effect and not l.max_regress_pct then s = s .. " (effect >= " .. show(l.min_effect, x.unit) .. ")" end
    t[#t + 1] = s
  end
  return table.concat(t, ", ")
end

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

--- render.emit(doc, opts, rules_path): the table (text or Markdown) or CSV
-- of render.document's doc on stdout (vp.report.emit; opts: the script's
-- options), a failure list under it, the change column when there is a
-- baseline.
function render.emit(doc, opts, rules_path)
  local notes = {}
  for _, x in ipairs(doc.results) do
    if x.status == "fail" then notes[#notes + 1] = string.format("  FAIL rule %d: %s", x.index, x.message) end
  end
  if #notes > 0 then table.insert(notes, 1, "\nfailures") end
  local columns = {
    { key = "index", title = "#" },
    { key = "name", title = "rule", align = "left" },
    { key = "value", title = "value", format = function(v, x) return show(v, x.unit) end, align = "right" },
    { key = "baseline", title = "baseline", format = function(v, x) return v and show(v, x.unit) or "" end,
      align = "right" },
    { key = "limits", title = "limit", format = limit_text, align = "left" },
    { key = "status", title = "result", format = function(v) return v:upper() end, align = "left" },
  }
  local base = doc.baseline_runs ~= nil
  if base then -- the change and its interval, beside the baseline
    table.insert(columns, 5, { key = "change_pct", title = "change (95 % CI)",
      format = function(_, x) return change_cell(x) end, align = "right" })
  end
  local header = { { "result", string.format("%s: %d passed, %d failed, %d skipped", doc.status:upper(), doc.passed,
    doc.failed, doc.skipped) } }
  if doc.pairing then header[#header + 1] = { "pairing", doc.pairing.why } end
  if doc.phases and (base or #doc.phases > 1) then
    header[#header + 1] = { "phases", require("vp.compare.render").phases_text(doc.phases) }
  end
  report.emit(opts, {
    title = string.format("check: %s against %s%s", runs_text(doc.file, doc.runs), rules_path,
      base and (" (baseline " .. runs_text(doc.baseline, doc.baseline_runs) .. ")") or ""),
    header = header,
    sections = { { title = "rules", rows = doc.results, notes = notes, columns = columns } },
    csv = { rows = doc.results, columns = {
      "index", "name", "metric", "status", "value", "baseline", "change", "change_pct", "regress_pct",
      "evidence", "p_value",
      { key = "ci_pct_lo", csv_value = function(_, x) return x.ci and x.ci.pct_lo end },
      { key = "ci_pct_hi", csv_value = function(_, x) return x.ci and x.ci.pct_hi end }, "message",
    } },
  })
end

return render
