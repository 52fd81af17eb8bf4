-- mwu_oracle.lua: the Mann-Whitney U test (two-sided, normal
-- approximation with tie correction), kept in the tests as the plain
-- per-frame test that infer_spec shows crying wolf on drifting frames (the
-- reason vp.compare never uses it); tests/mwu_spec.lua holds it to a
-- brute-force count of pairs. vp.infer.holm is the Holm adjustment.
--
--   local mwu = require "mwu_oracle"
--   local r = mwu.test(cap_a:frame_times(), cap_b:frame_times())
--   print(r.p, r.prob_b_greater)        -- p-value, P(a frame of B > a frame of A)
--
-- Definitions (docs/compare.md states them for users):
--   ranks       the values of both samples in one ascending order, ranks
--               1..n (n = n_a + n_b); tied values all get the mean of the
--               ranks they span.
--   U           U_b = R_b - n_b (n_b + 1) / 2, R_b = the sum of B's ranks:
--               the number of (a, b) pairs with b > a, ties counting 1/2.
--   z           (U_b - n_a n_b / 2 -+ 1/2) / sigma, the 1/2 a continuity
--               correction towards the mean (z = 0 when |U_b - mean| <= 1/2);
--               sigma^2 = n_a n_b / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))
--               where t runs over the sizes of the groups of tied values.
--   p           two-sided: erfc(|z| / sqrt 2) = 2 (1 - Phi(|z|)); 1 when
--               sigma = 0 (every value tied).
--   prob_b_greater  U_b / (n_a n_b): the probability that a value drawn from
--               B exceeds one drawn from A (ties count half); 0.5 = no shift.
-- The test assumes independent values. Consecutive frames are correlated,
-- so on frame series the p-value is optimistic; vpscript pairs it with an
-- effect-size floor (check.lua's min_effect) rather than trusting p alone.
local stats = require "vp.stats"

local mwu = {}

local SQRT_PI = math.sqrt(math.pi)

-- erfc for x >= 0 through the series of erf with positive terms only
-- (erf x = 2/sqrt(pi) e^(-x^2) sum 2^k x^(2k+1) / (1*3*...*(2k+1))): no
-- cancellation inside the sum, and 1 - erf loses little while erfc > 0.004.
local function erfc_series(x)
  local x2 = x * x
  local term = x
  local sum = x
  local k = 0
  repeat
    k = k + 1
    term = term * 2 * x2 / (2 * k + 1)
    sum = sum + term
  until term < sum * 1e-17 or k > 500
  return 1 - 2 / SQRT_PI * math.exp(-x2) * sum
end

-- erfc for larger x through its continued fraction
--   erfc x = e^(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))
-- evaluated forwards with the modified Lentz method.
local function erfc_cf(x)
  local tiny = 1e-300
  local f = x
  local c, d = x, 0
  for k = 1, 1000 do
    local a = k / 2
    d = x + a * d
    if d == 0 then d = tiny end
    c = x + a / c
    if c == 0 then c = tiny end
    d = 1 / d
    local delta = c * d
    f = f * delta
    if math.abs(delta - 1) < 1e-16 then break end
  end
  return math.exp(-x * x) / SQRT_PI / f
end

--- mwu.erfc(x) -> the complementary error function 1 - erf(x).
-- Relative error below 1e-13 over the range a p-value needs.
function mwu.erfc(x)
  if x ~= x then return x end
  if x < 0 then return 2 - mwu.erfc(-x) end
  if x < 2 then return erfc_series(x) end
  if x > 27 then return 0 end -- below the smallest double
  return erfc_cf(x)
end

--- mwu.p_two_sided(z) -> 2 (1 - Phi(|z|)) for a standard normal z.
function mwu.p_two_sided(z)
  return math.min(1, mwu.erfc(math.abs(z) / math.sqrt(2)))
end

local function sorted_of(x)
  if type(x) == "table" and x.sorted then return x end
  return stats.sorted(x)
end

-- Value -> count of a sample (NaN left out), and the sample size. Frame
-- times are quantised (VProf: 4 us units; many groups are 0 in most
-- frames), so there are usually far fewer distinct values than frames and
-- counting them beats sorting every value. A summary that holds the counts
-- already (a VProf group's self time, cap:dist("groups")) hands them over.
local function counts_of(x)
  if type(x) == "userdata" and x.counts then return x:counts() end
  local vals = stats.values(x)
  local c, n = {}, 0
  for i = 1, #vals do
    local v = vals[i]
    if v == v then
      c[v] = (c[v] or 0) + 1
      n = n + 1
    end
  end
  return c, n
end

--- mwu.test(a, b) -> result | nil, message
-- a, b: vp.Series or lists of numbers (NaN values are left out). Two tables
-- marked {sorted = true, ...} are taken as already in ascending order.
-- result = {n_a, n_b, u_a, u_b, r_b (rank sum of B), mean_u, sigma, z, p,
--           prob_b_greater, ties (sum of t^3 - t)}
function mwu.test(a, b)
  local rb, ties, rank = 0, 0, 0
  local na, nb
  -- Each distinct value, in ascending order, holds a run of tied values
  -- (from either side) that share the mean of the ranks they span.
  local function run(ta, tb)
    local t = ta + tb
    local mean_rank = rank + (t + 1) / 2
    rank = rank + t
    rb = rb + tb * mean_rank
    if t > 1 then ties = ties + (t * t * t - t) end
  end
  if type(a) == "table" and a.sorted and type(b) == "table" and b.sorted then
    local sa, sb = sorted_of(a), sorted_of(b)
    na, nb = #sa, #sb
    local i, j = 1, 1
    while i <= na or j <= nb do
      local v
      if j > nb or (i <= na and sa[i] <= sb[j]) then v = sa[i] else v = sb[j] end
      local ta, tb = 0, 0
      while i <= na and sa[i] == v do i, ta = i + 1, ta + 1 end
      while j <= nb and sb[j] == v do j, tb = j + 1, tb + 1 end
      run(ta, tb)
    end
  else
    local ca, cb
    ca, na = counts_of(a)
    cb, nb = counts_of(b)
    local keys = {}
    for v in pairs(ca) do keys[#keys + 1] = v end
    for v in pairs(cb) do
      if not ca[v] then keys[#keys + 1] = v end
    end
    table.sort(keys)
    for k = 1, #keys do
      local v = keys[k]
      run(ca[v] or 0, cb[v] or 0)
    end
  end
  if na == 0 or nb == 0 then return nil, "an empty sample" end
  local n = na + nb
  local u_b = rb - nb * (nb + 1) / 2
  local u_a = na * nb - u_b
  local mean_u = na * nb / 2
  local var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
  local sigma = var > 0 and math.sqrt(var) or 0
  local z, p = 0, 1
  if sigma > 0 then
    local d = u_b - mean_u
    if math.abs(d) > 0.5 then
      d = d - (d > 0 and 0.5 or -0.5)
      z = d / sigma
    end
    p = mwu.p_two_sided(z)
  end
  return {
    n_a = na, n_b = nb, u_a = u_a, u_b = u_b, r_b = rb, mean_u = mean_u, sigma = sigma,
    z = z, p = p, prob_b_greater = u_b / (na * nb), ties = ties,
  }
end

return mwu
