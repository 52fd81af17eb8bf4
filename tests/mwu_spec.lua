-- mwu_oracle: the tests' Mann-Whitney U test against a brute-force count
-- of pairs (independent of the merge-rank implementation), erfc against
-- reference values, the tie and continuity corrections by hand.
local vp = require "vp"
local mwu = require "mwu_oracle"

-- U_b by definition: pairs (a, b) with b > a, ties counting 1/2.
local function brute_u(a, b)
  local u = 0
  for _, x in ipairs(a) do
    for _, y in ipairs(b) do
      if y > x then u = u + 1 elseif y == x then u = u + 0.5 end
    end
  end
  return u
end

local function brute_ties(a, b)
  local count = {}
  for _, x in ipairs(a) do count[x] = (count[x] or 0) + 1 end
  for _, x in ipairs(b) do count[x] = (count[x] or 0) + 1 end
  local t = 0
  for _, c in pairs(count) do t = t + c * c * c - c end
  return t
end

local function lcg(seed)
  local x = seed
  return function(n)
    x = (x * 1103515245 + 12345) % 2147483648
    return x % n
  end
end

local function rel(a, b) return math.abs(a - b) / math.max(math.abs(b), 1e-300) end

describe("mwu_oracle", function()
  it("erfc matches reference values to 1e-13 (relative), both signs", function()
    -- erfc(x) for x = 0, 0.5, 1, 2, 3, 5, 10 (from the C library's erfc)
    local ref = {
      { 0, 1 }, { 0.5, 0.47950012218695348 }, { 1, 0.15729920705028513 },
      { 2, 0.0046777349810472658 }, { 3, 2.2090496998585441e-05 }, { 5, 1.5374597944280349e-12 },
      { 10, 2.0884875837625447e-45 },
    }
    for _, r in ipairs(ref) do
      assert.is_true(rel(mwu.erfc(r[1]), r[2]) < 1e-13, "erfc(" .. r[1] .. ")")
      assert.is_true(rel(mwu.erfc(-r[1]), 2 - r[2]) < 1e-13, "erfc(-" .. r[1] .. ")")
    end
    assert.equal(0, mwu.erfc(40))
    -- z = 1.959964 is the two-sided 5 % point
    assert.is_true(math.abs(mwu.p_two_sided(1.959963984540054) - 0.05) < 1e-12)
  end)

  it("U, the tie term and z agree with the definitions on random samples with ties", function()
    local r = lcg(7)
    for _ = 1, 25 do
      local a, b = {}, {}
      for i = 1, 1 + r(40) do a[i] = r(8) end
      for i = 1, 1 + r(40) do b[i] = r(8) + 1 end
      local t = assert(mwu.test(a, b))
      local na, nb = #a, #b
      assert.equal(brute_u(a, b), t.u_b)
      assert.equal(na * nb - t.u_b, t.u_a)
      local ties = brute_ties(a, b)
      assert.equal(ties, t.ties)
      local n = na + nb
      local sigma = math.sqrt(na * nb / 12 * ((n + 1) - ties / (n * (n - 1))))
      local d = t.u_b - na * nb / 2
      local z = 0
      if sigma > 0 and math.abs(d) > 0.5 then z = (d - (d > 0 and 0.5 or -0.5)) / sigma end
      assert.is_true(math.abs(z - t.z) < 1e-12)
      if sigma > 0 then
        assert.is_true(rel(t.p, mwu.erfc(math.abs(z) / math.sqrt(2))) < 1e-12)
      else
        assert.equal(1, t.p)
      end
      assert.is_true(math.abs(t.prob_b_greater - t.u_b / (na * nb)) < 1e-15)
    end
  end)

  it("the counting path (Series, lists) and the merge path (sorted lists) agree", function()
    local r = lcg(11)
    for _ = 1, 10 do
      local a, b = {}, {}
      for i = 1, 50 + r(200) do a[i] = r(30) * 0.004 end
      for i = 1, 50 + r(200) do b[i] = r(33) * 0.004 end
      local x = mwu.test(vp.Series(a), b)
      table.sort(a)
      table.sort(b)
      a.sorted, b.sorted = true, true
      local y = mwu.test(a, b)
      assert.equal(x.u_b, y.u_b)
      assert.equal(x.ties, y.ties)
      assert.equal(x.p, y.p)
      assert.equal(brute_u(a, b), x.u_b)
    end
  end)

  it("a tie-heavy case gives the textbook value (R's wilcox.test(mpg ~ am, data = mtcars))", function()
    -- mtcars' mpg by transmission (automatic, manual); R prints "W = 42,
    -- p-value = 0.001871" (normal approximation with the tie and continuity
    -- corrections; 7 pairs of tied values)
    local auto = { 21.4, 18.7, 18.1, 14.3, 24.4, 22.8, 19.2, 17.8, 16.4, 17.3, 15.2, 10.4, 10.4, 14.7, 21.5,
      15.5, 15.2, 13.3, 19.2 }
    local manual = { 21.0, 21.0, 22.8, 32.4, 30.4, 33.9, 27.3, 26.0, 30.4, 15.8, 19.7, 15.0, 21.4 }
    local t = assert(mwu.test(auto, vp.Series(manual)))
    assert.equal(42, t.u_a) -- R's W
    assert.equal(42, t.ties) -- 7 ties of two: 7 x (2^3 - 2)
    assert.is_true(math.abs(t.p - 0.001871) < 5e-7, tostring(t.p))
    assert.equal(205 / (19 * 13), t.prob_b_greater)
  end)

  it("a small case by hand: A = {1, 2, 3}, B = {3, 4, 5, 6}", function()
    -- ranks: 1 2 3.5 | 3.5 5 6 7; R_b = 21.5, U_b = 21.5 - 10 = 11.5
    -- ties: one pair: t^3 - t = 6; sigma^2 = 12/12 * (8 - 6/42) = 7.857142...
    -- z = (11.5 - 6 - 0.5) / sqrt(7.857142857) = 1.78377...
    local t = mwu.test({ 1, 2, 3 }, vp.Series({ 3, 4, 5, 6 }))
    assert.equal(21.5, t.r_b)
    assert.equal(11.5, t.u_b)
    assert.equal(6, t.ties)
    assert.is_true(math.abs(t.z - 5 / math.sqrt(8 - 6 / 42)) < 1e-12)
    assert.is_true(math.abs(t.p - 0.0744618314) < 1e-9)
  end)

  it("identical samples give p = 1; every value tied gives p = 1 and sigma 0", function()
    local t = mwu.test({ 1, 2, 3, 4 }, { 4, 3, 2, 1 })
    assert.equal(1, t.p)
    assert.equal(0.5, t.prob_b_greater)
    local c = mwu.test({ 5, 5, 5 }, { 5, 5 })
    assert.equal(0, c.sigma)
    assert.equal(1, c.p)
  end)

  it("a clear shift is significant, in either direction", function()
    local a, b = {}, {}
    for i = 1, 200 do
      a[i] = i % 17
      b[i] = i % 17 + 4
    end
    local up = mwu.test(a, b)
    assert.is_true(up.p < 1e-10)
    assert.is_true(up.prob_b_greater > 0.5)
    local down = mwu.test(b, a)
    assert.is_true(math.abs(down.p - up.p) < 1e-15 * math.max(1, up.p) + 1e-300)
    assert.is_true(down.prob_b_greater < 0.5)
  end)

  it("an empty sample is an error value, NaN values are left out", function()
    local t, msg = mwu.test({}, { 1 })
    assert.is_nil(t)
    assert.matches("empty", msg)
    local r = mwu.test({ 1, 0 / 0, 2 }, { 3, 4 })
    assert.equal(2, r.n_a)
  end)
end)
