-- vp.metrics.traces: the catalogue's debug-trace metrics: hit disagreement
-- (.dw, vp.hitdiff), events (.devt, vp.events), movement (.dm,
-- vp.movement) and lag measurements (.dlag, vp.lag). Each figure is the one
-- the shipped script reports, from its analysis module run in-process.
-- Entry fields: see vp.metrics.
local C = require "vp.metrics.context"

local M = {}

local entries = {}
local function add(e) entries[#entries + 1] = e end

-- Weapon traces: hit disagreement ------------------------------------------------------

M.HITDIFF_KINDS = {
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
    local res = C.analysis(ctx, "hitdiff")
    local compared = C.number(C.get(res, "compared"))
    if compared and compared > 0 then
      local k
      if key == "disagree" or key == "agree" then
        k = C.number(C.get(res, key))
      else
        k = C.number(C.get(res, "by_kind", key)) or 0
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

local function hitdiff(key)
  return function(ctx) return C.result(ctx, "hitdiff", key) end
end

add {
  name = "hitdiff.rate_pct", unit = "%", polarity = "lower", formats = C.DW,
  doc = "100 x disagreeing traces / compared traces (hitdiff.lua's rules); tested per compared "
    .. "trace (1 = disagrees)",
  get = hitdiff("rate_pct"),
  dist = function(ctx) return trace_indicator(ctx, "disagree") end,
}
add {
  name = "hitdiff.traces", unit = "count", polarity = "none", formats = C.DW,
  doc = "traces (bullets) in the capture",
  get = hitdiff("traces"),
}
add {
  name = "hitdiff.compared", unit = "count", polarity = "none", formats = C.DW,
  doc = "traces with at least one client or server hit",
  get = hitdiff("compared"),
}
add {
  name = "hitdiff.agree", unit = "count", polarity = "higher", formats = C.DW, per = "hitdiff.compared",
  doc = "compared traces where client and server agree",
  get = hitdiff("agree"),
  dist = function(ctx) return trace_indicator(ctx, "agree") end,
}
add {
  name = "hitdiff.disagree", unit = "count", polarity = "lower", formats = C.DW, per = "hitdiff.compared",
  doc = "compared traces where they disagree (any kind)",
  get = hitdiff("disagree"),
  dist = function(ctx) return trace_indicator(ctx, "disagree") end,
}
do
  local kinds = {}
  for _, k in ipairs(M.HITDIFF_KINDS) do kinds[k] = true end
  add {
    name = "hitdiff.KIND", match = "^hitdiff%.([%w_]+)$", kind = "kind", unit = "count",
    polarity = "lower", formats = C.DW, per = "hitdiff.compared",
    valid = function(kind) return kinds[kind] == true end,
    names = function() return M.HITDIFF_KINDS end,
    doc = "traces that disagree by KIND: " .. table.concat(M.HITDIFF_KINDS, ", "),
    get = function(ctx, kind)
      local by, err = C.result(ctx, "hitdiff", "by_kind")
      if not by then return nil, err end
      return C.number(C.get(by, kind)) or 0
    end,
    dist = function(ctx, kind) return trace_indicator(ctx, kind) end,
  }
end

-- Event traces (.devt) -------------------------------------------------------------------

local function pacing(ctx, key)
  local fp, err = C.result(ctx, "events", "frame_pacing")
  if fp == nil then return nil, err or "fewer than two Frame events" end
  return C.number(C.get(fp, key))
end

local PACING = {
  { "mean_ms", "interval_mean_ms", "mean" }, { "p50_ms", "interval_p50_ms", "median" },
  { "p95_ms", "interval_p95_ms", "95th percentile" }, { "p99_ms", "interval_p99_ms", "99th percentile" },
  { "max_ms", "interval_max_ms", "longest" },
}
for _, p in ipairs(PACING) do
  add {
    name = "events.frame_interval." .. p[1], unit = "ms", polarity = "lower", formats = C.DEVT,
    doc = p[3] .. " interval between successive Frame events (events.lua's frame pacing)",
    get = function(ctx) return pacing(ctx, p[2]) end,
  }
end
for _, p in ipairs({ { "mean_fps", "mean" }, { "low_1pct_fps", "1 % low" } }) do
  add {
    name = "events." .. p[1], unit = "fps", polarity = "higher", formats = C.DEVT,
    doc = p[2] .. " frame rate from the Frame event intervals (events.lua)",
    get = function(ctx) return pacing(ctx, p[1]) end,
  }
end

-- events.lua's by_type rows by "GROUP.TYPE"
local function event_rows(ctx)
  local rows, err = C.result(ctx, "events", "by_type")
  if not rows then return nil, err end
  if not ctx.event_rows then
    local by, names = {}, {}
    for _, r in ipairs(rows) do
      local key = tostring(C.get(r, "group_name")) .. "." .. tostring(C.get(r, "type_name"))
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
    kind = "event", unit = p[3], polarity = "none", formats = C.DEVT,
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
      return C.number(C.get(r, p[2]))
    end,
  }
end
add {
  name = "events.span_ms", unit = "ms", polarity = "none", formats = C.DEVT,
  doc = "last minus first event time (time1) over the capture",
  get = function(ctx) return C.result(ctx, "events", "span_ms") end,
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
    name = "movement." .. mv[1], unit = mv[2], polarity = mv[3], formats = C.DM,
    doc = mv[4] .. " (movement.lua, the group bit with the most groups)",
    get = function(ctx)
      local res, err = C.analysis(ctx, "movement")
      if res == nil then return nil, err end
      return C.number(C.get(res, table.unpack(mv[5])))
    end,
  }
end

-- Lag traces (.dlag) ---------------------------------------------------------------------

-- measurements by name ("NAME#2" for a repeated name) -> measurement: the
-- ones lag.lua analyses (the first lag.DEFAULTS.max_measurements), so that
-- a file claiming millions makes as many metrics as it makes rows there
local lag_measurements, lag_names = C.listing(function(ctx)
  local by_name, order, seen = {}, {}, {}
  local max = require("vp.lag").DEFAULTS.max_measurements
  for m in ctx.cap:measurements() do
    if #order >= max then break end
    local name = tostring(m.name)
    seen[name] = (seen[name] or 0) + 1
    if seen[name] > 1 then name = name .. "#" .. seen[name] end
    by_name[name] = m
    order[#order + 1] = name
  end
  return by_name, order
end)

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

-- the statistics of a measurement's samples (vp.lag.summary, as lag.lua)
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

-- Measurements where a larger value is worse: latency, loss, lateness, drops.
M.LAG_LOWER = {}
for _, n in ipairs({
  "Client Frame", "Server Frame", "Local Gateway", "Local Gateway dropped", "The Internets",
  "The Internets dropped", "Socket RTT", "Packet Downloss", "Packet Upploss", "Client Application Ping",
  "Server Application Ping", "Server Player Input Delay", "Client Lateness", "Server Lateness",
  "Update Starved Maximum", "Update Starved Average", "Late Update Maximum", "Late Update Average",
  "Rejected Update Requests", "Priority Inversions", "Dropped Priority Updates", "Keyframe Delay",
  "Batching Delay", "Movement Correction Length", "Remote Extrapolation Time",
  "Remote Extrapolation Length",
}) do M.LAG_LOWER[n] = true end

local function lag_polarity(name)
  return M.LAG_LOWER[(name:gsub("#%d+$", ""))] and "lower" or "none"
end

for _, st in ipairs({ { "mean", "mean" }, { "p50", "median (nearest rank)" }, { "p95", "95th percentile" },
  { "p99", "99th percentile" }, { "max", "largest" }, { "min", "smallest" } }) do
  add {
    name = "lag.NAME." .. st[1], match = "^lag%.(.+)%." .. st[1] .. "$", kind = "measurement",
    unit = "value", polarity = lag_polarity, formats = C.DLAG, names = lag_names,
    doc = "lag measurement NAME (e.g. Socket RTT; NAME#2 for a repeated name): " .. st[2]
      .. " of its samples, in the measurement's own unit; lower is better for latency, "
      .. "loss, lateness and drops, neither for the rest",
    get = function(ctx, name)
      local s = lag_summary(ctx, name)
      if not s then return nil, "no lag measurement '" .. name .. "'" end
      if C.get(s, "samples") == 0 then return nil, "no samples" end
      return C.get(s, st[1])
    end,
    dist = function(ctx, name) return lag_values(ctx, name) end,
  }
end
add {
  name = "lag.NAME.samples", match = "^lag%.(.+)%.samples$", kind = "measurement",
  unit = "count", polarity = "none", formats = C.DLAG, names = lag_names,
  doc = "lag measurement NAME: number of samples",
  get = function(ctx, name)
    local s = lag_summary(ctx, name)
    if not s then return nil, "no lag measurement '" .. name .. "'" end
    return C.get(s, "samples")
  end,
}

M.entries = entries
return M
