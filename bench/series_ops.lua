-- bench/series_ops.lua: each vp.Series operation against the same query
-- written as a plain Lua loop over a Lua list of the same values.
--
--   ./vpscript bench/series_ops.lua [N [RUNS]]     (defaults 1000000 and 5)
--
-- The column is N frame times around 15 ms with a spike now and then
-- (deterministic: a fixed seed) and no NaN. Each contender runs RUNS times;
-- the figure is the median CPU time (os.clock) in milliseconds. The Lua
-- loops get their input as a Lua list already made (s:totable(), timed on
-- its own line), so the comparison is the query alone. The Lua versions are
-- the plain ones a user would write, not straw men: running sums for the
-- mean, a monotonic queue for the max, vp.stats.window (a sorted window
-- with binary search) for the median.
local vp = require "vp"
local stats = require "vp.stats"

local N = math.tointeger(tonumber(arg and arg[1] or "")) or 1000000
local RUNS = math.tointeger(tonumber(arg and arg[2] or "")) or 5

math.randomseed(42)
local list = {}
for i = 1, N do
  local x = 14 + math.random() * 3
  if math.random(500) == 1 then x = x + 40 + math.random() * 40 end
  list[i] = x
end
local s = vp.Series(list)
local t = s * 0.5

local function median_ms(f)
  local times = {}
  for r = 1, RUNS do
    collectgarbage("collect")
    local t0 = os.clock()
    f()
    times[r] = (os.clock() - t0) * 1000
  end
  table.sort(times)
  return times[(RUNS + 1) // 2]
end

-- Plain Lua versions -----------------------------------------------------------

local function lua_add(a, b)
  local r = {}
  for i = 1, #a do r[i] = a[i] + b[i] end
  return r
end

local function lua_median(a)
  local c = table.move(a, 1, #a, 1, {})
  table.sort(c)
  local h = #c // 2
  if #c % 2 == 1 then return c[h + 1] end
  return (c[h] + c[h + 1]) / 2
end

local function lua_where(a, x)
  local r = {}
  for i = 1, #a do
    if a[i] > x then r[#r + 1] = i end
  end
  return r
end

local function lua_count(a, x)
  local c = 0
  for i = 1, #a do
    if a[i] > x then c = c + 1 end
  end
  return c
end

local function lua_filter(a, x)
  local r = {}
  for i = 1, #a do
    if a[i] > x then r[#r + 1] = a[i] end
  end
  return r
end

local function lua_slice(a, i, j)
  return table.move(a, i, j, 1, {})
end

local function lua_rolling_mean(a, w)
  local r, sum = {}, 0
  for i = 1, #a do
    sum = sum + a[i]
    if i > w then sum = sum - a[i - w] end
    r[i] = sum / math.min(i, w)
  end
  return r
end

local function lua_rolling_max(a, w)
  local r, q, head, tail = {}, {}, 1, 0
  for i = 1, #a do
    if head <= tail and q[head] <= i - w then head = head + 1 end
    while head <= tail and a[q[tail]] <= a[i] do tail = tail - 1 end
    tail = tail + 1
    q[tail] = i
    r[i] = a[q[head]]
  end
  return r
end

local function lua_rolling_median(a, w)
  local r, win = {}, stats.window(w)
  for i = 1, #a do
    win:push(a[i])
    r[i] = win:median()
  end
  return r
end

local function lua_histogram(a, bins)
  local lo, hi = math.huge, -math.huge
  for i = 1, #a do
    if a[i] < lo then lo = a[i] end
    if a[i] > hi then hi = a[i] end
  end
  local counts, width = {}, (hi - lo) / bins
  for b = 1, bins do counts[b] = 0 end
  for i = 1, #a do
    local b = math.min(bins, math.floor((a[i] - lo) / width) + 1)
    counts[b] = counts[b] + 1
  end
  return counts
end

local function lua_cumsum(a)
  local r, sum = {}, 0
  for i = 1, #a do
    sum = sum + a[i]
    r[i] = sum
  end
  return r
end

local function lua_diff(a)
  local r = {}
  for i = 1, #a - 1 do r[i] = a[i + 1] - a[i] end
  return r
end

local function lua_sort(a)
  local c = table.move(a, 1, #a, 1, {})
  table.sort(c)
  return c
end

-- The k largest: a short list kept sorted, as one writes it by hand.
local function lua_top(a, k)
  local best = {}
  for i = 1, #a do
    if #best < k or a[i] > a[best[#best]] then
      local at = #best + 1
      while at > 1 and a[best[at - 1]] < a[i] do at = at - 1 end
      table.insert(best, at, i)
      if #best > k then best[#best] = nil end
    end
  end
  return best
end

-- The contenders -----------------------------------------------------------------

local function gt50(v) return v > 50 end

local CASES = {
  { "s + t", function() return s + t end, function(a, b) return lua_add(a, b) end },
  { "s:median() (a fresh copy)", function() return s:slice(1):median() end, lua_median },
  { "s:where(50)", function() return s:where(50) end, function(a) return lua_where(a, 50) end },
  { "s:where(pred)", function() return s:where(gt50) end, function(a) return lua_where(a, 50) end },
  { "s:count_above(50)", function() return s:count_above(50) end, function(a) return lua_count(a, 50) end },
  { "s:filter(50)", function() return s:filter(50) end, function(a) return lua_filter(a, 50) end },
  { "s:slice(a, b)", function() return s:slice(N // 4, 3 * N // 4) end,
    function(a) return lua_slice(a, N // 4, 3 * N // 4) end },
  { "s:rolling(30, mean)", function() return s:rolling(30, "mean") end,
    function(a) return lua_rolling_mean(a, 30) end },
  { "s:rolling(30, median)", function() return s:rolling(30, "median") end,
    function(a) return lua_rolling_median(a, 30) end },
  { "s:rolling(1000, median)", function() return s:rolling(1000, "median") end,
    function(a) return lua_rolling_median(a, 1000) end },
  { "s:rolling(30, max)", function() return s:rolling(30, "max") end,
    function(a) return lua_rolling_max(a, 30) end },
  { "s:histogram(20)", function() return s:histogram(20) end, function(a) return lua_histogram(a, 20) end },
  { "s:cumsum()", function() return s:cumsum() end, lua_cumsum },
  { "s:diff()", function() return s:diff() end, lua_diff },
  { "s:sort()", function() return s:sort() end, lua_sort },
  { "s:top(10)", function() return s:top(10) end, function(a) return lua_top(a, 10) end },
}

-- The C and Lua answers agree (a check that the loops are the same query).
local a, b = s:totable(), t:totable()
assert(#s:where(50) == #lua_where(a, 50))
assert(s:median() == lua_median(a))
assert(table.concat(s:top(10), ",") == table.concat(lua_top(a, 10), ","))

print(string.format("Series operations on %d values, median of %d runs, CPU ms (os.clock)", N, RUNS))
print(string.format("%-26s %10s %10s %8s", "query", "C (ms)", "Lua (ms)", "Lua / C"))
print(string.format("%-26s %10.1f %10s %8s", "s:totable() (Lua's input)", median_ms(function() return s:totable() end),
  "-", "-"))
for _, c in ipairs(CASES) do
  local cm = median_ms(c[2])
  local lm = median_ms(function() return c[3](a, b) end)
  print(string.format("%-26s %10.1f %10.1f %8.0f", c[1], cm, lm, cm > 0 and lm / cm or 0))
end
