-- vp.metrics.laige: the catalogue's laige report metrics (profile reports:
-- tick times, counters, world; budget reports: systems, budgets, per-frame
-- lines, the overall result), read from vp.laige.metrics' values.
-- Entry fields: see vp.metrics.
local C = require "vp.metrics.context"

local entries = {}
local function add(e) entries[#entries + 1] = e end

local PROFILE, BUDGET, LAIGE = C.PROFILE, C.BUDGET, C.LAIGE

local function laige_get(key)
  return function(ctx, param)
    local k = param and key:gsub("NAME", function() return param end) or key
    local v = C.laige_values(ctx)[k]
    if v == nil then return nil, "the report has no " .. k end
    return v
  end
end

-- The systems or budgets (kind) that have the value `field`, in the byte
-- order of their metrics' names.
local function laige_names(kind, field)
  return function(ctx)
    local values, names = C.laige_values(ctx)
    local out = {}
    for _, n in ipairs(names[kind]) do
      if values[kind .. "." .. n .. "." .. field] ~= nil then out[#out + 1] = n end
    end
    table.sort(out, function(a, b) return a .. "." .. field < b .. "." .. field end)
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
    names = laige_names("system", s[1]),
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
    unit = b[2], polarity = b[3], formats = BUDGET, names = laige_names("budget", b[1]),
    doc = "budget report block NAME (budget=NAME): " .. b[4],
    get = laige_get("budget.NAME." .. b[1]),
  }
end
add {
  name = "overall", unit = "1 = PASS", polarity = "higher", formats = BUDGET,
  doc = "1 when the budget report's overall result is PASS, else 0",
  get = laige_get("overall"),
}

return { entries = entries }
