-- vp.stats: descriptive statistics for plain Lua lists of numbers (and
-- vp.Series, handed to the C implementation where it has one).
--
-- Definitions (the same everywhere in vpscript, stated in docs/metrics.md):
--   mean        sum / n
--   percentile  nearest rank: the value at rank ceil(p/100 * n) of the
--               ascending order (rank 1 for p = 0, so p0 = min and p100 = max).
--               Identical to vp.Series:percentile and to laige's reports.
--               p95 of 1..100 is 95.
--   median      the middle value; for an even count the mean of the two
--               middle values (so median and p50 can differ: p50 of {1, 2}
--               is 1, the median is 1.5)
--   stddev      population standard deviation: sqrt(sum((x - mean)^2) / n)
--   mad         median absolute deviation: median(|x - median(x)|)
--   low_fps(t, pct)
--               "pct % low" frame rate: 1000 / mean of the slowest
--               max(1, floor(n * pct / 100)) frame times (ms) -> fps
-- Empty input gives nil (never NaN).
local stats = {}

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

function stats.min(x)
  if #x == 0 then return nil end
  if is_series(x) then return x:min() end
  local m = x[1]
  for i = 2, #x do
    if x[i] < m then m = x[i] end
  end
  return m
end

function stats.max(x)
  if #x == 0 then return nil end
  if is_series(x) then return x:max() end
  local m = x[1]
  for i = 2, #x do
    if x[i] > m then m = x[i] end
  end
  return m
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

--- stats.rank(n, p) -> the nearest rank (1..n) of percentile p over n values.
-- p * n / 100 (not p / 100 * n) and a tolerance keep p95 of 100 values at
-- rank 95 despite binary rounding; the C Series uses the same expression.
function stats.rank(n, p)
  local r = math.ceil(p * n / 100 - 1e-9)
  if r < 1 then r = 1 end
  if r > n then r = n end
  return r
end

--- stats.percentile_sorted(sorted, p): nearest-rank percentile of an
-- ascending list (no copy; use it for several percentiles of one list).
function stats.percentile_sorted(sorted, p)
  assert(type(p) == "number" and p >= 0 and p <= 100, "percentile: p must be in 0..100")
  local n = #sorted
  if n == 0 then return nil end
  return sorted[stats.rank(n, p)]
end

--- stats.percentile(x, p): nearest-rank percentile (p in 0..100).
function stats.percentile(x, p)
  assert(type(p) == "number" and p >= 0 and p <= 100, "percentile: p must be in 0..100")
  if #x == 0 then return nil end
  if is_series(x) then return x:percentile(p) end
  return stats.percentile_sorted(stats.sorted(x), p)
end

--- stats.percentiles(x, {50, 95, 99}) -> {[50] = v, [95] = v, [99] = v} (one sort).
function stats.percentiles(x, ps)
  local out = {}
  if #x == 0 then return out end
  if is_series(x) then
    for _, p in ipairs(ps) do out[p] = x:percentile(p) end
    return out
  end
  local s = stats.sorted(x)
  for _, p in ipairs(ps) do out[p] = stats.percentile_sorted(s, p) end
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
  if #x == 0 then return nil end
  local v = stats.values(x)
  local med = stats.median(v)
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

--- stats.low_fps(frame_ms, pct [, sorted]) -> fps, k: 1000 / mean of the
-- slowest max(1, floor(n * pct / 100)) frame times. Pass `sorted` (ascending)
-- when you already have it. nil for no frames; math.huge when those frames
-- all took 0 ms.
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

function stats.low_fps(frame_ms, pct, sorted)
  local n = #frame_ms
  if sorted then n = #sorted end
  if n == 0 then return nil, 0 end
  local k = stats.slowest_count(n, pct)
  local s
  if not sorted and is_series(frame_ms) then s = series_top_sum(frame_ms, k) end
  if not s then
    sorted = sorted or stats.sorted(frame_ms)
    s = 0
    for i = n - k + 1, n do s = s + sorted[i] end
  end
  local mean = s / k
  if mean <= 0 then return math.huge, k end
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

--- stats.window(size) -> a sliding window of the last `size` values with an
-- O(log size) insert and an O(1) median: w:push(x), w:median(), w:count().
-- Used for baselines ("median of the preceding N frames") over long captures.
function stats.window(size)
  assert(math.type(size) == "integer" and size >= 1, "window size must be a positive integer")
  local ring, sorted = {}, {}
  local head, count = 0, 0 -- ring[head] is the newest value
  local w = {}

  local function lower_bound(x)
    local lo, hi = 1, #sorted + 1
    while lo < hi do
      local mid = (lo + hi) // 2
      if sorted[mid] < x then lo = mid + 1 else hi = mid end
    end
    return lo
  end

  function w.push(_, x)
    if x ~= x then x = 0 end -- NaN never enters a baseline
    if count == size then
      local old = ring[head % size + 1]
      table.remove(sorted, lower_bound(old))
    else
      count = count + 1
    end
    head = head % size + 1
    ring[head] = x
    table.insert(sorted, lower_bound(x), x)
  end

  function w.median()
    return stats.median_sorted(sorted)
  end

  function w.count()
    return count
  end

  function w.sorted()
    return sorted
  end

  return w
end

return stats
