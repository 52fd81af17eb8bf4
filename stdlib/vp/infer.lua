-- vp.infer: significance, intervals and effect sizes for comparing two
-- captures whose per-frame values are not independent. The methods behind
-- vp.compare and vp.gate; docs/compare.md states them with their
-- assumptions and the calibration (tools/calibrate.lua, `make calibrate`).
--
--   local infer = require "vp.infer"
--   local a, b = infer.sample(cap_a:frame_times()), infer.sample(cap_b:frame_times())
--   local d = infer.compare({kind = "mean"}, a, b)      -- {diff, lo, hi, p, df, ...}
--   local q = infer.compare({kind = "quantile", p = 0.99}, a, b)
--   local s = infer.shape(a, b)                         -- {test, p, at, ...}
--   local e = infer.effects(a, b)                       -- {hl, hl_lo, hl_hi, delta, ...}
--   local r = infer.runs({16.1, 16.3, 16.0}, {16.9, 16.7, 17.0})   -- Welch's t on run values
--
-- Methods (the numbers are infer.DEFAULTS; tools/calibrate.lua chose them):
--   batch means     a series of n values in time order is cut into k = min(20,
--                   floor(n / 10)) contiguous batches; the variance of the
--                   grand mean is s_b^2 / k (s_b^2: the batch means' sample
--                   variance) inflated by (1 + r) / (1 - r), with
--                   (k - 1) (1 - r) / (1 + r) degrees of freedom, r the batch
--                   means' lag-1 autocorrelation plus (1 + 3 r) / k (its
--                   bias in a short series) clipped to [0, 0.95]. Slow drift
--                   that outlives a batch shows up as r > 0 and widens the
--                   interval instead of faking a difference.
--   mean            the batch variance of the values themselves.
--   quantile        Woodruff: the batch variance of the indicator series
--                   1{x <= q} (q the nearest-rank quantile) is se_p^2; the
--                   quantile's se is (Q(p + t se_p) - Q(p - t se_p)) / 2t
--                   with Q the empirical quantile function and t the 95 %
--                   t value. Needs >= min_tail values beyond q.
--   low_fps         1000 / ES, ES the mean of the slowest k = max(1,
--                   floor(n pct / 100)) frames, written as the mean of
--                   y_i = q + (n / k) max(x_i - q, 0) (q the k-th largest
--                   value), whose batch variance is ES's; the delta method
--                   carries it to fps. Needs k >= min_tail.
--   ratio           share = 100 sum(g) / sum(f): the batch variance of
--                   100 (g_i - R f_i) / mean(f).
--   independent     (per-trace rates and counts of weapon traces: each
--                   trace is its own bullet) the plain variance s^2 / n.
--   difference      B - A with Welch-Satterthwaite: se^2 = v_a + v_b, df =
--                   se^4 / (v_a^2 / df_a + v_b^2 / df_b); two-sided p from
--                   Student's t; interval diff -+ t_{df, 1 - (1 - level)/2} se.
--   shape           at the pooled 5, 10, 25, 50, 75, 90, 95 and 99th
--                   percentiles, each side's share of values at or below,
--                   compared by Welch's t with the indicator's batch
--                   variance; p = the smallest p times the points
--                   (Bonferroni). Or the Kolmogorov-Smirnov / Anderson-
--                   Darling distance with each n replaced by n / f, f the
--                   largest (at least 1) ratio of the indicator's batch
--                   variance to p (1 - p) / n over p = 0.1 .. 0.9.
--   effects         Cliff's delta = P(B > A) - P(B < A) over all pairs of
--                   values, with the batch variance of each side's per-value
--                   dominance (the linear part of the U statistic) for its
--                   interval; the Hodges-Lehmann shift = the median of the
--                   n_a n_b differences b - a, its interval the differences
--                   of rank N/2 -+ t se(delta) N / 2 (the rank-test interval,
--                   with the dependence-aware se).
--   runs            Welch's t on one value per run (runs are independent).
-- Every function returns plain data, or nil and a reason when the data
-- cannot support the statistic (too few values, nothing beyond a tail).
local vp = require "vp"
local E = require "vp.error"
local C = require "vp.infer.core" -- the C loops (bindings/l_infer.c), preloaded by require "vp"

local infer = {}

--- infer.concat({x, y, ...}) -> Series: samples one after the other (runs pooled).
infer.concat = C.concat

infer.DEFAULTS = { batches = 20, min_batch = 10, level = 0.95, min_tail = 10, r_max = 0.95, r_correct = true }

-- Where the effective size of a sample is measured (KS, AD).
local EFFECTIVE_GRID = { 0.1, 0.25, 0.5, 0.75, 0.9 }

local function defaults(opts)
  local o = {}
  for k, v in pairs(infer.DEFAULTS) do o[k] = v end
  for k, v in pairs(opts or {}) do o[k] = v end
  return o
end

--- infer.t_crit(level, df) -> the two-sided critical t value.
function infer.t_crit(level, df)
  return C.t_quantile(1 - (1 - level) / 2, df)
end

-- Batch means ------------------------------------------------------------------------

--- infer.batch_variance(means [, opts]) -> {mean, var, df, r, k}: the
-- variance of the grand mean of a series from its k batch means (see the
-- top of this file). opts.r_max clips r (0.95); opts.r = 0 forces
-- independence. nil for fewer than 2 batches.
function infer.batch_variance(means, opts)
  local k = #means
  if k < 2 then return nil, "fewer than 2 batches" end
  local r_max = (opts and opts.r_max) or infer.DEFAULTS.r_max
  local s = 0
  for i = 1, k do s = s + means[i] end
  local m = s / k
  local ss, lag = 0, 0
  for i = 1, k do
    local d = means[i] - m
    ss = ss + d * d
    if i > 1 then lag = lag + d * (means[i - 1] - m) end
  end
  local r = 0
  if opts and opts.r ~= nil then
    r = opts.r
  elseif ss > 0 then
    r = lag / ss
    if not opts or opts.r_correct ~= false then r = r + (1 + 3 * r) / k end
    r = math.max(0, math.min(r_max, r))
  end
  local f = (1 + r) / (1 - r)
  return { mean = m, var = ss / (k - 1) / k * f, df = (k - 1) / f, r = r, k = k }
end

-- Samples ------------------------------------------------------------------------------
-- A sample keeps what every statistic below needs and nothing in time
-- order: each batch's value counts and sum (a vp.infer.batched, host/core/
-- infer.h), the whole sample's counts, n and the sum. A column (a vp.Series
-- or a list) is cut into its batches here; a summary that gives its batches
-- itself (a VProf capture's per-frame summaries: src:batches(cuts), #src,
-- src:sum()) is asked for them, so a capture's columns are never built.

local function is_series(x)
  local mt = getmetatable(x)
  return type(mt) == "table" and rawget(mt, "__name") == "vp.Series"
end

-- A part that gives its batches itself (not a column).
local function is_source(x)
  return type(x) ~= "number" and not is_series(x) and x.batches ~= nil
end

-- A column as a Series without its NaN values (a sensor that read nothing).
local function column(x)
  if not is_series(x) then x = vp.Series(x) end
  if x:count() < #x then x = x:filter(function(v) return v == v end) end
  return x
end

--- infer.cuts(n, k) -> {0, c_1, ..., c_(k-1), n}: where each of the k
-- batches of n values starts (sizes differ by at most one, the first n % k
-- one longer), and the end.
function infer.cuts(n, k)
  local base, extra, c = n // k, n % k, {}
  for b = 0, k do c[b + 1] = b * base + math.min(b, extra) end
  return c
end

--- infer.batch_count(n) -> k: the batches a sample of n values is cut into
-- (min(DEFAULTS.batches, floor(n / DEFAULTS.min_batch))).
function infer.batch_count(n)
  return math.min(infer.DEFAULTS.batches, n // infer.DEFAULTS.min_batch)
end

--- infer.split(lengths, k) -> {cuts, ...}, batch_of: the batches of the
-- parts of lengths[i] values laid one after the other, as each part's own
-- cuts (infer.cuts' form) and, for every segment of every part in order,
-- the batch (1-based) it belongs to.
function infer.split(lengths, k)
  local n = 0
  for _, len in ipairs(lengths) do n = n + len end
  local global = infer.cuts(n, k)
  local out, batch_of, at, b = {}, {}, 0, 1
  for i, len in ipairs(lengths) do
    local c = { 0 }
    while b <= k and global[b] < at + len do
      -- batch b covers [global[b], global[b + 1]); from `at` on inside this part
      local stop = math.min(global[b + 1], at + len)
      batch_of[#batch_of + 1] = b
      c[#c + 1] = stop - at
      if global[b + 1] <= at + len then b = b + 1 else break end
    end
    if #c == 1 then -- an empty part: one empty segment, in the batch going on
      c[2] = 0
      batch_of[#batch_of + 1] = math.min(b, k)
    end
    out[i] = c
    at = at + len
  end
  return out, batch_of
end

--- infer.sample(x [, opts]) -> sample: the values of one side in time
-- order: a column (a vp.Series or a list of numbers), a summary that gives
-- its batches itself, or a list of them (runs, one after the other; a list
-- of columns is concatenated as before). The sample has n, the number of
-- batches k (min(opts.batches, floor(n / opts.min_batch))), sum and mean,
-- x (the column, when it came as one) and batched() (the vp.infer.batched,
-- made on first use); NaN values are left out. opts.independent = true:
-- values are independent units (weapon traces, columns only): means and
-- shares get the plain variance, the effect sizes one value a batch.
-- opts.cuts: the batches themselves ({0, c_1, ..., n}, one capture: the
-- stretches vp.align paired), instead of k equal ones.
function infer.sample(x, opts)
  local o = defaults(opts)
  local parts = x
  if is_series(x) or is_source(x) or type(x) ~= "table" or type(x[1]) == "number" or x[1] == nil then
    parts = { x }
  end
  local sources = false
  for _, part in ipairs(parts) do
    if is_source(part) then sources = true end
  end
  local s = { independent = o.independent == true, opts = o }
  local make
  if not sources then
    local xs = column(#parts == 1 and parts[1] or C.concat(parts))
    s.x, s.n, s.sum = xs, #xs, xs:sum()
    s.mean = s.n > 0 and xs:mean() or nil
    make = function(k) return C.batched(xs, infer.cuts(s.n, k)) end
  else
    if s.independent then E.raise("EUSAGE", "vp.infer: independent values must come as a column") end
    -- the sum: the parts' own (a VProf summary's is its column's, bit for
    -- bit), else the batches'
    local lengths, n, sum = {}, 0, 0
    for i, part in ipairs(parts) do
      lengths[i] = #part
      n = n + lengths[i]
      if sum and part.sum then sum = sum + part:sum() else sum = nil end
    end
    s.n = n
    make = function(k)
      if #parts == 1 then return parts[1]:batches(infer.cuts(n, k)) end
      local cuts, batch_of = infer.split(lengths, k)
      local objs = {}
      for i, part in ipairs(parts) do
        objs[i] = is_source(part) and part:batches(cuts[i]) or C.batched(column(part), cuts[i])
      end
      return C.join(objs, batch_of, k)
    end
    s.sum = sum
  end
  s.k = math.min(o.batches, s.n // o.min_batch)
  if o.cuts then
    if #parts ~= 1 or o.cuts[#o.cuts] ~= s.n then
      E.raise("EUSAGE", "vp.infer: cuts are for one part and must end at its length (%d)", s.n)
    end
    local cuts, whole = o.cuts, make
    s.k = #cuts - 1
    make = function(k) return k == s.k and (is_source(parts[1]) and parts[1]:batches(cuts)
      or C.batched(s.x, cuts)) or whole(k) end
  end
  local made = {}
  --- s.batched([k]) -> the k batches (default: max(1, s.k), at least one
  -- so that the whole sample's counts exist; independent values' effect
  -- sizes ask for one value a batch).
  function s.batched(k)
    k = k or math.max(1, s.k)
    if not made[k] then
      made[k] = make(k)
      if s.sum == nil then s.sum = select(3, made[k]:info()) end
    end
    return made[k]
  end
  if s.sum == nil and s.n > 0 then s.batched() end
  if s.mean == nil and s.n > 0 then s.mean = s.sum / s.n end
  return s
end

-- The batch means of f(x) for a sample, and their variance.
local function batched(s, map, c)
  if s.k < 2 then
    return nil, string.format("too few values to batch (%d; at least %d)", s.n, 2 * s.opts.min_batch)
  end
  return infer.batch_variance(C.means(s.batched(), map or "value", c), s.opts)
end

-- Nearest-rank quantile of a sample (p in 0..1): the rank is C's, the one
-- definition (ceil(p n), at least 1, at most n).
local function nearest(s, p)
  local rank = C.nearest_rank(p * 100, s.n)
  return C.rank(s.batched(), rank), rank
end
infer.nearest = nearest

-- Estimates ---------------------------------------------------------------------------
-- An estimate is {value, var, df}: the statistic, the variance of its
-- estimator and the degrees of freedom of that variance.

--- infer.mean(s) -> estimate of the mean.
function infer.mean(s)
  if s.n == 0 then return nil, "no values" end
  local m = s.mean
  if s.independent then
    if s.n < 2 then return nil, "fewer than 2 values" end
    local sd = s.x:stddev()
    return { value = m, var = sd * sd / (s.n - 1), df = s.n - 1 }
  end
  local b, why = batched(s)
  if not b then return nil, why end
  return { value = m, var = b.var, df = b.df, r = b.r }
end

--- infer.quantile(s, p [, opts]) -> estimate of the nearest-rank p-quantile (p in (0, 1)).
function infer.quantile(s, p, opts)
  local o = defaults(opts)
  if s.n == 0 then return nil, "no values" end
  local tail = math.min(p, 1 - p) * s.n
  if tail < o.min_tail then
    return nil, string.format("too few values beyond the quantile (%.0f; at least %d)", tail, o.min_tail)
  end
  local q = nearest(s, p)
  local b, why = batched(s, "at_most", q)
  if not b then return nil, why end
  local t = o.woodruff_z or infer.t_crit(o.level, b.df)
  local se_p = math.sqrt(b.var)
  local lo = nearest(s, math.max(0, p - t * se_p))
  local hi = nearest(s, math.min(1, p + t * se_p))
  local se = (hi - lo) / (2 * t)
  return { value = q, var = se * se, df = b.df, r = b.r }
end

--- infer.indicator(s, c) -> estimate of the share of values at most c.
function infer.indicator(s, c)
  if s.independent then
    if s.n < 2 then return nil, "fewer than 2 values" end
    local p = C.at_most(s.batched(), c) / s.n
    return { value = p, var = p * (1 - p) / (s.n - 1), df = s.n - 1 }
  end
  local b, why = batched(s, "at_most", c)
  if not b then return nil, why end
  return { value = b.mean, var = b.var, df = b.df, r = b.r }
end

--- infer.tail_mean(s, pct [, opts]) -> estimate of the mean of the largest
-- max(1, floor(n pct / 100)) values (the "pct % low" frame time).
function infer.tail_mean(s, pct, opts)
  local o = defaults(opts)
  if s.n == 0 then return nil, "no values" end
  local k = math.max(1, math.floor(s.n * pct / 100 + 1e-9))
  if k < o.min_tail then
    return nil, string.format("too few values in the slowest %s %% (%d; at least %d)", tostring(pct), k, o.min_tail)
  end
  local q = C.rank(s.batched(), s.n - k + 1)
  local b, why = batched(s, "excess", q)
  if not b then return nil, why end
  local excess = C.top_excess(s.batched(), k, q)
  local scale = s.n / k
  -- the mean of the top k = q + (n / k) x the mean excess over q
  return { value = q + excess / k, var = scale * scale * b.var, df = b.df, r = b.r }
end

--- infer.ratio(num, den [, scale]) -> estimate of scale x sum(num) / sum(den),
-- num and den samples of the same length (group time over frame time).
function infer.ratio(num, den, scale)
  scale = scale or 1
  if num.n == 0 or num.n ~= den.n then return nil, "no values" end
  local sd = den.sum
  if sd == 0 then return nil, "the denominator is 0" end
  local r = num.sum / sd
  if num.k < 2 then return nil, "too few values to batch" end
  local bn = C.means(num.batched(), "value")
  local bd = C.means(den.batched(), "value")
  local mean_den = sd / den.n
  local y = {}
  for i = 1, #bn do y[i] = scale * (bn[i] - r * bd[i]) / mean_den end
  local b = infer.batch_variance(y)
  return { value = scale * r, var = b.var, df = b.df, r = b.r }
end

--- infer.map(e, f, slope) -> the estimate of f(value) by the delta method
-- (slope = f'(value)).
function infer.map(e, f, slope)
  return { value = f(e.value), var = slope * slope * e.var, df = e.df, r = e.r }
end

--- infer.estimate(stat, s [, opts]) -> estimate | nil, why. stat: {kind =
-- "mean" | "quantile" (p) | "low_fps" (pct) | "share" | "count" |
-- "extreme", scale}; "share" needs opts.den (the frame-time sample).
function infer.estimate(stat, s, opts)
  local k = stat.kind
  local e, why
  if k == "mean" or k == "count" then
    e, why = infer.mean(s)
    if e and k == "count" then e = infer.map(e, function(v) return v * s.n end, s.n) end
  elseif k == "quantile" then
    e, why = infer.quantile(s, stat.p, opts)
  elseif k == "low_fps" then
    e, why = infer.tail_mean(s, stat.pct, opts)
    if e then
      if e.value <= 0 then return nil, "the slowest frames took 0 ms" end
      e = infer.map(e, function(v) return 1000 / v end, -1000 / (e.value * e.value))
    end
  elseif k == "share" then
    if not (opts and opts.den) then return nil, "no frame times to divide by" end
    e, why = infer.ratio(s, opts.den, 100)
  else
    return nil, "an extreme value (max, min) has no interval"
  end
  if not e then return nil, why end
  if stat.scale then e = infer.map(e, function(v) return v * stat.scale end, stat.scale) end
  return e
end

-- Differences ------------------------------------------------------------------------

--- infer.difference(ea, eb [, level]) -> {diff, se, df, t, p, lo, hi,
-- level}: B - A by Welch-Satterthwaite over two estimates.
function infer.difference(ea, eb, level)
  level = level or infer.DEFAULTS.level
  local diff = eb.value - ea.value
  local var = ea.var + eb.var
  local out = { diff = diff, level = level }
  if var <= 0 then
    out.se, out.df, out.lo, out.hi = 0, ea.df + eb.df, diff, diff
    out.p = diff == 0 and 1 or 0
    out.t = nil
    return out
  end
  local se = math.sqrt(var)
  local denom = (ea.var > 0 and ea.var * ea.var / ea.df or 0) + (eb.var > 0 and eb.var * eb.var / eb.df or 0)
  local df = var * var / denom
  local t = diff / se
  local crit = infer.t_crit(level, df)
  out.se, out.df, out.t = se, df, t
  out.p = C.t_two_sided(t, df)
  out.lo, out.hi = diff - crit * se, diff + crit * se
  return out
end

--- infer.compare(stat, sa, sb [, opts]) -> {a, b, diff, se, df, t, p, lo,
-- hi, level} | nil, why: the statistic on both samples and its change.
-- opts: level, den_a and den_b (share), and the DEFAULTS.
function infer.compare(stat, sa, sb, opts)
  opts = opts or {}
  local oa, ob = {}, {}
  for k, v in pairs(opts) do oa[k], ob[k] = v, v end
  oa.den, ob.den = opts.den_a, opts.den_b
  local ea, why = infer.estimate(stat, sa, oa)
  if not ea then return nil, why end
  local eb, whyb = infer.estimate(stat, sb, ob)
  if not eb then return nil, whyb end
  local d = infer.difference(ea, eb, opts.level)
  d.a, d.b = ea.value, eb.value
  return d
end

--- infer.runs(va, vb [, level]) -> {a, b, diff, se, df, t, p, lo, hi,
-- n_a, n_b, level} | nil, why: Welch's t on one value per run (lists of
-- numbers, at least 2 a side).
function infer.runs(va, vb, level)
  local function est(v)
    local n = #v
    local s = 0
    for i = 1, n do s = s + v[i] end
    local m = s / n
    local ss = 0
    for i = 1, n do ss = ss + (v[i] - m) ^ 2 end
    return { value = m, var = ss / (n - 1) / n, df = n - 1 }
  end
  if #va < 2 or #vb < 2 then return nil, "fewer than 2 runs on a side" end
  local ea, eb = est(va), est(vb)
  local d = infer.difference(ea, eb, level)
  d.a, d.b, d.n_a, d.n_b = ea.value, eb.value, #va, #vb
  return d
end

-- Paired stretches ------------------------------------------------------------------
-- Two captures that line up (vp.align) are cut into the same number of
-- stretches, stretch i of A going with stretch i of B; each sample here
-- was made with those cuts (infer.sample's opts.cuts), so its batches are
-- the stretches. Whatever the scenario does at a place (a phase, a hitch
-- that recurs there) is in both stretches of a pair and cancels.
--   means      the ratio R = sum mean_B,i / sum mean_A,i of the stretch
--              means, with e_i = mean_B,i - R mean_A,i: a stretch whose
--              e_i lies more than `clip` robust standard deviations
--              (1.4826 x the median absolute deviation) from the median
--              is pulled in to that bound (a few hitches that recur with
--              different sizes, a phase boundary placed a little off) and
--              R is corrected by the mean of what is left; its variance is
--              the batch variance of the e_i (infer.batch_variance: the
--              stretches follow each other in time, so their lag-1
--              autocorrelation widens it) over mean(mean_A,i)^2. A change
--              that scales with the load (15 % more Physics, heavier in a
--              fight) leaves e_i flat.
--   the rest   (quantiles, 1 % low FPS, shares) a paired block bootstrap:
--              `reps` draws of the stretches in circular blocks of
--              `block` stretches (K^(1/3), rounded), the same draw for
--              both sides, each giving B's statistic minus A's over the
--              drawn stretches (in C, from the stretches' value counts:
--              infer.boot); their standard deviation is the standard
--              error, with K / block - 1 degrees of freedom. The draws
--              come from a fixed seed: the same captures give the same
--              figures.

infer.PAIRED = { clip = 6, pool = 2, r_df = 4, reps = 1000, seed = 0x2545F491 }

--- infer.paired_df(b, k) -> the degrees of freedom of a paired batch
-- variance b (infer.batch_variance over k batches): its own (k - 1) (1 -
-- r) / (1 + r) for the batches' spread, and the uncertainty of r itself
-- (var r ~ (1 - r^2) / k, carried through log (1 + r) / (1 - r) by the
-- delta method), combined as Satterthwaite combines variances: 2 / (2 /
-- df + 4 / ((1 - r^2) k)). With one lag-1 correlation fitted to 20
-- batches, the interval must allow for that fit being off; the
-- independent test has two sides' fits, and its calibration did not need it.
function infer.paired_df(b, k)
  local r = b.r or 0
  return 2 / (2 / b.df + infer.PAIRED.r_df / ((1 - r * r) * k))
end

--- infer.pool(d, m) -> the means of d's consecutive runs of m values (the
-- last run what is left): the paired means' residuals, stretch by
-- stretch, averaged into batches twice as long before their batch
-- variance, which the slow drift of a run then fits (a stretch of 75
-- frames is shorter than drift's memory).
function infer.pool(d, m)
  if m <= 1 then return d end
  local out = {}
  for i = 1, #d, m do
    local s, c = 0, 0
    for j = i, math.min(#d, i + m - 1) do s, c = s + d[j], c + 1 end
    out[#out + 1] = s / c
  end
  return out
end

--- infer.median(list) -> the median of a list of numbers (the mean of the
-- middle two for an even count), nil for an empty list.
local function median_of(l)
  local t = table.move(l, 1, #l, 1, {})
  table.sort(t)
  local n = #t
  if n == 0 then return nil end
  if n % 2 == 1 then return t[(n + 1) // 2] end
  return (t[n // 2] + t[n // 2 + 1]) / 2
end
infer.median = median_of

--- infer.clip(d [, c]) -> d', clipped: d (a list in time order) with
-- every value that stands out from its neighbours pulled in: a value more
-- than c (infer.PAIRED.clip) robust standard deviations from the median
-- of itself and the two values either side is set to that bound, the
-- standard deviation measured from the steps between neighbours (1.4826
-- x their median absolute size / sqrt 2, as vp.phases does). A lone stretch
-- that a hitch blew up stands out; slow drift, which moves neighbours
-- together, does not. Returns d itself when nothing stands out.
function infer.clip(d, c)
  c = c or infer.PAIRED.clip
  local n = #d
  if n < 3 then return d, 0 end
  local loc, step = {}, {}
  for i = 1, n do
    local w = {}
    for j = math.max(1, i - 2), math.min(n, i + 2) do w[#w + 1] = d[j] end
    loc[i] = median_of(w)
    if i > 1 then step[i - 1] = math.abs(d[i] - d[i - 1]) end
  end
  local sd = 1.4826 * median_of(step) / math.sqrt(2)
  if sd <= 0 then return d, 0 end
  local out, clipped = {}, 0
  for i, v in ipairs(d) do
    local lo, hi = loc[i] - c * sd, loc[i] + c * sd
    if v < lo then v, clipped = lo, clipped + 1 elseif v > hi then v, clipped = hi, clipped + 1 end
    out[i] = v
  end
  return out, clipped
end

--- infer.block_weights(k [, reps]) -> weights, block, packed: the paired
-- block bootstrap's draws of k stretches: reps (infer.PAIRED.reps)
-- weightings one after the other, each how often stretch 1..k is drawn
-- when ceil(k / block) circular blocks of block = max(1, round(k^(1/3)))
-- stretches start at places drawn uniformly (xorshift32 from
-- infer.PAIRED.seed), the last block cut to make k in all; packed: the
-- same for C.boot (C.weights). The last draws asked for are kept (one
-- comparison asks for one k).
local weights_kept -- {key, w, block, packed}
function infer.block_weights(k, reps)
  reps = reps or infer.PAIRED.reps
  local key = k .. ":" .. reps
  local hit = weights_kept
  if hit and hit.key == key then return hit.w, hit.block, hit.packed end
  local block = math.max(1, math.floor(k ^ (1 / 3) + 0.5))
  local state = infer.PAIRED.seed
  local function rand()
    state = state ~ ((state << 13) & 0xFFFFFFFF)
    state = state ~ (state >> 17)
    state = state ~ ((state << 5) & 0xFFFFFFFF)
    return state / 4294967296
  end
  local w = {}
  for r = 0, reps - 1 do
    local base = r * k
    for i = 1, k do w[base + i] = 0 end
    local drawn = 0
    while drawn < k do
      local start = math.floor(rand() * k)
      for j = 0, math.min(block, k - drawn) - 1 do
        local i = (start + j) % k + 1
        w[base + i] = w[base + i] + 1
      end
      drawn = drawn + block
    end
  end
  weights_kept = { key = key, w = w, block = block, packed = C.weights(w) }
  return w, block, weights_kept.packed
end

-- {diff, se, df, t, p, lo, hi, level} for a change `diff` with standard
-- error se and df degrees of freedom.
local function with_se(diff, se, df, level)
  local out = { diff = diff, se = se, df = df, level = level }
  if se ~= se or se <= 0 then
    out.lo, out.hi, out.p = diff, diff, diff == 0 and 1 or 0
    return out
  end
  local crit = infer.t_crit(level, df)
  out.t = diff / se
  out.p = C.t_two_sided(out.t, df)
  out.lo, out.hi = diff - crit * se, diff + crit * se
  return out
end

-- The bootstrap standard error of B's statistic minus A's: draws_a and
-- draws_b the statistic over the same draws of the stretches.
local function boot_se(draws_a, draws_b)
  local d, n, sum = {}, 0, 0
  for i = 1, #draws_a do
    local x = draws_b[i] - draws_a[i]
    if x == x then
      n = n + 1
      d[n] = x
      sum = sum + x
    end
  end
  if n < 2 then return nil end
  local m = sum / n
  local ss = 0
  for i = 1, n do ss = ss + (d[i] - m) ^ 2 end
  return math.sqrt(ss / (n - 1))
end

--- infer.ratio_change(va, vb [, strata [, random]]) -> {value, var, df, r,
-- clipped, strata, relative, tau2}: the relative change of B's per-stretch values vb
-- over A's va (paired lists in time order), R - 1 with R = sum vb / sum
-- va, and its variance (see the top of this section). strata[i] is the
-- segment between matched phase boundaries stretch i lies in: R is then
-- taken segment by segment and the changes weighted by A's share of the
-- total, so that a change that differs between phases (one group slower,
-- where that group's share of the frame differs by phase) is not taken
-- for noise; segments of fewer than 4 stretches join the one before.
-- random: the segments' ratios also vary between runs (tau2, below).
-- Without any A value (a group only B has): the absolute change of the
-- mean, relative = false.
function infer.ratio_change(va, vb, strata, random)
  local k = #va
  local groups, last = {}, nil
  for i = 1, k do
    local s = strata and strata[i] or 1
    if s ~= last then
      groups[#groups + 1] = {}
      last = s
    end
    local g = groups[#groups]
    g[#g + 1] = i
  end
  -- short segments join the one before (the first, the one after)
  local merged = {}
  for _, g in ipairs(groups) do
    local prev = merged[#merged]
    if prev and (#g < 4 or #prev < 4) then
      table.move(g, 1, #g, #prev + 1, prev)
    else
      merged[#merged + 1] = g
    end
  end
  local sum_a = 0
  for i = 1, k do sum_a = sum_a + va[i] end
  local relative = sum_a > 0
  for _, g in ipairs(merged) do
    local s = 0
    for _, i in ipairs(g) do s = s + va[i] end
    if s <= 0 then relative = false end
  end
  if not relative then merged = { {} } for i = 1, k do merged[1][i] = i end end
  -- each segment: its ratio, its clipped residuals pooled in twos, relative
  -- to the segment's level (noise that scales with the load is then one
  -- noise for every segment, its variance taken from all of them)
  local parts, lag, ss, npooled, clipped = {}, 0, 0, 0, 0
  for si, g in ipairs(merged) do
    local sa_, sb_ = 0, 0
    for _, i in ipairs(g) do sa_, sb_ = sa_ + va[i], sb_ + vb[i] end
    local ratio = relative and sb_ / sa_ or nil
    local mean_a = relative and sa_ / #g or 1
    local e = {}
    for j, i in ipairs(g) do e[j] = (ratio and vb[i] - ratio * va[i] or vb[i] - va[i]) / mean_a end
    local c
    e, c = infer.clip(e)
    clipped = clipped + c
    local pooled = infer.pool(e, #e >= 4 and infer.PAIRED.pool or 1)
    local m = 0
    for _, v in ipairs(pooled) do m = m + v end
    m = m / #pooled
    for j, v in ipairs(pooled) do
      ss = ss + (v - m) ^ 2
      if j > 1 then lag = lag + (v - m) * (pooled[j - 1] - m) end
    end
    npooled = npooled + #pooled
    parts[si] = { n = #pooled, est = (ratio and ratio - 1 or 0) + m, w = relative and sa_ / sum_a or 1 }
  end
  -- one lag-1 correlation and one noise variance for every segment's
  -- residuals (bias-corrected and clipped as infer.batch_variance's)
  local r = 0
  if ss > 0 then
    r = lag / ss
    r = math.max(0, math.min(infer.DEFAULTS.r_max, r + (1 + 3 * r) / npooled))
  end
  local f = (1 + r) / (1 - r)
  local dof = math.max(1, npooled - #parts)
  local sigma2 = ss / dof
  -- each segment's estimate varies by its residuals' noise, v = sigma2 f /
  -- n. With `random` (the typical frame), segments whose estimates differ
  -- by more than that (each run's phases a little faster or slower than
  -- another's) add a between-segment variance tau2, DerSimonian and
  -- Laird's moment estimate from Cochran's Q, with #parts - 1 degrees of
  -- freedom of its own: the question is then whether the typical frame
  -- moved in every phase alike. Without it (means: the total time) a
  -- change in one phase alone is a change.
  local within, between, wsum, wq, w2 = 0, 0, 0, 0, 0
  for _, pt in ipairs(parts) do
    pt.v = sigma2 * f / pt.n
    if pt.v > 0 then
      wsum, wq, w2 = wsum + 1 / pt.v, wq + pt.est / pt.v, w2 + 1 / pt.v ^ 2
    end
  end
  local tau2 = 0
  if random and #parts >= 2 and wsum > 0 then
    local fixed, q = wq / wsum, 0
    for _, pt in ipairs(parts) do
      if pt.v > 0 then q = q + (pt.est - fixed) ^ 2 / pt.v end
    end
    tau2 = math.max(0, (q - (#parts - 1)) / (wsum - w2 / wsum))
  end
  local value = 0
  for _, pt in ipairs(parts) do
    value = value + pt.w * pt.est
    within = within + pt.w * pt.w * pt.v
    between = between + pt.w * pt.w * tau2
  end
  -- the degrees of freedom of the within part: its own and the fit of r
  -- (infer.paired_df); of the sum, Satterthwaite's
  local df_within = 2 / (2 / (dof / f) + infer.PAIRED.r_df / ((1 - r * r) * npooled))
  local var = within + between
  local df = df_within
  if between > 0 then df = var ^ 2 / (within ^ 2 / df_within + between ^ 2 / (#parts - 1)) end
  return { value = value, var = var, df = df, r = r, clipped = clipped, strata = #parts, relative = relative,
    tau2 = tau2 }
end

--- infer.paired(stat, sa, sb [, opts]) -> {a, b, diff, se, df, t, p, lo,
-- hi, level, stretches, clipped, method = "paired"} | nil, why: the
-- change of statistic `stat` (infer.estimate's kinds) between two samples
-- made with paired cuts (see above). opts: level, den_a / den_b (the
-- frame-time samples, for a share). diff is the estimate the interval is
-- about: for means, (R - 1) x A's mean.
function infer.paired(stat, sa, sb, opts)
  opts = opts or {}
  local level = opts.level or infer.DEFAULTS.level
  local kind = stat.kind
  if sa.n == 0 or sb.n == 0 then return nil, "no values" end
  local k = sa.k
  if sb.k ~= k or k < 2 then return nil, "the two captures were not cut into the same stretches" end
  local ba, bb = sa.batched(), sb.batched()
  local out
  local typical = kind == "quantile" and stat.p == 0.5
  if kind == "mean" or kind == "count" or typical then
    local va, vb
    if typical then
      va, vb = C.percentiles(ba, 50), C.percentiles(bb, 50)
    else
      va, vb = C.means(ba, "value"), C.means(bb, "value")
    end
    local scale = (stat.scale or 1) * (kind == "count" and sb.n or 1)
    -- the estimate on the scale of A's own figure (its mean, its median)
    local a_value = typical and nearest(sa, 0.5) or sa.mean
    local e = infer.ratio_change(va, vb, opts.strata, typical)
    out = with_se(e.value * a_value * scale, math.sqrt(e.var) * a_value * scale, e.df, level)
    if not e.relative then out = with_se(e.value * scale, math.sqrt(e.var) * scale, e.df, level) end
    out.clipped, out.r, out.strata = e.clipped, e.r, e.strata
    if typical then
      out.a, out.b = a_value, nearest(sb, 0.5)
    else
      out.a, out.b = sa.mean * (stat.scale or 1), sb.mean * (stat.scale or 1)
    end
  elseif kind == "quantile" then
    -- Woodruff on paired stretches: at c, the pooled p-quantile, each
    -- stretch's share of frames at or below c, A's minus B's (pooled in
    -- twos as the means' residuals are); mapped to the quantile through
    -- the slope of the two sides' quantile functions at p.
    local p = stat.p
    local min_tail = infer.DEFAULTS.min_tail
    for _, side in ipairs({ sa, sb }) do
      if math.min(p, 1 - p) * side.n < min_tail then
        return nil, string.format("too few values beyond the quantile (%.0f; at least %d)",
          math.min(p, 1 - p) * side.n, min_tail)
      end
    end
    local N = sa.n + sb.n
    local c = C.pooled_rank(ba, bb, C.nearest_rank(p * 100, N))
    local fa, fb = C.means(ba, "at_most", c), C.means(bb, "at_most", c)
    local d = {}
    for i = 1, k do d[i] = fa[i] - fb[i] end
    local pooled = infer.pool(d, infer.PAIRED.pool)
    local bv = infer.batch_variance(pooled)
    local df = infer.paired_df(bv, #pooled)
    local t = with_se(bv.mean, math.sqrt(bv.var), df, level)
    local crit = infer.t_crit(level, df)
    local se_f = math.sqrt(bv.var)
    -- the quantile function's slope at p, each side's own, measured over
    -- at most half the tail (so that a hitch beyond the tail never sets it)
    local h = math.min(crit * se_f, (1 - p) / 2, p / 2)
    local qa, qb = nearest(sa, p), nearest(sb, p)
    local slope = 0
    if h > 0 then
      for _, side in ipairs({ sa, sb }) do slope = slope + (nearest(side, p + h) - nearest(side, p - h)) / (4 * h) end
    end
    local half = crit * se_f * slope
    out = { diff = qb - qa, level = level, df = df, p = t.p, t = t.t, r = bv.r, clipped = 0, a = qa, b = qb,
      se = crit > 0 and half / crit or 0 }
    out.lo, out.hi = out.diff - half, out.diff + half
  elseif kind == "low_fps" or kind == "share" then
    local _, block, packed = infer.block_weights(k)
    local df = math.max(1, k / block - 1)
    local min_tail = infer.DEFAULTS.min_tail
    local a, b, da, db
    if kind == "low_fps" then
      local es = {}
      for i, side in ipairs({ sa, sb }) do
        local n_tail = math.max(1, math.floor(side.n * stat.pct / 100 + 1e-9))
        if n_tail < min_tail then
          return nil, string.format("too few values in the slowest %s %% (%d; at least %d)", tostring(stat.pct),
            n_tail, min_tail)
        end
        local q = C.rank(side.batched(), side.n - n_tail + 1)
        es[i] = q + C.top_excess(side.batched(), n_tail, q) / n_tail
      end
      if not (es[1] > 0 and es[2] > 0) then return nil, "the slowest frames took 0 ms" end
      a, b = 1000 / es[1], 1000 / es[2]
      local function fps(list)
        for i, v in ipairs(list) do list[i] = v > 0 and 1000 / v or 0 / 0 end
        return list
      end
      da, db = fps(C.boot(ba, packed, "tail_mean", stat.pct)), fps(C.boot(bb, packed, "tail_mean", stat.pct))
    else
      local dena, denb = opts.den_a, opts.den_b
      if not (dena and denb) then return nil, "no frames times to divide by" end
      if dena.k ~= k or denb.k ~= k then return nil, "the frame times were not cut into the same stretches" end
      if not (dena.sum > 0 and denb.sum > 0) then return nil, "the denominator is 0" end
      -- each draw's share: its stretches' group time over their frame time
      -- (the frame time's draws are every group's denominator: made once a
      -- sample and draws)
      local function den_sums(den)
        local kept = den.boot_sums
        if not (kept and kept.packed == packed) then
          kept = { packed = packed, sums = C.boot(den.batched(), packed, "sum") }
          den.boot_sums = kept
        end
        return kept.sums
      end
      local function shares(num, den)
        local g, f = C.boot(num.batched(), packed, "sum"), den_sums(den)
        for r, sf in ipairs(f) do g[r] = sf > 0 and 100 * g[r] / sf or 0 / 0 end
        return g
      end
      a, b = 100 * sa.sum / dena.sum, 100 * sb.sum / denb.sum
      da, db = shares(sa, dena), shares(sb, denb)
    end
    local se = boot_se(da, db)
    if not se then return nil, "the bootstrap drew no usable stretches" end
    out = with_se(b - a, se, df, level)
    out.a, out.b, out.clipped, out.block = a, b, 0, block
  else
    return nil, "an extreme value (max, min) has no interval"
  end
  out.method, out.stretches = "paired", k
  return out
end

-- The paired differences' estimate {value, var, df, r}, the per-stretch
-- values of B minus those of A (lists of one length).
local function paired(va, vb)
  local d = {}
  for i = 1, #va do d[i] = vb[i] - va[i] end
  local b = infer.batch_variance(d)
  return { value = b.mean, var = b.var, df = b.df, r = b.r }
end

--- infer.paired_shape(sa, sb) -> {test = "grid", statistic, p, at, points}
-- | nil, why: infer.shape's quantile grid on paired stretches: at each
-- grid point the paired difference of the shares of frames at or below
-- the pooled quantile.
function infer.paired_shape(sa, sb)
  if sa.n == 0 or sb.n == 0 then return nil, "no values" end
  if sa.k ~= sb.k or sa.k < 2 then return nil, "the two captures were not cut into the same stretches" end
  local ba, bb = sa.batched(), sb.batched()
  local N = sa.n + sb.n
  local best, used = nil, 0
  for _, p in ipairs(infer.SHAPE_GRID) do
    local tail = math.min(p, 1 - p)
    if tail * sa.n >= infer.DEFAULTS.min_tail and tail * sb.n >= infer.DEFAULTS.min_tail then
      local c = C.pooled_rank(ba, bb, C.nearest_rank(p * 100, N))
      local e = paired(C.means(ba, "at_most", c), C.means(bb, "at_most", c))
      if e then
        local d = with_se(e.value, math.sqrt(e.var), e.df, infer.DEFAULTS.level)
        used = used + 1
        if not best or d.p < best.p then best = { p = d.p, at = p, t = d.t } end
      end
    end
  end
  if used == 0 then return nil, "too few values for any point of the grid" end
  return { test = "grid", p = math.min(1, best.p * used), at = best.at, statistic = best.t and math.abs(best.t),
    points = used, paired = true }
end

--- infer.rate(xa, na, xb, nb [, opts]) -> {a, b, ratio, diff_pct, lo_pct,
-- hi_pct, p, dispersion, level} | nil, why: the change of a rate, xa
-- events in na frames against xb in nb (hitches per frame), by the
-- conditional test: given the xa + xb events, B's share of them is
-- binomial with B's share of the frames when the rates are equal. Events
-- that come in bursts make counts vary more than that: opts.dispersion
-- (phi >= 1, the variance over the mean of the counts per stretch)
-- divides both counts first (a quasi-Poisson allowance). p two-sided;
-- the interval of the rate ratio from the Clopper-Pearson interval of B's
-- share, as a change in % of A's rate. nil without any event.
function infer.rate(xa, na, xb, nb, opts)
  opts = opts or {}
  local level = opts.level or infer.DEFAULTS.level
  if na <= 0 or nb <= 0 then return nil, "no frames" end
  if xa + xb == 0 then return nil, "no events on either side" end
  local phi = math.max(1, opts.dispersion or 1)
  local ya, yb = xa / phi, xb / phi
  local m = ya + yb
  local pi0 = nb / (na + nb)
  -- P(Y >= y) and P(Y <= y) for Y ~ Bin(m, pi0), through the incomplete beta (m, y may be fractional)
  local function upper(y) return y <= 0 and 1 or C.beta_inc(pi0, y, m - y + 1) end
  local function lower(y) return y >= m and 1 or 1 - C.beta_inc(pi0, y + 1, m - y) end
  local p = math.min(1, 2 * math.min(upper(yb), lower(yb)))
  -- Clopper-Pearson bounds of B's share, by bisection on the incomplete beta
  local a2 = (1 - level) / 2
  local function solve(f, target)
    local lo, hi = 0, 1
    for _ = 1, 60 do
      local mid = (lo + hi) / 2
      if f(mid) < target then lo = mid else hi = mid end
    end
    return (lo + hi) / 2
  end
  local pl = yb <= 0 and 0 or solve(function(x) return C.beta_inc(x, yb, m - yb + 1) end, a2)
  local pu = yb >= m and 1 or solve(function(x) return C.beta_inc(x, yb + 1, m - yb) end, 1 - a2)
  local function pct(share)
    if share >= 1 then return nil end
    return 100 * ((share / (1 - share)) * (na / nb) - 1)
  end
  local ra, rb = xa / na, xb / nb
  return { a = ra, b = rb, ratio = ra > 0 and rb / ra or nil, diff_pct = ra > 0 and 100 * (rb / ra - 1) or nil,
    lo_pct = xa > 0 and pct(pl) or nil, hi_pct = xa > 0 and pct(pu) or nil, p = p, dispersion = phi, level = level }
end

--- infer.dispersion(counts_lists) -> phi >= 1: the variance over the mean
-- of counts per stretch, averaged over the lists that have any count (1
-- when none does).
function infer.dispersion(lists)
  local sum, used = 0, 0
  for _, l in ipairs(lists) do
    local n, s = #l, 0
    for _, v in ipairs(l) do s = s + v end
    if n >= 2 and s > 0 then
      local m = s / n
      local ss = 0
      for _, v in ipairs(l) do ss = ss + (v - m) ^ 2 end
      sum, used = sum + ss / (n - 1) / m, used + 1
    end
  end
  return used > 0 and math.max(1, sum / used) or 1
end

-- Shape -------------------------------------------------------------------------------

-- The effective size of a sample for the KS test: n / f, f the largest
-- ratio (at least 1) of an indicator's batch variance to p (1 - p) / n.
local function effective_n(s)
  if s.independent then return s.n end
  if s.k < 2 then return nil end
  local f = 1
  for _, p in ipairs(EFFECTIVE_GRID) do
    local q = nearest(s, p)
    local b = infer.batch_variance(C.means(s.batched(), "at_most", q))
    local ph = b.mean
    if ph > 0 and ph < 1 then f = math.max(f, b.var * s.n / (ph * (1 - ph))) end
  end
  return s.n / f
end

--- infer.pooled_rank(sa, sb, r) -> the value of rank r (1-based) among two
-- samples' values together.
function infer.pooled_rank(sa, sb, r)
  return C.pooled_rank(sa.batched(), sb.batched(), r)
end

infer.SHAPE_GRID = { 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99 }

--- infer.shape(sa, sb [, test]) -> {test, statistic, p, at, n_eff_a,
-- n_eff_b} | nil, why: a dependence-aware test of the whole distribution.
-- test "grid" (the default): at each p of infer.SHAPE_GRID, the share of
-- each side's values at most the pooled p-quantile, compared by Welch's t
-- with each side's batch variance of that indicator; p = the smallest of
-- those p-values times their number (Bonferroni), `at` the p where it is
-- reached, statistic its |t|. A grid point needs min_tail values beyond it
-- on each side. "ks" / "ad": Kolmogorov-Smirnov / Anderson-Darling with
-- each n replaced by an effective n (n / f, f the largest batch-variance
-- inflation of the indicator over p = 0.1 .. 0.9).
function infer.shape(sa, sb, test)
  test = test or "grid"
  if sa.n == 0 or sb.n == 0 then return nil, "no values" end
  local out = { test = test }
  if test == "grid" then
    local N = sa.n + sb.n
    local best, used = nil, 0
    for _, p in ipairs(infer.SHAPE_GRID) do
      local c = infer.pooled_rank(sa, sb, C.nearest_rank(p * 100, N))
      local ta = math.min(p, 1 - p)
      local min_tail = (sa.opts and sa.opts.min_tail) or infer.DEFAULTS.min_tail
      if ta * sa.n >= min_tail and ta * sb.n >= min_tail then
        local ea = infer.indicator(sa, c)
        local eb = infer.indicator(sb, c)
        if ea and eb then
          local d = infer.difference(ea, eb)
          used = used + 1
          if not best or d.p < best.p then best = { p = d.p, at = p, t = d.t } end
        end
      end
    end
    if used == 0 then return nil, "too few values for any point of the grid" end
    out.p, out.at, out.statistic, out.points = math.min(1, best.p * used), best.at, best.t and math.abs(best.t), used
    return out
  end
  local na, nb = effective_n(sa), effective_n(sb)
  if not na or not nb then return nil, "too few values to batch" end
  out.n_eff_a, out.n_eff_b = na, nb
  if test == "ks" then
    local d = C.counts_ks(sa.batched(), sb.batched())
    local ne = na * nb / (na + nb)
    local rn = math.sqrt(ne)
    out.statistic, out.p = d, C.kolmogorov_q((rn + 0.12 + 0.11 / rn) * d)
  else
    -- A^2 grows with n_a n_b / N: scale it to the effective sizes
    local a2 = C.counts_ad(sa.batched(), sb.batched())
    local scale = (na * nb / (na + nb)) / (sa.n * sb.n / (sa.n + sb.n))
    out.statistic, out.p = a2, C.anderson_darling_q(a2 * scale)
  end
  return out
end

-- Effect sizes ------------------------------------------------------------------------

--- infer.effects(sa, sb [, level]) -> {hl, hl_lo, hl_hi, delta, delta_lo,
-- delta_hi, prob_b_greater}: Cliff's delta and the Hodges-Lehmann shift of
-- B against A with their intervals (nil where the samples cannot give one).
function infer.effects(sa, sb, level)
  level = level or infer.DEFAULTS.level
  if sa.n == 0 or sb.n == 0 then return nil, "no values" end
  local a, b = sa.batched(), sb.batched()
  local N = sa.n * sb.n
  local below, equal = C.pair_count(a, b, 0)
  local above = N - below - equal
  local out = { delta = (above - below) / N, prob_b_greater = (above + equal / 2) / N }
  if N % 2 == 1 then
    out.hl = C.pair_kth(a, b, (N + 1) // 2)
  else
    out.hl = (C.pair_kth(a, b, N // 2) + C.pair_kth(a, b, N // 2 + 1)) / 2
  end
  -- the variance of delta: each side's mean dominance, batched (independent
  -- values: one a batch, the plain variance)
  local function part(s, other)
    if s.independent then
      if s.n < 2 then return nil end
      return infer.batch_variance(C.dominance(s.batched(s.n), other), { r = 0 })
    end
    if s.k < 2 then return nil end
    return infer.batch_variance(C.dominance(s.batched(), other))
  end
  local va, vb = part(sa, b), part(sb, a)
  if va and vb then
    local var = va.var + vb.var
    if var > 0 then
      local df = var * var / ((va.var > 0 and va.var ^ 2 / va.df or 0) + (vb.var > 0 and vb.var ^ 2 / vb.df or 0))
      local se = math.sqrt(var)
      local t = infer.t_crit(level, df)
      out.delta_lo = math.max(-1, out.delta - t * se)
      out.delta_hi = math.min(1, out.delta + t * se)
      local c = t * se * N / 2
      local kl = math.max(1, math.min(N, math.floor(N / 2 - c)))
      out.hl_lo = C.pair_kth(a, b, kl)
      out.hl_hi = C.pair_kth(a, b, N + 1 - kl)
    else
      out.delta_lo, out.delta_hi, out.hl_lo, out.hl_hi = out.delta, out.delta, out.hl, out.hl
    end
  end
  return out
end

--- infer.holm(ps) -> adjusted: Holm's step-down adjustment of a table of
-- p-values (keys kept; entries that are not numbers left out): the k-th
-- smallest of m is multiplied by m - k + 1, capped at 1 and never below
-- the one before it (ties in key order). A family of metrics tested at
-- once keeps its chance of any false alarm at alpha.
function infer.holm(ps)
  local idx = {}
  for k, p in pairs(ps) do
    if type(p) == "number" then idx[#idx + 1] = k end
  end
  table.sort(idx, function(x, y)
    if ps[x] ~= ps[y] then return ps[x] < ps[y] end
    return x < y
  end)
  local m, out, running = #idx, {}, 0
  for rank, k in ipairs(idx) do
    local adj = math.max(running, math.min(1, (m - rank + 1) * ps[k]))
    running = adj
    out[k] = adj
  end
  return out
end

return infer
