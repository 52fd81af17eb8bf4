-- vp.doc.analyses: documentation of the analysis modules behind the shipped
-- scripts (vp.hitches, vp.budget, vp.top, vp.info, vp.hitdiff, vp.lag,
-- vp.events, vp.movement; vp.laige's is in vp.doc.laige). Each script
-- parses its options, calls the module and renders; the metric catalogue
-- (vp.metrics) calls the same modules, so a script and a metric cannot
-- disagree. Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

-- What every analysis module has in common, said once per class.
local PLAIN = "The result is plain data: nil where a value is absent or undefined (never NaN, infinity or "
  .. "a JSON marker); `M.schema` is its shape in vp.json's notation, so `json.encode(result, M.schema)` "
  .. "is the script's --json document. Errors are vp.error objects: EINPUT for a capture the analysis "
  .. "cannot use, EUSAGE for a bad parameter."

local SCHEMA = [=[
field schema
  the shape of analyze's result (vp.json notation): key order, null for nil, [] for an empty list are decided
  when it is printed
]=]

local function definitions(script)
  return "field DEFINITIONS\n  every definition the analysis uses, as " .. script .. "'s --help prints it\n"
end

return doc.parse([=[
class vp.hitches: hitch frames and their causes (hitches.lua)
  Frame time statistics, 1 % and 0.1 % low FPS, stutter % and the hitch frames of any capture with per-frame
  times by one of three rules (ours, CapFrameX's, Unreal's: vp.anchors), each with the nodes and budget groups
  above their own baseline (VProf). ${PLAIN}
function hitches.analyze(cap [, params]) -> result, {total_ms}
  params: rule ("median", "capframex", "unreal"), factor (2.5; median and capframex), window (30; the causes'
  under every rule), min_excess_ms (5; median), threshold_ms (median: the absolute rule instead; unreal: its
  threshold, 60), causes (5), on_progress(done, total) (called while causes are found); a parameter the rule
  does not take is EUSAGE. result.rule names the rule applied ("threshold" for the absolute one),
  result.stutter_pct is the rule's figure, result.capframex or result.unreal that rule's figures
  > local doc = require("vp.hitches").analyze(cap, {rule = "unreal"})
  > print(#doc.hitches, doc.unreal.hitches_per_minute)
${SCHEMA}

class vp.hitches.core: the hitch engine over a VProf capture, in C
  What vp.hitches calls for VProf captures (preloaded with vp: require "vp.hitches.core"): the loops over the
  frames, not the analysis; vp.hitches checks the parameters and documents the rule.
function core.detect(cap [, {factor =, window =, min_excess_ms =, threshold_ms =}]) -> list
  hitch frames by hitches.lua's rule, {frame, tick, frame_ms, baseline_ms}, from the frame times alone
  (defaults 2.5, 30, 5; threshold_ms the absolute rule instead)
  > for _, h in ipairs(require("vp.hitches.core").detect(cap)) do print(h.frame, h.frame_ms) end
function core.causes(cap, frame [, {window = 30, limit = 5}]) -> nodes, groups
  the limit largest node and group self-time excesses of a frame over their own baselines (median over the
  window frames before it): nodes {{node, self_ms, excess_ms}} and groups {{group, self_ms, excess_ms}}, by
  excess (ties by path, by group name); decodes only those frames
  > local nodes, groups = require("vp.hitches.core").causes(cap, 1200)
${DEFINITIONS hitches.lua}
field DEFAULTS
  the defaults of analyze's params: rule, factor, window, min_excess_ms, causes
field RULES
  the rules analyze takes: median, capframex, unreal

class vp.budget: budget-group self time (budget.lua)
  Per budget group, self time per frame over the whole VProf capture: mean, p50, p95, p99, max, the frame of
  the max and the share of frame time. ${PLAIN}
function budget.analyze(cap [, {fold_hidden = true}]) -> result, {total_ms, hidden}
  groups sorted by mean, largest first; hidden: the ids of hidden groups
  > for _, g in ipairs(require("vp.budget").analyze(cap).groups) do print(g.group, g.p99_ms) end
function budget.group_stats(series, total_ms) -> {mean_ms, p50_ms, p95_ms, p99_ms, max_ms, max_frame, share_pct}
  the statistics of one group's per-frame self time (the group.NAME.* metrics)
  > local s = cap:group_self_ms()[cap:group("Physics")]
  > print(require("vp.budget").group_stats(s, cap:dist("frame_ms"):sum()).p99_ms)
${SCHEMA}
${DEFINITIONS budget.lua}

class vp.top: the heaviest nodes by path (top.lua)
  One row per VProf node path over the whole capture or a frame range (one C pass, cap:totals): calls,
  time, self time and peaks per frame. ${PLAIN}
function top.analyze(cap [, params]) -> result, {node_count}
  params: sort ("time", "self", "avg", "peak", "peakavg"), limit (25; 0 = all), first, last (the frame range);
  node_count: the nodes before the limit
  > for _, r in ipairs(require("vp.top").analyze(cap, {sort = "self", limit = 5}).nodes) do
  >   print(r.path, r.self_ms_per_frame)
  > end
${SCHEMA}
${DEFINITIONS top.lua}

class vp.info: the summary of any capture (info.lua)
  The format, size, the reader's summary rows (cap:summary()) and warnings of a capture of any format.
  ${PLAIN}
function info.analyze(cap) -> result, rows
  result.summary maps each row's key (info.key of its name: snake_case, one style for every format) to its
  value; rows: the summary rows in order, named by those keys
  > local doc, rows = require("vp.info").analyze(cap)
  > for _, r in ipairs(rows) do print(r.name, r.value) end
function info.key(name) -> string
  a summary row's key: lower case, each run of characters other than letters and digits one _, none at either
  end
  > print(require("vp.info").key("trailing bytes"))  --> trailing_bytes
function info.schema_for(rows) -> schema
  info.schema with the rows' names declared in order, so a row without a value prints as null
  > print(require("vp.json").encode(doc, require("vp.info").schema_for(rows)))
${SCHEMA}

class vp.hitdiff: client/server hit disagreement (hitdiff.lua)
  The disagreement rules of a weapon trace's bullets, applied in order: no_server_data, no_client_data,
  client_only_hit, server_only_hit, entity_mismatch, outcome_mismatch, position_mismatch, else agree. ${PLAIN}
function hitdiff.analyze(cap [, {tolerance = 0.5}]) -> result
  counts by kind, by weapon template and by ammo type, the disagreeing traces and the terminal time difference
  > local r = require("vp.hitdiff").analyze(cap)
  > print(r.disagree, r.rate_pct)
function hitdiff.classify(client_hits, server_hits [, tolerance]) -> kind | nil, info
  the kind of one trace (nil: neither side has a hit); info = {client, server: each side's terminal hit, nil
  when it has none; distance: between their positions, nil unless both have one; client_guid, server_guid: the
  entity each side's character hits name, nil when none or when a side has no hits}
  > print(require("vp.hitdiff").classify(t:hit_list("client"), t:hit_list("server")))
${SCHEMA}
${DEFINITIONS hitdiff.lua}

class vp.lag: lag measurements and spikes (lag.lua)
  Per .dlag measurement the sample statistics, MAD and spikes (samples above p50 + k x MAD), the ping and loss
  measurements first, and the traceroute hops. ${PLAIN}
function lag.analyze(cap [, {k = 5}]) -> result
  every measurement, the spikes and the hops
  > for _, r in ipairs(require("vp.lag").analyze(cap).network) do print(r.name, r.p95) end
function lag.measurement_doc(cap, measurement [, {k = 5}]) -> result
  one measurement sample by sample (lag.lua --measurement NAME), shaped as lag.measurement_schema
  > local doc = require("vp.lag").measurement_doc(cap, cap:measurement("Socket RTT"))
function lag.summary(values) -> {samples, min, mean, p50, p95, p99, max}
  the statistics of a measurement's values (the lag.NAME.* metrics)
  > print(require("vp.lag").summary(cap:measurement("Socket RTT"):values()).p95)
${SCHEMA}
field measurement_schema
  the shape of measurement_doc's result
${DEFINITIONS lag.lua}

class vp.events: event counts, rates and frame pacing (events.lua)
  Per .devt group and event type the count, rate and interval percentiles, and the frame pacing of the Frame
  events (time1 read as milliseconds). ${PLAIN}
function events.analyze(cap) -> result
  frame_pacing is nil with fewer than two Frame events
  > local p = require("vp.events").analyze(cap).frame_pacing
  > print(p and p.interval_p95_ms)
${SCHEMA}
${DEFINITIONS events.lua}

class vp.movement: movement figures and corrections (movement.lua)
  For one group bit of a .dm trace: distance, speeds, ground and air time, jumps, jetpack use, and corrections
  (position jumps velocity x dt cannot explain). ${PLAIN}
function movement.analyze(cap [, params]) -> result
  params: bit (the one with the most groups), min_correction (0.5), max_gap_ms (1000), time_scale (1); a bit
  no record has is EUSAGE
  > local doc = require("vp.movement").analyze(cap)
  > print(doc.distance, doc.corrections.count)
${SCHEMA}
${DEFINITIONS movement.lua}
]=], { PLAIN = PLAIN, SCHEMA = SCHEMA, DEFINITIONS = definitions })
