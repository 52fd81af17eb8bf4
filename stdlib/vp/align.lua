-- vp.align: do two captures line up, and if so, which stretch of one goes
-- with which stretch of the other. Two runs of one timedemo, replay or
-- scripted benchmark do: the same part of the scenario comes at about the
-- same place in each, so comparing them stretch by stretch cancels what
-- the scenario does (its phases, the hitches that recur at the same
-- place) and leaves what the build changed. Free play does not line up.
-- vp.compare and vp.gate pair the stretches this module finds
-- (vp.infer.paired); docs/compare.md states the method.
--
--   local align = require "vp.align"
--   local plan = align.plan(cap_a:frame_times(), cap_b:frame_times(), {pairing = "auto"})
--   print(plan.method, plan.axis, plan.stretches, plan.agreement)   -- "aligned", "position", 40, 0.97
--   -- plan.cuts_a, plan.cuts_b: where each side's stretches start (0-based), and its frame count last
--
-- How (align.DEFAULTS holds the numbers):
--   1. Each capture's phases (vp.phases). A boundary of A and one of B
--      match when the typical frame time steps the same way at both, by
--      sizes within a factor of match_step, at places within match_pos of
--      the capture of each other; the matches kept are the largest set
--      that keeps their order. Matched boundaries are knots: no stretch
--      crosses one, so a phase that starts 1 % later in B is still paired
--      with itself.
--   2. Between knots, each side is cut into the same number of stretches
--      at equal shares of the segment, along an axis: the frames
--      (position) or the time they took (elapsed), whichever lines the two
--      up better (step 3). About stretch_frames frames a stretch,
--      min_stretches .. max_stretches in all.
--   3. The agreement of the two stretch profiles: 1 - var(L_B - L_A) /
--      (var(L_A) + var(L_B)), L the log of each stretch's median frame
--      time (its mean, for the hitches that recur: the larger of the two
--      counts). About 0 when the profiles are unrelated (steady captures,
--      or free play), near 1 when the scenario's shape is shared.
--   4. pairing = "auto" pairs when the agreement is at least
--      min_agreement; "aligned" always pairs (the user says the runs line
--      up), "independent" never.
local vp = require "vp"
local E = require "vp.error"
local phases = require "vp.phases"

local align = {}

align.DEFAULTS = { pairing = "auto", stretch_frames = 75, min_stretches = 10, max_stretches = 40,
  min_agreement = 0.5, match_pos = 0.05, match_step = 2, same_frames = 0.02 }

align.PAIRINGS = { auto = true, aligned = true, independent = true }

local log, abs, floor = math.log, math.abs, math.floor

local function params_of(params)
  local p = {}
  for k, v in pairs(align.DEFAULTS) do p[k] = v end
  for k, v in pairs(params or {}) do p[k] = v end
  if not align.PAIRINGS[p.pairing] then
    E.raise("EUSAGE", "vp.align: pairing must be auto, aligned or independent, got %s", tostring(p.pairing))
  end
  return p
end

-- An axis of one side: n frames; cut(f) -> the frames before fraction f of
-- the axis (0 .. n); frac(c) -> the fraction of the axis before cut c.
local function axis(ft, kind)
  local n = #ft
  if kind == "position" then
    return { n = n, cut = function(f) return floor(f * n + 0.5) end, frac = function(c) return c / n end }
  end
  local cs = ft:cumsum()
  local total = n > 0 and cs[n] or 0
  if total <= 0 or total ~= total then return nil end
  return {
    n = n,
    frac = function(c) return c == 0 and 0 or cs[c] / total end,
    cut = function(f)
      -- the number of frames that end at or before f x total
      local target = f * total
      local lo, hi = 0, n
      while lo < hi do
        local mid = (lo + hi + 1) // 2
        if cs[mid] <= target + 1e-9 * total then lo = mid else hi = mid - 1 end
      end
      return lo
    end,
  }
end

-- The phase boundaries of one side on an axis: {f, step} (step: the log
-- ratio of the typical frame time after to before).
local function boundaries(segs, ax)
  local out = {}
  for i = 2, #segs do
    out[#out + 1] = { f = ax.frac(segs[i].first - 1),
      step = log(math.max(segs[i].typical_ms, 1e-9) / math.max(segs[i - 1].typical_ms, 1e-9)) }
  end
  return out
end

-- The largest order-keeping set of matching boundaries (dynamic
-- programming over the two short lists): knots {fa, fb}.
local function match(ba, bb, p)
  local function ok(x, y)
    if (x.step > 0) ~= (y.step > 0) then return false end
    if abs(x.f - y.f) > p.match_pos then return false end
    local r = abs(x.step) / math.max(abs(y.step), 1e-12)
    return r <= p.match_step and r >= 1 / p.match_step
  end
  local m, n = #ba, #bb
  local best = {}
  for i = 0, m do
    best[i] = {}
    for j = 0, n do
      if i == 0 or j == 0 then
        best[i][j] = 0
      else
        local v = math.max(best[i - 1][j], best[i][j - 1])
        if ok(ba[i], bb[j]) then v = math.max(v, best[i - 1][j - 1] + 1) end
        best[i][j] = v
      end
    end
  end
  local knots = {}
  local i, j = m, n
  while i > 0 and j > 0 do
    if ok(ba[i], bb[j]) and best[i][j] == best[i - 1][j - 1] + 1 then
      table.insert(knots, 1, { fa = ba[i].f, fb = bb[j].f })
      i, j = i - 1, j - 1
    elseif best[i - 1][j] >= best[i][j - 1] then
      i = i - 1
    else
      j = j - 1
    end
  end
  return knots
end

-- Cuts of both sides: k stretches in all, none across a knot, each side's
-- stretches at equal shares of its segment; stretches left empty on
-- either side are merged into the next.
local function cut(axa, axb, knots, k)
  local ka, kb = { 0 }, { 0 }
  for _, kn in ipairs(knots) do
    ka[#ka + 1], kb[#kb + 1] = kn.fa, kn.fb
  end
  ka[#ka + 1], kb[#kb + 1] = 1, 1
  local ca, cb, seg = { 0 }, { 0 }, {}
  for s = 2, #ka do
    local la, lb = ka[s] - ka[s - 1], kb[s] - kb[s - 1]
    local m = math.max(1, floor(k * (la + lb) / 2 + 0.5))
    for i = 1, m do
      local xa = i == m and (s == #ka and axa.n or axa.cut(ka[s])) or axa.cut(ka[s - 1] + la * i / m)
      local xb = i == m and (s == #kb and axb.n or axb.cut(kb[s])) or axb.cut(kb[s - 1] + lb * i / m)
      if xa > ca[#ca] and xb > cb[#cb] then
        ca[#ca + 1], cb[#cb + 1] = xa, xb
        seg[#seg + 1] = s - 1
      end
    end
  end
  -- the last stretch ends at the last frame on both sides
  ca[#ca], cb[#cb] = axa.n, axb.n
  return ca, cb, seg
end

local function variance(l)
  local n = #l
  if n < 2 then return 0 end
  local s = 0
  for _, v in ipairs(l) do s = s + v end
  local m = s / n
  local ss = 0
  for _, v in ipairs(l) do ss = ss + (v - m) ^ 2 end
  return ss / (n - 1)
end

-- The agreement of two profiles (lists of logs): 1 - var(b - a) / (var(a) + var(b)).
local function agreement(la, lb)
  local d = {}
  for i = 1, #la do d[i] = lb[i] - la[i] end
  local v = variance(la) + variance(lb)
  if v <= 0 then return 0 end
  return 1 - variance(d) / v
end

-- Each stretch's log median and log mean of one side.
local function profile(ft, cuts)
  local med, mean = {}, {}
  for i = 2, #cuts do
    local s = ft:slice(cuts[i - 1] + 1, cuts[i])
    med[i - 1] = log(math.max(s:median(), 1e-9))
    mean[i - 1] = log(math.max(s:mean(), 1e-9))
  end
  return med, mean
end

--- align.plan(fa, fb [, params]) -> plan: how to pair the frame times fa
-- (A, the baseline) and fb (B), two vp.Series in time order. params:
-- align.DEFAULTS' fields (pairing "auto" | "aligned" | "independent"). The
-- plan: {method = "aligned" | "independent", decided = "auto" | "forced",
-- axis = "position" | "elapsed" | nil, stretches, cuts_a, cuts_b (stretch
-- starts, 0-based, then the frame count: what vp.infer.sample's cuts
-- take), segments (for each stretch, the segment between knots it lies
-- in: the phase pair it belongs to), agreement, agreement_median, agreement_mean, knots (matched phase
-- boundaries), phases_a, phases_b (vp.phases.find's), why (one line saying
-- what decided)}. An independent plan has no cuts.
function align.plan(fa, fb, params)
  local p = params_of(params)
  -- cuts count frames from each column's start: positions 1..n
  fa, fb = vp.Series(fa, 1), vp.Series(fb, 1)
  local na, nb = #fa, #fb
  local plan = { decided = p.pairing == "auto" and "auto" or "forced", phases_a = phases.find(fa),
    phases_b = phases.find(fb) }
  local k = math.min(p.max_stretches, math.min(na, nb) // p.stretch_frames)
  if p.pairing == "independent" then
    plan.method, plan.why = "independent", "the captures are compared as independent samples (--pairing independent)"
    return plan
  end
  if k < p.min_stretches then
    k = math.min(p.min_stretches, math.min(na, nb) // 10)
    if k < p.min_stretches or p.pairing == "auto" then
      plan.method = "independent"
      plan.why = string.format("too few frames to pair stretches (%d and %d; %d a side at least)", na, nb,
        p.min_stretches * p.stretch_frames)
      if p.pairing == "aligned" and k < 2 then
        E.raise("EINPUT", "cannot pair the captures: %s", plan.why)
      end
      if p.pairing == "auto" then return plan end
    end
  end
  -- The axis is not chosen by how alike it makes the two captures look
  -- (that would make them look alike by choice): the frames, unless the
  -- frame counts differ, when the time the frames took lines them up.
  local kinds = { math.abs(na - nb) <= p.same_frames * math.max(na, nb) and "position" or "elapsed" }
  local best
  for _, kind in ipairs(kinds) do
    local axa, axb = axis(fa, kind), axis(fb, kind)
    if axa and axb then
      local knots = match(boundaries(plan.phases_a, axa), boundaries(plan.phases_b, axb), p)
      local ca, cb, seg = cut(axa, axb, knots, k)
      if #ca > 2 then
        local meda, meana = profile(fa, ca)
        local medb, meanb = profile(fb, cb)
        local gm, gx = agreement(meda, medb), agreement(meana, meanb)
        local score = math.max(gm, gx)
        if not best or score > best.agreement + 1e-12 then
          best = { axis = kind, cuts_a = ca, cuts_b = cb, segments = seg, knots = knots, agreement = score,
            agreement_median = gm, agreement_mean = gx }
        end
      end
    end
  end
  if not best then
    plan.method, plan.why = "independent", "the captures have no frame time to line up"
    if p.pairing == "aligned" then E.raise("EINPUT", "cannot pair the captures: %s", plan.why) end
    return plan
  end
  for key, v in pairs(best) do plan[key] = v end
  plan.stretches = #best.cuts_a - 1
  local what = string.format("%d stretches by %s, %d matched phase boundar%s, profile agreement %.2f",
    plan.stretches, best.axis, #best.knots, #best.knots == 1 and "y" or "ies", best.agreement)
  if p.pairing == "aligned" then
    plan.method, plan.why = "aligned", "paired as told (--pairing aligned): " .. what
  elseif best.agreement >= p.min_agreement then
    plan.method, plan.why = "aligned", "the captures line up: " .. what
  else
    plan.method = "independent"
    plan.why = string.format("the captures do not line up (profile agreement %.2f, below %.2f): compared as "
      .. "independent samples", best.agreement, p.min_agreement)
  end
  return plan
end

return align
