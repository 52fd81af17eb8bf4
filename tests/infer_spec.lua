-- vp.infer: every statistic against a reference computed another way (plain
-- Lua over the same data, brute force over all pairs, textbook values), and
-- the calibration property itself on a small simulation: on drifting
-- captures the default test keeps its false alarms near alpha where the
-- per-frame Mann-Whitney test does not.
local vp = require "vp"
local infer = require "vp.infer"
local mwu = require "mwu_oracle"
local stats = require "vp.stats"

local function near(a, b, tol)
  return math.abs(a - b) <= (tol or 1e-12) * math.max(1, math.abs(b))
end

-- Simulated drifting captures (tools/sim.lua, the calibration's generator),
-- deterministic with a fixed seed per test; as lists for plain-Lua references.
package.path = "tools/?.lua;" .. package.path
local sim = require "sim"
local normal = sim.normal
local function drifting(n, phi, sd, shift)
  local d = {}
  for k, v in pairs(sim.DESIGN) do d[k] = v end
  d.phi, d.drift_sd, d.spike_p = phi, sd, 0
  return sim.capture(n, d, shift):totable()
end

-- Plain-Lua batch means (f(x), default x, over k contiguous batches, the
-- first n % k one longer): the column reference's (tests/infer_columns.lua).
local batch_means = dofile("tests/infer_columns.lua").batch_means

describe("vp.infer", function()
  it("batch_variance: the lag-1 inflation and degrees of freedom by hand", function()
    -- means 1..5: mean 3, ss 10, lag sum (-2)(-1) + (-1)(0) + 0(1) + 1(2) = 4, r = 0.4,
    -- bias-corrected r = 0.4 + (1 + 1.2) / 5 = 0.84, f = 1.84 / 0.16 = 11.5
    local b = infer.batch_variance({ 1, 2, 3, 4, 5 })
    assert.is_true(near(b.r, 0.84))
    assert.is_true(near(b.var, 10 / 4 / 5 * 11.5))
    assert.is_true(near(b.df, 4 / 11.5))
    local plain = infer.batch_variance({ 1, 2, 3, 4, 5 }, { r_correct = false })
    assert.is_true(near(plain.r, 0.4))
    assert.is_true(near(plain.var, 0.5 * 1.4 / 0.6))
    -- clipped: alternating means have r < 0, taken as 0 (no deflation)
    local alt = infer.batch_variance({ 1, 3, 1, 3, 1, 3 }, { r_correct = false })
    assert.equal(0, alt.r)
    assert.is_true(near(alt.var, (6 * 1) / 5 / 6))
    assert.equal(0.95, infer.batch_variance({ 1, 2, 3, 4, 5, 6, 7, 8 }).r)
    assert.is_nil(infer.batch_variance({ 1 }))
  end)

  it("mean: the batch means and their variance agree with plain Lua", function()
    math.randomseed(5)
    local x = drifting(1003, 0.99, 0.01)
    local s = infer.sample(x)
    assert.equal(20, s.k)
    local e = assert(infer.mean(s))
    local sum = 0
    for i = 1, #x do sum = sum + x[i] end
    assert.is_true(near(e.value, sum / #x))
    local ref = infer.batch_variance(batch_means(x, 20))
    assert.is_true(near(e.var, ref.var))
    assert.is_true(near(e.df, ref.df))
    -- independent units: s^2 / n
    local iid = assert(infer.mean(infer.sample({ 1, 2, 3, 4 }, { independent = true })))
    assert.is_true(near(iid.var, (5 / 3) / 4))
    assert.equal(3, iid.df)
    assert.is_nil(infer.mean(infer.sample({ 1, 2, 3 })))
    -- NaN values are left out, as vp.stats and vp.mwu leave them out
    local nan = infer.sample(vp.Series({ 1, 0 / 0, 2, 3, 0 / 0 }))
    assert.equal(3, nan.n)
    assert.equal(2, nan.x:mean())
  end)

  it("quantile: Woodruff's interval mapped through the empirical quantiles, by hand", function()
    math.randomseed(6)
    local x = drifting(3000, 0.99, 0.01)
    local s = infer.sample(x)
    local e = assert(infer.quantile(s, 0.95))
    local sorted = {}
    for i = 1, #x do sorted[i] = x[i] end
    table.sort(sorted)
    local function q(p) return sorted[math.max(1, math.min(#x, math.ceil(p * #x - 1e-9)))] end
    assert.equal(q(0.95), e.value)
    assert.equal(stats.percentile(x, 95), e.value)
    local b = infer.batch_variance(batch_means(x, 20, function(v) return v <= e.value and 1 or 0 end))
    local t = infer.t_crit(0.95, b.df)
    local se_p = math.sqrt(b.var)
    local se = (q(0.95 + t * se_p) - q(0.95 - t * se_p)) / (2 * t)
    assert.is_true(near(math.sqrt(e.var), se))
    assert.equal(b.df, e.df)
    -- too few values beyond the quantile: no estimate, and the reason
    local none, why = infer.quantile(infer.sample(x), 0.999)
    assert.is_nil(none)
    assert.matches("too few values beyond", why)
  end)

  it("nearest rank: infer's quantile ranks are a Series' percentile ranks for every n and p", function()
    local C = require "vp.infer.core"
    local ps = { 0, 0.1, 1, 5, 10, 25, 33.3, 50, 66.7, 90, 95, 99, 99.9, 100 }
    for n = 1, 120 do
      local v = {}
      for i = 1, n do v[i] = n + 1 - i end -- the value of rank r is r
      local s = vp.Series(v)
      for _, p in ipairs(ps) do
        assert.equal(s:percentile(p), C.nearest_rank(p, n), ("n = %d, p = %g"):format(n, p))
      end
    end
    -- p95 of 100 values is rank 95, not 96 through rounding; none of 0 values
    assert.equal(95, C.nearest_rank(95, 100))
    assert.equal(0, C.nearest_rank(50, 0))
    -- and infer.quantile's point estimate is the value at that rank
    local x = {}
    for i = 1, 400 do x[i] = (i * 7919) % 401 end
    assert.equal(stats.percentile(x, 50), assert(infer.quantile(infer.sample(x), 0.5)).value)
  end)

  it("low fps: the tail mean is stats.low_fps's, its variance that of the linearised series", function()
    math.randomseed(7)
    local x = drifting(3000, 0.99, 0.01)
    local s = infer.sample(x)
    local e = assert(infer.estimate({ kind = "low_fps", pct = 1 }, s))
    assert.is_true(near(e.value, stats.low_fps(vp.Series(x), 1), 1e-12))
    local sorted = {}
    for i = 1, #x do sorted[i] = x[i] end
    table.sort(sorted)
    local k = 30
    local q = sorted[#x - k + 1]
    local es = 0
    for i = #x - k + 1, #x do es = es + sorted[i] end
    es = es / k
    -- y_i = q + (n / k) max(x_i - q, 0): its mean is the tail mean
    local b = infer.batch_variance(batch_means(x, 20, function(v) return q + (#x / k) * math.max(v - q, 0) end))
    assert.is_true(near(b.mean, es, 1e-9))
    local slope = 1000 / (es * es)
    assert.is_true(near(e.var, slope * slope * b.var, 1e-9))
  end)

  it("share: 100 sum(g) / sum(f) with the variance of the ratio's linear part", function()
    math.randomseed(8)
    local g, f = {}, {}
    for i = 1, 2000 do
      g[i] = 2 + 0.2 * normal()
      f[i] = 14 + g[i] + normal()
    end
    local e = assert(infer.ratio(infer.sample(g), infer.sample(f), 100))
    local sg, sf = 0, 0
    for i = 1, #g do sg, sf = sg + g[i], sf + f[i] end
    local r = sg / sf
    assert.is_true(near(e.value, 100 * r))
    local bg, bf = batch_means(g, 20), batch_means(f, 20)
    local y = {}
    for i = 1, 20 do y[i] = 100 * (bg[i] - r * bf[i]) / (sf / #f) end
    assert.is_true(near(e.var, infer.batch_variance(y).var))
  end)

  it("difference: Welch-Satterthwaite degrees of freedom and the two-sided p by hand", function()
    local d = infer.difference({ value = 10, var = 1, df = 10 }, { value = 13, var = 4, df = 20 })
    assert.equal(3, d.diff)
    assert.is_true(near(d.se, math.sqrt(5)))
    assert.is_true(near(d.df, 25 / (1 / 10 + 16 / 20)))
    local t = infer.t_crit(0.95, d.df)
    assert.is_true(near(d.lo, 3 - t * math.sqrt(5)))
    assert.is_true(near(d.hi, 3 + t * math.sqrt(5)))
    assert.is_true(d.p > 0.15 and d.p < 0.22)
    local same = infer.difference({ value = 1, var = 0, df = 3 }, { value = 1, var = 0, df = 3 })
    assert.same({ 1, 0, 0 }, { same.p, same.lo, same.hi })
  end)

  it("runs: Welch's t on run values (Wikipedia's first example: t = -2.46, df 24.99, p 0.021)", function()
    local a = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 }
    local b = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 }
    local r = assert(infer.runs(b, a))
    assert.is_true(math.abs(r.t - -2.46) < 0.005, tostring(r.t))
    assert.is_true(math.abs(r.df - 24.99) < 0.01, tostring(r.df))
    assert.is_true(math.abs(r.p - 0.021) < 0.0005, tostring(r.p))
    assert.is_nil(infer.runs({ 1 }, { 2, 3 }))
  end)

  it("effects: Cliff's delta, P(B > A) and the Hodges-Lehmann shift by brute force over all pairs", function()
    math.randomseed(9)
    for round = 1, 6 do
      local a, b = {}, {}
      for i = 1, 40 + round * 7 do a[i] = math.random(0, 30) * 0.25 end
      for i = 1, 35 + round * 5 do b[i] = math.random(0, 30) * 0.25 + (round % 3) * 0.5 end
      local e = assert(infer.effects(infer.sample(a), infer.sample(b)))
      local diffs, gt, lt, eq = {}, 0, 0, 0
      for _, x in ipairs(a) do
        for _, y in ipairs(b) do
          diffs[#diffs + 1] = y - x
          if y > x then gt = gt + 1 elseif y < x then lt = lt + 1 else eq = eq + 1 end
        end
      end
      table.sort(diffs)
      local N = #diffs
      assert.is_true(near(e.delta, (gt - lt) / N))
      assert.is_true(near(e.prob_b_greater, (gt + eq / 2) / N))
      local hl = N % 2 == 1 and diffs[(N + 1) // 2] or (diffs[N // 2] + diffs[N // 2 + 1]) / 2
      assert.is_true(near(e.hl, hl))
      -- the interval: the differences of rank N/2 -+ t se(delta) N / 2
      assert.is_true(e.delta_lo <= e.delta and e.delta <= e.delta_hi)
      local half = (e.delta_hi - e.delta_lo) / 2
      if e.delta_lo > -1 and e.delta_hi < 1 then
        local kl = math.max(1, math.floor(N / 2 - half * N / 2))
        assert.equal(diffs[kl], e.hl_lo)
        assert.equal(diffs[N + 1 - kl], e.hl_hi)
      end
      assert.is_true(e.hl_lo <= e.hl and e.hl <= e.hl_hi)
    end
  end)

  it("shape: the pooled quantile by merging, and the grid test finds a wider tail that the mean test misses", function()
    local a, b = vp.Series({ 1, 3, 5, 7 }), vp.Series({ 2, 3, 4, 10, 11 })
    local all = { 1, 3, 5, 7, 2, 3, 4, 10, 11 }
    table.sort(all)
    local pa, pb = infer.sample(a), infer.sample(b)
    for r = 1, #all do assert.equal(all[r], infer.pooled_rank(pa, pb, r)) end
    math.randomseed(10)
    -- same median, B's spread doubled in both tails (means equal)
    local x, y = {}, {}
    for i = 1, 4000 do
      x[i] = 10 + normal()
      y[i] = 10 + 2 * normal()
    end
    local sx, sy = infer.sample(x), infer.sample(y)
    local grid = assert(infer.shape(sx, sy))
    assert.equal("grid", grid.test)
    assert.is_true(grid.p < 1e-6, tostring(grid.p))
    assert.is_true(infer.compare({ kind = "mean" }, sx, sy).p > 0.001)
    local same = assert(infer.shape(sx, infer.sample(x)))
    assert.equal(1, same.p)
    -- the grid's p by hand: at each point the pooled quantile, each side's share at or below it
    -- (plain-Lua batch means), Welch's t, the smallest p times the number of points
    local pooled = {}
    for i = 1, #x do pooled[#pooled + 1] = x[i] end
    for i = 1, #y do pooled[#pooled + 1] = y[i] end
    table.sort(pooled)
    local best, at = math.huge, nil
    for _, p in ipairs(infer.SHAPE_GRID) do
      local c = pooled[math.ceil(p * #pooled - 1e-9)]
      local function est(v)
        local bv = infer.batch_variance(batch_means(v, 20, function(u) return u <= c and 1 or 0 end))
        return { value = bv.mean, var = bv.var, df = bv.df }
      end
      local d = infer.difference(est(x), est(y))
      if d.p < best then best, at = d.p, p end
    end
    assert.is_true(near(grid.p, math.min(1, best * #infer.SHAPE_GRID), 1e-9))
    assert.equal(at, grid.at)
    for _, t in ipairs({ "ks", "ad" }) do
      assert.is_true(infer.shape(sx, sy, t).p < 1e-6, t)
      assert.is_true(infer.shape(sx, infer.sample(x), t).p > 0.99, t)
    end
  end)

  it("calibration in small: on drifting captures the default test keeps its false alarms near alpha; "
    .. "Mann-Whitney per frame does not #slow", function()
    math.randomseed(20240601)
    local pairs, fa_batch, fa_mwu, hits = 100, 0, 0, 0
    for _ = 1, pairs do
      local a, b = vp.Series(drifting(3000, 0.99, 0.01)), vp.Series(drifting(3000, 0.99, 0.01))
      if infer.compare({ kind = "mean" }, infer.sample(a), infer.sample(b)).p < 0.05 then fa_batch = fa_batch + 1 end
      if mwu.test(a, b).p < 0.05 then fa_mwu = fa_mwu + 1 end
      local c = vp.Series(drifting(3000, 0.99, 0.01, 0.03))
      if infer.compare({ kind = "mean" }, infer.sample(a), infer.sample(c)).p < 0.05 then hits = hits + 1 end
    end
    -- 5 % of 100 is 5; 12 would be far outside sampling error (P < 0.005)
    assert.is_true(fa_batch <= 12, "batch means: " .. fa_batch .. " false alarms in " .. pairs)
    assert.is_true(fa_mwu >= 25, "Mann-Whitney: " .. fa_mwu .. " false alarms in " .. pairs)
    assert.is_true(hits >= 0.95 * pairs, "a 3 % slowdown found " .. hits .. " times in " .. pairs)
  end)
end)

describe("vp.infer.holm", function()
  it("Holm: step-down adjusted p-values in the given order, monotone, capped at 1", function()
    local adj = infer.holm({ 0.01, 0.04, 0.03, 0.5 })
    -- sorted 0.01 0.03 0.04 0.5 -> 0.04, 0.09, max(0.09, 0.08) = 0.09, max(0.5, 0.09) = 0.5
    assert.is_true(math.abs(adj[1] - 0.04) < 1e-15)
    assert.is_true(math.abs(adj[3] - 0.09) < 1e-15)
    assert.is_true(math.abs(adj[2] - 0.09) < 1e-15)
    assert.is_true(math.abs(adj[4] - 0.5) < 1e-15)
    assert.same({ 0.7 }, infer.holm({ 0.7 }))
    assert.equal(1, infer.holm({ 0.6, 0.9 })[1])
  end)
end)
