-- vp.doc.laige: documentation of vp.laige and its two report models (the
-- laige engine's profile report and budget report). Read by vp.doc (the
-- REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

-- A window's statistics, as every window of both reports gives them.
local STATS = "{n, min, mean, p50, p95, p99, max} (ms; nearest-rank percentiles) "
  .. "or nil when the window is empty"

return doc.parse([=[
class vp.laige: laige report reader (module vp.laige)
  Reads the laige engine's reports in Lua (they are text): vp.open dispatches the formats "laige-profile" and
  "laige-budget" here. Both models are Lua tables with a metatable; an empty window is nil, `nan`/`inf` in
  text are numbers, unknown keys and lines go to `extra` with a warning. The work is split by job:
  vp.laige.read (what both parsers share), vp.laige.text and vp.laige.json (the parsers), vp.laige.model (the
  classes and the over-budget rule), vp.laige.metrics and vp.laige.analysis (laige.lua's analysis); this
  module gathers them.
function laige.open(path [, opts [, format]]) -> cap | nil, message, code
  read a profile report (JSON or text) or a budget report, or nil, the message and the code; format
  "laige-profile" or "laige-budget" (nil: from the content, by vp.detect); errors name the line (text) or the
  byte (JSON): "<path>: line N: ..." / "<path>: at byte N (line L, column C): ...", codes ENOENT, EISDIR,
  EEMPTY, EFORMAT, ETRUNC, EVERSION
  > local laige = require "vp.laige"
  > local cap = assert(laige.open("examples/laige/profile.json"))
  > print(cap.tick_ms.p99)
function laige.metrics(cap) -> {name = number}
  the report's values under the metric catalogue's names: tick_ms.* and frame_ms.* (n, min, mean, p50, p95,
  p99, max), counters.*, world.*, system.NAME.{p99_ms, p50_ms, p95_ms, mean_ms, max_ms, budget_ms, budget_pct,
  last_ms, runs, warns, errors}, systems.count, systems.over_budget; budget reports: budget.NAME.{after,
  before, target, pass}, overall (1 PASS, 0 otherwise), frames.{listed, failed, total}, frame_ms.* over the
  frame lines. A value the report lacks (empty window, NaN, an infinity) is absent; systems.over_budget counts
  laige.over_budget; also cap:metrics()
  > for k, v in pairs(laige.metrics(cap)) do print(k, v) end
function laige.kind(x) -> "profile" | "budget" | nil
  which laige model x is (nil for anything else)
  > if laige.kind(cap) == "budget" then print(cap.overall) end
function laige.budget_pct(system) -> number | nil
  100 x the system's p99 (laige.system_p99) / budget_ms; nil when either is missing or the budget is 0
  (undefined, never infinity)
  > for _, s in ipairs(cap.systems) do print(s.name, laige.budget_pct(s)) end
function laige.system_p99(system) -> number | nil
  the p99 a system is judged by: its window's, or measured_p99_ms (budget report) when the window is empty;
  nil when there is none or it is NaN
  > print(laige.system_p99(cap.systems[1]))
function laige.system_over(system) -> boolean
  the engine's rule for one system: its p99 (laige.system_p99) > budget_ms
  > for _, s in ipairs(cap.systems) do if laige.system_over(s) then print(s.name) end end
function laige.over_budget(cap) -> {{id, name, p99_ms, budget_ms, system}, ...}
  the systems over budget, the one definition laige.lua, its gate, cap:summary() and the systems.over_budget
  metric use: laige.system_over, or listed under the report's over_budget, or result FAIL; then listed entries
  without a system line (system nil)
  > for _, o in ipairs(laige.over_budget(cap)) do print(o.name, o.p99_ms, o.budget_ms) end
function laige.analyze(cap [, {sort = "p99"}]) -> result
  laige.lua's analysis as plain data (nil where absent): the systems with budget %, flags and over_budget in
  the sort order (p99, budget, name, id), the over-budget list, failed frames and budgets (budget report) and
  the gate {failed, reasons}; shaped as laige.schema_of(result) (laige.profile_schema or laige.budget_schema)
  > local doc = laige.analyze(cap, {sort = "budget"})
  > print(doc.gate.failed, #doc.over_budget)
function laige.schema_of(result) -> schema
  the shape of an analyze result (vp.json notation): laige.profile_schema or laige.budget_schema, by the
  result's format
  > print(require("vp.json").encode(doc, laige.schema_of(doc)))
field KNOWN_VERSION
  the report version this reader implements (1); newer versions are read as far as they are understood, with a
  warning
field RESULTS
  {"PASS", "FAIL", "NO_SAMPLES", "NO_ENTRY"}

class vp.laige-profile: laige profile report (format "laige-profile", JSON or text)
  One model for both forms: the same report in JSON and in text gives equal tables. The JSON keys
  tick_time_ms, frame_time_ms and window_ms are tick_ms, frame_ms and window here. Counts are integers, times
  floats, in both forms.
field format
  "laige-profile"
field form
  "json" or "text": the form the file was in
field path
  the path given to open
field size
  file size in bytes
field warnings
  list of warning strings (unknown keys, missing fields, a newer version ...); at most 200
field version
  the report's version number
field counters
  {ticks, frames, draw_calls, texture_binds, net_bytes} (since-construction counts), nil when the report has
  none
  > print(cap.counters.ticks)
field tick_ms
  tick time window: ${STATS}
  > if cap.tick_ms then print(cap.tick_ms.p99) end
field frame_ms
  frame time window: ${STATS}
field world
  {entities_alive, entities_total, entity_capacity, sim_allocs, systems}
field systems
  list of {id, name, budget_ms, runs, last_ms, warns, errors, window = ${STATS}} in report order
  > for _, s in ipairs(cap.systems) do print(s.name, s.window and s.window.p99) end
field extra
  what the reader did not know: unknown top-level keys or "name:" sections by name, unknown lines in the list
  part; sub-tables (counters, systems[i], windows) get their own `extra` only when they had unknown keys
field frame_count
  0: a profile report has windows, not frames
method cap:frame_times() -> nil
  nil: a profile report has no per-frame data (generic scripts say so)
method cap:summary() -> {{name =, value =}, ...}
  rows for info.lua: version, ticks, frames, tick and frame p50/p99, systems, systems over budget
  (laige.over_budget)
  > for _, r in ipairs(cap:summary()) do print(r.name, r.value) end
method cap:metrics() -> {name = number}
  laige.metrics(cap)
method cap:close()
  mark the capture closed (also __close); methods then raise "capture is closed"
operator __tostring tostring(cap)
  one line: <laige-profile PATH: N ticks, N frames, N systems>

class vp.laige-budget: laige budget report (format "laige-budget")
  The engine's --budget-report: per-frame lines, the declared budgets, the systems against their budgets, the
  over-budget list and the overall result. Results are PASS, FAIL, NO_SAMPLES, NO_ENTRY.
field format
  "laige-budget"
field path
  the path given to open
field size
  file size in bytes
field warnings
  list of warning strings
field version
  the report's version number
field context
  {workload, build, machine, warmup} (strings may be "")
field frames_info
  {n, total}: frame lines the engine wrote, frames run
field frames cap.frames[i] | cap:frames([i [, j]]) -> iterator
  list of {frame, ticks, tick_after, frame_ms, sim_allocs, overrun_warns, critical_errors, result}; also
  callable as an iterator of frame views (i..j, 1-based)
  > for f in cap:frames() do print(f.index, f.frame_ms, f.result) end
field frame_count
  number of frame lines (#cap.frames)
method cap:frame(i) -> {index, tick, frame, ticks, tick_after, frame_ms, ...}
  frame line i (1-based) with tick = tick_after; raises "frame i is out of range 1..n" when it is
  > print(cap:frame(1).frame_ms)
method cap:frame_times() -> Series
  the frame lines' frame_ms as a vp.Series (hitches.lua reads it)
  > print(cap:frame_times():percentile(99))
method cap:failed_frames() -> {frame view, ...}
  the frame lines whose result is not PASS
field budgets
  list of {name, result, metric, unit, after, before, target, stats = ${STATS}, context}; a NO_ENTRY budget
  has only name and result
  > for _, b in ipairs(cap.budgets) do print(b.name, b.result, b.after, b.target) end
field systems
  list of {id, name, budget_ms, runs, last_ms, measured_p99_ms, result, warns, errors, window}
field over_budget
  list of {id, name, p99_ms, budget_ms}; empty for `over_budget: none`
field overall
  "PASS" or "FAIL"; nil when the report has no overall line (a warning says it may be cut short)
field extra
  unknown sections by name and unknown lines (list part)
method cap:summary() -> {{name =, value =}, ...}
  rows for info.lua (systems over budget: laige.over_budget)
method cap:metrics() -> {name = number}
  laige.metrics(cap)
method cap:close()
  mark the capture closed (also __close); methods then raise "capture is closed"
operator __tostring tostring(cap)
  one line: <laige-budget PATH: N frames, N budgets, N over budget, overall R> (over budget:
  laige.over_budget)
]=], { STATS = STATS })
