-- vp.phases: the phases of a capture: the stretches of frames whose
-- typical frame time stays put (a menu, a level, a fight, a vista), found
-- as change points in the frame-time series. compare.lua and check.lua
-- show them, vp.align lines two captures up by them, and a gate rule can be
-- scoped to one (`phase = 2`).
--
--   local phases = require "vp.phases"
--   local r = phases.analyze(cap)              -- {frames, phases = [{phase, first, last, frames, typical_ms, ...}]}
--   local segs = phases.find(cap:frame_times()) -- the same from any Series of frame times, by position
--
-- Method (phases.DEFAULTS holds the numbers): the series is cut into bins
-- of consecutive frames and each bin is summarised by its median (so a
-- hitch, however large, moves no bin); on the logarithms of those medians
-- binary segmentation looks for the split that best separates two levels
-- (the CUSUM statistic |mean_left - mean_right| sqrt(n_l n_r / n) / sigma,
-- sigma the noise of one bin median, measured from the differences of
-- neighbouring bins: 1.4826 median |y_i+1 - y_i| / sqrt 2, which neither
-- the phases nor slow drift inflate). A split is kept when that statistic
-- is at least `z`, both sides hold at least `min_frames` frames and their
-- typical (median) frame times differ by at least `min_step_pct` %: slow
-- drift, which wanders by a few per cent, is not a phase. Each kept
-- boundary is then placed at the frame where it best separates the two
-- phases' typical times (least absolute deviation within two bins of it).
-- A series too short for two phases is one phase.
local vp = require "vp"
local E = require "vp.error"

local phases = {}

phases.DEFAULTS = { bins = 200, min_bin = 8, min_frames = 60, min_share = 0.03, min_step_pct = 4, z = 5,
  max_phases = 16 }

--- The --json shape of phases.analyze (docs/architecture.md notation).
phases.schema = [[{frames, params: {min_frames, min_step_pct, z, bins},
  phases: [{phase, first, last, frames, typical_ms, mean_ms, share_pct}]}]]

local log, sqrt, abs, floor = math.log, math.sqrt, math.abs, math.floor

local function median(list)
  local t = table.move(list, 1, #list, 1, {})
  table.sort(t)
  local n = #t
  if n == 0 then return nil end
  if n % 2 == 1 then return t[(n + 1) // 2] end
  return (t[n // 2] + t[n // 2 + 1]) / 2
end
phases.median = median

local function params_of(params)
  local p = {}
  for k, v in pairs(phases.DEFAULTS) do p[k] = v end
  for k, v in pairs(params or {}) do p[k] = v end
  return p
end

-- The log of a positive typical time; 0 and below map to a floor so that a
-- capture of zero timings is one flat phase.
local TINY = 1e-9
local function ln(x) return log(math.max(x, TINY)) end

-- Binary segmentation of y[1..B] (bin log-medians): the bin indices after
-- which a phase ends, ascending.
local function segment(y, sigma, min_bins, p)
  local floor_step = log(1 + p.min_step_pct / 100)
  local cuts = {}
  local function split(s, e, depth)
    local n = e - s + 1
    if n < 2 * min_bins or #cuts >= p.max_phases - 1 or depth > 32 then return end
    local total = 0
    for i = s, e do total = total + y[i] end
    local best, best_t, left = 0, nil, 0
    for t = s, e - 1 do
      left = left + y[t]
      local nl, nr = t - s + 1, e - t
      if nl >= min_bins and nr >= min_bins then
        local d = abs(left / nl - (total - left) / nr)
        local stat = d * sqrt(nl * nr / n) / sigma
        if stat > best then best, best_t = stat, t end
      end
    end
    if not best_t or best < p.z then return end
    -- the step itself, measured next to the split (a segment may still
    -- hold other phases further away)
    local l, r = {}, {}
    for i = math.max(s, best_t - min_bins + 1), best_t do l[#l + 1] = y[i] end
    for i = best_t + 1, math.min(e, best_t + min_bins) do r[#r + 1] = y[i] end
    if abs(median(l) - median(r)) < floor_step then return end
    cuts[#cuts + 1] = best_t
    split(s, best_t, depth + 1)
    split(best_t + 1, e, depth + 1)
  end
  split(1, #y, 0)
  table.sort(cuts)
  return cuts
end

-- The frame (1-based, the first of the later phase) near a bin boundary
-- that best separates two typical values: least absolute deviation over
-- the frames lo..hi.
local function place(x, lo, hi, before, after)
  local cost = 0
  for i = lo, hi do cost = cost + abs(x[i] - after) end
  local best, at = cost, lo
  for i = lo, hi - 1 do
    cost = cost - abs(x[i] - after) + abs(x[i] - before)
    if cost < best then best, at = cost, i + 1 end
  end
  return at
end

--- phases.find(s [, params]) -> list of {first, last, frames, typical_ms,
-- mean_ms}, info: the phases of the frame times s (a vp.Series or a list,
-- in time order; first and last are positions in s, 1-based), in order;
-- info = {sigma, bins, bin_frames}. params: phases.DEFAULTS' fields.
-- An empty series has no phase.
function phases.find(s, params)
  local p = params_of(params)
  local x = type(s) == "table" and vp.Series(s) or s
  local n = #x
  if n == 0 then return {}, { bins = 0, bin_frames = 0 } end
  local min_frames = math.max(p.min_frames, floor(p.min_share * n))
  local B = math.min(p.bins, n // p.min_bin)
  local function one() return { { first = 1, last = n } } end
  local segs
  local info = { bins = B, bin_frames = B > 0 and n / B or n }
  if B < 4 or n < 2 * min_frames then
    segs = one()
  else
    local edges, y = {}, {}
    for b = 0, B do edges[b] = floor(b * n / B) end
    for b = 1, B do y[b] = ln(x:slice(edges[b - 1] + 1, edges[b]):median()) end
    local d = {}
    for b = 2, B do d[b - 1] = abs(y[b] - y[b - 1]) end
    local sigma = 1.4826 * median(d) / sqrt(2)
    if sigma <= 0 then sigma = 1e-6 end
    info.sigma = sigma
    local min_bins = math.max(2, math.ceil(min_frames / (n / B)))
    local cuts = segment(y, sigma, min_bins, p)
    segs = {}
    local first = 1
    for i, c in ipairs(cuts) do
      -- the typical values either side, from the bins up to the neighbouring cuts
      local lo_bin, hi_bin = (cuts[i - 1] or 0) + 1, cuts[i + 1] or B
      local l, r = {}, {}
      for b = lo_bin, c do l[#l + 1] = y[b] end
      for b = c + 1, hi_bin do r[#r + 1] = y[b] end
      local before, after = math.exp(median(l)), math.exp(median(r))
      local lo = math.max(first + 1, edges[math.max(0, c - 2)] + 1)
      local hi = math.min(n, edges[math.min(B, c + 2)])
      local at = place(x, lo, hi, before, after)
      if at - first >= 1 then
        segs[#segs + 1] = { first = first, last = at - 1 }
        first = at
      end
    end
    segs[#segs + 1] = { first = first, last = n }
  end
  for _, seg in ipairs(segs) do
    local part = x:slice(seg.first, seg.last)
    seg.frames = seg.last - seg.first + 1
    seg.typical_ms, seg.mean_ms = part:median(), part:mean()
  end
  return segs, info
end

--- phases.analyze(cap [, params]) -> {frames, params, phases = [{phase,
-- first, last, frames, typical_ms, mean_ms, share_pct}]}: the phases of a
-- capture with frames (VProf, a laige budget report), first and last in
-- the capture's frame numbers (cap:frame_range), share_pct the phase's
-- share of the frames. Raises EINPUT for a capture without frame times.
function phases.analyze(cap, params)
  local ok, ft = pcall(function() return cap:frame_times() end)
  if not ok or ft == nil then
    E.raise("EINPUT", "%s: a %s capture has no frame times to find phases in", tostring(cap.path),
      tostring(cap.format))
  end
  local base = 0
  if type(cap.frame_range) == "function" then base = (cap:frame_range() or 1) - 1 end
  local p = params_of(params)
  local segs = phases.find(ft, p)
  local out = {}
  for i, seg in ipairs(segs) do
    out[i] = { phase = i, first = base + seg.first, last = base + seg.last, frames = seg.frames,
      typical_ms = seg.typical_ms, mean_ms = seg.mean_ms, share_pct = 100 * seg.frames / #ft }
  end
  return { frames = #ft, params = { min_frames = p.min_frames, min_step_pct = p.min_step_pct, z = p.z,
    bins = p.bins }, phases = out }
end

return phases
