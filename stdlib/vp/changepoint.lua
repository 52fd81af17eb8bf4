-- vp.changepoint: change points in a short series of values (one value per
-- build, per night, per phase), by E-Divisive means in windows with a
-- deterministic significance test, the way Apache Otava (formerly Hunter)
-- and MongoDB's CI analysis do it (Matteson and James 2014; Daly et al.,
-- ICPE 2020).
--
--   local cp = require "vp.changepoint"
--   local r = cp.detect({16.1, 16.0, 16.2, 16.1, 17.0, 17.1, 16.9, 17.0}, {min_segment = 3})
--   for _, c in ipairs(r.changes) do print(c.index, c.size_pct, c.p) end
--
-- The method (the numbers are cp.DEFAULTS; tools/calibrate_history.lua
-- chose them, docs/history.md has the table):
--   scale       with log = true the values' logarithms are analysed (times:
--               a step is a ratio), and means are geometric; values <= 0
--               make the series linear again (result.log says which).
--   candidates  in windows of `window` points, each starting half a window
--               after the last (or at the last change found, if later):
--               E-Divisive means (alpha = 1) splits a segment at the point
--               that maximises Q = m n / (m + n) (2/(m n) sum |x - y| -
--               1/C(m,2) sum |x - x'| - 1/C(n,2) sum |y - y'|), both sides
--               at least min_segment points long, while the split passes
--               the test below at 10 x max_p; the candidates of all windows
--               are pooled.
--   test        Welch's t between the segment before a change and the one
--               after it (up to the neighbouring changes), two-sided (vp.infer's
--               difference). A segment's variance is its points' sample
--               variance, but never less than the mean of their squared
--               standard errors (opts.se): no segment is more certain than
--               its points are.
--   pruning     while a change fails (p >= max_p, a segment shorter than
--               min_segment, |size| below min_rel or |after - before| below
--               min_abs), the one with the largest p (then the smallest
--               size, then the earliest) is removed and its neighbours are
--               tested again with their new segments.
-- Missing points are the caller's to leave out, never to fill: a step over
-- a gap is then one change between the points on either side.
-- Deterministic: the same values give the same result; no resampling.
local infer = require "vp.infer"

local cp = {}

cp.DEFAULTS = { window = 50, max_p = 0.001, min_segment = 4, min_rel = 0.01, min_abs = 0, log = false,
  level = 0.95 }

local function options(opts)
  local o = {}
  for k, v in pairs(cp.DEFAULTS) do o[k] = v end
  for k, v in pairs(opts or {}) do o[k] = v end
  assert(math.type(o.window) == "integer" and o.window >= 4, "vp.changepoint: window must be an integer >= 4")
  assert(math.type(o.min_segment) == "integer" and o.min_segment >= 2,
    "vp.changepoint: min_segment must be an integer >= 2")
  return o
end

-- Q for every split of x[a..b] whose sides have at least ms points: the
-- split (the first point of the right side) with the largest Q, and Q.
-- The sums move with the split: the point k that joins the left side adds
-- its distances to the left points to W and takes its distances to the
-- right ones out of V; X gains the second and loses the first.
local function best_split(x, a, b, ms)
  local len = b - a + 1
  if len < 2 * ms then return nil end
  local W, V, X = 0.0, 0.0, 0.0
  for i = a, b - 1 do
    local xi = x[i]
    for j = i + 1, b do
      local d = xi - x[j]
      V = V + (d < 0 and -d or d)
    end
  end
  local best, best_q
  for k = a, b - ms do -- k joins the left side; the split is then k + 1
    local xk, lk, rk = x[k], 0.0, 0.0
    for i = a, k - 1 do
      local d = xk - x[i]
      lk = lk + (d < 0 and -d or d)
    end
    for j = k + 1, b do
      local d = xk - x[j]
      rk = rk + (d < 0 and -d or d)
    end
    W, V, X = W + lk, V - rk, X - lk + rk
    local m, n = k - a + 1, b - k
    if m >= ms then
      local q = m * n / (m + n) * (2 * X / (m * n) - 2 * W / (m * (m - 1)) - 2 * V / (n * (n - 1)))
      if not best_q or q > best_q then best, best_q = k + 1, q end
    end
  end
  return best, best_q
end
cp.best_split = best_split

-- The estimate of a segment x[a..b]'s mean: {value, var (of the mean), df,
-- n, sd}; the variance floored by the points' squared standard errors.
local function segment(x, se2, a, b)
  local n = b - a + 1
  local s = 0.0
  for i = a, b do s = s + x[i] end
  local m = s / n
  local ss, floor = 0.0, 0.0
  for i = a, b do
    local d = x[i] - m
    ss = ss + d * d
    if se2 then floor = floor + se2[i] end
  end
  local var = n > 1 and ss / (n - 1) or 0
  if se2 then var = math.max(var, floor / n) end
  return { value = m, var = var / n, df = math.max(n - 1, 1), n = n, first = a, last = b, sd = math.sqrt(var) }
end

-- The test of a change at index i (the first point after it) between its
-- neighbours lo (the first point of the segment before) and hi (the last
-- of the segment after).
local function test(x, se2, lo, i, hi)
  local before, after = segment(x, se2, lo, i - 1), segment(x, se2, i, hi)
  local d = infer.difference(before, after)
  return { index = i, before = before, after = after, p = d.p, t = d.t, df = d.df, diff = d.diff }
end

-- E-Divisive on x[a..b]: the change points whose splits pass the test at
-- level p, in the order found.
local function e_divisive(x, se2, a, b, ms, p)
  local cuts = { a, b + 1 }  -- sorted; segments are [cuts[i], cuts[i + 1] - 1]
  local cache = {}           -- segment start -> {split, q}
  local found = {}
  while true do
    local best, best_q, at
    for s = 1, #cuts - 1 do
      local lo, hi = cuts[s], cuts[s + 1] - 1
      local c = cache[lo]
      if not c or c.hi ~= hi then
        local k, q = best_split(x, lo, hi, ms)
        c = { hi = hi, k = k, q = q }
        cache[lo] = c
      end
      if c.k and (not best_q or c.q > best_q) then best, best_q, at = c.k, c.q, s end
    end
    if not best then break end
    local t = test(x, se2, cuts[at], best, cuts[at + 1] - 1)
    if t.p >= p then break end
    found[#found + 1] = best
    table.insert(cuts, at + 1, best)
  end
  return found
end

-- The magnitude of a change: its relative size, on the linear scale.
local function relative(c, log)
  if log then return math.exp(c.after.value - c.before.value) - 1 end
  if c.before.value == 0 then return c.after.value == 0 and 0 or math.huge end
  return (c.after.value - c.before.value) / math.abs(c.before.value)
end

local function absolute(c, log)
  if log then return math.abs(math.exp(c.after.value) - math.exp(c.before.value)) end
  return math.abs(c.after.value - c.before.value)
end

-- Why a tested change fails the options, or nil.
local function failure(c, o, log)
  if c.p >= o.max_p then return "p" end
  if c.before.n < o.min_segment or c.after.n < o.min_segment then return "segment" end
  if math.abs(relative(c, log)) < o.min_rel then return "size" end
  if absolute(c, log) < o.min_abs then return "size" end
  return nil
end

-- A segment estimate in the values' own scale, with its interval.
local function shown(e, log, level)
  local h = infer.t_crit(level, e.df) * math.sqrt(e.var)
  local m, lo, hi = e.value, e.value - h, e.value + h
  if log then m, lo, hi = math.exp(m), math.exp(lo), math.exp(hi) end
  return { first = e.first, last = e.last, n = e.n, mean = m, lo = lo, hi = hi }
end

--- cp.detect(values [, opts]) -> {n, log, segments = [{first, last, n, mean,
-- lo, hi}], changes = [{index, before, after, size_pct, diff, p, t, df}]}
-- values: a list of numbers in order (no gaps, no NaN). opts: se (a list
-- of the points' standard errors, same length), log, window, max_p,
-- min_segment, min_rel (a fraction: 0.01 is 1 %), min_abs (in the values'
-- unit), level (the intervals'). A change's index is its first point
-- after; before and after are the segments either side (mean and interval
-- in the values' unit, geometric with log); size_pct = 100 (after / before
-- - 1) (on the log scale, the ratio of the geometric means); diff = after -
-- before. Segments cover 1..n in order.
function cp.detect(values, opts)
  local o = options(opts)
  local n = #values
  local log = o.log == true
  for i = 1, n do
    local v = values[i]
    assert(type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge,
      "vp.changepoint: values must be finite numbers")
    if v <= 0 then log = false end
  end
  local x, se2 = {}, nil
  for i = 1, n do x[i] = log and math.log(values[i]) or values[i] end
  if o.se then
    se2 = {}
    for i = 1, n do
      local s = o.se[i]
      if type(s) ~= "number" or s ~= s or s < 0 or s == math.huge then s = 0 end
      if log then s = s / values[i] end -- the delta method: se(log v) = se(v) / v
      se2[i] = s * s
    end
  end

  -- Candidates, window by window.
  local set, start, step = {}, 1, o.window // 2
  while start <= n do
    local stop = math.min(start + o.window - 1, n)
    local last = 0
    for _, k in ipairs(e_divisive(x, se2, start, stop, o.min_segment, 10 * o.max_p)) do
      set[k] = true
      if k > last then last = k end
    end
    if stop == n then break end
    start = math.max(last, start + step)
  end
  local idx = {}
  for k in pairs(set) do idx[#idx + 1] = k end
  table.sort(idx)

  -- Pruning: each change tested between its neighbours until all pass.
  local changes = {}
  local function retest(j)
    if j < 1 or j > #changes then return end
    local lo = j > 1 and changes[j - 1].index or 1
    local hi = j < #changes and changes[j + 1].index - 1 or n
    changes[j] = test(x, se2, lo, changes[j].index, hi)
  end
  for j, k in ipairs(idx) do changes[j] = { index = k } end
  for j = 1, #changes do retest(j) end
  while true do
    local worst, wj
    for j, c in ipairs(changes) do
      if failure(c, o, log) then
        local size = math.abs(relative(c, log))
        if not worst or c.p > worst.p or (c.p == worst.p and size < math.abs(relative(worst, log))) then
          worst, wj = c, j
        end
      end
    end
    if not worst then break end
    table.remove(changes, wj)
    retest(wj - 1)
    retest(wj)
  end

  local out = { n = n, log = log, segments = {}, changes = {} }
  local first = 1
  for j = 1, #changes + 1 do
    local last = j <= #changes and changes[j].index - 1 or n
    if last >= first then out.segments[#out.segments + 1] = shown(segment(x, se2, first, last), log, o.level) end
    first = last + 1
  end
  for j, c in ipairs(changes) do
    local before, after = out.segments[j], out.segments[j + 1]
    out.changes[j] = { index = c.index, before = before, after = after, size_pct = 100 * relative(c, log),
      diff = after.mean - before.mean, p = c.p, t = c.t, df = c.df }
  end
  return out
end

return cp
