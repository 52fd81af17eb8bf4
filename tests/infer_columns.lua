-- The comparison statistics computed from the columns in time order, as
-- vp.infer computed them before it read value counts: batch means by a
-- plain loop over each batch of the column, order statistics from a sorted
-- copy, pairwise orders and KS / AD from the sorted columns (vp.infer.core's
-- column functions). The reference tests/infer_equal_spec.lua holds the
-- value-count path to: the same estimates, p-values and intervals.
--
--   local ref = dofile("tests/infer_columns.lua")
--   local a, b = ref.sample(list_a), ref.sample(list_b)   -- lists in time order, no NaN
--   ref.compare({kind = "quantile", p = 0.95}, a, b)       -- as infer.compare
--   ref.shape(a, b, "grid"), ref.effects(a, b)
--   ref.batch_means(list, k [, f])                         -- also infer_spec's plain-Lua reference
local vp = require "vp"
local infer = require "vp.infer" -- batch_variance, difference, t_crit, map: unchanged by counting
local C = require "vp.infer.core"

local ref = {}

local IDENTITY = function(v) return v end

-- The means of f(x) (default x) over k contiguous batches of x, the first
-- #x % k one longer.
local function batch_means(x, k, f)
  f = f or IDENTITY
  local n, out, i = #x, {}, 1
  for b = 1, k do
    local len, s = n // k + (b <= n % k and 1 or 0), 0
    for _ = 1, len do
      s = s + f(x[i])
      i = i + 1
    end
    out[b] = s / len
  end
  return out
end
ref.batch_means = batch_means

function ref.sample(list, independent)
  local o = infer.DEFAULTS
  local sorted = table.move(list, 1, #list, 1, {})
  table.sort(sorted)
  local series = vp.Series(list)
  return { x = list, series = series, sorted = sorted, sorted_series = vp.Series(sorted), n = #list,
    k = math.min(o.batches, #list // o.min_batch), independent = independent, mean = #list > 0 and series:mean() }
end

local function at(s, p) -- nearest rank
  return s.sorted[math.min(s.n, math.max(1, math.ceil(p * s.n - 1e-9)))]
end

local function variance(s, f)
  if s.k < 2 then return nil end
  return infer.batch_variance(batch_means(s.x, s.k, f))
end

local function below(c) return function(v) return v <= c and 1 or 0 end end

local ESTIMATE = {}
function ESTIMATE.mean(s)
  if s.independent then
    local sd = s.series:stddev()
    return s.n >= 2 and { value = s.mean, var = sd * sd / (s.n - 1), df = s.n - 1 } or nil
  end
  local b = s.n > 0 and variance(s)
  return b and { value = s.mean, var = b.var, df = b.df } or nil
end
function ESTIMATE.quantile(s, stat)
  if s.n == 0 or math.min(stat.p, 1 - stat.p) * s.n < infer.DEFAULTS.min_tail then return nil end
  local q = at(s, stat.p)
  local b = variance(s, below(q))
  if not b then return nil end
  local t, se_p = infer.t_crit(0.95, b.df), math.sqrt(b.var)
  local half = (at(s, math.min(1, stat.p + t * se_p)) - at(s, math.max(0, stat.p - t * se_p))) / (2 * t)
  return { value = q, var = half * half, df = b.df }
end
function ESTIMATE.low_fps(s, stat)
  local k = math.max(1, math.floor(s.n * stat.pct / 100 + 1e-9))
  if s.n == 0 or k < infer.DEFAULTS.min_tail then return nil end
  local q = s.sorted[s.n - k + 1]
  local b = variance(s, function(v) return v > q and v - q or 0 end)
  if not b then return nil end
  local excess = 0
  for i = s.n - k + 1, s.n do excess = excess + (s.sorted[i] - q) end
  local es = q + excess / k
  if es <= 0 then return nil end
  local slope = -1000 / (es * es)
  return { value = 1000 / es, var = slope * slope * (s.n / k) ^ 2 * b.var, df = b.df }
end
function ESTIMATE.share(s, _, den)
  local sum_f = den.series:sum()
  if s.n == 0 or sum_f == 0 or s.k < 2 then return nil end
  local r = s.series:sum() / sum_f
  local bg, bf = batch_means(s.x, s.k), batch_means(den.x, den.k)
  local y = {}
  for i = 1, #bg do y[i] = 100 * (bg[i] - r * bf[i]) / (sum_f / den.n) end
  local b = infer.batch_variance(y)
  return { value = 100 * r, var = b.var, df = b.df }
end

--- ref.compare(stat, sa, sb [, den_a, den_b]) -> {a, b, diff, p, lo, hi, df} | nil
function ref.compare(stat, sa, sb, den_a, den_b)
  local f = ESTIMATE[stat.kind == "count" and "mean" or stat.kind]
  local ea, eb = f and f(sa, stat, den_a), f and f(sb, stat, den_b)
  if not ea or not eb then return nil end
  if stat.kind == "count" then
    ea, eb = infer.map(ea, function(v) return v * sa.n end, sa.n), infer.map(eb, function(v) return v * sb.n end, sb.n)
  end
  local d = infer.difference(ea, eb)
  d.a, d.b = ea.value, eb.value
  return d
end

-- The share of values at most c, with its variance.
local function share_below(s, c)
  if s.independent then
    local p = #s.x > 0 and C.batch_means(s.series, 1, "at_most", c)[1]
    return s.n >= 2 and { value = p, var = p * (1 - p) / (s.n - 1), df = s.n - 1 } or nil
  end
  local b = variance(s, below(c))
  return b and { value = b.mean, var = b.var, df = b.df } or nil
end

--- ref.shape(sa, sb, test) -> {p, at, statistic} | nil
function ref.shape(sa, sb, test)
  if sa.n == 0 or sb.n == 0 then return nil end
  if test == "grid" then
    local pooled = table.move(sa.sorted, 1, sa.n, 1, {})
    table.move(sb.sorted, 1, sb.n, #pooled + 1, pooled)
    table.sort(pooled)
    local best, used
    for _, p in ipairs(infer.SHAPE_GRID) do
      local c = pooled[math.max(1, math.ceil(p * #pooled - 1e-9))]
      local tail = math.min(p, 1 - p)
      local ea, eb = share_below(sa, c), share_below(sb, c)
      if tail * sa.n >= infer.DEFAULTS.min_tail and tail * sb.n >= infer.DEFAULTS.min_tail and ea and eb then
        local d = infer.difference(ea, eb)
        used = (used or 0) + 1
        if not best or d.p < best.p then best = { p = d.p, at = p, statistic = d.t and math.abs(d.t) } end
      end
    end
    if best then best.p = math.min(1, best.p * used) end
    return best
  end
  local function n_eff(s)
    if s.independent then return s.n end
    if s.k < 2 then return nil end
    local f = 1
    for _, p in ipairs({ 0.1, 0.25, 0.5, 0.75, 0.9 }) do
      local b = variance(s, below(at(s, p)))
      if b.mean > 0 and b.mean < 1 then f = math.max(f, b.var * s.n / (b.mean * (1 - b.mean))) end
    end
    return s.n / f
  end
  local na, nb = n_eff(sa), n_eff(sb)
  if not na then return nil end
  if test == "ks" then
    local d = C.ks(sa.sorted_series, sb.sorted_series)
    local rn = math.sqrt(na * nb / (na + nb))
    return { p = C.kolmogorov_q((rn + 0.12 + 0.11 / rn) * d), statistic = d }
  end
  local a2 = C.ad(sa.sorted_series, sb.sorted_series)
  return { p = C.anderson_darling_q(a2 * (na * nb / (na + nb)) / (sa.n * sb.n / (sa.n + sb.n))), statistic = a2 }
end

--- ref.effects(sa, sb) -> {delta, delta_lo, delta_hi, hl, hl_lo, hl_hi, prob_b_greater}
function ref.effects(sa, sb)
  if sa.n == 0 or sb.n == 0 then return nil end
  local a, b, N = sa.sorted_series, sb.sorted_series, sa.n * sb.n
  local lt, eq = C.pair_diff_count(a, b, 0)
  local out = { delta = (N - lt - eq - lt) / N, prob_b_greater = (N - lt - eq + eq / 2) / N }
  out.hl = N % 2 == 1 and C.pair_diff_kth(a, b, (N + 1) // 2)
    or (C.pair_diff_kth(a, b, N // 2) + C.pair_diff_kth(a, b, N // 2 + 1)) / 2
  local function dominance(s, other)
    if s.independent then
      return s.n >= 2 and infer.batch_variance(C.dominance_batches(s.series, other, s.n), { r = 0 }) or nil
    end
    return s.k >= 2 and infer.batch_variance(C.dominance_batches(s.series, other, s.k)) or nil
  end
  local va, vb = dominance(sa, b), dominance(sb, a)
  if not (va and vb) then return out end
  local var = va.var + vb.var
  if var <= 0 then
    out.delta_lo, out.delta_hi, out.hl_lo, out.hl_hi = out.delta, out.delta, out.hl, out.hl
    return out
  end
  local df = var * var / ((va.var > 0 and va.var ^ 2 / va.df or 0) + (vb.var > 0 and vb.var ^ 2 / vb.df or 0))
  local t = infer.t_crit(0.95, df)
  local se = math.sqrt(var)
  out.delta_lo, out.delta_hi = math.max(-1, out.delta - t * se), math.min(1, out.delta + t * se)
  local kl = math.max(1, math.min(N, math.floor(N / 2 - t * se * N / 2)))
  out.hl_lo, out.hl_hi = C.pair_diff_kth(a, b, kl), C.pair_diff_kth(a, b, N + 1 - kl)
  return out
end

return ref
