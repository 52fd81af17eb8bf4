-- vp.changepoint against the plain reference (tests/changepoint_reference.lua:
-- Q by definition, its own Student t), and the properties the history's
-- change detection promises: a step found where it is, a single outlier
-- never a change, the floors, log scale, the same result every run.
local cp = require "vp.changepoint"
local ref = dofile("tests/changepoint_reference.lua")

local function lcg(seed)
  local x = seed
  return function()
    x = (x * 1103515245 + 12345) % 2147483648
    return x / 2147483648
  end
end

-- A normal deviate from the generator (Box-Muller).
local function normal(r)
  return math.sqrt(-2 * math.log(1 - r())) * math.cos(2 * math.pi * r())
end

local function series(seed, n, steps, noise)
  local r = lcg(seed)
  local v, level = {}, 16
  for i = 1, n do
    if steps[i] then level = level * (1 + steps[i]) end
    v[i] = level * math.exp(noise * normal(r))
  end
  return v
end

local function indexes(changes)
  local l = {}
  for i, c in ipairs(changes) do l[i] = c.index end
  return l
end

local function rel(a, b) return math.abs(a - b) / math.max(math.abs(b), 1e-300) end

describe("vp.changepoint", function()
  it("Q of every split equals its definition", function()
    local x = series(3, 30, { [12] = 0.08 }, 0.02)
    local best, bq
    for k = 1 + 3, 30 - 3 + 1 do
      local q = ref.q(x, 1, 30, k)
      if not bq or q > bq then best, bq = k, q end
    end
    local k, q = cp.best_split(x, 1, 30, 3)
    assert.equal(best, k)
    assert.is_true(rel(q, bq) < 1e-9, string.format("%.17g vs %.17g", q, bq))
    assert.equal(12, k)
  end)

  it("finds what the reference finds, with the same p-values and sizes, on 60 random series", function()
    local shapes = {
      {}, { [40] = 0.05 }, { [30] = 0.1, [90] = -0.06 }, { [10] = 0.03, [60] = 0.03, [100] = 0.03 },
    }
    local found = 0
    for seed = 1, 60 do
      local shape = shapes[seed % #shapes + 1]
      local noise = ({ 0.005, 0.01, 0.02 })[seed % 3 + 1]
      local n = 80 + seed
      local v = series(seed, n, shape, noise)
      local o = { window = 40 + seed % 20, max_p = 0.001, min_segment = 2 + seed % 4, min_rel = 0.01,
        min_abs = 0, log = seed % 2 == 0 }
      if seed % 5 == 0 then
        o.se = {}
        for i = 1, n do o.se[i] = v[i] * 0.004 end
      end
      local got = cp.detect(v, o)
      local want = ref.detect(v, o)
      assert.same(indexes(want), indexes(got.changes), "seed " .. seed)
      for j, c in ipairs(got.changes) do
        local w = want[j]
        assert.is_true(rel(c.p, w.p) < 1e-6 or math.abs(c.p - w.p) < 1e-300, string.format(
          "seed %d change %d: p %.6g vs %.6g", seed, j, c.p, w.p))
        assert.is_true(rel(c.before.mean, w.before) < 1e-12)
        assert.is_true(rel(c.after.mean, w.after) < 1e-12)
        assert.is_true(math.abs(c.size_pct - w.size_pct) < 1e-9)
      end
      found = found + #got.changes
    end
    assert.is_true(found > 40, "the series have changes to find: " .. found)
  end)

  it("the reference's Student t agrees with vp.infer's on known values", function()
    -- two-sided p for t = 2.228, df = 10 is 0.05; t = 12.706, df = 1 is 0.05
    assert.is_true(math.abs(ref.t_two_sided(2.2281388519649, 10) - 0.05) < 1e-9)
    assert.is_true(math.abs(ref.t_two_sided(12.706204736175, 1) - 0.05) < 1e-9)
    assert.is_true(math.abs(ref.t_two_sided(1.959963984540054, 1e7) - 0.05) < 1e-6)
  end)

  it("a 5 % step is found where it happened, with both segments and their intervals", function()
    local v = series(11, 120, { [70] = 0.05 }, 0.01)
    local r = cp.detect(v, { log = true })
    assert.equal(1, #r.changes)
    local c = r.changes[1]
    assert.is_true(math.abs(c.index - 70) <= 1, "at " .. c.index)
    assert.is_true(c.size_pct > 4 and c.size_pct < 6, "size " .. c.size_pct)
    assert.is_true(c.p < 1e-6)
    assert.is_true(c.before.lo < c.before.mean and c.before.mean < c.before.hi)
    assert.is_true(c.before.hi < c.after.lo)
    assert.equal(1, c.before.first)
    assert.equal(c.index - 1, c.before.last)
    assert.equal(120, c.after.last)
    assert.equal(2, #r.segments)
    assert.is_true(r.log)
  end)

  it("a single outlier, anywhere, is never a change", function()
    for _, at in ipairs({ 1, 2, 30, 59, 60 }) do
      local v = series(5, 60, {}, 0.01)
      v[at] = v[at] * 3
      local r = cp.detect(v, { log = true })
      assert.same({}, indexes(r.changes), "outlier at " .. at)
    end
  end)

  it("the floors: a significant 0.5 % step is below min_rel, and min_abs is in the values' unit", function()
    local v = series(8, 100, { [50] = 0.005 }, 0.0005)
    assert.equal(1, #cp.detect(v, { min_rel = 0.001 }).changes)
    assert.equal(0, #cp.detect(v, { min_rel = 0.01 }).changes)
    assert.equal(0, #cp.detect(v, { min_rel = 0, min_abs = 0.1 }).changes) -- 0.5 % of 16 ms is 0.08 ms
  end)

  it("standard errors larger than the spread keep a step that is within them from being significant", function()
    local v = series(9, 60, { [30] = 0.03 }, 0.002)
    assert.equal(1, #cp.detect(v).changes)
    local se = {}
    for i = 1, #v do se[i] = v[i] * 0.2 end
    assert.equal(0, #cp.detect(v, { se = se }).changes)
  end)

  it("log scale: a non-positive value makes the series linear; the same input gives the same output", function()
    local v = series(2, 50, { [25] = 0.1 }, 0.01)
    v[3] = 0
    local a, b = cp.detect(v, { log = true }), cp.detect(v, { log = true })
    assert.is_false(a.log)
    assert.same(a, b)
    assert.has_error(function() cp.detect({ 1, 0 / 0, 2 }) end)
  end)

  it("short and constant series: nothing to find, segments cover every point", function()
    assert.same({ n = 0, log = false, segments = {}, changes = {} }, cp.detect({}))
    local r = cp.detect({ 5, 5, 5 })
    assert.equal(0, #r.changes)
    assert.same({ first = 1, last = 3, n = 3, mean = 5, lo = 5, hi = 5 }, r.segments[1])
    -- a noiseless step is certain
    local s = cp.detect({ 1, 1, 1, 1, 2, 2, 2, 2 })
    assert.equal(5, s.changes[1].index)
    assert.equal(0, s.changes[1].p)
  end)
end)
