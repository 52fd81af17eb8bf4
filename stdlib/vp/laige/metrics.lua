-- vp.laige.metrics: a laige report's values under the metric catalogue's
-- names (vp.metrics reads them for compare.lua and check.lua).
local E = require "vp.error"
local read = require "vp.laige.read"
local model = require "vp.laige.model"

local metrics = {}

-- A value the report does not have (an empty window, NaN, an infinity) is
-- left out: never NaN or infinity.
local function put(m, k, v)
  if type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge then m[k] = v end
end

local STAT_KEYS = { "n", "min", "mean", "p50", "p95", "p99", "max" }

local function put_stats(m, prefix, s)
  if not s then return end
  for _, k in ipairs(STAT_KEYS) do put(m, prefix .. "." .. k, s[k]) end
end

local function system_key(sys)
  if type(sys.name) == "string" and sys.name ~= "" then return sys.name end
  return "#" .. tostring(sys.id)
end

local function put_systems(m, names, cap)
  local systems = cap.systems
  local seen = {}
  for _, sys in ipairs(systems) do
    local key = system_key(sys)
    if not seen[key] then
      seen[key] = true
      names[#names + 1] = key
      local p = "system." .. key
      local w = sys.window
      put(m, p .. ".p99_ms", model.system_p99(sys))
      if w then
        put(m, p .. ".p50_ms", w.p50)
        put(m, p .. ".p95_ms", w.p95)
        put(m, p .. ".mean_ms", w.mean)
        put(m, p .. ".max_ms", w.max)
      end
      put(m, p .. ".budget_ms", sys.budget_ms)
      put(m, p .. ".budget_pct", model.budget_pct(sys))
      put(m, p .. ".last_ms", sys.last_ms)
      put(m, p .. ".runs", sys.runs)
      put(m, p .. ".warns", sys.warns)
      put(m, p .. ".errors", sys.errors)
    end
  end
  put(m, "systems.count", #systems)
  put(m, "systems.over_budget", #model.over_budget(cap))
end

--- metrics.values(cap) -> {name = number}, {system = {...}, budget = {...}}:
-- the report's values under the metric catalogue's names, and the names of
-- its systems ("#ID" when unnamed) and budget blocks, each once, in the
-- report's order (the catalogue lists their metrics from these, never by
-- taking the names apart again). A value the report does not have (an
-- empty window, NaN, an infinity) is absent.
function metrics.values(cap)
  local kind = model.kind(cap)
  if not kind then E.raise("EINPUT", "laige.metrics: expected a laige profile or budget report") end
  local m, names = {}, { system = {}, budget = {} }
  if kind == "profile" then
    put_stats(m, "tick_ms", cap.tick_ms)
    put_stats(m, "frame_ms", cap.frame_ms)
    for _, f in ipairs(read.COUNTERS) do put(m, "counters." .. f[1], cap.counters and cap.counters[f[1]]) end
    for _, f in ipairs(read.WORLD) do put(m, "world." .. f[1], cap.world and cap.world[f[1]]) end
    put_systems(m, names.system, cap)
  else
    local s = cap:frame_times()
    if #s > 0 then
      put(m, "frame_ms.n", #s)
      put(m, "frame_ms.min", s:min())
      put(m, "frame_ms.mean", s:mean())
      put(m, "frame_ms.p50", s:percentile(50))
      put(m, "frame_ms.p95", s:percentile(95))
      put(m, "frame_ms.p99", s:percentile(99))
      put(m, "frame_ms.max", s:max())
    end
    local failed = 0
    for _, f in ipairs(cap.frames) do
      if f.result ~= "PASS" then failed = failed + 1 end
    end
    put(m, "frames.listed", #cap.frames)
    put(m, "frames.failed", failed)
    put(m, "frames.total", cap.frames_info and cap.frames_info.total)
    local seen = {}
    for _, b in ipairs(cap.budgets) do
      if type(b.name) == "string" then
        if not seen[b.name] then
          seen[b.name] = true
          names.budget[#names.budget + 1] = b.name
        end
        local p = "budget." .. b.name
        put(m, p .. ".after", b.after)
        put(m, p .. ".before", b.before)
        put(m, p .. ".target", b.target)
        if b.result then put(m, p .. ".pass", b.result == "PASS" and 1 or 0) end
      end
    end
    put_systems(m, names.system, cap)
    if cap.overall then put(m, "overall", cap.overall == "PASS" and 1 or 0) end
  end
  return m, names
end

--- metrics.metrics(cap) -> {name = number}: metrics.values' values
-- (laige.metrics, cap:metrics()).
function metrics.metrics(cap)
  return (metrics.values(cap))
end

return metrics
