-- vp.metrics: the metric catalogue shared by compare.lua and check.lua.
--
--   local metrics = require "vp.metrics"
--   local values, problems = metrics.compute(cap, {"frame_ms.p99", "group.Physics.mean_ms"})
--   local s = metrics.distribution(cap, "group.Physics.mean_ms")  -- per-frame Series
--   for _, e in ipairs(metrics.list()) do print(e.name, e.unit, e.polarity) end
--
-- Every metric has a name (fixed, like `frame_ms.p99`, or a pattern, like
-- `group.NAME.mean_ms` where NAME is a budget group's name and may contain
-- spaces, slashes or dots), a unit, a polarity ("lower" or "higher" is
-- better, or "none" for figures that are neither, like a frame count), a
-- definition, the formats it applies to, and, where one exists, the
-- per-frame (or per-sample) distribution it summarises, which compare.lua
-- and check.lua test for significance (vp.mwu).
--
-- Work is done only for the names asked: a frame-time metric reads the
-- frame-time Series the reader built at open; group metrics read the
-- per-group self-time Series (also built at open); node metrics make one C
-- pass for all nodes (cap:node_stats), and their percentiles one more C pass
-- for all the nodes metrics.compute is asked about together (cap:series
-- with a list of nodes). Nothing iterates frames x nodes in Lua.
--
-- Where a shipped script computes the same figure, the catalogue calls the
-- script's analysis module in-process, so a metric and the script cannot
-- disagree: hitches, stutter_pct from vp.hitches; hitdiff.* from vp.hitdiff;
-- events.* from vp.events; movement.* from vp.movement (each analyze(cap),
-- run once per capture, with the script's default options); group.NAME.*
-- from vp.budget.group_stats; lag.NAME.* from vp.lag.summary. No child
-- process is ever started.
local stats = require "vp.stats"
local cli = require "vp.cli"

local metrics = {}

-- Formats ------------------------------------------------------------------------

local VPROF = { "vprof" }
local FRAMES = { "vprof", "laige-budget" }              -- per-frame frame times
local FRAME_STATS = { "vprof", "laige-profile", "laige-budget" }
local PROFILE = { "laige-profile" }
local BUDGET = { "laige-budget" }
local LAIGE = { "laige-profile", "laige-budget" }
local DW = { "dw" }
local DEVT = { "devt" }
local DLAG = { "dlag" }
local DM = { "dm" }

-- Context: one per capture, caching what several metrics share --------------------

local contexts = setmetatable({}, { __mode = "k" })

local function ctx_of(cap)
  local c = contexts[cap]
  if not c then
    c = { cap = cap, format = cap.format }
    contexts[cap] = c
  end
  return c
end

local function frame_times(ctx)
  if ctx.ft == nil then
    local ok, s = pcall(function() return ctx.cap:frame_times() end)
    ctx.ft = ok and s or false
  end
  return ctx.ft or nil
end

local function laige_values(ctx)
  if not ctx.laige then
    local laige = require "vp.laige"
    ctx.laige = laige.metrics(ctx.cap)
  end
  return ctx.laige
end

-- vprof: groups by name -> {group =, series =}
local function vprof_groups(ctx)
  if not ctx.groups then
    local by_name, order = {}, {}
    for g, s in pairs(ctx.cap:group_self_ms()) do
      if not by_name[g.name] then
        by_name[g.name] = { group = g, series = s }
        order[#order + 1] = g
      end
    end
    table.sort(order, function(a, b) return a.id < b.id end)
    local names = {}
    for i, g in ipairs(order) do names[i] = g.name end
    ctx.groups, ctx.group_names = by_name, names
  end
  return ctx.groups
end

-- vprof: per-node totals (one C pass), by path; the root is left out (its
-- children carry the frame time, see frame_ms.*).
local function vprof_nodes(ctx)
  if not ctx.nodes then
    local by_path, order = {}, {}
    for _, r in ipairs(ctx.cap:node_stats()) do
      if r.node.parent ~= nil then
        by_path[r.node.path] = r
        order[#order + 1] = r.node.path
      end
    end
    ctx.nodes, ctx.node_paths = by_path, order
  end
  return ctx.nodes
end

local function vprof_node(ctx, path)
  local nodes = vprof_nodes(ctx)
  local r = nodes[path]
  if r then return r end
  local node = ctx.cap:node(path) -- relative paths ("CEngine::Frame/...") too
  if node and node.parent ~= nil then return nodes[node.path] end
  return nil
end

-- Per-frame Series of a node's field, by field and full path.
local function node_series(ctx, path, field)
  ctx.node_series = ctx.node_series or {}
  local r = vprof_node(ctx, path)
  if not r then return nil end
  local key = field .. "\0" .. r.node.path
  local s = ctx.node_series[key]
  if not s then
    s = ctx.cap:series(r.node, field)
    ctx.node_series[key] = s
  end
  return s
end

-- The node Series the series-pass metrics in `entries` ({param, field}) need, from one C
-- pass per field (cap:series with a list of nodes) instead of one per node.
-- Unknown nodes are left for metrics.value to report.
local function prefetch_node_series(ctx, entries)
  ctx.node_series = ctx.node_series or {}
  local want, fields = {}, {}
  for _, x in ipairs(entries) do
    local r = vprof_node(ctx, x.param)
    local key = r and (x.field .. "\0" .. r.node.path)
    if key and not ctx.node_series[key] and not want[key] then
      want[key] = true
      local list = fields[x.field]
      if not list then
        list = {}
        fields[x.field] = list
        fields[#fields + 1] = x.field
      end
      list[#list + 1] = r
    end
  end
  for _, field in ipairs(fields) do
    local list, nodes = fields[field], {}
    for i, r in ipairs(list) do nodes[i] = r.node end
    local series = ctx.cap:series(nodes, field)
    for i, r in ipairs(list) do ctx.node_series[field .. "\0" .. r.node.path] = series[i] end
  end
end

-- dlag: measurements by name ("NAME#2" for a repeated name) -> measurement
local function lag_measurements(ctx)
  if not ctx.lag then
    local by_name, order, seen = {}, {}, {}
    for m in ctx.cap:measurements() do
      local name = tostring(m.name)
      seen[name] = (seen[name] or 0) + 1
      if seen[name] > 1 then name = name .. "#" .. seen[name] end
      by_name[name] = m
      order[#order + 1] = name
    end
    ctx.lag, ctx.lag_names = by_name, order
  end
  return ctx.lag
end

local function lag_values(ctx, name)
  ctx.lag_values = ctx.lag_values or {}
  local v = ctx.lag_values[name]
  if v == nil then
    local m = lag_measurements(ctx)[name]
    v = m and m:values() or false
    ctx.lag_values[name] = v
  end
  return v or nil
end

-- dlag: the statistics of a measurement's samples (vp.lag.summary, as lag.lua)
local function lag_summary(ctx, name)
  ctx.lag_summary = ctx.lag_summary or {}
  local s = ctx.lag_summary[name]
  if s == nil then
    local v = lag_values(ctx, name)
    s = v and require("vp.lag").summary(v) or false
    ctx.lag_summary[name] = s
  end
  return s or nil
end

-- Script analyses ------------------------------------------------------------------

-- The analysis module of each shipped script whose figures are metrics.
local ANALYSES = { hitches = "vp.hitches", hitdiff = "vp.hitdiff", events = "vp.events", movement = "vp.movement" }

--- metrics.script_document(cap, name) -> the result of the shipped
-- analysis `name` ("hitches", "hitdiff", "events", "movement") for this
-- capture with the script's default options: its module's analyze(cap),
-- run in-process once per capture (for hitches, events and movement the
-- script's --json document), or nil, message.
function metrics.script_document(cap, name)
  local ctx = ctx_of(cap)
  ctx.docs = ctx.docs or {}
  local d = ctx.docs[name]
  if d == nil then
    local module = ANALYSES[name]
    if not module then return nil, "no analysis named '" .. tostring(name) .. "'" end
    local ok, doc = pcall(function() return require(module).analyze(cap) end)
    d = ok and { doc = doc } or { err = tostring(cli.is_exit(doc) and doc.message or doc) }
    ctx.docs[name] = d
  end
  if d.err then return nil, d.err end
  return d.doc
end

local function doc_field(ctx, name, key)
  local doc, err = metrics.script_document(ctx.cap, name)
  if not doc then return nil, err end
  local v = doc[key]
  if v == cli.null then v = nil end
  return v
end

local function number_or_nil(v)
  if type(v) == "number" and v == v then return v end
  return nil
end

-- Catalogue --------------------------------------------------------------------------
-- Entry fields: name, unit, polarity (string or function(param) -> string),
-- formats, doc; for patterns: match (Lua pattern capturing the NAME part),
-- kind (what NAME names), names (function(ctx) -> list of NAME values);
-- get(ctx, param) -> value | nil, why; dist(ctx, param) -> Series | nil;
-- per = the metric a total is divided by when two captures differ in it.

local CATALOGUE = {}

local function add(e)
  CATALOGUE[#CATALOGUE + 1] = e
  return e
end

local function series_stat(s, stat)
  if not s or #s == 0 then return nil, "no frames" end
  if stat == "mean" then return s:mean() end
  if stat == "max" then return s:max() end
  if stat == "min" then return s:min() end
  return s:percentile(tonumber((stat:gsub("^p", ""))))
end

-- frames and frame times --------------------------------------------------------------

add {
  name = "frames", unit = "frames", polarity = "none", formats = FRAME_STATS,
  doc = "number of frames: VProf frames in the capture; a budget report's per-frame lines; "
    .. "a profile report's frame counter (counters.frames)",
  get = function(ctx)
    if ctx.format == "laige-profile" then return laige_values(ctx)["counters.frames"] end
    local s = frame_times(ctx)
    return s and #s or nil
  end,
}

local FRAME_STAT_DOC = {
  mean = "mean frame time",
  p50 = "median frame time (nearest-rank p50)",
  p95 = "95th percentile frame time (nearest rank)",
  p99 = "99th percentile frame time (nearest rank)",
  max = "longest frame",
}
for _, stat in ipairs({ "mean", "p50", "p95", "p99", "max" }) do
  add {
    name = "frame_ms." .. stat, unit = "ms", polarity = "lower", formats = FRAME_STATS,
    doc = FRAME_STAT_DOC[stat] .. " over all frames (VProf: sum of the root's children's "
      .. "inclusive times); a profile report's rolling frame window",
    get = function(ctx)
      if ctx.format == "laige-profile" then return laige_values(ctx)["frame_ms." .. stat] end
      return series_stat(frame_times(ctx), stat)
    end,
    dist = function(ctx)
      if ctx.format == "laige-profile" then return nil end
      return frame_times(ctx)
    end,
    dist_formats = FRAMES,
  }
end

add {
  name = "frame_ms.n", unit = "frames", polarity = "none", formats = LAIGE,
  doc = "frames in the report's frame-time window (profile) or per-frame lines (budget)",
  get = function(ctx) return laige_values(ctx)["frame_ms.n"] end,
}
add {
  name = "frame_ms.min", unit = "ms", polarity = "lower", formats = LAIGE,
  doc = "shortest frame of the profile report's window or of the budget report's per-frame lines",
  get = function(ctx) return laige_values(ctx)["frame_ms.min"] end,
  dist = function(ctx)
    if ctx.format ~= "laige-budget" then return nil end
    return frame_times(ctx)
  end,
  dist_formats = BUDGET,
}

for _, p in ipairs({ { "low_1pct_fps", 1, "1 %" }, { "low_01pct_fps", 0.1, "0.1 %" } }) do
  add {
    name = p[1], unit = "fps", polarity = "higher", formats = FRAMES,
    doc = p[3] .. " low FPS: 1000 / mean of the slowest max(1, floor(n x " .. p[2]
      .. " / 100)) frame times",
    get = function(ctx)
      local s = frame_times(ctx)
      if not s or #s == 0 then return nil, "no frames" end
      return (stats.low_fps(s, p[2]))
    end,
    dist = function(ctx) return frame_times(ctx) end,
  }
end

add {
  name = "hitches", unit = "count", polarity = "lower", formats = FRAMES, per = "frames",
  doc = "hitch frames by hitches.lua's default rule (frame time >= 2.5 x the median of the "
    .. "30 frames before and >= 5 ms above it)",
  get = function(ctx)
    local h, err = doc_field(ctx, "hitches", "hitches")
    if not h then return nil, err end
    return #h
  end,
}

add {
  name = "stutter_pct", unit = "%", polarity = "lower", formats = FRAMES,
  doc = "share of the total frame time spent in hitch frames (hitches.lua)",
  get = function(ctx) return doc_field(ctx, "hitches", "stutter_pct") end,
}

-- VProf budget groups ------------------------------------------------------------------

local GROUP_STATS = {
  { "mean_ms", "mean self time per frame" },
  { "p50_ms", "median self time per frame (nearest rank)" },
  { "p95_ms", "95th percentile self time per frame (nearest rank)" },
  { "p99_ms", "99th percentile self time per frame (nearest rank)" },
  { "max_ms", "largest self time in one frame" },
}

local function group_names(ctx)
  vprof_groups(ctx)
  return ctx.group_names
end

-- One statistic of a group's per-frame self time, as budget.lua computes it
-- (vp.budget.group_stats, once per group).
local function group_stat(ctx, name, key)
  local g = vprof_groups(ctx)[name]
  if not g then return nil, "no budget group named '" .. name .. "' with nodes" end
  if not g.stats then
    local ft = frame_times(ctx)
    g.stats = require("vp.budget").group_stats(g.series, ft and ft:sum() or 0)
  end
  local v = g.stats[key]
  if v ~= nil then return v end
  if #g.series == 0 then return nil, "no frames" end
  return nil, "the total frame time is 0"
end

local function group_series(ctx, name)
  local g = vprof_groups(ctx)[name]
  return g and g.series
end

for _, gs in ipairs(GROUP_STATS) do
  add {
    name = "group.NAME." .. gs[1], match = "^group%.(.+)%." .. gs[1]:gsub("_", "%%_") .. "$",
    kind = "group", unit = "ms", polarity = "lower", formats = VPROF, names = group_names,
    doc = "budget group NAME: " .. gs[2] .. " (the sum of its nodes' self times; 0 in frames "
      .. "where it has none; as budget.lua)",
    get = function(ctx, name) return group_stat(ctx, name, gs[1]) end,
    dist = group_series,
  }
end

add {
  name = "group.NAME.share_pct", match = "^group%.(.+)%.share%_pct$", kind = "group",
  unit = "%", polarity = "none", formats = VPROF, names = group_names,
  doc = "budget group NAME: 100 x its self time summed over all frames / the total frame time "
    .. "(a share: it moves when other groups do, so it has no better direction)",
  get = function(ctx, name) return group_stat(ctx, name, "share_pct") end,
  dist = group_series,
}

-- VProf nodes --------------------------------------------------------------------------

local function node_paths(ctx)
  vprof_nodes(ctx)
  return ctx.node_paths
end

local function per_frame(ctx, r, key)
  local n = ctx.cap.frame_count
  if n == 0 then return nil, "no frames" end
  return r[key] / n
end

local NODE = {
  { "mean_ms", "mean inclusive time per frame over all frames (0 where absent)", "time_ms",
    function(ctx, r) return per_frame(ctx, r, "time_ms") end },
  { "self_ms", "mean self time per frame over all frames", "self_ms",
    function(ctx, r) return per_frame(ctx, r, "self_ms") end },
  { "calls_per_frame", "calls per frame over all frames", "calls",
    function(ctx, r) return per_frame(ctx, r, "calls") end, "calls" },
  { "max_ms", "largest inclusive time in one frame", "time_ms",
    function(ctx, r)
      if ctx.cap.frame_count == 0 then return nil, "no frames" end
      return r.peak_ms
    end },
  { "p95_ms", "95th percentile inclusive time per frame (nearest rank; the nodes asked together "
    .. "share one C pass)", "time_ms",
    function(ctx, r) return series_stat(node_series(ctx, r.node.path, "time_ms"), "p95") end,
    nil, true },
  { "p99_ms", "99th percentile inclusive time per frame (nearest rank; the nodes asked together "
    .. "share one C pass)", "time_ms",
    function(ctx, r) return series_stat(node_series(ctx, r.node.path, "time_ms"), "p99") end,
    nil, true },
}

for _, ns in ipairs(NODE) do
  local field = ns[3]
  add {
    name = "node.PATH." .. ns[1], match = "^node%.(.+)%." .. ns[1]:gsub("_", "%%_") .. "$",
    kind = "node", unit = ns[5] or "ms", polarity = "lower", formats = VPROF, names = node_paths,
    series_pass = ns[6] or nil, series_field = ns[6] and field or nil,
    doc = "node PATH (\"Root/CEngine::Frame/...\", by path, not name): " .. ns[2],
    get = function(ctx, path)
      local r = vprof_node(ctx, path)
      if not r then return nil, "no node '" .. path .. "'" end
      return ns[4](ctx, r)
    end,
    dist = function(ctx, path) return node_series(ctx, path, field) end,
  }
end

-- Weapon traces: hit disagreement ------------------------------------------------------

metrics.HITDIFF_KINDS = {
  "no_server_data", "no_client_data", "client_only_hit", "server_only_hit",
  "entity_mismatch", "outcome_mismatch", "position_mismatch",
}

-- Per compared trace, 1 when it counts towards `key` (a kind, "disagree" or
-- "agree") and 0 otherwise: the sample a rate is the mean of, so a change
-- of rate can be tested like any other distribution.
local function trace_indicator(ctx, key)
  ctx.indicators = ctx.indicators or {}
  local s = ctx.indicators[key]
  if s == nil then
    s = false
    local doc = metrics.script_document(ctx.cap, "hitdiff")
    local compared = doc and number_or_nil(doc.compared)
    if compared and compared > 0 then
      local k
      if key == "disagree" or key == "agree" then
        k = number_or_nil(doc[key])
      else
        k = type(doc.by_kind) == "table" and number_or_nil(doc.by_kind[key]) or 0
      end
      if k then
        local t = {}
        for i = 1, math.tointeger(compared) or 0 do t[i] = i <= k and 1 or 0 end
        s = require("vp").Series(t)
      end
    end
    ctx.indicators[key] = s
  end
  return s or nil
end

add {
  name = "hitdiff.rate_pct", unit = "%", polarity = "lower", formats = DW,
  doc = "100 x disagreeing traces / compared traces (hitdiff.lua's rules); tested per compared "
    .. "trace (1 = disagrees)",
  get = function(ctx) return doc_field(ctx, "hitdiff", "rate_pct") end,
  dist = function(ctx) return trace_indicator(ctx, "disagree") end,
}
add {
  name = "hitdiff.traces", unit = "count", polarity = "none", formats = DW,
  doc = "traces (bullets) in the capture",
  get = function(ctx) return doc_field(ctx, "hitdiff", "traces") end,
}
add {
  name = "hitdiff.compared", unit = "count", polarity = "none", formats = DW,
  doc = "traces with at least one client or server hit",
  get = function(ctx) return doc_field(ctx, "hitdiff", "compared") end,
}
add {
  name = "hitdiff.agree", unit = "count", polarity = "higher", formats = DW, per = "hitdiff.compared",
  doc = "compared traces where client and server agree",
  get = function(ctx) return doc_field(ctx, "hitdiff", "agree") end,
  dist = function(ctx) return trace_indicator(ctx, "agree") end,
}
add {
  name = "hitdiff.disagree", unit = "count", polarity = "lower", formats = DW, per = "hitdiff.compared",
  doc = "compared traces where they disagree (any kind)",
  get = function(ctx) return doc_field(ctx, "hitdiff", "disagree") end,
  dist = function(ctx) return trace_indicator(ctx, "disagree") end,
}
do
  local kinds = {}
  for _, k in ipairs(metrics.HITDIFF_KINDS) do kinds[k] = true end
  add {
    name = "hitdiff.KIND", match = "^hitdiff%.([%w_]+)$", kind = "kind", unit = "count",
    polarity = "lower", formats = DW, per = "hitdiff.compared",
    valid = function(kind) return kinds[kind] == true end,
    names = function() return metrics.HITDIFF_KINDS end,
    doc = "traces that disagree by KIND: " .. table.concat(metrics.HITDIFF_KINDS, ", "),
    get = function(ctx, kind)
      local by, err = doc_field(ctx, "hitdiff", "by_kind")
      if not by then return nil, err end
      return number_or_nil(by[kind]) or 0
    end,
    dist = function(ctx, kind) return trace_indicator(ctx, kind) end,
  }
end

-- Event traces (.devt) -------------------------------------------------------------------

local PACING = {
  { "mean_ms", "interval_mean_ms", "mean" }, { "p50_ms", "interval_p50_ms", "median" },
  { "p95_ms", "interval_p95_ms", "95th percentile" }, { "p99_ms", "interval_p99_ms", "99th percentile" },
  { "max_ms", "interval_max_ms", "longest" },
}
for _, p in ipairs(PACING) do
  add {
    name = "events.frame_interval." .. p[1], unit = "ms", polarity = "lower", formats = DEVT,
    doc = p[3] .. " interval between successive Frame events (events.lua's frame pacing)",
    get = function(ctx)
      local fp, err = doc_field(ctx, "events", "frame_pacing")
      if fp == nil then return nil, err or "fewer than two Frame events" end
      return number_or_nil(fp[p[2]])
    end,
  }
end
for _, p in ipairs({ { "mean_fps", "mean" }, { "low_1pct_fps", "1 % low" } }) do
  add {
    name = "events." .. p[1], unit = "fps", polarity = "higher", formats = DEVT,
    doc = p[2] .. " frame rate from the Frame event intervals (events.lua)",
    get = function(ctx)
      local fp, err = doc_field(ctx, "events", "frame_pacing")
      if fp == nil then return nil, err or "fewer than two Frame events" end
      return number_or_nil(fp[p[1]])
    end,
  }
end

local function event_rows(ctx)
  local rows, err = doc_field(ctx, "events", "by_type")
  if not rows then return nil, err end
  if not ctx.event_rows then
    local by = {}
    local names = {}
    for _, r in ipairs(rows) do
      local key = tostring(r.group_name) .. "." .. tostring(r.type_name)
      if not by[key] then names[#names + 1] = key end
      by[key] = r
    end
    ctx.event_rows, ctx.event_names = by, names
  end
  return ctx.event_rows
end

for _, p in ipairs({ { "count", "count", "events", "events of this group and type" },
  { "rate_per_s", "rate_per_s", "events/s", "events per second over the capture's span" } }) do
  add {
    name = "events.GROUP.TYPE." .. p[1], match = "^events%.(.+%..+)%." .. p[1]:gsub("_", "%%_") .. "$",
    kind = "event", unit = p[3], polarity = "none", formats = DEVT,
    names = function(ctx)
      if not event_rows(ctx) then return {} end
      return ctx.event_names
    end,
    doc = "GROUP.TYPE (e.g. frames.Frame): " .. p[4] .. " (events.lua)",
    get = function(ctx, key)
      local by, err = event_rows(ctx)
      if not by then return nil, err end
      local r = by[key]
      if not r then return nil, "no events of " .. key end
      return number_or_nil(r[p[2]])
    end,
  }
end
add {
  name = "events.span_ms", unit = "ms", polarity = "none", formats = DEVT,
  doc = "last minus first event time (time1) over the capture",
  get = function(ctx) return doc_field(ctx, "events", "span_ms") end,
}

-- Movement traces (.dm) ------------------------------------------------------------------

local MOVEMENT = {
  { "corrections", "count", "lower", "position jumps that velocity x time cannot explain (movement.lua's "
    .. "default rule: larger than 0.5 units, samples at most 1000 ms apart)", { "corrections", "count" } },
  { "correction_max", "units", "lower", "size of the largest correction", { "corrections", "max_size" } },
  { "correction_total", "units", "lower", "sum of the correction sizes", { "corrections", "total_size" } },
  { "distance", "units", "none", "distance travelled (sum of successive position steps)", { "distance" } },
  { "duration_ms", "ms", "none", "time from the first to the last sample", { "duration_ms" } },
  { "speed_p95", "units/s", "none", "95th percentile speed from the velocity", { "speed_velocity", "p95" } },
  { "jumps", "count", "none", "jumps (the time-since-jump counter restarted)", { "jumps" } },
  { "air_pct", "%", "none", "share of the time in the air", { "air_pct" } },
}
for _, mv in ipairs(MOVEMENT) do
  add {
    name = "movement." .. mv[1], unit = mv[2], polarity = mv[3], formats = DM,
    doc = mv[4] .. " (movement.lua, the group bit with the most groups)",
    get = function(ctx)
      local v, err = doc_field(ctx, "movement", mv[5][1])
      if v == nil then return nil, err end
      for i = 2, #mv[5] do
        if type(v) ~= "table" then return nil, "not measured" end
        v = v[mv[5][i]]
      end
      return number_or_nil(v)
    end,
  }
end

-- Lag traces (.dlag) ---------------------------------------------------------------------

-- Measurements where a larger value is worse: latency, loss, lateness, drops.
local LAG_LOWER = {}
for _, n in ipairs({
  "Client Frame", "Server Frame", "Local Gateway", "Local Gateway dropped", "The Internets",
  "The Internets dropped", "Socket RTT", "Packet Downloss", "Packet Upploss", "Client Application Ping",
  "Server Application Ping", "Server Player Input Delay", "Client Lateness", "Server Lateness",
  "Update Starved Maximum", "Update Starved Average", "Late Update Maximum", "Late Update Average",
  "Rejected Update Requests", "Priority Inversions", "Dropped Priority Updates", "Keyframe Delay",
  "Batching Delay", "Movement Correction Length", "Remote Extrapolation Time",
  "Remote Extrapolation Length",
}) do LAG_LOWER[n] = true end
metrics.LAG_LOWER = LAG_LOWER

local function lag_polarity(name)
  return LAG_LOWER[(name:gsub("#%d+$", ""))] and "lower" or "none"
end

local function lag_names(ctx)
  lag_measurements(ctx)
  return ctx.lag_names
end

for _, st in ipairs({ { "mean", "mean" }, { "p50", "median (nearest rank)" }, { "p95", "95th percentile" },
  { "p99", "99th percentile" }, { "max", "largest" }, { "min", "smallest" } }) do
  add {
    name = "lag.NAME." .. st[1], match = "^lag%.(.+)%." .. st[1] .. "$", kind = "measurement",
    unit = "value", polarity = lag_polarity, formats = DLAG, names = lag_names,
    doc = "lag measurement NAME (e.g. Socket RTT; NAME#2 for a repeated name): " .. st[2]
      .. " of its samples, in the measurement's own unit; lower is better for latency, "
      .. "loss, lateness and drops, neither for the rest",
    get = function(ctx, name)
      local s = lag_summary(ctx, name)
      if not s then return nil, "no lag measurement '" .. name .. "'" end
      if s.samples == 0 then return nil, "no samples" end
      return s[st[1]]
    end,
    dist = function(ctx, name) return lag_values(ctx, name) end,
  }
end
add {
  name = "lag.NAME.samples", match = "^lag%.(.+)%.samples$", kind = "measurement",
  unit = "count", polarity = "none", formats = DLAG, names = lag_names,
  doc = "lag measurement NAME: number of samples",
  get = function(ctx, name)
    local s = lag_summary(ctx, name)
    if not s then return nil, "no lag measurement '" .. name .. "'" end
    return s.samples
  end,
}

-- laige reports ---------------------------------------------------------------------------

local function laige_get(key)
  return function(ctx, param)
    local k = param and key:gsub("NAME", function() return param end) or key
    local v = laige_values(ctx)[k]
    if v == nil then return nil, "the report has no " .. k end
    return v
  end
end

local function laige_names(prefix, suffix)
  return function(ctx)
    local out, seen = {}, {}
    local pat = "^" .. prefix:gsub("%p", "%%%0") .. "(.+)" .. suffix:gsub("%p", "%%%0") .. "$"
    local keys = {}
    for k in pairs(laige_values(ctx)) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local n = k:match(pat)
      if n and not seen[n] then
        seen[n] = true
        out[#out + 1] = n
      end
    end
    return out
  end
end

for _, st in ipairs({ "n", "min", "mean", "p50", "p95", "p99", "max" }) do
  add {
    name = "tick_ms." .. st, unit = st == "n" and "ticks" or "ms", polarity = st == "n" and "none" or "lower",
    formats = PROFILE,
    doc = st == "n" and "ticks in the profile report's tick-time window"
      or ("tick time " .. st .. " over the profile report's rolling tick window"),
    get = laige_get("tick_ms." .. st),
  }
end

for _, c in ipairs({ { "ticks", "none" }, { "frames", "none" }, { "draw_calls", "lower" },
  { "texture_binds", "lower" }, { "net_bytes", "lower" } }) do
  add {
    name = "counters." .. c[1], unit = "count", polarity = c[2], formats = PROFILE,
    per = c[2] == "lower" and "counters.frames" or nil,
    doc = "the profile report's " .. c[1] .. " counter (since the run started)",
    get = laige_get("counters." .. c[1]),
  }
end

for _, w in ipairs({ { "entities_alive", "none" }, { "entities_total", "none" },
  { "entity_capacity", "none" }, { "sim_allocs", "lower" }, { "systems", "none" } }) do
  add {
    name = "world." .. w[1], unit = "count", polarity = w[2], formats = PROFILE,
    doc = "the profile report's world " .. w[1],
    get = laige_get("world." .. w[1]),
  }
end

local SYSTEM = {
  { "p99_ms", "ms", "lower", "99th percentile of its time window (a budget report's measured p99)" },
  { "p95_ms", "ms", "lower", "95th percentile of its time window" },
  { "p50_ms", "ms", "lower", "median of its time window" },
  { "mean_ms", "ms", "lower", "mean of its time window" },
  { "max_ms", "ms", "lower", "largest time in its window" },
  { "last_ms", "ms", "lower", "time of its last run" },
  { "budget_ms", "ms", "none", "its declared budget" },
  { "budget_pct", "%", "lower", "100 x p99 / budget" },
  { "runs", "count", "none", "times it ran" },
  { "warns", "count", "lower", "budget overrun warnings" },
  { "errors", "count", "lower", "critical budget overruns" },
}
for _, s in ipairs(SYSTEM) do
  add {
    name = "system.NAME." .. s[1], match = "^system%.(.+)%." .. s[1]:gsub("_", "%%_") .. "$",
    kind = "system", unit = s[2], polarity = s[3], formats = LAIGE,
    names = laige_names("system.", "." .. s[1]),
    doc = "laige system NAME (\"#ID\" when unnamed): " .. s[4],
    get = laige_get("system.NAME." .. s[1]),
  }
end
add {
  name = "systems.count", unit = "count", polarity = "none", formats = LAIGE,
  doc = "systems listed in the report", get = laige_get("systems.count"),
}
add {
  name = "systems.over_budget", unit = "count", polarity = "lower", formats = LAIGE,
  doc = "systems whose p99 is above their budget", get = laige_get("systems.over_budget"),
}

for _, f in ipairs({ { "listed", "none", "per-frame lines in the budget report" },
  { "failed", "lower", "per-frame lines whose result is not PASS" },
  { "total", "none", "frames the run had (frames: total=)" } }) do
  add {
    name = "frames." .. f[1], unit = "frames", polarity = f[2], formats = BUDGET,
    doc = f[3], get = laige_get("frames." .. f[1]),
  }
end

local BUDGET_FIELDS = {
  { "after", "value", "lower", "the measured value (after=) in the budget's unit; lower is better "
    .. "(a budget's target is a ceiling)" },
  { "before", "value", "none", "the reference value (before=)" },
  { "target", "value", "none", "the target (target=)" },
  { "pass", "1 = PASS", "higher", "1 when the budget's result is PASS, else 0" },
}
for _, b in ipairs(BUDGET_FIELDS) do
  add {
    name = "budget.NAME." .. b[1], match = "^budget%.(.+)%." .. b[1] .. "$", kind = "budget",
    unit = b[2], polarity = b[3], formats = BUDGET, names = laige_names("budget.", "." .. b[1]),
    doc = "budget report block NAME (budget=NAME): " .. b[4],
    get = laige_get("budget.NAME." .. b[1]),
  }
end
add {
  name = "overall", unit = "1 = PASS", polarity = "higher", formats = BUDGET,
  doc = "1 when the budget report's overall result is PASS, else 0",
  get = laige_get("overall"),
}

-- Lookup ------------------------------------------------------------------------------------

local FIXED = {}
for _, e in ipairs(CATALOGUE) do
  if not e.match then FIXED[e.name] = e end
  e.format_set = {}
  for _, f in ipairs(e.formats) do e.format_set[f] = true end
end

--- metrics.lookup(name) -> entry, param | nil, message
-- The catalogue entry for a metric name (param: the NAME/PATH/KIND part).
function metrics.lookup(name)
  if type(name) ~= "string" or name == "" then return nil, "a metric name must be a non-empty string" end
  local e = FIXED[name]
  if e then return e, nil end
  for _, x in ipairs(CATALOGUE) do
    if x.match then
      local param = name:match(x.match)
      if param and param ~= "" and (not x.valid or x.valid(param)) then return x, param end
    end
  end
  return nil, string.format("unknown metric '%s' (see docs/metrics-table.md or metrics.list())", name)
end

--- metrics.polarity(entry, param) -> "lower" | "higher" | "none"
function metrics.polarity(e, param)
  if type(e.polarity) == "function" then return e.polarity(param or "") end
  return e.polarity
end

--- metrics.applies(entry, format) -> boolean
function metrics.applies(e, format)
  return e.format_set[format] == true
end

--- metrics.list() -> every catalogue entry, in catalogue order, as plain
-- tables {name, unit, polarity ("lower"|"higher"|"none"|"depends"), formats, doc,
-- pattern (boolean), distribution (boolean: per-frame values exist),
-- distribution_formats (the formats that have them), per}.
function metrics.list()
  local out = {}
  for i, e in ipairs(CATALOGUE) do
    local formats = {}
    for j, f in ipairs(e.formats) do formats[j] = f end
    out[i] = {
      name = e.name, unit = e.unit,
      polarity = type(e.polarity) == "function" and "depends" or e.polarity,
      formats = formats, doc = e.doc, pattern = e.match ~= nil, distribution = e.dist ~= nil,
      distribution_formats = e.dist and { table.unpack(e.dist_formats or e.formats) } or nil,
      per = e.per,
    }
  end
  return out
end

local function check_format(e, cap, name)
  if not metrics.applies(e, cap.format) then
    return string.format("metric '%s' does not apply to %s captures (it applies to %s)", name,
      tostring(cap.format), table.concat(e.formats, ", "))
  end
  return nil
end

--- metrics.value(cap, name) -> number | nil, why
function metrics.value(cap, name)
  local e, param = metrics.lookup(name)
  if not e then return nil, param end
  local bad = check_format(e, cap, name)
  if bad then return nil, bad end
  local ok, v, why = pcall(e.get, ctx_of(cap), param)
  if not ok then
    if cli.is_exit(v) then v = v.message end
    return nil, tostring(v)
  end
  if type(v) ~= "number" or v ~= v then return nil, why or "not measured in this capture" end
  return v
end

--- metrics.compute(cap, names) -> values, problems
-- values[name] = number for each name measured; problems[name] = message
-- for an unknown name, a metric of another format, or one this capture
-- cannot give (no such group, no frames, ...).
function metrics.compute(cap, names)
  local values, problems = {}, {}
  -- Node percentiles: one C pass for all the nodes asked (per field).
  local passes = {}
  for _, name in ipairs(names) do
    local e, param = metrics.lookup(name)
    if e and e.series_pass and metrics.applies(e, cap.format) then
      passes[#passes + 1] = { param = param, field = e.series_field }
    end
  end
  if #passes > 1 then pcall(prefetch_node_series, ctx_of(cap), passes) end
  for _, name in ipairs(names) do
    local v, why = metrics.value(cap, name)
    if v ~= nil then values[name] = v else problems[name] = why end
  end
  return values, problems
end

--- metrics.distribution(cap, name) -> Series | nil, why: the per-frame (or
-- per-sample) values the metric summarises, for significance tests.
function metrics.distribution(cap, name)
  local e, param = metrics.lookup(name)
  if not e then return nil, param end
  if not e.dist then return nil, "metric '" .. name .. "' has no per-frame distribution" end
  local bad = check_format(e, cap, name)
  if bad then return nil, bad end
  local ok, s = pcall(e.dist, ctx_of(cap), param)
  if not ok then return nil, tostring(s) end
  if not s then return nil, "no per-frame values for '" .. name .. "' in this capture" end
  return s
end

--- metrics.distribution_key(name) -> a string equal for metrics that share
-- one distribution (group.X.mean_ms and group.X.p99_ms), or nil.
function metrics.distribution_key(name)
  local e, param = metrics.lookup(name)
  if not e or not e.dist then return nil end
  if e.kind == "node" then
    local field = e.name:match("self_ms$") and "self" or (e.name:match("calls") and "calls" or "time")
    return "node\0" .. field .. "\0" .. param
  end
  if e.kind then return e.kind .. "\0" .. param end
  -- agree is the complement of disagree: the same test
  if e.name:match("^hitdiff%.") then return "kind\0disagree" end
  return "frames"
end

--- metrics.available(cap [, opts]) -> list of {name =, entity = "kind:NAME" | nil}
-- Every metric this capture has, fixed ones first, then per group, node,
-- system, ... in the capture's order. opts.series_pass = false leaves out
-- the node metrics that need a C pass over every frame (node.PATH.p95_ms,
-- p99_ms; metrics.compute makes one such pass for all the nodes it is given).
function metrics.available(cap, opts)
  opts = opts or {}
  local ctx = ctx_of(cap)
  local out = {}
  for _, e in ipairs(CATALOGUE) do
    if metrics.applies(e, cap.format) and not e.match then out[#out + 1] = { name = e.name } end
  end
  -- Pattern metrics: grouped by entity so that each group, node, ... lists
  -- all its metrics together.
  local by_kind, kinds = {}, {}
  for _, e in ipairs(CATALOGUE) do
    if e.match and metrics.applies(e, cap.format) and not (e.series_pass and opts.series_pass == false) then
      if not by_kind[e.kind] then
        by_kind[e.kind] = { names = e.names, entries = {} }
        kinds[#kinds + 1] = e.kind
      end
      local list = by_kind[e.kind].entries
      list[#list + 1] = e
    end
  end
  for _, kind in ipairs(kinds) do
    local k = by_kind[kind]
    local ok, params = pcall(k.names, ctx)
    if ok and params then
      for _, param in ipairs(params) do
        for _, e in ipairs(k.entries) do
          out[#out + 1] = { name = metrics.entry_name(e, param), entity = kind .. ":" .. param }
        end
      end
    end
  end
  return out
end

--- metrics.entry_name(entry, param) -> the concrete metric name.
-- The placeholder (NAME, PATH, KIND, GROUP.TYPE) runs from the first
-- capital letter of the pattern's name to the last one.
function metrics.entry_name(e, param)
  if not e.match then return e.name end
  local first = e.name:find("%u")
  local last = #e.name - (e.name:reverse():find("%u")) + 1
  return e.name:sub(1, first - 1) .. param .. e.name:sub(last + 1)
end

-- Changes ---------------------------------------------------------------------------------

-- How a normaliser reads after "/" in a unit.
local PER_UNIT = {
  frames = "frame", ["hitdiff.compared"] = "compared trace", ["counters.frames"] = "frame",
  ["events.span_ms"] = "ms",
}

--- metrics.delta(name, a, b [, per_a, per_b]) -> change
-- The change from a (baseline) to b for metric `name`. When the metric is a
-- total (entry.per) and the two captures differ in that normaliser (frames,
-- compared traces, ...), both values are divided by it first.
-- change = {a, b (the compared values), a_raw, b_raw, normalised, unit,
--   polarity, change = b - a, change_pct = 100 (b - a) / |a| (nil when a = 0
--   and b ~= 0), worse_pct = change_pct signed so that positive is worse
--   (math.huge when a = 0 and b is worse, -math.huge when better; 0 for
--   polarity "none"), direction = "worse" | "better" | "same" | "changed"}
function metrics.delta(name, a, b, per_a, per_b)
  local e, param = metrics.lookup(name)
  assert(e, param)
  local out = { a_raw = a, b_raw = b, a = a, b = b, unit = e.unit, polarity = metrics.polarity(e, param),
    normalised = false }
  if e.per and type(per_a) == "number" and type(per_b) == "number" and per_a > 0 and per_b > 0
    and per_a ~= per_b then
    out.a, out.b = a / per_a, b / per_b
    out.normalised = true
    out.per = e.per
    out.unit = e.unit .. "/" .. (PER_UNIT[e.per] or e.per)
  end
  local d = out.b - out.a
  out.change = d
  if d == 0 then
    out.change_pct = 0
  elseif out.a ~= 0 then
    out.change_pct = 100 * d / math.abs(out.a)
  end
  local sign = (out.polarity == "lower" and 1) or (out.polarity == "higher" and -1) or 0
  if sign == 0 or d == 0 then
    out.worse_pct = 0
  elseif out.change_pct then
    out.worse_pct = sign * out.change_pct
  else
    out.worse_pct = sign * (d > 0 and math.huge or -math.huge)
  end
  if d == 0 then
    out.direction = "same"
  elseif sign == 0 then
    out.direction = "changed"
  else
    out.direction = out.worse_pct > 0 and "worse" or "better"
  end
  return out
end

--- metrics.open(path) -> cap: open a capture as the scripts do (cli.open:
-- exit 2 with the reader's message on failure, warnings on stderr).
function metrics.open(path)
  return cli.open(path)
end

return metrics
