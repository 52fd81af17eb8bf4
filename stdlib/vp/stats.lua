-- vp.stats: descriptive statistics for plain Lua lists of numbers (and
-- vp.Series, handed to the C implementation where it has one).
--
-- Definitions (the same everywhere in vpscript, stated in docs/metrics.md):
--   mean        sum / n
--   percentile  nearest rank: the value at rank ceil(p/100 * n) of the
--               ascending order (rank 1 for p = 0, so p0 = min and p100 = max).
--               p95 of 1..100 is 95. There is one implementation, the C
--               Series (host/core/series.c): stats.percentile hands a list
--               to vp.Series and laige's reports use the same rule.
--   median      the middle value; for an even count the mean of the two
--               middle values (so median and p50 can differ: p50 of {1, 2}
--               is 1, the median is 1.5)
--   stddev      population standard deviation: sqrt(sum((x - mean)^2) / n)
--   mad         median absolute deviation: median(|x - median(x)|)
--   low_fps(t, pct)
--               "pct % low" frame rate: 1000 / mean of the slowest
--               max(1, floor(n * pct / 100)) frame times (ms) -> fps
-- Empty input gives nil, and so does any statistic that is undefined (a
-- division by zero): never NaN or infinity (stats.defined).
local vp = require "vp"

local stats = {}

--- stats.defined(x) -> x when it is a finite number, else nil: the one rule
-- that turns an undefined statistic (NaN, an infinity from a division by
-- zero) into nil, which is how analyses report it.
function stats.defined(x)
  if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then return nil end
  return x
end

local function is_series(x)
  return type(x) == "userdata" and getmetatable(x) ~= nil and x.percentile ~= nil
end
stats.is_series = is_series

--- stats.values(x) -> list: a Lua list (copy for a Series, x itself otherwise).
function stats.values(x)
  if is_series(x) then return x:totable() end
  return x
end

--- stats.sorted(x) -> new ascending list (NaN values are dropped).
function stats.sorted(x)
  local src, out = stats.values(x), {}
  for i = 1, #src do
    local v = src[i]
    if v == v then out[#out + 1] = v end
  end
  table.sort(out)
  return out
end

function stats.sum(x)
  if is_series(x) then return x:sum() end
  local s = 0
  for i = 1, #x do s = s + x[i] end
  return s
end

function stats.mean(x)
  local n = #x
  if n == 0 then return nil end
  if is_series(x) then return x:mean() end
  return stats.sum(x) / n
end

-- stats.min and stats.max: the value of x that beats every other
-- (`beats(a, b)`: a replaces b), or the Series' own method of that name.
local function extreme(x, method, beats)
  if #x == 0 then return nil end
  if is_series(x) then return x[method](x) end
  local m = x[1]
  for i = 2, #x do
    if beats(x[i], m) then m = x[i] end
  end
  return m
end

function stats.min(x)
  return extreme(x, "min", function(a, b) return a < b end)
end

function stats.max(x)
  return extreme(x, "max", function(a, b) return a > b end)
end

--- stats.argmax(x) -> i, value: the first index of the largest value.
function stats.argmax(x)
  if #x == 0 then return nil end
  if is_series(x) then
    local i = x:argmax()
    return i, x[i]
  end
  local bi, m = 1, x[1]
  for i = 2, #x do
    if x[i] > m then bi, m = i, x[i] end
  end
  return bi, m
end

-- A Series of a list's numbers, NaN dropped (a Series is returned as is).
local function as_series(x)
  if is_series(x) then return x end
  local vals = {}
  for i = 1, #x do
    local v = x[i]
    if v == v then vals[#vals + 1] = v end
  end
  return vp.Series(vals)
end

local function check_p(p)
  assert(type(p) == "number" and p >= 0 and p <= 100, "percentile: p must be in 0..100")
end

--- stats.percentile(x, p): nearest-rank percentile (p in 0..100) of a list
-- (NaN values dropped) or a Series: vp.Series:percentile, the one
-- implementation. nil for no values.
function stats.percentile(x, p)
  check_p(p)
  if #x == 0 then return nil end
  local s = as_series(x)
  if #s == 0 then return nil end
  return s:percentile(p)
end

--- stats.percentiles(x, {50, 95, 99}) -> {[50] = v, [95] = v, [99] = v}: several
-- percentiles of one list (one Series, so one sorted copy in C).
function stats.percentiles(x, ps)
  local out = {}
  if #x == 0 then return out end
  local s = as_series(x)
  if #s == 0 then return out end
  for _, p in ipairs(ps) do
    check_p(p)
    out[p] = s:percentile(p)
  end
  return out
end

--- stats.median_sorted(sorted): median of an ascending list.
function stats.median_sorted(s)
  local n = #s
  if n == 0 then return nil end
  local h = n // 2
  if n % 2 == 1 then return s[h + 1] end
  return (s[h] + s[h + 1]) / 2
end

function stats.median(x)
  if #x == 0 then return nil end
  return stats.median_sorted(stats.sorted(x))
end

function stats.stddev(x)
  local n = #x
  if n == 0 then return nil end
  if is_series(x) then return x:stddev() end
  local m = stats.mean(x)
  local acc = 0
  for i = 1, n do
    local d = x[i] - m
    acc = acc + d * d
  end
  return math.sqrt(acc / n)
end

function stats.mad(x)
  local v = stats.sorted(x) -- NaN dropped, as the other statistics do
  if #v == 0 then return nil end
  local med = stats.median_sorted(v)
  local dev = {}
  for i = 1, #v do dev[i] = math.abs(v[i] - med) end
  return stats.median(dev)
end

--- stats.slowest_count(n, pct) -> how many frames "the slowest pct %" of n is:
-- max(1, floor(n * pct / 100)), 0 when n == 0.
function stats.slowest_count(n, pct)
  if n == 0 then return 0 end
  local k = math.floor(n * pct / 100 + 1e-9)
  if k < 1 then k = 1 end
  return k
end

-- Sum of the k largest values of a Series without sorting in Lua: the C
-- Series finds the k-th largest value v (nearest rank n-k+1), one pass adds
-- the values above v, and v fills the rest. nil when the rank arithmetic
-- did not land exactly (the caller then sorts).
local function series_top_sum(x, k)
  local n = #x
  local v = x:percentile(100 * (n - k + 1) / n)
  local vals = x:totable()
  local above, count, equal = 0, 0, 0
  for i = 1, n do
    local y = vals[i]
    if y > v then
      above, count = above + y, count + 1
    elseif y == v then
      equal = equal + 1
    end
  end
  if count >= k or count + equal < k then return nil end
  return above + (k - count) * v
end

--- stats.low_fps(frame_ms, pct [, sorted]) -> fps, k: 1000 / mean of the
-- slowest max(1, floor(n * pct / 100)) frame times. Pass `sorted` (ascending)
-- when you already have it. nil for no frames, and nil (undefined, not
-- infinity) when those frames all took 0 ms.
function stats.low_fps(frame_ms, pct, sorted)
  local n = #frame_ms
  if sorted then n = #sorted end
  if n == 0 then return nil, 0 end
  local k = stats.slowest_count(n, pct)
  local s
  if not sorted and is_series(frame_ms) then s = series_top_sum(frame_ms, k) end
  if not s then
    if not sorted then
      sorted = stats.sorted(frame_ms) -- NaN dropped
      n = #sorted
      if n == 0 then return nil, 0 end
      k = stats.slowest_count(n, pct)
    end
    s = 0
    for i = n - k + 1, n do s = s + sorted[i] end
  end
  local mean = s / k
  if mean <= 0 then return nil, k end
  return 1000 / mean, k
end

--- stats.summary(x) -> {n, mean, min, p50, p95, p99, max, stddev} (nil fields when empty).
function stats.summary(x)
  local n = #x
  local out = { n = n }
  if n == 0 then return out end
  local p = stats.percentiles(x, { 50, 95, 99 })
  out.mean, out.min, out.max = stats.mean(x), stats.min(x), stats.max(x)
  out.p50, out.p95, out.p99 = p[50], p[95], p[99]
  out.stddev = stats.stddev(x)
  return out
end

return stats
