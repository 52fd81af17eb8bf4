-- vp.anchors: the frame-pacing numbers of the tools people already trust,
-- computed by those tools' own definitions from a frame-time Series, so a
-- vpscript figure can be checked against theirs (docs/metrics.md,
-- "The anchors' definitions"):
--
--   CapFrameX   stuttering (a frame above 2.5 x a trailing moving average
--               whose length comes from the mean frame time), its low-FPS
--               time, and "x % low" in its two variants: the average of the
--               slowest x % and the integral one (MSI Afterburner's)
--   Unreal      hitches (frame time at or above 60 ms, slower than 1.5 x the
--               previous frame, at least 200 ms after the previous hitch),
--               hitches per minute, the time in hitch frames
--
--   local anchors = require "vp.anchors"
--   local ft = cap:frame_times()
--   local c = anchors.capframex(ft)               -- plain data, anchors.capframex_schema
--   local u = anchors.unreal(ft, {threshold_ms = 60})  -- anchors.unreal_schema
--   print(c.stutter_time_pct, c.lows[1].average_fps, u.hitches_per_minute)
--   local list, figures = anchors.hitch_list("unreal", ft)  -- hitches.lua's --rule unreal
--
-- Every pass over the frames is a vp.Series operation in C (rolling mean,
-- where, cumsum, sort, percentile); Lua loops only over the frames a rule
-- selects. Frame numbers are 1-based positions in the Series.
local E = require "vp.error"
local stats = require "vp.stats"

local anchors = {}

anchors.DEFAULTS = {
  capframex = { factor = 2.5, low_fps = 25, lows = { 1, 0.1 } },
  unreal = { threshold_ms = 60, dead_window_ms = 200, ratio = 1.5, target_ms = 33.9, max_frame_ms = 1000 },
}

--- The rules anchors.hitch_list knows, in the order --help lists them.
anchors.RULES = { "capframex", "unreal" }

--- The shape of anchors.capframex's result.
anchors.capframex_schema = "{rule, frames, total_ms, mean_ms, window, factor, stutter_count, stutter_time_ms, "
  .. "stutter_time_pct, low_fps, low_fps_time_pct, lows: [{pct, average_ms, average_fps, integral_ms, "
  .. "integral_fps}], stutters: []}"

--- The shape of anchors.unreal's result.
anchors.unreal_schema = "{rule, frames, total_ms, binned_ms, threshold_ms, dead_window_ms, ratio, target_ms, "
  .. "max_frame_ms, hitch_count, hitches_per_minute, hitch_time_ms, hitch_time_pct, percent_spent_hitching, "
  .. "hitches: []}"

local function is_series(x)
  local mt = getmetatable(x)
  return type(mt) == "table" and rawget(mt, "__name") == "vp.Series"
end

local function check(ft, p, defaults, who)
  if not is_series(ft) then
    E.raise("EUSAGE", "%s: the frame times must be a vp.Series, not %s", who, type(ft))
  end
  local out = {}
  for k, v in pairs(defaults) do out[k] = v end
  for k, v in pairs(p or {}) do
    if defaults[k] == nil then
      E.raise("EUSAGE", "%s: unknown parameter %s", who, tostring(k))
    end
    if type(defaults[k]) == "number" then E.check_number(v, k, who) end
    out[k] = v
  end
  return out
end

-- The value of rank k (1-based) in ascending order: the one nearest-rank
-- definition (vp.Series:percentile), asked for exactly that rank.
local function order_stat(ft, k)
  return ft:percentile(100 * (k - 0.5) / #ft)
end

--- anchors.r8_quantile(ft, tau) -> number | nil: the tau-quantile (tau in
-- 0..1) by Hyndman and Fan's definition 8, MathNet's Statistics.Quantile,
-- which CapFrameX uses: h = (n + 1/3) tau + 1/3, the linear interpolation
-- between the order statistics floor(h) and floor(h) + 1; the minimum when
-- floor(h) < 1 (or tau = 0), the maximum when floor(h) >= n (or tau = 1).
function anchors.r8_quantile(ft, tau)
  local n = #ft
  if n == 0 or tau < 0 or tau > 1 then return nil end
  local h = (n + 1 / 3) * tau + 1 / 3
  local k = math.floor(h)
  if k <= 0 or tau == 0 then return order_stat(ft, 1) end
  if k >= n or tau == 1 then return order_stat(ft, n) end
  local a, b = order_stat(ft, k), order_stat(ft, k + 1)
  return a + (h - k) * (b - a)
end

--- anchors.capframex_window(mean_ms) -> samples: the length of CapFrameX's
-- moving average: 10 x the square root of the mean frame time, rounded to
-- the nearest integer (halves to even, as .NET's Convert.ToInt32), at least 1.
function anchors.capframex_window(mean_ms)
  local x = 10 * math.sqrt(mean_ms)
  local r = math.floor(x + 0.5)
  if r - x == 0.5 and r % 2 == 1 then r = r - 1 end -- a tie goes to the even neighbour
  return math.max(1, math.tointeger(r) or 1)
end

--- anchors.capframex_low(ft, pct) -> {pct, average_ms, average_fps, integral_ms, integral_fps}:
-- CapFrameX's "pct % low" in both variants. average: the mean of the frame
-- times at or above the (100 - pct) % R-8 quantile (the slowest pct %);
-- integral: sort the frame times slowest first and add them up until the
-- sum reaches pct % of the total: the frame time reached there (MSI
-- Afterburner's definition). FPS = 1000 / ms. nil fields without frames.
function anchors.capframex_low(ft, pct)
  local out = { pct = pct }
  local n = #ft
  if n == 0 then return out end
  local q = anchors.r8_quantile(ft, 1 - pct / 100)
  out.average_ms = ft:filter(q, ">="):mean()
  local sorted = ft:sort()
  -- the share as CapFrameX computes it: 1 - (1 - pct/100)
  local target, acc, at = ft:sum() * (1 - (1 - pct / 100)), 0, n
  for i = n, 1, -1 do
    acc = acc + sorted[i]
    at = i
    if acc >= target then break end
  end
  out.integral_ms = sorted[at]
  out.average_fps = out.average_ms > 0 and 1000 / out.average_ms or nil
  out.integral_fps = out.integral_ms > 0 and 1000 / out.integral_ms or nil
  for k, v in pairs(out) do out[k] = stats.defined(v) end
  return out
end

-- CapFrameX's figures, and the moving average they compare with.
local function capframex_figures(ft, params)
  local p = check(ft, params, anchors.DEFAULTS.capframex, "vp.anchors.capframex")
  for _, pct in ipairs(p.lows) do
    if type(pct) ~= "number" or not (pct > 0 and pct <= 100) then
      E.raise("EUSAGE", "vp.anchors.capframex: params.lows must list numbers in (0, 100], not %s", tostring(pct))
    end
  end
  local n, total = #ft, ft:sum()
  local mean = n > 0 and ft:mean() or nil
  local window = mean and anchors.capframex_window(mean) or nil
  local ma = window and ft:rolling(window, "mean") or nil
  local stutters = ma and (ft - ma * p.factor):where(0) or {}
  local stutter_ms, is_stutter = 0, {}
  for _, i in ipairs(stutters) do
    stutter_ms = stutter_ms + ft[i]
    is_stutter[i] = true
  end
  -- low FPS: 1000 / frame time below low_fps, tested as CapFrameX does on
  -- the few frames near or above 1000 / low_fps ms
  local low_ms = 0
  if p.low_fps > 0 then
    for _, i in ipairs(ft:where(1000 / p.low_fps * (1 - 1e-9))) do
      if not is_stutter[i] and 1000 / ft[i] < p.low_fps then low_ms = low_ms + ft[i] end
    end
  end
  local lows = {}
  for i, pct in ipairs(p.lows) do lows[i] = anchors.capframex_low(ft, pct) end
  return {
    rule = "capframex", frames = n, total_ms = total, mean_ms = stats.defined(mean), window = window,
    factor = p.factor, stutter_count = #stutters, stutter_time_ms = stutter_ms,
    stutter_time_pct = total > 0 and 100 * stutter_ms / total or nil,
    low_fps = p.low_fps, low_fps_time_pct = total > 0 and 100 * low_ms / total or nil,
    lows = lows, stutters = stutters,
  }, ma, p
end

--- anchors.capframex(ft [, params]) -> result (anchors.capframex_schema)
-- params: factor (2.5), low_fps (25: the FPS under which a frame that is
-- not a stutter counts as low FPS), lows ({1, 0.1}: the x % lows).
-- stutters: the frames whose time is above factor x the moving average (a
-- trailing mean of `window` frames, the frame itself included, shorter at
-- the start); stutter_time_pct: their time as a % of all; low_fps_time_pct:
-- the time of the other frames slower than low_fps, as a %. Raises EUSAGE
-- for a bad parameter.
function anchors.capframex(ft, params)
  return (capframex_figures(ft, params))
end

-- Unreal's hitch frames: at or above the threshold, slower than ratio x the
-- previous frame, and ending at least the dead window after the previous
-- hitch ended.
local function unreal_rule(ft, p)
  local ratio = math.max(1, math.min(p.ratio, p.target_ms > 0 and p.threshold_ms / p.target_ms or p.ratio))
  local ends = ft:cumsum() -- when each frame ended, from the start of the capture
  local hitches, last_end = {}, nil
  for _, i in ipairs(ft:where(p.threshold_ms, ">=")) do
    local prev = ft[i - 1] or 0
    if (last_end == nil or ends[i] - last_end >= p.dead_window_ms) and ft[i] > prev * ratio then
      hitches[#hitches + 1] = i
      last_end = ends[i]
    end
  end
  return hitches, ratio
end

--- anchors.unreal(ft [, params]) -> result (anchors.unreal_schema)
-- params: threshold_ms (60, t.HitchFrameTimeThreshold), dead_window_ms (200,
-- t.HitchDeadTimeWindow), ratio (1.5, t.HitchVersusNonHitchRatio, clamped to
-- 1 .. threshold_ms / target_ms), target_ms (33.9, t.TargetFrameTimeThreshold),
-- max_frame_ms (1000: frames this long or longer are left out of the binned
-- time, as the engine's FPS chart does; 0 keeps them). hitches: the hitch
-- frames; hitches_per_minute: their count per minute of binned time;
-- hitch_time_pct: their time as a % of the binned time; percent_spent_hitching:
-- the engine's PercentSpentHitching, the same less target_ms per hitch.
function anchors.unreal(ft, params)
  local p = check(ft, params, anchors.DEFAULTS.unreal, "vp.anchors.unreal")
  local hitches, ratio = unreal_rule(ft, p)
  local total = ft:sum()
  local binned = total
  if p.max_frame_ms > 0 then binned = total - ft:filter(p.max_frame_ms, ">="):sum() end
  local hitch_ms = 0
  for _, i in ipairs(hitches) do hitch_ms = hitch_ms + ft[i] end
  local acceptable = p.threshold_ms > p.target_ms and p.target_ms or 0
  return {
    rule = "unreal", frames = #ft, total_ms = total, binned_ms = binned, threshold_ms = p.threshold_ms,
    dead_window_ms = p.dead_window_ms, ratio = ratio, target_ms = p.target_ms, max_frame_ms = p.max_frame_ms,
    hitch_count = #hitches,
    hitches_per_minute = binned > 0 and #hitches / (binned / 60000) or nil,
    hitch_time_ms = hitch_ms,
    hitch_time_pct = binned > 0 and 100 * hitch_ms / binned or nil,
    percent_spent_hitching = binned > 0 and 100 * (hitch_ms - acceptable * #hitches) / binned or nil,
    hitches = hitches,
  }
end

--- anchors.hitch_list(rule, ft [, params]) -> list, figures: the hitch frames
-- of a rule ("capframex": the stutters, "unreal": the hitches) as
-- hitches.lua lists its own, {frame, frame_ms, baseline_ms} in frame order
-- (baseline_ms: what the frame was compared with: factor x the moving
-- average, or ratio x the previous frame), and the rule's figures
-- (anchors.capframex or anchors.unreal). Raises EUSAGE for an unknown rule.
function anchors.hitch_list(rule, ft, params)
  local figures, list = nil, {}
  if rule == "capframex" then
    local ma, p
    figures, ma, p = capframex_figures(ft, params)
    for k, i in ipairs(figures.stutters) do
      list[k] = { frame = i, frame_ms = ft[i], baseline_ms = p.factor * ma[i] }
    end
  elseif rule == "unreal" then
    figures = anchors.unreal(ft, params)
    for k, i in ipairs(figures.hitches) do
      list[k] = { frame = i, frame_ms = ft[i], baseline_ms = ft[i - 1] and figures.ratio * ft[i - 1] or nil }
    end
  else
    E.raise("EUSAGE", "vp.anchors: the rule must be one of %s, not %s", table.concat(anchors.RULES, ", "),
      tostring(rule))
  end
  return list, figures
end

return anchors
