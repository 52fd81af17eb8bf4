-- vp.laige.analysis: the analysis behind scripts/laige.lua (laige.analyze):
-- a laige profile or budget report as plain data, its systems with their
-- budget use and flags in a chosen order, the systems over budget
-- (vp.laige.model's one rule), the failed frames and the gate's verdict.
--
--   local laige = require "vp.laige"
--   local doc = laige.analyze(assert(laige.open("run.json")), {sort = "budget"})
--   print(doc.gate.failed, #doc.over_budget)
--   -- json.encode(doc, laige.schema_of(doc)): what `laige.lua --json` prints
local E = require "vp.error"
local stats = require "vp.stats"
local model = require "vp.laige.model"

local analysis = {}

analysis.DEFAULTS = { sort = "p99" }

--- The orders of the systems list: p99 and budget % descending (systems
-- without one last), name, id (the report's order).
analysis.SORTS = { "p99", "budget", "name", "id" }

local STATS = "{n, min, mean, p50, p95, p99, max}"
local SYSTEM = "id, name, budget_ms, runs, last_ms, warns, errors, n, mean_ms, p50_ms, p95_ms, p99_ms, max_ms, "
  .. "budget_pct, over_budget, flags: []"
local TAIL = "over_budget: [{id, name, p99_ms, budget_ms}], gate: {failed, reasons: []}, warnings: []"

--- The shape of the result for a profile report (`laige.lua --json`).
analysis.profile_schema = "{file, format, form, version, counters: {ticks, frames, draw_calls, texture_binds, "
  .. "net_bytes}, tick_ms: " .. STATS .. ", frame_ms: " .. STATS .. ", world: {entities_alive, entities_total, "
  .. "entity_capacity, sim_allocs, systems}, systems: [{" .. SYSTEM .. "}], " .. TAIL .. "}"

--- The shape of the result for a budget report (`laige.lua --json`).
analysis.budget_schema = "{file, format, version, overall, context: {workload, build, machine, warmup}, "
  .. "frames: {listed, total, failed}, budgets: [{name, result, metric, unit, after, before, target, stats: "
  .. STATS .. "}], systems: [{" .. SYSTEM .. ", measured_p99_ms, result}], " .. TAIL .. ", failed_frames: "
  .. "[{index, frame, tick, frame_ms, sim_allocs, overrun_warns, critical_errors, result}]}"

--- analysis.schema_of(result) -> the schema of a result: profile_schema or
-- budget_schema by its format.
function analysis.schema_of(result)
  if result.format == "laige-budget" then return analysis.budget_schema end
  return analysis.profile_schema
end

--- Every definition, as laige.lua's --help prints it.
analysis.DEFINITIONS = [[
Reads a laige engine profile report (--prof-out; JSON or text, the same
model for both) or budget report (--budget-report) and prints:
  profile report: the counters, the tick and frame time statistics, the
    world counts and the systems, sorted by their window's p99, with their
    budget use and flags;
  budget report: each budget's result, the systems with their result, the
    over-budget list and the frames that failed.
Definitions:
  n, min .. max   the report's rolling-window statistics (ms) as the engine
                  wrote them: percentiles are nearest rank (the value at rank
                  ceil(p/100 * n) of the ascending order). An empty window
                  (n=0 in text, null in JSON) prints "-" and is null in JSON;
                  so does a value that is not a finite number.
  budget %        100 x the system window's p99 / its declared budget_ms
                  ("-" and null when the budget is 0).
  OVER            over budget: the window's p99 > budget_ms (the engine's
                  own rule; a budget of 0 counts as a budget of 0 ms), or
                  the report lists the system under over_budget, or its
                  result is FAIL. Listed systems without a system line are
                  over budget too. The same rule gives info.lua's "systems
                  over budget" and the systems.over_budget metric.
  WARN, ERR       the system logged budget-overrun warnings (warns > 0) or
                  errors (errors > 0) during the run.
  NO_SAMPLES      the system's window is empty (it never ran).
  results         PASS; FAIL (over the target, or over budget); NO_SAMPLES
                  (nothing was measured: the engine counts it as a failure);
                  NO_ENTRY (the budget is not declared: also a failure).
  failed frame    a frame line whose result is not PASS: the engine fails a
                  frame with sim_allocs, overrun_warns or critical_errors
                  above 0.
  --gate          exit 3 when the report says overall=FAIL, when a system is
                  over budget (OVER, or listed under over_budget), or when a
                  budget report has no overall line (it was cut short).
Exit status: 0 ok, 2 unreadable or malformed report, 3 the gate failed.]]

local defined = stats.defined

-- A copy of the fields of t named in keys, numbers that are not finite as nil.
local function pick(t, keys)
  if not t then return nil end
  local out = {}
  for _, k in ipairs(keys) do
    local v = t[k]
    if type(v) == "number" then v = defined(v) end
    out[k] = v
  end
  return out
end

local STAT_KEYS = { "n", "min", "mean", "p50", "p95", "p99", "max" }

-- Larger first, nil last; nil when a and b are equal (the caller keeps the
-- report's order).
local function desc_nil_last(a, b)
  if a == b then return nil end
  if a == nil then return false end
  if b == nil then return true end
  return a > b
end

local SORTERS = {
  p99 = function(a, b) return desc_nil_last(a.p99_ms, b.p99_ms) end,
  budget = function(a, b) return desc_nil_last(a.budget_pct, b.budget_pct) end,
  name = function(a, b)
    if a.name == b.name then return nil end
    return tostring(a.name) < tostring(b.name)
  end,
  id = function() return nil end,
}

local function number_text(v)
  if v == nil then return "-" end
  return string.format("%.6g", v)
end

-- The systems as rows, in the chosen order, and the over-budget list.
local function systems_of(cap, kind, sort)
  local over_list = model.over_budget(cap)
  local over_set = {}
  for _, o in ipairs(over_list) do
    if o.system then over_set[o.system] = true end
  end
  -- One constructor per row: the table is made at its size at once (a
  -- report may list a million systems; rows grown field by field cost a
  -- rehash each, and garbage).
  local rows, pos = {}, {}
  local NO_FLAGS = {}
  local function num(v) return type(v) == "number" and defined(v) or v end
  for i, s in ipairs(cap.systems) do
    local w = s.window
    local over = over_set[s] == true
    local flags = NO_FLAGS
    if over or (s.warns or 0) > 0 or (s.errors or 0) > 0 or not w then
      flags = {}
      if over then flags[#flags + 1] = "OVER" end
      if (s.warns or 0) > 0 then flags[#flags + 1] = "WARN" end
      if (s.errors or 0) > 0 then flags[#flags + 1] = "ERR" end
      if not w then flags[#flags + 1] = "NO_SAMPLES" end
    end
    local row = {
      id = num(s.id), name = s.name, budget_ms = num(s.budget_ms), runs = num(s.runs), last_ms = num(s.last_ms),
      warns = num(s.warns), errors = num(s.errors), n = w and defined(w.n) or 0,
      mean_ms = w and defined(w.mean), p50_ms = w and defined(w.p50), p95_ms = w and defined(w.p95),
      max_ms = w and defined(w.max), p99_ms = defined(model.system_p99(s)), budget_pct = model.budget_pct(s),
      over_budget = over, flags = flags,
    }
    if kind == "budget" then
      row.measured_p99_ms, row.result = defined(s.measured_p99_ms), s.result
    end
    rows[i], pos[row] = row, i
  end
  local key = SORTERS[sort]
  table.sort(rows, function(a, b)
    local r = key(a, b)
    if r == nil then return pos[a] < pos[b] end
    return r
  end)
  pos = nil

  local over, reasons = {}, {}
  for _, r in ipairs(rows) do
    if r.over_budget then
      over[#over + 1] = { id = r.id, name = r.name, p99_ms = r.p99_ms, budget_ms = r.budget_ms }
      reasons[#reasons + 1] = string.format("system %s over budget (p99 %s ms > %s ms)",
        tostring(r.name ~= "" and r.name or ("#" .. tostring(r.id))), number_text(r.p99_ms),
        number_text(r.budget_ms))
    end
  end
  for _, o in ipairs(over_list) do
    if not o.system then
      over[#over + 1] = pick(o, { "id", "name", "p99_ms", "budget_ms" })
      reasons[#reasons + 1] = string.format("system %s listed over budget", tostring(o.name or o.id))
    end
  end
  return rows, over, reasons
end

--- analysis.analyze(cap, params) -> result
-- cap: a laige report (vp.laige.open or vp.open). result: plain data, nil
-- where absent (an empty window, a value that is not a finite number),
-- shaped as profile_schema or budget_schema (schema_of(result)):
--   both: file, format, version, systems = [ {id, name, budget_ms, runs,
--     last_ms, warns, errors, n, mean_ms, p50_ms, p95_ms, p99_ms, max_ms,
--     budget_pct, over_budget, flags = ["OVER"|"WARN"|"ERR"|"NO_SAMPLES"]} ]
--     in params.sort order (budget reports add measured_p99_ms, result),
--     over_budget = [ {id, name, p99_ms, budget_ms} ], gate = {failed,
--     reasons = [string]}, warnings = [string];
--   profile: form, counters, tick_ms, frame_ms, world;
--   budget: overall, context, frames = {listed, total, failed}, budgets =
--     [ {name, result, metric, unit, after, before, target, stats} ],
--     failed_frames = [ {index, frame, tick, frame_ms, sim_allocs,
--     overrun_warns, critical_errors, result} ].
-- params (all optional): sort ("p99", "budget", "name" or "id"), file (the
-- name used when cap.path is unset). Raises a vp.error: EINPUT for anything
-- but a laige report, EUSAGE for a bad sort.
function analysis.analyze(cap, params)
  params = params or {}
  local kind = model.kind(cap)
  if not kind then
    E.raise("EINPUT", "vp.laige: a laige profile or budget report is needed, not %s", tostring(cap and cap.format))
  end
  local sort = params.sort or analysis.DEFAULTS.sort
  if not SORTERS[sort] then
    E.raise("EUSAGE", "vp.laige: params.sort must be one of %s, not %s", table.concat(analysis.SORTS, ", "),
      tostring(sort))
  end
  local systems, over, reasons = systems_of(cap, kind, sort)
  local warnings = {}
  for i, w in ipairs(cap.warnings) do warnings[i] = w end
  local doc = {
    file = cap.path or params.file, format = cap.format, version = cap.version, systems = systems,
    over_budget = over, warnings = warnings,
  }
  if kind == "profile" then
    doc.form = cap.form
    doc.counters = pick(cap.counters, { "ticks", "frames", "draw_calls", "texture_binds", "net_bytes" })
    doc.tick_ms, doc.frame_ms = pick(cap.tick_ms, STAT_KEYS), pick(cap.frame_ms, STAT_KEYS)
    doc.world = pick(cap.world, { "entities_alive", "entities_total", "entity_capacity", "sim_allocs", "systems" })
  else
    local head = {}
    if cap.overall == nil then
      head[1] = "the report has no overall line"
    elseif cap.overall ~= "PASS" then
      head[1] = "overall=" .. cap.overall
    end
    table.move(reasons, 1, #reasons, #head + 1, head)
    reasons = head
    doc.overall = cap.overall
    doc.context = pick(cap.context or {}, { "workload", "build", "machine", "warmup" })
    local failed = {}
    for _, f in ipairs(cap:failed_frames()) do
      failed[#failed + 1] = pick(f, { "index", "frame", "tick", "frame_ms", "sim_allocs", "overrun_warns",
        "critical_errors", "result" })
    end
    doc.failed_frames = failed
    doc.frames = { listed = #cap.frames, total = cap.frames_info and cap.frames_info.total, failed = #failed }
    local budgets = {}
    for i, b in ipairs(cap.budgets) do
      budgets[i] = pick(b, { "name", "result", "metric", "unit", "after", "before", "target" })
      budgets[i].stats = pick(b.stats, STAT_KEYS)
    end
    doc.budgets = budgets
  end
  doc.gate = { failed = #reasons > 0, reasons = reasons }
  return doc
end

return analysis
