-- tests/changepoint_reference.lua: vp.changepoint's method written the
-- plain way, for tests/changepoint_spec.lua: Q from its definition (every
-- pair summed for every split), Welch's t with its own Student t
-- distribution (the regularised incomplete beta by Lentz's continued
-- fraction), the windows and the pruning as docs/history.md states them.
-- Nothing here is shared with stdlib/vp/changepoint.lua or vp.infer.
local ref = {}

local function abs(v) return v < 0 and -v or v end

-- Q of the split of x[a..b] at k (k is the first point of the right side).
function ref.q(x, a, b, k)
  local m, n = k - a, b - k + 1
  local X, W, V = 0, 0, 0
  for i = a, k - 1 do
    for j = k, b do X = X + abs(x[i] - x[j]) end
  end
  for i = a, k - 1 do
    for j = i + 1, k - 1 do W = W + abs(x[i] - x[j]) end
  end
  for i = k, b do
    for j = i + 1, b do V = V + abs(x[i] - x[j]) end
  end
  return m * n / (m + n) * (2 * X / (m * n) - W / (m * (m - 1) / 2) - V / (n * (n - 1) / 2))
end

-- ln Gamma (Lanczos, g = 7, n = 9).
local LANCZOS = { 0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7 }
local function lgamma(z)
  if z < 0.5 then return math.log(math.pi / abs(math.sin(math.pi * z))) - lgamma(1 - z) end
  z = z - 1
  local s = LANCZOS[1]
  for i = 1, 8 do s = s + LANCZOS[i + 1] / (z + i) end
  local t = z + 7.5
  return 0.5 * math.log(2 * math.pi) + (z + 0.5) * math.log(t) - t + math.log(s)
end

-- The continued fraction of the incomplete beta (modified Lentz).
local function betacf(a, b, x)
  local tiny = 1e-300
  local qab, qap, qam = a + b, a + 1, a - 1
  local c, d = 1, 1 - qab * x / qap
  if abs(d) < tiny then d = tiny end
  d = 1 / d
  local h = d
  for m = 1, 10000 do
    local m2 = 2 * m
    local aa = m * (b - m) * x / ((qam + m2) * (a + m2))
    d = 1 + aa * d
    if abs(d) < tiny then d = tiny end
    c = 1 + aa / c
    if abs(c) < tiny then c = tiny end
    d = 1 / d
    h = h * d * c
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
    d = 1 + aa * d
    if abs(d) < tiny then d = tiny end
    c = 1 + aa / c
    if abs(c) < tiny then c = tiny end
    d = 1 / d
    local del = d * c
    h = h * del
    if abs(del - 1) < 1e-15 then break end
  end
  return h
end

-- I_x(a, b).
local function ibeta(a, b, x)
  if x <= 0 then return 0 end
  if x >= 1 then return 1 end
  local bt = math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * math.log(x) + b * math.log(1 - x))
  if x < (a + 1) / (a + b + 2) then return bt * betacf(a, b, x) / a end
  return 1 - bt * betacf(b, a, 1 - x) / b
end

--- ref.t_two_sided(t, df) -> P(|T| >= |t|) for Student's t with df degrees of freedom.
function ref.t_two_sided(t, df)
  return ibeta(df / 2, 0.5, df / (df + t * t))
end

-- Welch's t between x[a..i-1] and x[i..b], variances floored by the
-- points' squared standard errors: p, and the two means.
function ref.welch(x, se2, a, i, b)
  local function side(lo, hi)
    local n, s = hi - lo + 1, 0
    for k = lo, hi do s = s + x[k] end
    local m = s / n
    local ss, fl = 0, 0
    for k = lo, hi do
      ss = ss + (x[k] - m) ^ 2
      fl = fl + (se2 and se2[k] or 0)
    end
    local var = n > 1 and ss / (n - 1) or 0
    var = math.max(var, fl / n)
    return m, var / n, math.max(n - 1, 1), n
  end
  local m1, v1, d1, n1 = side(a, i - 1)
  local m2, v2, d2, n2 = side(i, b)
  local v = v1 + v2
  if v <= 0 then return (m1 == m2) and 1 or 0, m1, m2, n1, n2 end
  local den = (v1 > 0 and v1 * v1 / d1 or 0) + (v2 > 0 and v2 * v2 / d2 or 0)
  return ref.t_two_sided((m2 - m1) / math.sqrt(v), v * v / den), m1, m2, n1, n2
end

-- E-Divisive on x[a..b]: every split of every segment tried by ref.q.
local function e_divisive(x, se2, a, b, ms, p)
  local cuts, found = { a, b + 1 }, {}
  while true do
    local best, bq, at
    for s = 1, #cuts - 1 do
      local lo, hi = cuts[s], cuts[s + 1] - 1
      for k = lo + ms, hi - ms + 1 do
        local q = ref.q(x, lo, hi, k)
        if not bq or q > bq then best, bq, at = k, q, s end
      end
    end
    if not best then return found end
    if ref.welch(x, se2, cuts[at], best, cuts[at + 1] - 1) >= p then return found end
    found[#found + 1] = best
    table.insert(cuts, at + 1, best)
  end
end

--- ref.detect(values, o) -> list of {index, p, before, after} (the means
-- in the values' scale): o has every option (no defaults here).
function ref.detect(values, o)
  local n, log = #values, o.log
  for _, v in ipairs(values) do if v <= 0 then log = false end end
  local x, se2 = {}, nil
  for i = 1, n do x[i] = log and math.log(values[i]) or values[i] end
  if o.se then
    se2 = {}
    for i = 1, n do se2[i] = (log and o.se[i] / values[i] or o.se[i]) ^ 2 end
  end
  local set, start = {}, 1
  while start <= n do
    local stop = math.min(start + o.window - 1, n)
    local last = 0
    for _, k in ipairs(e_divisive(x, se2, start, stop, o.min_segment, 10 * o.max_p)) do
      set[k] = true
      last = math.max(last, k)
    end
    if stop == n then break end
    start = math.max(last, start + o.window // 2)
  end
  local cps = {}
  for k in pairs(set) do cps[#cps + 1] = k end
  table.sort(cps)
  local function stats(j)
    local lo = j > 1 and cps[j - 1] or 1
    local hi = j < #cps and cps[j + 1] - 1 or n
    local p, m1, m2, n1, n2 = ref.welch(x, se2, lo, cps[j], hi)
    local rel
    if log then rel = math.exp(m2 - m1) - 1 else rel = (m2 - m1) / abs(m1) end
    local ab = log and abs(math.exp(m2) - math.exp(m1)) or abs(m2 - m1)
    local fails = p >= o.max_p or n1 < o.min_segment or n2 < o.min_segment or abs(rel) < o.min_rel
      or ab < o.min_abs
    return { p = p, rel = rel, fails = fails, m1 = m1, m2 = m2 }
  end
  while true do
    local worst, wj
    for j = 1, #cps do
      local s = stats(j)
      if s.fails and (not worst or s.p > worst.p or (s.p == worst.p and abs(s.rel) < abs(worst.rel))) then
        worst, wj = s, j
      end
    end
    if not worst then break end
    table.remove(cps, wj)
  end
  local out = {}
  for j, k in ipairs(cps) do
    local s = stats(j)
    local before = log and math.exp(s.m1) or s.m1
    local after = log and math.exp(s.m2) or s.m2
    out[j] = { index = k, p = s.p, before = before, after = after, size_pct = 100 * s.rel }
  end
  return out
end

return ref
