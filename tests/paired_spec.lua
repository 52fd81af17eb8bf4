-- vp.infer's paired statistics, vp.phases and vp.align, each against a
-- reference computed the plain way (the values expanded into lists and
-- sorted, the binomial summed term by term, boundaries planted where they
-- are known), and the verdicts they give on captures shaped like a
-- scripted benchmark (tools/sim.lua's families, written as VProf captures).
local vp = require "vp"
local infer = require "vp.infer"
local C = require "vp.infer.core"
local phases = require "vp.phases"
local align = require "vp.align"
local compare = require "vp.compare"
local h = require "helpers"

package.path = "tools/?.lua;" .. package.path
local sim = require "sim"

local function near(a, b, tol)
  return math.abs(a - b) <= (tol or 1e-12) * math.max(1, math.abs(b))
end

-- Plain-Lua references over a column cut at cuts {0, ..., n}.
local function stretches(x, cuts)
  local out = {}
  for i = 2, #cuts do out[i - 1] = table.move(x, cuts[i - 1] + 1, cuts[i], 1, {}) end
  return out
end
local function nearest_rank(sorted, p) -- p in 0..100
  local n = #sorted
  local r = math.max(1, math.min(n, math.ceil(p / 100 * n - 1e-9)))
  return sorted[r]
end
local function weighted(parts, w, base)
  local all = {}
  for i, part in ipairs(parts) do
    for _ = 1, w[base + i] do
      for _, v in ipairs(part) do all[#all + 1] = v end
    end
  end
  table.sort(all)
  return all
end

local function column(n, seed, f)
  math.randomseed(seed)
  local x = {}
  for i = 1, n do x[i] = f(i) end
  return x
end

describe("vp.infer.core boot and percentiles", function()
  local x = column(997, 3, function(i) return math.floor((10 + (i % 50) / 10 + math.random() * 4) * 250) / 250 end)
  local cuts = { 0, 100, 250, 251, 600, 997 }
  local b = C.batched(vp.Series(x), cuts)
  local parts = stretches(x, cuts)

  it("each batch's nearest-rank percentile is the sorted batch's", function()
    for _, p in ipairs({ 0, 1, 50, 95, 99, 100 }) do
      local got = C.percentiles(b, p)
      for i, part in ipairs(parts) do
        local sorted = table.move(part, 1, #part, 1, {})
        table.sort(sorted)
        assert.equal(nearest_rank(sorted, p), got[i])
      end
    end
  end)

  it("a weighting's quantile and tail mean are those of the values repeated as weighted", function()
    local w = infer.block_weights(#parts, 25)
    for _, p in ipairs({ 5, 50, 99 }) do
      local got = C.boot(b, w, "quantile", p)
      for r = 0, 24 do
        assert.equal(nearest_rank(weighted(parts, w, r * #parts), p), got[r + 1])
      end
    end
    for _, pct in ipairs({ 1, 0.1, 10 }) do
      local got = C.boot(b, w, "tail_mean", pct)
      for r = 0, 24 do
        local all = weighted(parts, w, r * #parts)
        local k = math.max(1, math.floor(#all * pct / 100 + 1e-9))
        local s = 0
        for i = #all - k + 1, #all do s = s + all[i] end
        assert.is_true(near(got[r + 1], s / k, 1e-12))
      end
    end
  end)

  it("block weights draw every stretch count k times in all, from a fixed seed", function()
    local w, block = infer.block_weights(40, 50)
    assert.equal(3, block)
    for r = 0, 49 do
      local total = 0
      for i = 1, 40 do
        local v = w[r * 40 + i]
        assert.equal(math.type(v), "integer")
        total = total + v
      end
      assert.equal(40, total)
    end
    local again = infer.block_weights(40, 50)
    assert.same(w, again)
    assert.has_error(function() C.boot(b, { 1, 2 }, "quantile", 50) end)
  end)
end)

describe("vp.infer.paired", function()
  -- Two runs of one scenario: every stretch has its own level (a phase),
  -- B's values are A's level times (1 + shift) with noise of their own.
  local function pair(shift, seed)
    local level = {}
    math.randomseed(seed)
    for i = 1, 30 do level[i] = 8 + 12 * math.random() end
    local function run(s)
      local x = {}
      for i = 1, 30 * 50 do
        x[i] = math.floor(level[(i - 1) // 50 + 1] * (1 + s) * (1 + 0.05 * sim.normal()) * 250 + 0.5) / 250
      end
      return x
    end
    local a, b = run(0), run(shift)
    local cuts = {}
    for i = 0, 30 do cuts[i + 1] = 50 * i end
    return a, b, cuts
  end

  it("means: the ratio of the stretch means, residuals clipped, by hand", function()
    local a, b, cuts = pair(0.04, 11)
    b[700] = b[700] + 400 -- a hitch in one run only: clipped, not a change
    local sa = infer.sample(vp.Series(a), { cuts = cuts })
    local sb = infer.sample(vp.Series(b), { cuts = cuts })
    local d = assert(infer.paired({ kind = "mean" }, sa, sb))
    -- the reference
    local ma, mb, sum_a, sum_b = {}, {}, 0, 0
    for i, part in ipairs(stretches(a, cuts)) do
      local s = 0
      for _, v in ipairs(part) do s = s + v end
      ma[i] = s / #part
      sum_a = sum_a + ma[i]
    end
    for i, part in ipairs(stretches(b, cuts)) do
      local s = 0
      for _, v in ipairs(part) do s = s + v end
      mb[i] = s / #part
      sum_b = sum_b + mb[i]
    end
    local R = sum_b / sum_a
    local e = {}
    for i = 1, 30 do e[i] = mb[i] - R * ma[i] end
    local clipped, n = infer.clip(e)
    assert.equal(1, n) -- the hitch's stretch
    assert.equal(n, d.clipped)
    local pooled = infer.pool(clipped, 2)
    local bv = infer.batch_variance(pooled)
    assert.is_true(near(d.df, 2 / (2 / bv.df + 4 / ((1 - bv.r ^ 2) * 15)), 1e-12))
    local mean_a, all_a = sum_a / 30, 0
    for _, v in ipairs(a) do all_a = all_a + v end
    all_a = all_a / #a
    assert.is_true(near(d.diff, (R + bv.mean / mean_a - 1) * all_a, 1e-9))
    assert.is_true(near(d.se, math.sqrt(bv.var) / mean_a * all_a, 1e-9))
    assert.is_true(d.p < 1e-3, d.p)
    assert.is_true(d.lo / all_a > 0.025 and d.hi / all_a < 0.06)
  end)

  it("ratio_change: segment by segment, weighted by A's share, when the change differs by phase", function()
    -- two phases; B's change is +5 % in the first and +20 % in the second
    local va, vb, strata = {}, {}, {}
    math.randomseed(4)
    for i = 1, 40 do
      local phase = i <= 20 and 1 or 2
      va[i] = (phase == 1 and 10 or 20) * (1 + 0.01 * sim.normal())
      vb[i] = (phase == 1 and 10.5 or 24) * (1 + 0.01 * sim.normal())
      strata[i] = phase
    end
    local one = infer.ratio_change(va, vb)
    local two = infer.ratio_change(va, vb, strata)
    assert.equal(1, one.strata)
    assert.equal(2, two.strata)
    -- the same estimate (A's share weights the segments' ratios), far less uncertain
    local sa, sb = 0, 0
    for i = 1, 40 do sa, sb = sa + va[i], sb + vb[i] end
    assert.is_true(near(two.value, sb / sa - 1, 1e-3))
    assert.is_true(two.var < one.var / 20)
    -- by hand: each segment's ratio and its residuals' batch variance
    local function seg(from, to)
      local a, b = 0, 0
      for i = from, to do a, b = a + va[i], b + vb[i] end
      local ratio, e = b / a, {}
      for i = from, to do e[#e + 1] = vb[i] - ratio * va[i] end
      return ratio, infer.pool(e, 2), a / (to - from + 1), a
    end
    local r1, p1, m1, a1 = seg(1, 20)
    local r2, p2, m2, a2 = seg(21, 40)
    local function mean(l) local t = 0 for _, v in ipairs(l) do t = t + v end return t / #l end
    local est = (a1 * (r1 - 1 + mean(p1) / m1) + a2 * (r2 - 1 + mean(p2) / m2)) / (a1 + a2)
    assert.is_true(near(two.value, est, 1e-12))
    -- a group only B has: the absolute change, not a ratio
    local z = infer.ratio_change({ 0, 0, 0, 0 }, { 1, 1, 1, 1 })
    assert.is_false(z.relative)
    assert.equal(1, z.value)
    -- random (the typical frame): the segments' +5 % and +20 % differ far
    -- beyond their noise, so a between-segment variance comes in, by
    -- DerSimonian and Laird: tau2 = (Q - 1) / (W - sum w^2 / W) with the
    -- segments' variances v_s (w = 1 / v_s) and Q = sum w (est_s - fixed)^2
    local rnd = infer.ratio_change(va, vb, strata, true)
    assert.equal(two.value, rnd.value)
    assert.equal(0, two.tau2)
    local e1 = r1 - 1 + mean(p1) / m1
    local e2 = r2 - 1 + mean(p2) / m2
    -- the segments' shared noise variance: two.var = sum (share^2 v)
    local w1, w2 = a1 / (a1 + a2), a2 / (a1 + a2)
    local v1 = two.var / (w1 * w1 + w2 * w2 * #p1 / #p2) -- v_s = sigma2 f / n_s
    local v2 = v1 * #p1 / #p2
    local W, fixed = 1 / v1 + 1 / v2, (e1 / v1 + e2 / v2) / (1 / v1 + 1 / v2)
    local q = (e1 - fixed) ^ 2 / v1 + (e2 - fixed) ^ 2 / v2
    local tau2 = (q - 1) / (W - (1 / v1 ^ 2 + 1 / v2 ^ 2) / W)
    assert.is_true(near(rnd.tau2, tau2, 1e-9))
    assert.is_true(near(rnd.var, two.var + (w1 * w1 + w2 * w2) * tau2, 1e-9))
    assert.is_true(rnd.df < two.df)
    -- one segment, or segments that agree: nothing to add
    local flat = {}
    for i = 1, 40 do flat[i] = va[i] * 1.05 end
    assert.is_true(infer.ratio_change(va, flat, strata, true).tau2 < 1e-20)
  end)

  it("clip pulls in a lone stretch that stands out, not drift; pool averages neighbours", function()
    local ramp, spiked = {}, {}
    for i = 1, 30 do
      ramp[i] = i * 0.1 + ((i % 3) - 1) * 0.01
      spiked[i] = ramp[i]
    end
    spiked[17] = spiked[17] + 5
    local r, n = infer.clip(ramp)
    assert.equal(0, n)
    assert.same(ramp, r)
    local c, m = infer.clip(spiked)
    assert.equal(1, m)
    assert.is_true(c[17] < spiked[17] and c[17] > ramp[17])
    for i = 1, 30 do
      if i ~= 17 then assert.equal(spiked[i], c[i]) end
    end
    assert.same({ 1.5, 3.5, 5 }, infer.pool({ 1, 2, 3, 4, 5 }, 2))
    assert.same({ 1, 2 }, infer.pool({ 1, 2 }, 1))
  end)

  it("keeps its false alarms near alpha where the levels differ by stretch, and finds 3 %", function()
    local flagged, found = 0, 0
    for seed = 1, 60 do
      local a, b, cuts = pair(0, 100 + seed)
      local d = infer.paired({ kind = "mean" }, infer.sample(vp.Series(a), { cuts = cuts }),
        infer.sample(vp.Series(b), { cuts = cuts }))
      if d.p < 0.05 then flagged = flagged + 1 end
      local _, b3 = pair(0.03, 100 + seed)
      local d3 = infer.paired({ kind = "mean" }, infer.sample(vp.Series(a), { cuts = cuts }),
        infer.sample(vp.Series(b3), { cuts = cuts }))
      if d3.p < 0.05 and d3.diff > 0 then found = found + 1 end
      -- the independent test sees the levels as noise
    end
    assert.is_true(flagged <= 8, "false alarms: " .. flagged .. " of 60")
    assert.is_true(found >= 57, "found: " .. found .. " of 60")
  end)

  it("quantiles: the samples' own, their interval Woodruff's on the paired stretches, by hand", function()
    local a, b, cuts = pair(0.05, 21)
    local sa = infer.sample(vp.Series(a), { cuts = cuts })
    local sb = infer.sample(vp.Series(b), { cuts = cuts })
    local d = assert(infer.paired({ kind = "quantile", p = 0.95 }, sa, sb))
    local sorted_a = table.move(a, 1, #a, 1, {})
    local sorted_b = table.move(b, 1, #b, 1, {})
    table.sort(sorted_a)
    table.sort(sorted_b)
    assert.equal(nearest_rank(sorted_b, 95) - nearest_rank(sorted_a, 95), d.diff)
    -- the reference: the pooled quantile, each stretch's share at or below it
    local pooled = table.move(sorted_a, 1, #sorted_a, 1, {})
    table.move(sorted_b, 1, #sorted_b, #pooled + 1, pooled)
    table.sort(pooled)
    local c = nearest_rank(pooled, 95)
    local pa, pb = stretches(a, cuts), stretches(b, cuts)
    local dd = {}
    for i = 1, 30 do
      local na, nb = 0, 0
      for _, v in ipairs(pa[i]) do if v <= c then na = na + 1 end end
      for _, v in ipairs(pb[i]) do if v <= c then nb = nb + 1 end end
      dd[i] = na / #pa[i] - nb / #pb[i]
    end
    local bv = infer.batch_variance(infer.pool(dd, 2))
    local df = 2 / (2 / bv.df + 4 / ((1 - bv.r ^ 2) * 15))
    assert.is_true(near(d.df, df, 1e-12))
    local crit = infer.t_crit(0.95, df)
    local se = math.sqrt(bv.var)
    local hh = math.min(crit * se, 0.025)
    local slope = (nearest_rank(sorted_a, 100 * (0.95 + hh)) - nearest_rank(sorted_a, 100 * (0.95 - hh))
      + nearest_rank(sorted_b, 100 * (0.95 + hh)) - nearest_rank(sorted_b, 100 * (0.95 - hh))) / (4 * hh)
    local half = crit * se * slope
    assert.is_true(near(d.lo, d.diff - half, 1e-12) and near(d.hi, d.diff + half, 1e-12))
    local t = bv.mean / se
    assert.is_true(near(d.p, C.t_two_sided(t, df), 1e-12))
    -- the typical frame (p50) is the stretch medians' ratio, as means are
    local m = assert(infer.paired({ kind = "quantile", p = 0.5 }, sa, sb))
    assert.is_true(m.lo / m.a > 0.04 and m.hi / m.a < 0.06)
  end)

  it("1 % low FPS: the paired block bootstrap, recomputed from the weighted lists", function()
    local a, b, cuts = pair(0.05, 23)
    local sa = infer.sample(vp.Series(a), { cuts = cuts })
    local sb = infer.sample(vp.Series(b), { cuts = cuts })
    local d = assert(infer.paired({ kind = "low_fps", pct = 1 }, sa, sb))
    local function low(sorted)
      local k = math.max(1, math.floor(#sorted / 100 + 1e-9))
      local s = 0
      for i = #sorted - k + 1, #sorted do s = s + sorted[i] end
      return 1000 / (s / k)
    end
    local sorted_a = table.move(a, 1, #a, 1, {})
    local sorted_b = table.move(b, 1, #b, 1, {})
    table.sort(sorted_a)
    table.sort(sorted_b)
    assert.is_true(near(d.diff, low(sorted_b) - low(sorted_a), 1e-9))
    local w, block = infer.block_weights(30)
    assert.equal(3, block)
    local pa, pb = stretches(a, cuts), stretches(b, cuts)
    local diffs, sum = {}, 0
    for r = 0, infer.PAIRED.reps - 1 do
      diffs[r + 1] = low(weighted(pb, w, r * 30)) - low(weighted(pa, w, r * 30))
      sum = sum + diffs[r + 1]
    end
    local ss = 0
    for _, v in ipairs(diffs) do ss = ss + (v - sum / #diffs) ^ 2 end
    assert.is_true(near(d.se, math.sqrt(ss / (#diffs - 1)), 1e-9))
    assert.is_true(near(d.df, 30 / 3 - 1, 1e-12))
  end)

  it("share: the paired block bootstrap of sum(group) / sum(frame), recomputed from the weighted lists", function()
    local fa, fb, cuts = pair(0.02, 31)
    local ga, gb = {}, {}
    for i, v in ipairs(fa) do ga[i] = math.floor(v * (0.2 + 0.05 * math.sin(i / 40)) * 250 + 0.5) / 250 end
    for i, v in ipairs(fb) do gb[i] = math.floor(v * (0.23 + 0.05 * math.sin(i / 40)) * 250 + 0.5) / 250 end
    local function sample(x) return infer.sample(vp.Series(x), { cuts = cuts }) end
    local d = assert(infer.paired({ kind = "share" }, sample(ga), sample(gb),
      { den_a = sample(fa), den_b = sample(fb) }))
    local function sum(l)
      local s = 0
      for _, v in ipairs(l) do s = s + v end
      return s
    end
    assert.is_true(near(d.a, 100 * sum(ga) / sum(fa), 1e-9))
    assert.is_true(near(d.b, 100 * sum(gb) / sum(fb), 1e-9))
    local w, block = infer.block_weights(30)
    local parts = { stretches(ga, cuts), stretches(fa, cuts), stretches(gb, cuts), stretches(fb, cuts) }
    local function share(g, f, base) return 100 * sum(weighted(g, w, base)) / sum(weighted(f, w, base)) end
    local diffs, total = {}, 0
    for r = 0, infer.PAIRED.reps - 1 do
      diffs[r + 1] = share(parts[3], parts[4], r * 30) - share(parts[1], parts[2], r * 30)
      total = total + diffs[r + 1]
    end
    local ss = 0
    for _, v in ipairs(diffs) do ss = ss + (v - total / #diffs) ^ 2 end
    assert.is_true(near(d.se, math.sqrt(ss / (#diffs - 1)), 1e-9))
    assert.is_true(near(d.df, 30 / block - 1, 1e-12))
    assert.is_true(d.lo < d.b - d.a and d.b - d.a < d.hi)
  end)

  it("rate: the conditional binomial test, summed term by term", function()
    local function binom_p(x, m, p)
      local function pmf(k)
        local lc = 0
        for i = 1, k do lc = lc + math.log(m - k + i) - math.log(i) end
        return math.exp(lc + k * math.log(p) + (m - k) * math.log(1 - p))
      end
      local upper, lower = 0, 0
      for k = x, m do upper = upper + pmf(k) end
      for k = 0, x do lower = lower + pmf(k) end
      return math.min(1, 2 * math.min(upper, lower))
    end
    for _, c in ipairs({ { 3, 3000, 12, 3000 }, { 4, 3000, 4, 3000 }, { 10, 4000, 2, 2000 }, { 0, 3000, 5, 3000 } }) do
      local t = assert(infer.rate(c[1], c[2], c[3], c[4]))
      assert.is_true(near(t.p, binom_p(c[3], c[1] + c[3], c[4] / (c[2] + c[4])), 1e-9),
        "p for " .. table.concat(c, ","))
    end
    -- bursts: a dispersion of 2 halves the evidence
    local plain, burst = infer.rate(3, 3000, 12, 3000), infer.rate(3, 3000, 12, 3000, { dispersion = 2 })
    assert.is_true(burst.p > plain.p)
    assert.is_true(near(burst.p, binom_p(6, 7.5, 0.5) , 0.3)) -- fractional counts: close to the integer neighbour
    assert.is_nil(infer.rate(0, 100, 0, 100))
    assert.equal(1, infer.dispersion({ { 0, 1, 0, 1 }, { 1, 0, 1, 0 } }))
    assert.is_true(infer.dispersion({ { 0, 4, 0, 0 } }) > 3)
  end)
end)

describe("vp.phases", function()
  it("finds planted steps at their frame, and none in drift or hitches", function()
    math.randomseed(7)
    local x, level = {}, { 14, 18, 12, 20 }
    local starts = { 1, 801, 1501, 2301 }
    for i = 1, 3000 do
      local ph = 1
      for k = 2, 4 do if i >= starts[k] then ph = k end end
      x[i] = level[ph] * (1 + 0.05 * sim.normal())
    end
    x[400], x[1900] = 300, 150 -- hitches move no bin median
    local segs = phases.find(x)
    assert.equal(4, #segs)
    for k = 1, 4 do
      assert.is_true(math.abs(segs[k].first - starts[k]) <= 3, "phase " .. k .. " starts at " .. segs[k].first)
      assert.is_true(near(segs[k].typical_ms, level[k], 0.02))
    end
    assert.equal(3000, segs[4].last)
    -- drift of 1 % and 5 % noise: one phase
    local d = sim.capture(3000, sim.DESIGN, 0):totable()
    assert.equal(1, #phases.find(d))
    assert.equal(1, #phases.find({ 1, 2, 3 }))
    assert.equal(0, #phases.find({}))
  end)
end)

describe("vp.align and the verdicts on benchmark-shaped captures", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  local function write(sc, effect, name)
    local path = dir .. "/" .. name .. ".vprof"
    sim.write(sim.run(sc, effect), path)
    return assert(vp.open(path))
  end

  it("pairs two runs of one scripted benchmark, and not two sessions of free play", function()
    math.randomseed(42)
    local sc = sim.scenario("scripted", 3000)
    local a, b = write(sc, nil, "a"), write(sc, nil, "b")
    local plan = align.plan(a:frame_times(), b:frame_times())
    assert.equal("aligned", plan.method)
    assert.is_true(plan.agreement > 0.9)
    assert.equal(#plan.cuts_a, #plan.cuts_b)
    assert.equal(3000, plan.cuts_a[#plan.cuts_a])
    local fp = sim.scenario("freeplay", 3000)
    local fa, fb = write(fp, nil, "fa"), write(fp, nil, "fb")
    local indep = align.plan(fa:frame_times(), fb:frame_times(), { pairing = "independent" })
    assert.equal("independent", indep.method)
    assert.is_nil(indep.cuts_a)
    assert.has_error(function() align.plan(fa:frame_times(), fb:frame_times(), { pairing = "sideways" }) end)
  end)

  it("finds +3 % and +15 % of a small group that the independent test cannot see", function()
    math.randomseed(9)
    local sc = sim.scenario("scripted", 3000)
    local a = write(sc, nil, "base")
    local slow = write(sc, sim.EFFECTS[2], "slow")
    local ai = write(sc, sim.EFFECTS[3], "ai")
    local match = { "^frame_ms%.mean$", "^group%.AI%.mean_ms$" }
    local function rows(x, y, pairing)
      local r = compare.analyze(x, y, { alpha = 0.05, match = match, pairing = pairing })
      local out = {}
      for _, m in ipairs(r.metrics) do out[m.metric] = m end
      return out, r
    end
    local m, r = rows(a, slow)
    assert.equal("aligned", r.evidence)
    assert.equal("aligned", m["frame_ms.mean"].evidence)
    assert.equal("paired-stretches", m["frame_ms.mean"].method)
    assert.is_true(m["frame_ms.mean"].p_value < 0.01, m["frame_ms.mean"].p_value)
    assert.is_true(m["frame_ms.mean"].ci.pct_lo > 1 and m["frame_ms.mean"].ci.pct_hi < 5)
    local g = rows(a, ai)["group.AI.mean_ms"]
    assert.is_true(g.p_value < 1e-3, g.p_value)
    assert.is_true(g.ci.pct_lo > 12 and g.ci.pct_hi < 18)
    -- the same pair as independent samples: the phases swamp it
    local gi = rows(a, ai, "independent")["group.AI.mean_ms"]
    assert.equal("frames", gi.evidence)
    assert.is_true(gi.p_value > g.p_value)
    assert.is_true(gi.ci.pct_hi - gi.ci.pct_lo > 4 * (g.ci.pct_hi - g.ci.pct_lo))
  end)
end)

describe("tools/sim.lua's command line (sim.options, by vp.cli.parse)", function()
  it("--quick sets what the command line leaves unset; --help lists the keys; others exit 2", function()
    local o = sim.options("t", { "--quick", "--pairs", "7" }, { pairs = 1, runs_pairs = 2, frames = 3 },
      { pairs = 50, runs_pairs = 12 })
    assert.same({ 7, 12, 3 }, { o.pairs, o.runs_pairs, o.frames })
    assert.is_nil(o.json) -- the common options are not the tools'
    local help = h.run("tools/families.lua", "--help")
    assert.equal(0, help.code)
    for _, w in ipairs({ "--runs-pairs N", "--quick", "(default 200)" }) do
      assert.truthy(help.stdout:find(w, 1, true), w)
    end
    for _, bad in ipairs({ { "--json" }, { "--pairs", "x" }, { "--frames" } }) do
      local r = h.run("tools/calibrate.lua", table.unpack(bad))
      assert.equal(2, r.code, table.concat(bad, " "))
      assert.truthy(r.stderr:find("tools/calibrate.lua --help", 1, true), r.stderr)
    end
  end)
end)
