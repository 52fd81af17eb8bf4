-- vp.metrics.frames: the catalogue's frame metrics: frame counts, frame
-- time statistics, low FPS, hitches and stutter (VProf captures, laige
-- reports). Entry fields: see vp.metrics.
local stats = require "vp.stats"
local C = require "vp.metrics.context"

local frame_times, laige_values = C.frame_times, C.laige_values

-- The frame times as the statistics read them: a VProf capture's summary
-- from its open pass (the Series' figures without the column: exact value
-- counts), other captures' Series. A VProf capture's distribution is that
-- summary too: vp.infer asks it for the value counts of each batch of
-- consecutive frames (dist:batches), read off the frame records.
local function frame_values(ctx)
  if ctx.format == "vprof" then
    ctx.time_stats = ctx.time_stats or ctx.cap:dist("frame_ms")
    return ctx.time_stats
  end
  return frame_times(ctx)
end

-- stats.low_fps's figure; a VProf capture sums its slowest frames in C (the
-- same sum, in the same order: cap:dist("frame_ms"):top_sum).
local function low_fps(ctx, pct)
  local s = frame_values(ctx)
  if not s or #s == 0 then return nil, "no frames" end
  if ctx.format ~= "vprof" then return (stats.low_fps(s, pct)) end
  local k = stats.slowest_count(#s, pct)
  local mean = ctx.cap:dist("frame_ms"):top_sum(k) / k
  if mean <= 0 then return nil end
  return 1000 / mean
end

local entries = {}
local function add(e) entries[#entries + 1] = e end

add {
  name = "frames", unit = "frames", polarity = "none", formats = C.FRAME_STATS,
  doc = "number of frames: VProf frames in the capture; a budget report's per-frame lines; "
    .. "a profile report's frame counter (counters.frames)",
  get = function(ctx)
    if ctx.format == "laige-profile" then return laige_values(ctx)["counters.frames"] end
    local s = frame_values(ctx)
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
    name = "frame_ms." .. stat, unit = "ms", polarity = "lower", formats = C.FRAME_STATS,
    doc = FRAME_STAT_DOC[stat] .. " over all frames (VProf: sum of the root's children's "
      .. "inclusive times); a profile report's rolling frame window",
    get = function(ctx)
      if ctx.format == "laige-profile" then return laige_values(ctx)["frame_ms." .. stat] end
      return C.series_stat(frame_values(ctx), stat)
    end,
    dist = function(ctx)
      if ctx.format == "laige-profile" then return nil end
      return frame_values(ctx)
    end,
    dist_formats = C.FRAMES,
  }
end

add {
  name = "frame_ms.n", unit = "frames", polarity = "none", formats = C.LAIGE,
  doc = "frames in the report's frame-time window (profile) or per-frame lines (budget)",
  get = function(ctx) return laige_values(ctx)["frame_ms.n"] end,
}
add {
  name = "frame_ms.min", unit = "ms", polarity = "lower", formats = C.LAIGE,
  doc = "shortest frame of the profile report's window or of the budget report's per-frame lines",
  get = function(ctx) return laige_values(ctx)["frame_ms.min"] end,
  dist = function(ctx)
    if ctx.format ~= "laige-budget" then return nil end
    return frame_times(ctx)
  end,
  dist_formats = C.BUDGET,
}

for _, p in ipairs({ { "low_1pct_fps", 1, "1 %" }, { "low_01pct_fps", 0.1, "0.1 %" } }) do
  add {
    name = p[1], unit = "fps", polarity = "higher", formats = C.FRAMES,
    doc = p[3] .. " low FPS: 1000 / mean of the slowest max(1, floor(n x " .. p[2]
      .. " / 100)) frame times",
    get = function(ctx) return low_fps(ctx, p[2]) end,
    dist = function(ctx) return frame_values(ctx) end,
  }
end

add {
  name = "hitches", unit = "count", polarity = "lower", formats = C.FRAMES, per = "frames",
  doc = "hitch frames by hitches.lua's default rule (frame time >= 2.5 x the median of the "
    .. "30 frames before and >= 5 ms above it)",
  get = function(ctx)
    local list, err = C.result(ctx, "hitches", "hitches")
    if not list then return nil, err end
    return #list
  end,
  -- where they are: the rate test (vp.compare) counts them per stretch
  events = function(ctx)
    local list, err = C.result(ctx, "hitches", "hitches")
    if not list then return nil, err end
    local first = ctx.cap.first_frame or 1
    local pos = {}
    for i, h in ipairs(list) do pos[i] = h.frame - first + 1 end
    table.sort(pos)
    return pos
  end,
}

add {
  name = "stutter_pct", unit = "%", polarity = "lower", formats = C.FRAMES,
  doc = "share of the total frame time spent in hitch frames (hitches.lua)",
  get = function(ctx) return C.result(ctx, "hitches", "stutter_pct") end,
}

return { entries = entries }
