-- vp.infer reads each batch's value counts instead of the columns in time
-- order. These specs hold it to the column-based computation it replaced
-- (tests/infer_columns.lua) on simulated captures and on the examples'
-- VProf captures (their summaries against their columns): the same
-- estimates, p-values, intervals and verdicts.
--
-- What "the same" means: counts, ranks and order statistics (quantiles, the
-- k-th pairwise difference, Cliff's delta) are equal to the bit; sums are
-- equal to the last few bits, because a batch's sum of the excess over a
-- quantile or of its dominance is added per distinct value instead of per
-- frame, and a VProf batch's sum is added exactly in 4 us units. So
-- p-values, intervals and variances agree to 1e-9 relative (in practice
-- 1e-13), and every verdict at 0.05 and 0.01 is the same.
local vp = require "vp"
local infer = require "vp.infer"
local ref = dofile("tests/infer_columns.lua")
package.path = "tools/?.lua;" .. package.path
local sim = require "sim"

local TOL = 1e-9

-- x and y agree to TOL relative to `scale` (default: their own size).
local function close(x, y, what, scale)
  if x == nil or y == nil then
    assert(x == nil and y == nil, string.format("%s: %s against the columns' %s", what, tostring(x), tostring(y)))
    return
  end
  local s = math.max(math.abs(x), math.abs(y), scale or 0)
  assert(math.abs(x - y) <= TOL * s, string.format("%s: %.17g against the columns' %.17g", what, x, y))
end

local function verdicts(p, q, what)
  if p == nil then return end
  for _, alpha in ipairs({ 0.05, 0.01 }) do
    assert(p < alpha == (q < alpha), string.format("%s: p %.17g against %.17g at %g", what, p, q, alpha))
  end
end

local STATS = {
  { kind = "mean" }, { kind = "quantile", p = 0.5 }, { kind = "quantile", p = 0.95 },
  { kind = "quantile", p = 0.99 }, { kind = "low_fps", pct = 1 }, { kind = "low_fps", pct = 0.1 },
  { kind = "count" },
}

-- Every statistic of a pair of new samples against the reference's; exact
-- says which estimates must be equal to the bit.
local function agree(sa, sb, ra, rb, label, opts)
  opts = opts or {}
  for _, st in ipairs(STATS) do
    local what = label .. " " .. st.kind .. (st.p and (" " .. st.p) or "") .. (st.pct and (" " .. st.pct) or "")
    local d, r = infer.compare(st, sa, sb), ref.compare(st, ra, rb)
    assert((d == nil) == (r == nil), what .. ": one side has no test")
    if d then
      if st.kind ~= "mean" and st.kind ~= "count" or opts.exact_mean then
        assert(d.a == r.a and d.b == r.b, string.format("%s: values %.17g, %.17g against %.17g, %.17g", what,
          d.a, d.b, r.a, r.b))
      else
        close(d.a, r.a, what .. " a")
        close(d.b, r.b, what .. " b")
      end
      close(d.p, r.p, what .. " p")
      verdicts(d.p, r.p, what)
      local width = r.hi - r.lo
      close(d.lo, r.lo, what .. " lo", width)
      close(d.hi, r.hi, what .. " hi", width)
      close(d.df, r.df, what .. " df")
    end
  end
  if opts.den then
    local d = infer.compare({ kind = "share" }, sa, sb, { den_a = opts.den[1], den_b = opts.den[2] })
    local r = ref.compare({ kind = "share" }, ra, rb, opts.den[3], opts.den[4])
    assert((d == nil) == (r == nil), label .. " share: one side has no test")
    if d then
      close(d.a, r.a, label .. " share a")
      close(d.p, r.p, label .. " share p")
      verdicts(d.p, r.p, label .. " share")
      close(d.lo, r.lo, label .. " share lo", r.hi - r.lo)
      close(d.hi, r.hi, label .. " share hi", r.hi - r.lo)
    end
  end
  for _, test in ipairs({ "grid", "ks", "ad" }) do
    local s, r = infer.shape(sa, sb, test), ref.shape(ra, rb, test)
    assert((s == nil) == (r == nil), label .. " shape " .. test .. ": one side has no test")
    if s then
      close(s.p, r.p, label .. " shape " .. test .. " p")
      verdicts(s.p, r.p, label .. " shape " .. test)
      close(s.statistic, r.statistic, label .. " shape " .. test .. " statistic")
      assert(s.at == r.at, label .. " shape " .. test .. ": at another point")
    end
  end
  local e, r = infer.effects(sa, sb), ref.effects(ra, rb)
  assert((e == nil) == (r == nil), label .. " effects: one side has none")
  if e then
    for _, k in ipairs({ "delta", "prob_b_greater", "hl" }) do
      assert(e[k] == r[k], string.format("%s %s: %.17g against %.17g", label, k, e[k], r[k]))
    end
    close(e.delta_lo, r.delta_lo, label .. " delta_lo", 1)
    close(e.delta_hi, r.delta_hi, label .. " delta_hi", 1)
    assert(e.hl_lo == r.hl_lo and e.hl_hi == r.hl_hi, string.format("%s: HL interval %s .. %s against %s .. %s",
      label, tostring(e.hl_lo), tostring(e.hl_hi), tostring(r.hl_lo), tostring(r.hl_hi)))
  end
end

local function design(over)
  local d = {}
  for k, v in pairs(sim.DESIGN) do d[k] = v end
  for k, v in pairs(over or {}) do d[k] = v end
  return d
end

describe("vp.infer from value counts equals the column-based statistics", function()
  it("on simulated drifting captures: no change, slowdowns, a heavier tail, odd lengths", function()
    math.randomseed(31)
    local cases = {
      { n = 3000, shift = 0 }, { n = 3000, shift = 0.02 }, { n = 3000, shift = 0, tail = 0.02 },
      { n = 2987, shift = 0.05, phi = 0.995 }, { n = 10007, shift = 0.01 }, { n = 213, shift = 0.03 },
      { n = 25, shift = 0 }, { n = 9, shift = 0 }, { n = 1500, shift = 0, quantum = 0.25 },
    }
    for i, c in ipairs(cases) do
      local d = design({ phi = c.phi, quantum = c.quantum })
      local a = sim.capture(c.n, d, 0, d.spike_p):totable()
      local b = sim.capture(c.n + (i % 3), d, c.shift, c.tail or d.spike_p):totable()
      agree(infer.sample(a), infer.sample(b), ref.sample(a), ref.sample(b), "case " .. i, { exact_mean = true })
    end
  end)

  it("independent values (weapon traces): one a batch", function()
    math.randomseed(32)
    for round = 1, 4 do
      local a, b = {}, {}
      for i = 1, 30 + 17 * round do a[i] = math.random(0, 3) end
      for i = 1, 25 + 11 * round do b[i] = math.random(0, 3) + (round % 2) end
      local o = { independent = true }
      agree(infer.sample(a, o), infer.sample(b, o), ref.sample(a, true), ref.sample(b, true), "independent " .. round,
        { exact_mean = true })
    end
  end)

  it("runs pooled: a side of several columns one after the other", function()
    math.randomseed(33)
    local la, lb, all_a, all_b = {}, {}, {}, {}
    for r = 1, 5 do
      la[r] = sim.capture(600 + 37 * r, sim.DESIGN, 0):totable()
      lb[r] = sim.capture(611 + 13 * r, sim.DESIGN, 0.03):totable()
      table.move(la[r], 1, #la[r], #all_a + 1, all_a)
      table.move(lb[r], 1, #lb[r], #all_b + 1, all_b)
    end
    agree(infer.sample(la), infer.sample(lb), ref.sample(all_a), ref.sample(all_b), "pooled", { exact_mean = true })
  end)

  it("on the examples' VProf captures: summaries and their batches against the columns", function()
    local metrics = require "vp.metrics"
    local a = assert(vp.open("examples/runs/base/run1.vprof", { stats = true }))
    local b = assert(vp.open("examples/runs/new/run1.vprof", { stats = true }))
    local function both(fa, fb, label)
      local xa, xb = fa:totable(), fb:totable()
      agree(infer.sample(fa), infer.sample(fb), ref.sample(xa), ref.sample(xb), label)
    end
    both(a:dist("frame_ms"), b:dist("frame_ms"), "frame times")
    local ga, gb = a:dist("groups"), b:dist("groups")
    local tested = 0
    for g, d in pairs(ga) do
      local e = b:group(g.name) and gb[b:group(g.name)]
      if e and tested < 4 and d:max() > 0 then
        both(d, e, "group " .. g.name)
        tested = tested + 1
      end
    end
    assert.equal(4, tested)
    local node = "Root/CEngine::Frame"
    for _, field in ipairs({ "time_ms", "self_ms", "calls" }) do
      both(a:dist(node, field), b:dist(node, field), node .. " " .. field)
    end
    -- the nodes' pass that also makes every group's batches gives the groups' own
    local n = a.frame_count
    local cuts = infer.cuts(n, infer.batch_count(n))
    local fresh = assert(vp.open("examples/runs/base/run1.vprof", { stats = true }))
    vp.batches_all({ { a, { node }, "time_ms", { batches = cuts, groups = true } } })
    local fg = fresh:dist("groups")
    for g, d in pairs(ga) do
      local x, y = d:batches(cuts), fg[fresh:group(g.name)]:batches(cuts)
      assert.same({ x:info() }, { y:info() })
      assert.same(x:counts(), y:counts())
    end
    -- runs laid one after the other: each capture's share of the pooled batches
    local runs = { assert(vp.open("examples/runs/base/run2.vprof")), assert(vp.open("examples/runs/base/run3.vprof")) }
    local side = require("vp.compare").side(runs)
    local parts, all = {}, {}
    for i, cap in ipairs(side.runs) do
      parts[i] = metrics.distribution(cap, "frame_ms.p95")
      local col = cap:frame_times():totable()
      table.move(col, 1, #col, #all + 1, all)
    end
    local single = a:frame_times():totable()
    agree(infer.sample(parts), infer.sample(a:dist("frame_ms")), ref.sample(all), ref.sample(single), "pooled runs")
    for _, cap in ipairs({ a, b, fresh, runs[1], runs[2] }) do cap:close() end
  end)

  it("cuts and splits: each part's segments belong to the batch holding their first value", function()
    assert.same({ 0, 4, 7, 10 }, infer.cuts(10, 3))
    local cuts, of = infer.split({ 5, 0, 5 }, 3)
    -- batches [0, 4), [4, 7), [7, 10): the first part ends inside batch 2, the empty one stays in it
    assert.same({ { 0, 4, 5 }, { 0, 0 }, { 0, 2, 5 } }, cuts)
    assert.same({ 1, 2, 2, 2, 3 }, of)
    local one = infer.sample({ vp.Series({ 1, 2, 3 }), vp.Series({ 4, 5 }) })
    assert.equal(5, one.n)
    assert.equal(3, one.mean)
  end)
end)
