-- vp.doc.queries: documentation of the modules behind the query views and
-- the anchors' definitions: vp.tree (tree.lua), vp.node (node.lua) and
-- vp.anchors (CapFrameX's and Unreal's frame-pacing figures). Read by vp.doc (the REPL's help() and
-- tools/gen_docs.lua).
local doc = require "vp.doc"

local PLAIN = "The result is plain data: nil where a value is absent or undefined (never NaN, infinity or "
  .. "a JSON marker); its shape is declared in vp.json's notation. Errors are vp.error objects: EINPUT for "
  .. "a capture the analysis cannot use, EUSAGE for a bad parameter."

return doc.parse([=[
class vp.tree: the call tree and the totals by name (tree.lua)
  A VProf capture's call tree over a frame range as the engine's vprof_generate_report shows it: inclusive and
  self time, calls and share of the frame per node, siblings largest first, the nodes below a share of the
  frame folded into their parent; or the nodes that share a name totalled. One C pass (cap:totals).
  ${PLAIN}
function tree.analyze(cap [, params]) -> result
  params: first, last (the range), min_pct (0.5), sort ("time" or "engine"), depth (0 = all), by_name; shaped
  as tree.schema, or tree.names_schema with by_name
  > for _, r in ipairs(require("vp.tree").analyze(cap, {min_pct = 5}).nodes) do
  >   print(("  "):rep(r.depth - 1) .. r.name, r.ms_per_frame)
  > end
function tree.frame_range(cap, params, who) -> first, last, nframes
  params.first..params.last in the capture's frame numbers (cap.first_frame .. cap.last_frame; a capture
  opened with frames keeps the file's, and so do its Series), checked against the frames it holds (EUSAGE
  naming `who`), default all of them; nframes is 0 without frames
  > print(require("vp.tree").frame_range(cap, {first = 10}, "me"))
field schema
  the shape of analyze's tree result (vp.json notation)
field names_schema
  the shape of analyze's result with by_name
field DEFINITIONS
  every definition the analysis uses, as tree.lua's --help prints it
field DEFAULTS
  the defaults of analyze's params: min_pct, sort, depth
field SORT_NAMES
  the sibling orders: time, engine

class vp.node: one node in detail (node.lua)
  One VProf node over a frame range: the statistics of its time and self time per frame, its worst frames, its
  children's share of its time, its budget group and where it first appears, all computed in C (the node's
  columns by cap:series, its children's and group's totals by one cap:totals pass over the range).
  ${PLAIN}
function node.analyze(cap, params) -> result
  params: node (a node, id, path or pattern), lua, first, last, worst (10); shaped as node.schema; frame
  numbers are the capture's
  > local d = require("vp.node").analyze(cap, {node = "Physics_Step"})
  > print(d.time.p99_ms, d.worst[1].frame)
function node.resolve(cap, query [, {lua = true}]) -> node
  the one node a node, id, path or glob (Lua pattern with lua) names; EUSAGE listing the matches when there
  are none or several
  > print(require("vp.node").resolve(cap, "Phys*").path)
field schema
  the shape of analyze's result (vp.json notation)
field DEFINITIONS
  every definition the analysis uses, as node.lua's --help prints it
field DEFAULTS
  the defaults of analyze's params: worst

class vp.anchors: CapFrameX's and Unreal's frame-pacing definitions
  The figures of the tools people compare with, by those tools' definitions (docs/metrics.md): CapFrameX's
  stuttering, low-FPS time and x % lows (average and integral), Unreal's hitches, hitches per minute and hitch
  time. Each takes a frame-time Series (cap:frame_times() of any capture that has one); frame numbers are
  positions in it. ${PLAIN}
function anchors.capframex(ft [, {factor = 2.5, low_fps = 25, lows = {1, 0.1}}]) -> result
  stutters (frames above factor x the moving average of `window` frames), their time %, the low-FPS time % and
  the x % lows; shaped as anchors.capframex_schema
  > local c = require("vp.anchors").capframex(cap:frame_times())
  > print(c.stutter_time_pct, c.lows[1].average_fps)
function anchors.unreal(ft [, params]) -> result
  params: threshold_ms (60), dead_window_ms (200), ratio (1.5), target_ms (33.9), max_frame_ms (1000); the
  hitch frames, their count per minute and time %; shaped as anchors.unreal_schema
  > local u = require("vp.anchors").unreal(cap:frame_times(), {threshold_ms = 40})
  > print(u.hitch_count, u.hitches_per_minute)
function anchors.capframex_low(ft, pct) -> {pct, average_ms, average_fps, integral_ms, integral_fps}
  CapFrameX's pct % low: the mean of the frame times at or above the (100 - pct) % R-8 quantile, and the
  integral variant (slowest first until pct % of the time)
  > print(require("vp.anchors").capframex_low(cap:frame_times(), 1).average_fps)
function anchors.capframex_window(mean_ms) -> integer
  the moving average's length: 10 x sqrt(mean frame time), rounded half to even, at least 1
  > print(require("vp.anchors").capframex_window(16.7))  --> 41
function anchors.r8_quantile(ft, tau) -> number | nil
  the tau-quantile (0..1) by Hyndman and Fan's definition 8 (MathNet's, which CapFrameX uses); nil without
  values
  > print(require("vp.anchors").r8_quantile(vp.Series{1, 2, 3, 4}, 0.5))  --> 2.5
function anchors.hitch_list(rule, ft [, params]) -> list, figures
  list: the rule's hitch frames as {frame, frame_ms, baseline_ms} (what the frame was compared with); figures:
  anchors.capframex's or anchors.unreal's result; rule "capframex" or "unreal"
  > local list, u = require("vp.anchors").hitch_list("unreal", cap:frame_times())
  > print(#list, u.hitches_per_minute)
field capframex_schema
  the shape of capframex's result (vp.json notation)
field unreal_schema
  the shape of unreal's result
field DEFAULTS
  the default parameters of each rule: DEFAULTS.capframex, DEFAULTS.unreal
field RULES
  the rules hitch_list knows: capframex, unreal
]=], { PLAIN = PLAIN })
