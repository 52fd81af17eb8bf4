-- vp.Series operations (arithmetic, median, where/filter/count_above,
-- slice, rolling, histogram, cumsum, diff, sort, top, hitches) against plain
-- Lua reference loops on random data with NaN, ties and empty series, and
-- their errors.
local vp = require "vp"
local helpers = require "helpers"

local NAN = 0 / 0

local function isnan(x) return x ~= x end

-- The same number, or both NaN; `tol` relative (sums in another order).
local function same(a, b, tol)
  if isnan(a) or isnan(b) then return isnan(a) and isnan(b) end
  if a == b then return true end
  tol = tol or 0
  return math.abs(a - b) <= tol * (1 + math.abs(a) + math.abs(b))
end

local function assert_list(want, got, tol, what)
  assert.are.equal(#want, #got, what .. ": length")
  for i = 1, #want do
    assert.is_true(same(want[i], got[i], tol), string.format("%s[%d]: want %s, got %s", what, i,
      tostring(want[i]), tostring(got[i])))
  end
end

-- A random list: NaN one time in ten; few distinct values in some rounds.
local function random_list(n, ties)
  local t = {}
  for i = 1, n do
    if math.random(10) == 1 then
      t[i] = NAN
    elseif ties then
      t[i] = math.random(0, 4) + 0.0
    else
      t[i] = math.random() * 100 - 20
    end
  end
  return t
end

local function numbers(t, lo, hi)
  local out = {}
  for i = lo or 1, hi or #t do
    if not isnan(t[i]) then out[#out + 1] = t[i] end
  end
  return out
end

local function ref_median(t, lo, hi)
  local v = numbers(t, lo, hi)
  if #v == 0 then return NAN end
  table.sort(v)
  local h = #v // 2
  if #v % 2 == 1 then return v[h + 1] end
  return (v[h] + v[h + 1]) / 2
end

local CMP = {
  [">"] = function(v, x) return v > x end, [">="] = function(v, x) return v >= x end,
  ["<"] = function(v, x) return v < x end, ["<="] = function(v, x) return v <= x end,
  ["=="] = function(v, x) return v == x end, ["~="] = function(v, x) return v ~= x end,
}

describe("vp.Series operations", function()
  math.randomseed(20240)

  it("match plain Lua loops on random data with NaN, ties and empty series #slow", function()
    for round = 1, 60 do
      local n = round <= 3 and (round - 1) or math.random(0, 150)
      local ties = round % 3 == 0
      local a, b = random_list(n, ties), random_list(n, ties)
      local s, t = vp.Series(a), vp.Series(b)
      local x = math.random(-5, 30) + 0.0

      -- arithmetic, element-wise: IEEE, NaN in gives NaN out
      local want = { add = {}, sub = {}, mul = {}, div = {}, rsub = {}, rdiv = {}, neg = {} }
      for i = 1, n do
        want.add[i], want.sub[i] = a[i] + b[i], a[i] - b[i]
        want.mul[i], want.div[i] = a[i] * x, a[i] / b[i]
        want.rsub[i], want.rdiv[i], want.neg[i] = x - a[i], x / a[i], -a[i]
      end
      assert_list(want.add, (s + t):totable(), 0, "s + t")
      assert_list(want.sub, (s - t):totable(), 0, "s - t")
      assert_list(want.mul, (s * x):totable(), 0, "s * x")
      assert_list(want.div, (s / t):totable(), 0, "s / t")
      assert_list(want.rsub, (x - s):totable(), 0, "x - s")
      assert_list(want.rdiv, (x / s):totable(), 0, "x / s")
      assert_list(want.neg, (-s):totable(), 0, "-s")

      -- median of the numbers
      local m = s:median()
      assert.is_true(same(ref_median(a), m), "median")

      -- the statistics of the numbers, wherever the NaN are
      local nums = numbers(a)
      local total, smallest, hi, imax, imin = 0, NAN, NAN, nil, nil
      for p = 1, n do
        local y = a[p]
        if not isnan(y) then
          total = total + y
          if imax == nil or y > hi then hi, imax = y, p end
          if imin == nil or y < smallest then smallest, imin = y, p end
        end
      end
      local mean = #nums > 0 and total / #nums or NAN
      local var = 0
      for _, y in ipairs(nums) do var = var + (y - mean) ^ 2 end
      assert.is_true(same(total, s:sum(), 1e-12), "sum")
      assert.is_true(same(mean, s:mean(), 1e-12), "mean")
      assert.is_true(same(#nums > 0 and math.sqrt(var / #nums) or NAN, s:stddev(), 1e-9), "stddev")
      assert.is_true(same(hi, s:max()), "max")
      assert.is_true(same(smallest, s:min()), "min")
      assert.are.equal(imax, s:argmax(), "argmax")
      assert.are.equal(imin, s:argmin(), "argmin")
      local asc = numbers(a)
      table.sort(asc)
      for _, p in ipairs({ 0, 1, 25, 50, 90, 99, 99.9, 100 }) do
        local want_p = #asc > 0 and asc[math.max(1, math.ceil(p / 100 * #asc))] or NAN
        assert.is_true(same(want_p, s:percentile(p)), "percentile " .. p)
      end

      -- selections: never a NaN
      for op, f in pairs(CMP) do
        local idx, vals = {}, {}
        for i = 1, n do
          if not isnan(a[i]) and f(a[i], x) then
            idx[#idx + 1], vals[#vals + 1] = i, a[i]
          end
        end
        assert.are.same(idx, s:where(x, op), "where " .. op)
        assert_list(vals, s:filter(x, op):totable(), 0, "filter " .. op)
        if op == ">" then
          assert.are.same(idx, s:where(x))
          assert.are.equal(#idx, s:count_above(x))
        end
      end
      local even = {}
      for i = 2, n, 2 do even[#even + 1] = i end
      assert.are.same(even, s:where(function(_, i) return i % 2 == 0 end))
      local nan_count = n - #numbers(a)
      assert.are.equal(nan_count, #s:filter(function(v) return v ~= v end))

      -- slice
      local i, j = math.random(0, n + 2), math.random(-1, n + 2)
      local sl = {}
      for k = math.max(i, 1), math.min(j, n) do sl[#sl + 1] = a[k] end
      assert_list(sl, s:slice(i, j):totable(), 0, "slice")

      -- rolling windows, both median paths (<= 256 values sorted, more in two heaps)
      for _, w in ipairs({ 1, 3, 30, 256, 257, 300 }) do
        local rmean, rmax, rmed = {}, {}, {}
        for k = 1, n do
          local lo = math.max(1, k - w + 1)
          local v = numbers(a, lo, k)
          local sum, mx = 0, NAN
          for _, y in ipairs(v) do
            sum = sum + y
            if isnan(mx) or y > mx then mx = y end
          end
          rmean[k] = #v > 0 and sum / #v or NAN
          rmax[k] = mx
          rmed[k] = ref_median(a, lo, k)
        end
        assert_list(rmean, s:rolling(w, "mean"):totable(), 1e-9, "rolling mean " .. w)
        assert_list(rmean, s:rolling(w):totable(), 1e-9, "rolling default " .. w)
        assert_list(rmax, s:rolling(w, "max"):totable(), 0, "rolling max " .. w)
        assert_list(rmed, s:rolling(w, "median"):totable(), 0, "rolling median " .. w)
      end

      -- cumsum (NaN left out of the sum), diff (n - 1 values), sort (NaN last)
      local cs, run, df = {}, 0, {}
      for k = 1, n do
        if isnan(a[k]) then cs[k] = NAN else run = run + a[k]; cs[k] = run end
        if k < n then df[k] = a[k + 1] - a[k] end
      end
      assert_list(cs, s:cumsum():totable(), 1e-12, "cumsum")
      assert_list(df, s:diff():totable(), 0, "diff")
      local sorted = numbers(a)
      table.sort(sorted)
      for _ = 1, nan_count do sorted[#sorted + 1] = NAN end
      assert_list(sorted, s:sort():totable(), 0, "sort")

      -- top(k): the positions of the k largest numbers, largest first, earlier first on ties
      local k = math.random(0, 12)
      local order = {}
      for p = 1, n do
        if not isnan(a[p]) then order[#order + 1] = p end
      end
      table.sort(order, function(p, q)
        if a[p] ~= a[q] then return a[p] > a[q] end
        return p < q
      end)
      local top = {}
      for p = 1, math.min(k, #order) do top[p] = order[p] end
      assert.are.same(top, s:top(k), "top " .. k)

      -- histogram with 5 equal bins: every number in the bin its edges say
      local hist = s:histogram(5)
      if #numbers(a) == 0 then
        assert.are.same({}, hist.edges)
        assert.are.same({}, hist.counts)
        assert.are.equal(n, hist.missing)
      else
        assert.are.equal(6, #hist.edges)
        local counts = { 0, 0, 0, 0, 0 }
        for _, y in ipairs(numbers(a)) do
          local bin = 5
          for e = 1, 5 do
            if y >= hist.edges[e] and y < hist.edges[e + 1] then
              bin = e
              break
            end
          end
          counts[bin] = counts[bin] + 1
        end
        assert.are.same(counts, hist.counts)
        assert.are.same({ 0, 0, nan_count }, { hist.below, hist.above, hist.missing })
      end
    end
  end)

  it("answers the documented small cases exactly", function()
    local s = vp.Series { 3, 1, NAN, 5, 2 }
    assert.are.equal(2.5, s:median())
    assert.are.same({ 1, 4 }, s:where(2))
    assert.are.same({ 2, 5 }, s:where(2, "<="))
    assert.are.equal(2, s:count_above(2))
    assert.are.same({ 4, 1 }, s:top(2))
    assert.are.same({ 3.0, 3.0, 1.0, 5.0, 5.0 }, s:rolling(2, "max"):totable())
    local h = vp.Series { -1, 0, 0.5, 1, 2, 3, NAN, 4 }:histogram({ 0, 1, 3 })
    assert.are.same({ 0, 1, 3 }, h.edges)
    assert.are.same({ 2, 3 }, h.counts)
    assert.are.same({ 1, 1, 1 }, { h.below, h.above, h.missing })
    -- one distinct value: bins around it, as numpy does
    assert.are.same({ 6.5, 7.0, 7.5 }, vp.Series { 7, 7 }:histogram(2).edges)
    -- the median of an even count is the mean of the middle two; p50 is not
    assert.are.equal(1.5, vp.Series { 1, 2 }:median())
    assert.are.equal(1, vp.Series { 1, 2 }:percentile(50))
    assert.is_true(isnan(vp.Series {}:median()))
    assert.is_true(isnan(vp.Series { NAN }:median()))
    assert.are.same({}, vp.Series { 1 }:diff():totable())
  end)

  it("gives every statistic of the numbers whatever the position of a NaN (issue 26)", function()
    for _, t in ipairs({ { NAN, 1, 3 }, { 1, NAN, 3 }, { 1, 3, NAN }, { NAN, 3, NAN, 1, NAN } }) do
      local s = vp.Series(t)
      local what = table.concat(s:totable(), " ")
      assert.are.equal(3, s:max(), "max of " .. what)
      assert.are.equal(1, s:min(), "min of " .. what)
      assert.are.equal(4, s:sum(), "sum of " .. what)
      assert.are.equal(2, s:mean(), "mean of " .. what)
      assert.are.equal(1, s:stddev(), "stddev of " .. what)
      assert.are.equal(3, s:percentile(99), "p99 of " .. what)
      assert.are.equal(1, s:percentile(50), "p50 of " .. what)
      assert.are.equal(3, t[s:argmax()], "argmax of " .. what)
      assert.are.equal(1, t[s:argmin()], "argmin of " .. what)
      assert.are.equal(2, s:median(), "median of " .. what)
    end
    local none = vp.Series { NAN, NAN }
    for _, f in ipairs({ "mean", "min", "max", "stddev", "median" }) do
      assert.is_true(isnan(none[f](none)), f .. " of no number")
    end
    assert.is_true(isnan(none:percentile(50)))
    assert.is_nil(none:argmax())
    assert.is_nil(none:argmin())
    assert.are.equal(0, none:sum())
    assert.are.equal(0, none:count())
    assert.are.equal(2, vp.Series { NAN, 1, 3 }:count())
  end)

  it("abs, and windows on a clock: statistics per wall-clock window (issue 26)", function()
    assert.are.same({ 1.0, 2.0, 0.0 }, vp.Series { -1, 2, -0.0 }:abs():totable())
    assert.is_true(isnan(vp.Series { NAN }:abs()[1]))
    -- frame times of 10 ms, one of 35: windows of 30 ms end where the clock reaches 30, 60, 90, ...
    local ft = vp.Series { 10, 10, 10, 10, 35, 10, 10 }
    local w = ft:windows(30)
    assert.are.same({ first = 1, last = 3, start = 0, span = 30 }, w[1])
    assert.are.same({ first = 4, last = 5, start = 30, span = 45 }, w[2]) -- the 35 ms frame takes 60 and 90
    assert.are.same({ first = 6, last = 7, start = 75, span = 20 }, w[3]) -- the rest, however short
    assert.are.equal(3, #w)
    -- every value in exactly one window, in order
    local ticks = vp.Series { 1, 1, 1, 1, 1, 1, 1 }
    local values = vp.Series { 5, 6, 7, 8, 9, 10, 11 }
    local byclock = values:windows(2, ticks)
    assert.are.same({ 1, 3, 5, 7 }, { byclock[1].first, byclock[2].first, byclock[3].first, byclock[4].first })
    assert.are.equal(7, byclock[4].last)
    assert.are.same({}, vp.Series {}:windows(10))
    assert.has_error(function() ft:windows(0) end)
    assert.has_error(function() ft:windows(10, vp.Series { 1 }) end, "Series lengths differ: 7 and 1 "
      .. "(the clock needs one duration per value)")
  end)

  it("works on a capture's columns and keeps the inputs unchanged", function()
    local cap = assert(vp.open("examples/sample.vprof"))
    local ft = cap:frame_times()
    local physics = cap:series("Root/CEngine::Frame/_Host_RunFrame_Server/Physics_Step", "time_ms")
    local rest = ft - physics
    assert.are.equal(#ft, #rest)
    assert.is_true(same(ft:sum() - physics:sum(), rest:sum(), 1e-12))
    local slow = ft:where(50)
    assert.are.equal(ft:count_above(50), #slow)
    for _, i in ipairs(slow) do assert.is_true(ft[i] > 50) end
    assert.are.equal(ft:argmax(), ft:top(1)[1])
    assert.are.equal(4000, #ft)
    cap:close()
  end)

  it("refuses unequal lengths, other types and bad arguments with a clear message", function()
    local s = vp.Series { 1, 2, 3 }
    local ok, err = pcall(function() return s + vp.Series { 1, 2 } end)
    assert.is_false(ok)
    assert.matches("Series lengths differ: 3 and 2 %(element%-wise %+ needs equal lengths%)", err)
    ok, err = pcall(function() return s * "2" end)
    assert.is_false(ok)
    assert.matches("arithmetic %(%*%) on a Series and a string value", err)
    assert.has_error(function() s:where("big") end)
    assert.has_error(function() s:where(1, "=>") end)
    assert.has_error(function() s:rolling(0, "mean") end)
    assert.has_error(function() s:rolling(3, "min") end)
    assert.has_error(function() s:histogram(0) end)
    assert.has_error(function() s:histogram({ 1, 1 }) end)
    assert.has_error(function() s:top(-1) end)
    -- an error inside a predicate goes through (the asan run checks nothing leaks)
    assert.has_error(function() s:filter(function() error("pred failed") end) end)
  end)
end)

describe("vp.Series hitches", function()
  it("are the plain definition's, on random times with NaN and ties, over short and long windows", function()
    local rand = helpers.random(20250101)
    local tried = 0
    for _, n in ipairs({ 0, 1, 2, 40, 1200 }) do
      local t = {}
      for i = 1, n do
        local r = rand(100)
        t[i] = r < 3 and 0 / 0 or r < 10 and 40 + rand(30) or 10 + rand(4) / 2 -- spikes, ties, NaN
      end
      local s = vp.Series(t)
      -- a low factor and no excess make most frames candidates: the long
      -- windows then take the sliding median
      for _, p in ipairs({ { factor = 2.5, window = 30, min_excess_ms = 5 },
        { factor = 1.01, window = 7, min_excess_ms = 0 }, { factor = 1.01, window = 600, min_excess_ms = 0 },
        { factor = 2, window = 1, min_excess_ms = 1 }, { threshold_ms = 41, window = 30 } }) do
        assert.same(helpers.hitch_definition(t, p), s:hitches(p), "n " .. n .. ", window " .. p.window)
        tried = tried + 1
      end
    end
    assert.equal(25, tried)
    assert.is_true(#vp.Series({ 10, 10, 50, 10 }):hitches({ factor = 2.5, window = 30, min_excess_ms = 5 }) == 1)
  end)
end)

describe("vp.Dist of a column", function()
  -- Whole multiples of a unit, ties and an empty column: every figure the
  -- two share is the Series', bit for bit (stddev to its last bits).
  it("answers what the Series answers, by the same names", function()
    math.randomseed(4077) -- its own draws, whatever ran before
    for round = 1, 40 do
      local unit = ({ 1, 0.004, 0.25, 3 })[round % 4 + 1]
      local n = round == 1 and 0 or math.random(1, 300)
      local t = {}
      for i = 1, n do t[i] = math.random(0, round % 3 == 0 and 5 or 5000) * unit end
      local first = math.random(1, 1000)
      local s = vp.Series(t, first)
      local d = vp.Dist(s, unit)
      assert.are.equal("vp.Dist", getmetatable(d).__name)
      assert.are.equal(#s, #d)
      for _, m in ipairs({ "sum", "mean", "min", "max", "argmin", "argmax" }) do
        assert.is_true(same(s[m](s), d[m](d)), m .. ": " .. tostring(s[m](s)) .. " vs " .. tostring(d[m](d)))
      end
      assert.is_true(same(s:stddev(), d:stddev(), 1e-12), "stddev")
      for _, p in ipairs({ 0, 1, 25, 50, 90, 99, 99.9, 100 }) do
        assert.is_true(same(s:percentile(p), d:percentile(p)), "percentile " .. p)
      end
      local c, total = d:counts()
      assert.are.equal(n, total)
      local want = {}
      for _, v in ipairs(t) do want[v] = (want[v] or 0) + 1 end
      assert.are.same(want, c)
      assert.are.equal(s, d:series())
      assert_list(t, d:totable(), 0, "totable")
      if n > 0 then assert.are.equal(s[first], d[first]) end
      assert.is_nil(d[first + n])
      local cuts = { 0, n // 2, n }
      assert.are.same(require("vp.infer.core").batched(s, cuts):counts(), d:batches(cuts):counts())
    end
    local d = vp.Dist { 3, 1, 2, 3 }
    assert.are.equal(1, d:argmax())
    assert.are.equal(2, d:argmin())
    assert.are.equal("<Dist n=4 mean=2.25 unit=1>", tostring(d))
  end)

  it("holds whole multiples >= 0 of its unit only, and has no top_sum", function()
    local why = "is not a whole multiple >= 0 of the unit 1.0"
    assert.has_error(function() vp.Dist({ 1, 0.5 }) end, "vp.Dist: value 2 (0.5) " .. why)
    assert.has_error(function() vp.Dist({ -1 }) end, "vp.Dist: value 1 (-1.0) " .. why)
    assert.has_error(function() vp.Dist({ -0.0 }) end)
    assert.has_error(function() vp.Dist({ 1, NAN }) end, "vp.Dist: value 2 is NaN: a dist counts numbers only")
    assert.has_error(function() vp.Dist({ 0.003 }, 0.002) end)
    assert.has_error(function() vp.Dist({ 1 }, 0) end)
    assert.has_error(function() vp.Dist({ 1 }, NAN) end)
    assert.has_error(function() vp.Dist(5) end)
    assert.has_error(function() vp.Dist({ "x" }) end)
    assert.has_error(function() vp.Dist({ 1 }):top_sum(1) end)
    assert.has_error(function() vp.Dist({ 1, 2 }):batches({ 0, 1 }) end)
  end)

  it("of a capture's frame times is that capture's frame-time dist", function()
    local cap = assert(vp.open("examples/sample.vprof"))
    local a, s = cap:dist("frame_ms"), cap:frame_times()
    local b = vp.Dist(s, 4 / 1000)
    for _, m in ipairs({ "sum", "mean", "min", "max", "argmin", "argmax", "stddev" }) do
      assert.are.equal(a[m](a), b[m](b), m)
    end
    for _, p in ipairs({ 0, 50, 99, 100 }) do assert.are.equal(a:percentile(p), b:percentile(p)) end
    assert.are.same((a:counts()), (b:counts()))
    assert.are.same(a:batches({ 0, 2000, #s }):counts(), b:batches({ 0, 2000, #s }):counts())
    cap:close()
  end)
end)

describe("a Series' memory and the collector", function()
  it("a collector the script stopped stays stopped", function()
    local collected = false
    collectgarbage("stop")
    setmetatable({}, { __gc = function() collected = true end }) -- garbage at once
    local t = {}
    for i = 1, 100000 do t[i] = i end
    for _ = 1, 20 do vp.Series(t):slice(1, 100000):median() end
    local running = collectgarbage("isrunning")
    collectgarbage("restart")
    assert.is_false(running)
    assert.is_false(collected, "a Series made the stopped collector run")
  end)
end)

describe("a Series' memory and the collector #slow #resource", function()
  it("garbage slices and sorted copies of a long column are collected as they pile up", function()
    local measure = require "hostile.measure"
    -- 200 slices of an 8 MB column (1.6 GB of values made in all), each
    -- asked for its median (a sorted copy as large): with nothing else
    -- allocated, the collector runs only if the values count towards it
    local code = "local t = {} for i = 1, 1000000 do t[i] = i % 977 end local s = vp.Series(t) t = nil "
      .. "local m = 0 for _ = 1, 200 do m = m + s:slice(1, #s):median() end print(m)"
    local r = measure.run({ "-e", code })
    assert.are.equal(0, r.code, r.stderr)
    assert.are.equal(200 * 488, tonumber(r.stdout:match("^(%S+)")))
    assert.is_true(r.rss_mb < 200, string.format("peak RSS %.0f MB", r.rss_mb))
  end)
end)
