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
-- hitch, however large, moves no bin); the logarithms of those medians
-- are a short series whose change points vp.changepoint finds (E-Divisive
-- means in windows, Welch's t at max_p, the same method history.lua uses
-- across nights): a change is kept when both sides hold at least
-- min_frames frames (3 % of the capture at least) and the typical frame
-- time steps by at least min_step_pct %, so that slow drift, which wanders
-- by a few per cent, is no phase. Each boundary is then placed at the
-- frame where it best separates the two phases' typical times (least
-- absolute deviation within two bins of it). A series too short for two
-- phases is one phase.
local vp = require "vp"
local E = require "vp.error"
local cp = require "vp.changepoint"
local infer = require "vp.infer"

local phases = {}

phases.DEFAULTS = { bins = 200, min_bin = 8, min_frames = 60, min_share = 0.03, min_step_pct = 4, max_p = 0.001,
  window = 50, max_phases = 16 }

--- The --json shape of phases.analyze (docs/architecture.md notation).
phases.schema = [[{frames, params: {min_frames, min_step_pct, z, bins},
  phases: [{phase, first, last, frames, typical_ms, mean_ms, share_pct}]}]]

local log, abs, floor = math.log, math.abs, math.floor

local median = infer.median

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

-- The change points of y[1..B] (bin log-medians), by vp.changepoint
-- (E-Divisive means with its t test), each step at least min_step_pct
-- and both sides at least min_bins bins: the bin indices after which a
-- phase ends, ascending.
local function segment(y, min_bins, p)
  local r = cp.detect(y, { min_segment = min_bins, min_rel = 0, min_abs = log(1 + p.min_step_pct / 100),
    max_p = p.max_p, window = math.max(2 * min_bins + 2, p.window) })
  local cuts = {}
  for i, c in ipairs(r.changes) do
    if i < p.max_phases then cuts[#cuts + 1] = c.index - 1 end
  end
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
  -- positions 1..n, whatever the column's own numbering
  local x = vp.Series(s, 1)
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
    local min_bins = math.max(2, math.ceil(min_frames / (n / B)))
    local cuts = segment(y, min_bins, p)
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
-- the capture's frame numbers (cap.first_frame..), share_pct the phase's
-- share of the frames. Raises EINPUT for a capture without frame times.
function phases.analyze(cap, params)
  local ok, ft = pcall(function() return cap:frame_times() end)
  if not ok or ft == nil then
    E.raise("EINPUT", "%s: a %s capture has no frame times to find phases in", tostring(cap.path),
      tostring(cap.format))
  end
  local base = (cap.first_frame or 1) - 1
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
