-- vp.doc.analyses: documentation of the analysis modules behind the shipped
-- scripts (vp.hitches, vp.budget, vp.hitdiff, vp.lag, vp.events,
-- vp.movement). Each script parses its options, calls the module and
-- renders; the metric catalogue (vp.metrics) calls the same modules, so a
-- script and a metric cannot disagree. Read by vp.doc (the REPL's help() and
-- tools/gen_readme.lua).
local doc = require "vp.doc"
local fn = doc.fn

return {
  {
    class = "vp.hitches",
    title = "hitch frames and their causes (hitches.lua)",
    doc = "Frame time statistics, 1 % and 0.1 % low FPS, stutter % and the hitch frames of any capture "
      .. "with per-frame times, each with the nodes and budget groups above their own baseline "
      .. "(VProf). The definitions are hitches.lua's (see its --help).",
    members = {
      fn("analyze", "hitches.analyze(cap [, params]) -> doc, {total_ms}",
        "doc is exactly what `hitches.lua --json` prints; params: factor (2.5), window (30), "
          .. "min_excess_ms (5), threshold_ms (the absolute rule instead), causes (5)",
        'local doc = require("vp.hitches").analyze(cap, {factor = 3})\nprint(#doc.hitches, doc.stutter_pct)'),
    },
  },
  {
    class = "vp.budget",
    title = "budget-group self time (budget.lua)",
    doc = "Per budget group, self time per frame over the whole VProf capture: mean, p50, p95, p99, "
      .. "max, the frame of the max and the share of frame time.",
    members = {
      fn("analyze", "budget.analyze(cap [, {fold_hidden = true}]) -> doc, {total_ms, hidden}",
        "doc is exactly what `budget.lua --json` prints (groups sorted by mean, largest first)",
        'for _, g in ipairs(require("vp.budget").analyze(cap).groups) do print(g.group, g.p99_ms) end'),
      fn("group_stats", "budget.group_stats(series, total_ms) -> {mean_ms, p50_ms, p95_ms, p99_ms, max_ms, "
        .. "max_frame, share_pct}", "the statistics of one group's per-frame self time (the group.NAME.* metrics)",
        'local s = cap:group_self_ms()[cap:group("Physics")]\n'
          .. 'print(require("vp.budget").group_stats(s, cap:frame_times():sum()).p99_ms)'),
    },
  },
  {
    class = "vp.hitdiff",
    title = "client/server hit disagreement (hitdiff.lua)",
    doc = "The disagreement rules of a weapon trace's bullets, applied in order: no_server_data, "
      .. "no_client_data, client_only_hit, server_only_hit, entity_mismatch, outcome_mismatch, "
      .. "position_mismatch, else agree.",
    members = {
      fn("analyze", "hitdiff.analyze(cap [, {tolerance = 0.5}]) -> result",
        "counts by kind, by weapon template and by ammo type, the disagreeing traces and the terminal "
          .. "time difference (plain Lua values: nil where the JSON has null)",
        'local r = require("vp.hitdiff").analyze(cap)\nprint(r.disagree, r.rate_pct)'),
      fn("classify", "hitdiff.classify(client_hits, server_hits [, tolerance]) -> kind | nil, info",
        "the kind of one trace (nil: neither side has a hit)",
        'print(require("vp.hitdiff").classify(t:hit_list("client"), t:hit_list("server")))'),
    },
  },
  {
    class = "vp.lag",
    title = "lag measurements and spikes (lag.lua)",
    doc = "Per .dlag measurement the sample statistics, MAD and spikes (samples above p50 + k x MAD), "
      .. "the ping and loss measurements first, and the traceroute hops.",
    members = {
      fn("analyze", "lag.analyze(cap [, {k = 5}]) -> doc", "exactly what `lag.lua --json` prints",
        'for _, r in ipairs(require("vp.lag").analyze(cap).network) do print(r.name, r.p95) end'),
      fn("measurement_doc", "lag.measurement_doc(cap, measurement [, {k = 5}]) -> doc",
        "exactly what `lag.lua --measurement NAME --json` prints",
        'local doc = require("vp.lag").measurement_doc(cap, cap:measurement("Socket RTT"))'),
      fn("summary", "lag.summary(values) -> {samples, min, mean, p50, p95, p99, max}",
        "the statistics of a measurement's values (the lag.NAME.* metrics)",
        'print(require("vp.lag").summary(cap:measurement("Socket RTT"):values()).p95)'),
    },
  },
  {
    class = "vp.events",
    title = "event counts, rates and frame pacing (events.lua)",
    doc = "Per .devt group and event type the count, rate and interval percentiles, and the frame "
      .. "pacing of the Frame events (time1 read as milliseconds).",
    members = {
      fn("analyze", "events.analyze(cap) -> doc", "exactly what `events.lua --json` prints",
        'local p = require("vp.events").analyze(cap).frame_pacing\nprint(p.interval_p95_ms)'),
    },
  },
  {
    class = "vp.movement",
    title = "movement figures and corrections (movement.lua)",
    doc = "For one group bit of a .dm trace: distance, speeds, ground and air time, jumps, jetpack "
      .. "use, and corrections (position jumps velocity x dt cannot explain).",
    members = {
      fn("analyze", "movement.analyze(cap [, params]) -> doc",
        "exactly what `movement.lua --json` prints; params: bit (the one with the most groups), "
          .. "min_correction (0.5), max_gap_ms (1000), time_scale (1)",
        'local doc = require("vp.movement").analyze(cap)\nprint(doc.distance, doc.corrections.count)'),
    },
  },
}
