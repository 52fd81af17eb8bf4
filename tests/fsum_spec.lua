-- Series:sum is the exact sum rounded once (core/fsum): checked against an
-- integer reference. Values m x 2^-20 with integer m have an exact sum
-- (the sum of the m, an integer) that Lua converts to the nearest double
-- once, so the reference is exact; the values are chosen so that a sum
-- added in order (plain or compensated) would often be off by an ulp.
local vp = require "vp"

local SCALE = 2.0 ^ -20

local function reference(ms)
  local total = 0
  for _, m in ipairs(ms) do total = total + m end
  return (total + 0.0) * SCALE -- one rounding (int -> float), then exact
end

local function values(ms)
  local t = {}
  for i, m in ipairs(ms) do t[i] = m * SCALE end
  return t
end

local function shuffled(t)
  local r = table.move(t, 1, #t, 1, {})
  for i = #r, 2, -1 do
    local j = math.random(i)
    r[i], r[j] = r[j], r[i]
  end
  return r
end

-- Integers of mixed magnitude: large ones that cancel and small ones that
-- fall below their last bit, so the rounding of every partial sum matters.
local function mixed(n)
  local ms = {}
  for i = 1, n do
    local k = math.random(6)
    if k == 1 then
      ms[i] = math.random(-(1 << 52), 1 << 52) -- 300 of them still fit an integer
    elseif k == 2 then
      ms[i] = math.random(-3, 3)
    else
      ms[i] = math.random(-(1 << 30), 1 << 30)
    end
  end
  return ms
end

describe("Series:sum (exact, rounded once)", function()
  it("equals the exact sum of mixed-magnitude values, in any order", function()
    math.randomseed(20261201)
    local plain_off = 0
    for round = 1, 200 do
      local ms = mixed(math.random(1, 300))
      local want = reference(ms)
      local v = values(ms)
      assert.are.equal(want, vp.Series(v):sum(), "round " .. round)
      assert.are.equal(want, vp.Series(shuffled(v)):sum(), "round " .. round .. ", shuffled")
      local plain = 0
      for _, x in ipairs(v) do plain = plain + x end
      if plain ~= want then plain_off = plain_off + 1 end
    end
    -- the data must be hard: a naive sum is wrong on many of them
    assert.is_true(plain_off > 50, "only " .. plain_off .. " rounds where a plain sum is off")
  end)

  it("is exact through heavy cancellation, where a compensated sum is not", function()
    -- Large values of every exponent from 2^-60 to 2^60 and their
    -- negations cancel exactly; what is left is a payload whose correctly
    -- rounded sum is known. A compensated sum (Neumaier's, as Series:sum
    -- was) loses the payload's lowest bit to the rounding of its own
    -- correction term in most rounds.
    math.randomseed(7)
    local payloads = {
      { { 1.0, 2.0 ^ -53, 2.0 ^ -80 }, 1.0 + 2.0 ^ -52 }, -- above the tie: up
      { { 1.0, 2.0 ^ -53, -2.0 ^ -80 }, 1.0 },            -- below it: down
      { { 1.0, 2.0 ^ -53 }, 1.0 },                        -- the tie: to even
      { { 3.0, -2.0 ^ -70 }, 3.0 },
    }
    for round = 1, 100 do
      local t = {}
      for _ = 1, math.random(20, 200) do
        local x = (math.random() + 0.5) * 2.0 ^ math.random(-60, 60)
        t[#t + 1], t[#t + 2] = x, -x
      end
      local p = payloads[round % #payloads + 1]
      table.move(p[1], 1, #p[1], #t + 1, t)
      assert.are.equal(p[2], vp.Series(shuffled(t)):sum(), "round " .. round)
    end
  end)

  it("breaks a tie to even by what lies below the rounding point", function()
    -- 2^53 + 1 is halfway between two doubles; the +2^-20 below decides up
    local big = 2.0 ^ 53
    assert.are.equal(big + 2, vp.Series({ big, 1.0, SCALE }):sum())
    assert.are.equal(big + 2, vp.Series({ SCALE, 1.0, big }):sum())
    -- and -2^-20 decides down
    assert.are.equal(big, vp.Series({ big, 1.0, -SCALE }):sum())
    -- an exact tie goes to even
    assert.are.equal(big, vp.Series({ big, 1.0 }):sum())
    assert.are.equal(big + 4, vp.Series({ big + 2, 1.0 }):sum())
  end)

  it("stays exact over many values (the buckets emptied many times)", function()
    math.randomseed(99)
    for round = 1, 5 do
      local ms = {}
      for i = 1, 20000 do
        ms[i] = math.random(3) == 1 and math.random(-3, 3) or math.random(-(1 << 40), 1 << 40)
      end
      local v = values(ms)
      assert.are.equal(reference(ms), vp.Series(v):sum(), "round " .. round)
    end
  end)

  it("is exact at the ends of the range: subnormals, and sums past the largest double", function()
    local tiny = 2.0 ^ -1074
    assert.are.equal(tiny, vp.Series({ tiny, tiny, -tiny }):sum())
    assert.are.equal(3 * tiny + 2.0 ^ -1060, vp.Series({ tiny, 2.0 ^ -1060, tiny, tiny }):sum())
    assert.are.equal(2.0 ^ -1022, vp.Series({ 2.0 ^ -1023, 2.0 ^ -1023 }):sum()) -- into the normals
    -- two of the largest values overflow a running sum, not the exact one
    assert.are.equal(1e308, vp.Series({ 1e308, 1e308, -1e308 }):sum())
  end)

  it("keeps cancellation exact", function()
    assert.are.equal(1.0, vp.Series({ 1e100, 1.0, -1e100 }):sum())
    assert.are.equal(2e-300, vp.Series({ 1e300, 1e-300, -1e300, 1e-300 }):sum())
    assert.are.equal(0.0, vp.Series({}):sum())
  end)

  it("gives NaN and infinities their usual meaning", function()
    local inf = math.huge
    assert.are.equal(inf, vp.Series({ 1.0, inf, 2.0 }):sum())
    assert.are.equal(-inf, vp.Series({ -inf, 1e308 }):sum())
    local nan = vp.Series({ inf, -inf }):sum()
    assert.is_true(nan ~= nan)
    -- beyond the largest double: an infinity, not an error
    assert.are.equal(inf, vp.Series({ 1.7e308, 1.7e308 }):sum())
  end)
end)
