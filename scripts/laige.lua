-- laige.lua: laige engine profile and budget reports: statistics, systems over budget, failed frames, a gate
--
-- usage: vpscript laige.lua [options] REPORT...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --sort p99|budget|name|id   order of the systems table (default p99)
--   --gate                      exit 3 when the report says overall=FAIL, a
--                               system is over its budget, or a budget report
--                               has no overall line
--   --json, --csv, --help
--
-- Definitions: see DESCRIPTION below (printed by --help) and docs/laige.md.
--
-- JSON (one document; a missing value is null):
--   profile report:
--   { file, format = "laige-profile", form = "json"|"text", version,
--     counters = {ticks, frames, draw_calls, texture_binds, net_bytes},
--     tick_ms = {n, min, mean, p50, p95, p99, max} | null,   -- null: empty window
--     frame_ms = {...} | null,
--     world = {entities_alive, entities_total, entity_capacity, sim_allocs, systems},
--     systems = [ {id, name, budget_ms, runs, last_ms, warns, errors,
--                  n, mean_ms, p50_ms, p95_ms, p99_ms, max_ms, budget_pct,
--                  over_budget, flags = ["OVER"|"WARN"|"ERR"|"NO_SAMPLES"]} ],  -- --sort order
--     over_budget = [ {id, name, p99_ms, budget_ms} ],
--     gate = {failed, reasons = [string]}, warnings = [string] }
--   budget report:
--   { file, format = "laige-budget", version, overall,          -- overall null when missing
--     context = {workload, build, machine, warmup},
--     frames = {listed, total, failed},
--     budgets = [ {name, result, metric, unit, after, before, target,
--                  stats = {n, min, mean, p50, p95, p99, max} | null} ],   -- report order
--     systems = [ ...as above, plus measured_p99_ms, result ],
--     over_budget = [ {id, name, p99_ms, budget_ms} ],  -- OVER systems + the report's list
--     failed_frames = [ {index, frame, tick, frame_ms, sim_allocs, overrun_warns,
--                        critical_errors, result} ],                -- index 1-based
--     gate = {failed, reasons}, warnings }
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local laige = require "vp.laige"

local DESCRIPTION = [[
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
                  (n=0 in text, null in JSON) prints "-" and is null in JSON.
  budget %        100 x the system window's p99 / its declared budget_ms
                  (inf when the budget is 0 and the p99 is above 0).
  OVER            over budget: the window's p99 > budget_ms (the engine's
                  own rule; a budget of 0 counts as a budget of 0 ms).
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

local SPEC = {
  name = "laige.lua",
  summary = "A laige engine profile or budget report: statistics, systems over budget, failed frames.",
  description = DESCRIPTION,
  options = {
    { "--sort", type = "string", default = "p99", choices = { "p99", "budget", "name", "id" },
      help = "order of the systems table: p99 (descending), budget % (descending), name or id" },
    { "--gate", type = "flag", help = "exit 3 when the report fails (see --gate above)" },
  },
  positional = { { "REPORT", help = "a laige profile report (JSON or text) or budget report" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
-- laige.open reads only laige reports and says so for anything else.
local cap, err = laige.open(path)
if not cap then cli.fail(2, "%s", err) end
for _, w in ipairs(cap.warnings) do
  io.stderr:write("vpscript: warning: ", path, ": ", w, "\n")
end
local kind = laige.kind(cap)

local null = cli.null

local function orn(v)
  if v == nil then return null end
  return v
end

-- Times in these reports are often microseconds: print them with the
-- engine's own precision (%.6g), grouped digits from 1000 up.
local function ms(v)
  if v == nil or v ~= v then return "-" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if math.abs(v) < 1000 then return string.format("%.6g", v) end
  return fmt.number(v, 3)
end

local function pct(v)
  if v == nil or v ~= v then return "-" end
  if v == math.huge then return "inf" end
  return fmt.fixed(v, 1)
end

local function stats_json(s)
  if not s then return null end
  return { n = s.n, min = s.min, mean = s.mean, p50 = s.p50, p95 = s.p95, p99 = s.p99, max = s.max }
end

-- Systems -------------------------------------------------------------------------

local over_listed = {}
for _, o in ipairs(cap.over_budget or {}) do
  if o.id ~= nil then over_listed[o.id] = true end
end

local systems = {}
for _, s in ipairs(cap.systems) do
  local w = s.window
  local row = {
    id = s.id, name = s.name, budget_ms = s.budget_ms, runs = s.runs, last_ms = s.last_ms,
    warns = s.warns, errors = s.errors, result = s.result, measured_p99_ms = s.measured_p99_ms,
    n = w and w.n or 0, mean_ms = w and w.mean, p50_ms = w and w.p50, p95_ms = w and w.p95,
    p99_ms = w and w.p99 or s.measured_p99_ms, max_ms = w and w.max,
    budget_pct = laige.budget_pct(s),
  }
  if row.p99_ms ~= nil and row.p99_ms ~= row.p99_ms then row.p99_ms = nil end
  row.over_budget = laige.system_over(s) or (s.id ~= nil and over_listed[s.id] == true)
    or s.result == "FAIL"
  local flags = {}
  if row.over_budget then flags[#flags + 1] = "OVER" end
  if (s.warns or 0) > 0 then flags[#flags + 1] = "WARN" end
  if (s.errors or 0) > 0 then flags[#flags + 1] = "ERR" end
  if not w then flags[#flags + 1] = "NO_SAMPLES" end
  row.flags = flags
  systems[#systems + 1] = row
end

local function desc_nil_last(a, b)
  -- true when a sorts before b: larger first, nil last; nil == nil -> nil
  if a == b then return nil end
  if a == nil then return false end
  if b == nil then return true end
  return a > b
end

local sorters = {
  p99 = function(a, b) return desc_nil_last(a.p99_ms, b.p99_ms) end,
  budget = function(a, b) return desc_nil_last(a.budget_pct, b.budget_pct) end,
  name = function(a, b)
    if a.name == b.name then return nil end
    return tostring(a.name) < tostring(b.name)
  end,
  id = function() return nil end,
}
do
  local key = sorters[opts.sort]
  for i, r in ipairs(systems) do r._pos = i end
  table.sort(systems, function(a, b)
    local r = key(a, b)
    if r == nil then return a._pos < b._pos end
    return r
  end)
  for _, r in ipairs(systems) do r._pos = nil end
end

local over = {}
for _, r in ipairs(systems) do
  if r.over_budget then
    over[#over + 1] = { id = r.id, name = r.name, p99_ms = r.p99_ms, budget_ms = r.budget_ms }
  end
end

local function systems_json()
  local out = cli.array()
  for _, r in ipairs(systems) do
    local t = {
      id = orn(r.id), name = orn(r.name), budget_ms = orn(r.budget_ms), runs = orn(r.runs),
      last_ms = orn(r.last_ms), warns = orn(r.warns), errors = orn(r.errors),
      n = r.n, mean_ms = orn(r.mean_ms), p50_ms = orn(r.p50_ms), p95_ms = orn(r.p95_ms),
      p99_ms = orn(r.p99_ms), max_ms = orn(r.max_ms), budget_pct = orn(r.budget_pct),
      over_budget = r.over_budget, flags = cli.array(r.flags),
    }
    if kind == "budget" then
      t.measured_p99_ms = orn(r.measured_p99_ms)
      t.result = orn(r.result)
    end
    out[#out + 1] = t
  end
  return out
end

local function flags_text(v) return table.concat(v, " ") end

local system_columns = {
  { key = "id", title = "id" },
  { key = "name", title = "system", align = "left" },
  { key = "budget_ms", title = "budget ms", format = ms, align = "right" },
  { key = "n", title = "n" },
  { key = "p50_ms", title = "p50", format = ms, align = "right" },
  { key = "p99_ms", title = "p99", format = ms, align = "right" },
  { key = "max_ms", title = "max", format = ms, align = "right" },
  { key = "budget_pct", title = "budget %", format = pct, align = "right" },
  { key = "runs", title = "runs" },
  { key = "warns", title = "warns" },
  { key = "errors", title = "errors" },
}
if kind == "budget" then
  system_columns[#system_columns + 1] = { key = "result", title = "result", align = "left" }
end
system_columns[#system_columns + 1] = { key = "flags", title = "flags", format = flags_text, align = "left",
  csv_value = flags_text }

-- Gate ---------------------------------------------------------------------------

local reasons = {}
if kind == "budget" then
  if cap.overall == nil then
    reasons[#reasons + 1] = "the report has no overall line"
  elseif cap.overall ~= "PASS" then
    reasons[#reasons + 1] = "overall=" .. cap.overall
  end
end
for _, o in ipairs(over) do
  reasons[#reasons + 1] = string.format("system %s over budget (p99 %s ms > %s ms)",
    tostring(o.name ~= "" and o.name or ("#" .. tostring(o.id))), ms(o.p99_ms), ms(o.budget_ms))
end
-- A listed over_budget entry without a system line still counts.
local listed_system = {}
for _, r in ipairs(systems) do
  if r.id ~= nil then listed_system[r.id] = true end
end
for _, o in ipairs(cap.over_budget or {}) do
  if o.id == nil or not listed_system[o.id] then
    over[#over + 1] = { id = o.id, name = o.name, p99_ms = o.p99_ms, budget_ms = o.budget_ms }
    reasons[#reasons + 1] = string.format("system %s listed over budget", tostring(o.name or o.id))
  end
end

local over_json = cli.array()
for _, o in ipairs(over) do
  over_json[#over_json + 1] = { id = orn(o.id), name = orn(o.name), p99_ms = orn(o.p99_ms),
    budget_ms = orn(o.budget_ms) }
end

local gate = { failed = #reasons > 0, reasons = cli.array(reasons) }
local warnings = cli.array({ table.unpack(cap.warnings) })

-- Output ---------------------------------------------------------------------------

local model
if kind == "profile" then
  local c, w = cap.counters or {}, cap.world or {}
  local function nullable(t, keys)
    if not t then return null end
    local out = {}
    for _, k in ipairs(keys) do out[k] = orn(t[k]) end
    return out
  end
  local doc = {
    file = path, format = cap.format, form = cap.form, version = cap.version,
    counters = nullable(cap.counters, { "ticks", "frames", "draw_calls", "texture_binds", "net_bytes" }),
    tick_ms = stats_json(cap.tick_ms), frame_ms = stats_json(cap.frame_ms),
    world = nullable(cap.world, { "entities_alive", "entities_total", "entity_capacity", "sim_allocs",
      "systems" }),
    systems = systems_json(), over_budget = over_json, gate = gate, warnings = warnings,
  }
  local windows = {}
  for _, k in ipairs({ "tick_ms", "frame_ms" }) do
    local s = cap[k] or {}
    windows[#windows + 1] = { what = k, n = s.n or 0, min = s.min, mean = s.mean, p50 = s.p50,
      p95 = s.p95, p99 = s.p99, max = s.max }
  end
  local wcols = { { key = "what", title = "window (ms)", align = "left" }, { key = "n", title = "n" } }
  for _, k in ipairs({ "min", "mean", "p50", "p95", "p99", "max" }) do
    wcols[#wcols + 1] = { key = k, title = k, format = ms, align = "right" }
  end
  model = {
    json = doc,
    title = string.format("laige profile report: %s (%s, version %s)", path, cap.form, tostring(cap.version)),
    header = {
      { "ticks", c.ticks }, { "frames", c.frames }, { "draw calls", c.draw_calls },
      { "texture binds", c.texture_binds }, { "net bytes", c.net_bytes },
      { "entities alive", w.entities_alive }, { "entities total", w.entities_total },
      { "entity capacity", w.entity_capacity }, { "sim allocs", w.sim_allocs },
      { "systems", #systems }, { "over budget", #over },
    },
    sections = {
      { title = "tick and frame time", columns = wcols, rows = windows },
      { title = "systems (by " .. opts.sort .. ")", columns = system_columns, rows = systems,
        empty = "no systems" },
    },
    csv = { columns = system_columns, rows = systems },
  }
else
  local ctx = cap.context or {}
  local failed_frames, ff_json = cap:failed_frames(), cli.array()
  for _, f in ipairs(failed_frames) do
    ff_json[#ff_json + 1] = { index = f.index, frame = orn(f.frame), tick = orn(f.tick),
      frame_ms = orn(f.frame_ms), sim_allocs = orn(f.sim_allocs), overrun_warns = orn(f.overrun_warns),
      critical_errors = orn(f.critical_errors), result = orn(f.result) }
  end
  local budgets, b_json = {}, cli.array()
  for _, b in ipairs(cap.budgets) do
    local s = b.stats
    local n = s and s.n or 0
    if not s and b.result == "NO_ENTRY" then n = nil end
    budgets[#budgets + 1] = { name = b.name, result = b.result, metric = b.metric, unit = b.unit,
      after = b.after, before = b.before, target = b.target, n = n, p99 = s and s.p99 }
    b_json[#b_json + 1] = { name = orn(b.name), result = orn(b.result), metric = orn(b.metric),
      unit = orn(b.unit), after = orn(b.after), before = orn(b.before), target = orn(b.target),
      stats = stats_json(s) }
  end
  local doc = {
    file = path, format = cap.format, version = cap.version, overall = orn(cap.overall),
    context = { workload = orn(ctx.workload), build = orn(ctx.build), machine = orn(ctx.machine),
      warmup = orn(ctx.warmup) },
    frames = { listed = #cap.frames, total = orn(cap.frames_info and cap.frames_info.total),
      failed = #failed_frames },
    budgets = b_json, systems = systems_json(), over_budget = over_json, failed_frames = ff_json,
    gate = gate, warnings = warnings,
  }
  local function val(v) return type(v) == "number" and ms(v) or fmt.value(v) end
  local bcols = {
    { key = "name", title = "budget", align = "left" },
    { key = "result", title = "result", align = "left" },
    { key = "metric", title = "metric", align = "left" },
    { key = "after", title = "after", format = val, align = "right" },
    { key = "target", title = "target", format = val, align = "right" },
    { key = "before", title = "before", format = val, align = "right" },
    { key = "unit", title = "unit", align = "left" },
    { key = "n", title = "n" },
  }
  local fcols = {
    { key = "index", title = "#" }, { key = "frame", title = "frame" },
    { key = "tick", title = "tick" },
    { key = "frame_ms", title = "frame ms", format = ms, align = "right" },
    { key = "sim_allocs", title = "sim allocs" }, { key = "overrun_warns", title = "overrun warns" },
    { key = "critical_errors", title = "critical errors" },
    { key = "result", title = "result", align = "left" },
  }
  local ocols = {
    { key = "id", title = "id" }, { key = "name", title = "system", align = "left" },
    { key = "p99_ms", title = "p99 ms", format = ms, align = "right" },
    { key = "budget_ms", title = "budget ms", format = ms, align = "right" },
  }
  local function ctx_text(v)
    if v == nil then return "-" end
    if v == "" then return "(empty)" end
    return tostring(v)
  end
  model = {
    json = doc,
    title = string.format("laige budget report: %s (version %s): overall %s", path, tostring(cap.version),
      cap.overall or "missing"),
    header = {
      { "workload", ctx_text(ctx.workload) }, { "build", ctx_text(ctx.build) },
      { "machine", ctx_text(ctx.machine) }, { "warmup", ctx.warmup },
      { "frames listed", #cap.frames },
      { "frames total", cap.frames_info and cap.frames_info.total },
      { "frames failed", #failed_frames },
    },
    sections = {
      { title = "budgets", columns = bcols, rows = budgets, empty = "no budgets" },
      { title = "systems (by " .. opts.sort .. ")", columns = system_columns, rows = systems,
        empty = "no systems" },
      { title = "over budget", columns = ocols, rows = over, empty = "none" },
      { title = "failed frames", columns = fcols, rows = failed_frames, empty = "none" },
    },
    csv = { columns = bcols, rows = budgets },
  }
end

report.emit(opts, model)
cap:close()

if opts.gate and gate.failed then
  cli.fail(3, "%s: gate failed: %s", path, table.concat(reasons, "; "))
end
