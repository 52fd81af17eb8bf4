-- hits_vs_movement.lua: do client and server disagree more when the shooter
-- moves? Joins a weapon trace (.dw) with a movement trace (.dm) of the same
-- session by time.
--
--   vpscript examples/hits_vs_movement.lua WEAPON.dw MOVEMENT.dm [--bit 0]
--                                          [--slow 1] [--list] [--json]
--
-- An example user script joining two captures. For each bullet it takes the
-- time the client fired (its first client hit, normally the Spawn), finds
-- the shooter's movement sample at that time (the last record of the chosen
-- group bit at or before it), and files the bullet under the shooter's
-- state: "air" (ground_time < 0), "ground, moving" (|velocity| >= --slow),
-- "ground, still", or "no movement data" (no sample before the shot, or a
-- sample without the extended block). The bullet itself is classified with
-- the hitdiff rules (vp.hitdiff), so the table is hitdiff's disagreement
-- rate split by what the shooter was doing.
--
-- JSON: {dw, dm, bit, bullets, states = [{state, bullets, compared, disagree,
--        rate_pct, mean_speed}], shots = [{trace_id, time, state, speed,
--        kind}]}   (shots only with --list)
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local hitdiff = require "vp.hitdiff"

local opts, args = cli.parse(arg, {
  name = "examples/hits_vs_movement.lua",
  summary = "hit disagreement split by the shooter's movement state at the time of the shot",
  options = {
    { "--bit", type = "integer", default = 0, min = 0, max = 19, metavar = "N",
      help = "movement group bit holding the shooter's state" },
    { "--slow", type = "number", default = 1, min = 0, metavar = "X",
      help = "below X units/s on the ground counts as still" },
    { "--list", type = "flag", help = "list every bullet with its state" },
  },
  positional = { { "WEAPON", help = "a .dw weapon trace" }, { "MOVEMENT", help = "a .dm movement trace" } },
})

local dw, dm = cli.open(args[1], opts), cli.open(args[2], opts)
if dw.format ~= "dw" or dm.format ~= "dm" then
  cli.fail(2, "expected a .dw and a .dm capture, got %s and %s", dw.format, dm.format)
end

-- The shooter's samples, sorted by time (the .dm is a ring of slots).
local samples = {}
for r in dm:records() do
  local g = r:group(opts.bit)
  if g then samples[#samples + 1] = { time = r.time, g = g } end
end
table.sort(samples, function(a, b) return a.time < b.time end)

-- Last sample at or before t (binary search), or nil.
local function sample_at(t)
  local lo, hi, found = 1, #samples, nil
  while lo <= hi do
    local mid = (lo + hi) // 2
    if samples[mid].time <= t then
      found, lo = samples[mid], mid + 1
    else
      hi = mid - 1
    end
  end
  return found
end

local ORDER = { "ground, still", "ground, moving", "air", "no movement data" }
local by_state = {}
for _, s in ipairs(ORDER) do
  by_state[s] = { state = s, bullets = 0, compared = 0, disagree = 0, speed_sum = 0, speed_n = 0 }
end
local shots = cli.array()

for t in dw:traces() do
  local C, S = t:hit_list("client"), t:hit_list("server")
  local fired = C[1] and C[1].time or (S[1] and S[1].time)
  if fired then
    local smp = sample_at(fired)
    local g = smp and smp.g
    local state, speed = "no movement data", nil
    if g and g.velocity then
      local v = g.velocity
      speed = math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z)
      if g.ground_time < 0 then
        state = "air"
      else
        state = speed >= opts.slow and "ground, moving" or "ground, still"
      end
    end
    local kind = hitdiff.classify(C, S)
    local b = by_state[state]
    b.bullets = b.bullets + 1
    if kind then
      b.compared = b.compared + 1
      if kind ~= "agree" then b.disagree = b.disagree + 1 end
    end
    if speed then b.speed_sum, b.speed_n = b.speed_sum + speed, b.speed_n + 1 end
    if opts.list then
      shots[#shots + 1] = { trace_id = t.trace_id, time = fired, state = state,
        speed = speed or cli.null, kind = kind or "not compared" }
    end
  end
end

local rows, total = cli.array(), 0
for _, s in ipairs(ORDER) do
  local b = by_state[s]
  total = total + b.bullets
  rows[#rows + 1] = {
    state = s, bullets = b.bullets, compared = b.compared, disagree = b.disagree,
    rate_pct = b.compared > 0 and 100 * b.disagree / b.compared or cli.null,
    mean_speed = b.speed_n > 0 and b.speed_sum / b.speed_n or cli.null,
  }
end

local function show(v, d)
  if v == cli.null or v == nil then return "-" end
  return fmt.number(v, d)
end

local sections = {
  { title = "disagreement by the shooter's state when firing", rows = rows,
    columns = {
      { key = "state", title = "state", align = "left" },
      { key = "bullets", title = "bullets", format = fmt.int },
      { key = "compared", title = "compared", format = fmt.int },
      { key = "disagree", title = "disagree", format = fmt.int },
      { key = "rate_pct", title = "rate %", format = function(v) return show(v, 1) end, align = "right" },
      { key = "mean_speed", title = "mean speed", format = function(v) return show(v, 2) end, align = "right" },
    } },
}
if opts.list then
  sections[2] = { title = "bullets", rows = shots,
    columns = {
      { key = "trace_id", title = "trace id", format = function(v) return string.format("%08x", v) end },
      { key = "time", title = "time", format = fmt.int },
      { key = "state", title = "state", align = "left" },
      { key = "speed", title = "speed", format = function(v) return show(v, 2) end, align = "right" },
      { key = "kind", title = "hitdiff kind", align = "left" },
    } }
end

report.emit(opts, {
  json = { dw = dw.path, dm = dm.path, bit = opts.bit, bullets = total, states = rows,
    shots = opts.list and shots or nil },
  title = string.format("hits vs movement: %s + %s (bit %d)", dw.path, dm.path, opts.bit),
  header = { { "bullets fired", fmt.int(total) }, { "movement samples", fmt.int(#samples) } },
  sections = sections,
})
dw:close()
dm:close()
