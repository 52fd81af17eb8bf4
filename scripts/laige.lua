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
-- Definitions: laige.DEFINITIONS (printed by --help) and docs/laige.md.
--
-- JSON (one document; a missing value is null): laige.profile_schema or
-- laige.budget_schema (stdlib/vp/laige/analysis.lua)
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
--     gate = {failed, reasons}, warnings,
--     failed_frames = [ {index, frame, tick, frame_ms, sim_allocs, overrun_warns,
--                        critical_errors, result} ] }              -- index 1-based
-- The analysis is stdlib/vp/laige/analysis.lua (laige.analyze); this script
-- parses the options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local laige = require "vp.laige"

local SPEC = {
  name = "laige.lua",
  schema = "profile: " .. laige.profile_schema .. "; budget report: " .. laige.budget_schema, -- printed by --help
  formats = { "laige-profile", "laige-budget" },
  summary = "A laige engine profile or budget report: statistics, systems over budget, failed frames.",
  description = laige.DEFINITIONS,
  options = {
    { "--sort", type = "string", default = "p99", choices = laige.SORTS,
      help = "order of the systems table: p99 (descending), budget % (descending), name or id" },
    { "--gate", type = "flag", help = "exit 3 when the report fails (see --gate above)" },
  },
  positional = { { "REPORT", help = "a laige profile report (JSON or text) or budget report" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open(path, opts) -- laige reports only (SPEC.formats)
local doc = laige.analyze(cap, { sort = opts.sort, file = path })

-- Times in these reports are often microseconds: print them with the
-- engine's own precision (%.6g), grouped digits from 1000 up.
local function ms(v)
  if v == nil then return "-" end
  if math.abs(v) < 1000 then return string.format("%.6g", v) end
  return fmt.number(v, 3)
end

local function pct(v) return fmt.fixed(v, 1) end
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
if doc.format == "laige-budget" then
  system_columns[#system_columns + 1] = { key = "result", title = "result", align = "left" }
end
system_columns[#system_columns + 1] = { key = "flags", title = "flags", format = flags_text, align = "left",
  csv_value = flags_text }
local systems_section = { title = "systems (by " .. opts.sort .. ")", columns = system_columns,
  rows = doc.systems, empty = "no systems" }

local model
if doc.format == "laige-profile" then
  local c, w = doc.counters or {}, doc.world or {}
  local windows = {}
  for _, k in ipairs({ "tick_ms", "frame_ms" }) do
    local s = doc[k] or {}
    windows[#windows + 1] = { what = k, n = s.n or 0, min = s.min, mean = s.mean, p50 = s.p50,
      p95 = s.p95, p99 = s.p99, max = s.max }
  end
  local wcols = { { key = "what", title = "window (ms)", align = "left" }, { key = "n", title = "n" } }
  for _, k in ipairs({ "min", "mean", "p50", "p95", "p99", "max" }) do
    wcols[#wcols + 1] = { key = k, title = k, format = ms, align = "right" }
  end
  model = {
    title = string.format("laige profile report: %s (%s, version %s)", path, doc.form, tostring(doc.version)),
    header = {
      { "ticks", c.ticks }, { "frames", c.frames }, { "draw calls", c.draw_calls },
      { "texture binds", c.texture_binds }, { "net bytes", c.net_bytes },
      { "entities alive", w.entities_alive }, { "entities total", w.entities_total },
      { "entity capacity", w.entity_capacity }, { "sim allocs", w.sim_allocs },
      { "systems", #doc.systems }, { "over budget", #doc.over_budget },
    },
    sections = {
      { title = "tick and frame time", columns = wcols, rows = windows },
      systems_section,
    },
    csv = { columns = system_columns, rows = doc.systems },
  }
else
  local budgets = {}
  for i, b in ipairs(doc.budgets) do
    local n = b.stats and b.stats.n or 0
    if not b.stats and b.result == "NO_ENTRY" then n = nil end
    budgets[i] = { name = b.name, result = b.result, metric = b.metric, unit = b.unit,
      after = b.after, before = b.before, target = b.target, n = n }
  end
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
  local ctx = doc.context
  model = {
    title = string.format("laige budget report: %s (version %s): overall %s", path, tostring(doc.version),
      doc.overall or "missing"),
    header = {
      { "workload", ctx_text(ctx.workload) }, { "build", ctx_text(ctx.build) },
      { "machine", ctx_text(ctx.machine) }, { "warmup", ctx.warmup },
      { "frames listed", doc.frames.listed }, { "frames total", doc.frames.total },
      { "frames failed", doc.frames.failed },
    },
    sections = {
      { title = "budgets", columns = bcols, rows = budgets, empty = "no budgets" },
      systems_section,
      { title = "over budget", columns = ocols, rows = doc.over_budget, empty = "none" },
      { title = "failed frames", columns = fcols, rows = doc.failed_frames, empty = "none" },
    },
    csv = { columns = bcols, rows = budgets },
  }
end
model.json, model.schema = doc, laige.schema_of(doc)

report.emit(opts, model)
cap:close()

if opts.gate and doc.gate.failed then
  cli.fail(3, "%s: gate failed: %s", path, table.concat(doc.gate.reasons, "; "))
end
