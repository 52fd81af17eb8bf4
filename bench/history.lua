-- bench/history.lua: history.lua's two speed targets (make bench):
-- adding 10,000 points into SQLite (20 captures x 500 metrics, one
-- history.lua add of their NDJSON) under 10 s, and `history.lua changes`
-- over 1,000 series x 365 nights under 10 s. Wall times of the real
-- commands, on a store in a temporary directory.
local json = require "vp.json"

-- The wall time of a command (GNU time, as bench/run.sh measures).
local function sh(cmd)
  local p = io.popen("/usr/bin/time -f %e " .. cmd .. " 2>&1 >/dev/null")
  local out = p:read("a")
  p:close()
  return tonumber(out:match("([%d.]+)%s*$")) or error("cannot time: " .. cmd .. "\n" .. out)
end

local dir = io.popen("mktemp -d /tmp/vpscript-bench.XXXXXX"):read("l")
local seed = 1
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

local function write_nights(path, nights, metrics)
  local f = assert(io.open(path, "w"))
  for n = 1, nights do
    local pts = {}
    for m = 1, metrics do
      local step = (m % 10 == 0 and n > nights * 0.7) and 1.05 or 1
      pts[m] = { metric = string.format("group.G%04d.mean_ms", m), unit = "ms", polarity = "lower",
        value = (1 + m % 7) * step * math.exp(0.01 * (rnd() + rnd() + rnd() - 1.5) * 2), n = 4000, se = 0.001 }
    end
    f:write(json.encode({ vpscript_history = 1, capture = { hash = string.format("b%d-%d", metrics, n),
      commit = string.format("c%04d", n), branch = "main", platform = "linux", scenario = "bench",
      time = os.date("!%Y-%m-%dT02:00:00Z", 1704067200 + 86400 * n), frames = 4000 }, points = pts }), "\n")
  end
  f:close()
end

local bin = arg[-1] and arg[-1]:match("vpscript$") and arg[-1] or "./vpscript"
write_nights(dir .. "/add.ndjson", 20, 500)
local t_add = sh(string.format("%s scripts/history.lua add --db %s/add.db --from-json %s/add.ndjson", bin, dir, dir))
write_nights(dir .. "/year.ndjson", 365, 1000)
local t_fill = sh(string.format("%s scripts/history.lua add --db %s/year.db --from-json %s/year.ndjson", bin, dir, dir))
local t_changes = sh(string.format("%s scripts/history.lua changes --db %s/year.db --json", bin, dir))
os.execute("rm -rf " .. dir)
print(string.format("history: add 10,000 points (20 captures x 500 metrics) into SQLite   %6.2f s  (target < 10 s)",
  t_add))
print(string.format("history: add 365,000 points (365 nights x 1,000 metrics)              %6.2f s", t_fill))
print(string.format("history: changes over 1,000 series x 365 nights                      %6.2f s  (target < 10 s)",
  t_changes))
