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
  name = "frame_ms.pX", match = "^frame_ms%.p(%d+%.?%d*)$", arg_only = true, arg_of_family = true,
  quantile_arg = true, valid = function(_, x) return C.percent(x) end,
  unit = "ms", polarity = "lower", formats = C.FRAMES,
  doc = "any percentile X of the frame time (nearest rank), 0 < X <= 100: frame_ms.p90, frame_ms.p99.9",
  get = function(ctx, _, x) return C.series_stat(frame_values(ctx), "p" .. x) end,
  dist = function(ctx) return frame_values(ctx) end,
}

-- The frames above x ms and their time, with the count and the total: from
-- a VProf capture's value counts, else the Series.
local function over(ctx, x)
  local s = frame_values(ctx)
  if not s or #s == 0 then return nil end
  local frames, time = 0, 0
  if ctx.format == "vprof" then
    for v, k in pairs((s:counts())) do
      if v > x then frames, time = frames + k, time + k * v end
    end
  else
    for i = 1, #s do
      if s[i] > x then frames, time = frames + 1, time + s[i] end
    end
  end
  return frames, time, #s, s:sum()
end

add {
  name = "frames_over_ms.X", match = "^frames_over_ms%.(%d+%.?%d*)$", arg_only = true, arg_of_family = true,
  valid = function(_, x) return tonumber(x) ~= nil end,
  unit = "%", polarity = "lower", formats = C.FRAMES,
  doc = "100 x the frames longer than X ms / all frames: frames_over_ms.16.7, frames_over_ms.33.3 (a budget "
    .. "of 60 or 30 FPS)",
  get = function(ctx, _, x)
    local frames, _, n = over(ctx, tonumber(x))
    if not frames then return nil, "no frames" end
    return 100 * frames / n
  end,
}

add {
  name = "time_over_ms.X", match = "^time_over_ms%.(%d+%.?%d*)$", arg_only = true, arg_of_family = true,
  valid = function(_, x) return tonumber(x) ~= nil end,
  unit = "%", polarity = "lower", formats = C.FRAMES,
  doc = "100 x the time spent in frames longer than X ms / the total frame time: time_over_ms.33.3",
  get = function(ctx, _, x)
    local _, time, _, total = over(ctx, tonumber(x))
    if not time then return nil, "no frames" end
    if total <= 0 then return nil, "the total frame time is 0" end
    return 100 * time / total
  end,
}

-- Frame pacing: |t[i+1] - t[i]| of the frame times, in C.
local function jitter(ctx)
  local ft = frame_times(ctx)
  if not ft or #ft < 2 then return nil end
  ctx.jitter = ctx.jitter or ft:diff():abs()
  return ctx.jitter
end

for _, j in ipairs({ { "mean", "mean" }, { "p99", "99th percentile (nearest rank)" }, { "max", "largest" } }) do
  add {
    name = "jitter_ms." .. j[1], unit = "ms", polarity = "lower", formats = C.FRAMES,
    doc = "frame pacing: the " .. j[2] .. " of |t[i+1] - t[i]|, the change from one frame time to the next",
    get = function(ctx)
      local d = jitter(ctx)
      if not d then return nil, "fewer than 2 frames" end
      return C.series_stat(d, j[1])
    end,
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
  name = "hitches_per_min", unit = "1/min", polarity = "lower", formats = C.FRAMES,
  doc = "hitches (as the hitches metric) per minute of frame time",
  get = function(ctx)
    local list, err = C.result(ctx, "hitches", "hitches")
    if not list then return nil, err end
    local s = frame_values(ctx)
    local total = s and s:sum() or 0
    if total <= 0 then return nil, "no frame time" end
    return #list / (total / 60000)
  end,
}

add {
  name = "stutter_pct", unit = "%", polarity = "lower", formats = C.FRAMES,
  doc = "share of the total frame time spent in hitch frames (hitches.lua)",
  get = function(ctx) return C.result(ctx, "hitches", "stutter_pct") end,
}

return { entries = entries }
