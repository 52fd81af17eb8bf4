-- tools/calibrate_history.lua: how history.lua's change detection (vp.history.detect:
-- vp.changepoint with history.lua's defaults) does on simulated nightly series,
-- shape by shape (make calibrate; docs/history.md shows the table).
--
--   vpscript tools/calibrate_history.lua [--series N] [--nights N] [--markdown]
--
-- Each series is one metric's value (a mean frame time, ms, log scale) night
-- after night: a level, night-to-night noise of 1 % (lognormal), and the
-- measurement noise of the night's capture: its standard error is the frame
-- time's spread (15 % of the level) over the root of the capture's effective
-- length (its frames, 1,000 to 20,000 as real benchmark captures run, over
-- 10 for the frames' dependence), drawn into the value and kept with the
-- point (history.lua's default test does not floor by it; --se-floor here
-- runs the detector with it). Shapes: stable; steps of 2, 5 and 10 % at a random night;
-- a 5 % step with 15 % of the nights missing; a slow creep of 0.2 % a night;
-- a single outlier (x 1.5); a machine that alternates between two modes 4 %
-- apart (each night either, at random). Found: a change within 2 points of
-- where the step happened (its first night after); a false alert: any other
-- change (a creep's changes are not false: they are reported as the nights
-- it took to the first one, and the drift by then). The generator is seeded: the same arguments give the same table.
local cli = require "vp.cli"
local history = require "vp.history"

local opts = cli.parse(arg, {
  name = "tools/calibrate_history.lua",
  summary = "Detection and false alerts of history.lua's change points on simulated nightly series.",
  options = {
    { "--series", type = "integer", default = 200, min = 10, metavar = "N", help = "series per shape" },
    { "--nights", type = "integer", default = 150, min = 60, metavar = "N", help = "nights per series" },
    { "--markdown", type = "flag", help = "print the table as Markdown (docs/history.md)" },
    { "--se-floor", type = "flag", help = "floor each segment's variance by its points' standard errors" },
  },
})

local seed = 20250101
local function rnd()
  seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return ((seed >> 11) & 0xfffffffffffff) / 4503599627370496.0
end
local function normal()
  return math.sqrt(-2 * math.log(1 - rnd())) * math.cos(2 * math.pi * rnd())
end

-- One night: the level's value with both noises, and its standard error.
local function night(level)
  local frames = 1000 + math.floor(rnd() * 19000)
  local se = 0.15 * level / math.sqrt(frames / 10)
  return level * math.exp(0.01 * normal()) + se * normal(), se
end

-- shape -> function(nights) -> levels, the index of the step (or nil), skip set, outlier index
local SHAPES = {
  { "stable", function(n) local l = {} for i = 1, n do l[i] = 16 end return l end },
  { "step 2 %", nil, 0.02 }, { "step 5 %", nil, 0.05 }, { "step 10 %", nil, 0.10 },
  { "step 5 %, 15 % of nights missing", nil, 0.05, 0.15 },
  { "creep 0.2 %/night", "creep" }, { "single outlier", "outlier" }, { "two modes 4 % apart", "modes" },
}

local function simulate(shape, n)
  local levels, at, outlier = {}, nil, nil
  local kind, step, missing = shape[2], shape[3], shape[4]
  if step then at = 40 + math.floor(rnd() * (n - 80)) end
  if kind == "outlier" then outlier = 20 + math.floor(rnd() * (n - 20)) end
  local creep_from = 40
  for i = 1, n do
    local l = 16
    if step and i >= at then l = 16 * (1 + step) end
    if kind == "creep" and i > creep_from then l = 16 * (1.002 ^ (i - creep_from)) end
    if kind == "modes" and rnd() < 0.5 then l = 16 * 1.04 end
    levels[i] = l
  end
  local values, se, map = {}, {}, {}
  for i = 1, n do
    local v, s = night(levels[i])
    if i == outlier then v = v * 1.5 end
    if not (missing and rnd() < missing) then
      values[#values + 1], se[#se + 1] = v, s
      map[#values] = i
    end
  end
  -- the step's position among the points kept: the first point at or after it
  local at_point
  if at then
    for k, i in ipairs(map) do
      if i >= at then at_point = k break end
    end
  end
  return values, se, at_point, outlier, map
end

local series = { unit = "ms" }
local rows = {}
for _, shape in ipairs(SHAPES) do
  local found, false_alerts, points, changes, outlier_hits, first_alert = 0, 0, 0, 0, 0, {}
  for _ = 1, opts.series do
    local values, se, at, outlier, map = simulate(shape, opts.nights)
    local pts = {}
    for i = 1, #values do pts[i] = { value = values[i], se = se[i] } end
    local r = history.detect(series, pts, { se_floor = opts.se_floor })
    points = points + #values
    local hit = false
    for _, c in ipairs(r.changes) do
      changes = changes + 1
      if at and math.abs(c.index - at) <= 2 and not hit then
        hit = true
      else
        false_alerts = false_alerts + 1
      end
      if outlier and (map[c.index] == outlier or map[c.index - 1] == outlier or map[c.index] == outlier + 1) then
        outlier_hits = outlier_hits + 1
      end
    end
    if hit then found = found + 1 end
    if shape[2] == "creep" then
      local first
      for _, c in ipairs(r.changes) do
        local nights = map[c.index] - 40
        if nights > 0 and (not first or nights < first) then first = nights end
      end
      first_alert[#first_alert + 1] = first or math.huge
    end
  end
  table.sort(first_alert)
  rows[#rows + 1] = {
    shape = shape[1], series = opts.series, nights = points,
    recall = shape[3] and 100 * found / opts.series or nil,
    precision = shape[3] and changes > 0 and 100 * found / changes or nil,
    false_per_100 = shape[2] ~= "creep" and 100 * false_alerts / points or nil,
    outlier = shape[2] == "outlier" and outlier_hits or nil,
    creep = shape[2] == "creep" and first_alert[math.max(1, (#first_alert + 1) // 2)] or nil,
  }
end

local d = history.DEFAULTS
local head = string.format("history.lua changes on %d simulated series a shape, %d nights each (window %d, "
  .. "p < %g, segments >= %d points, |change| >= %g %%)", opts.series, opts.nights, d.window, d.max_p, d.min_segment,
  100 * d.min_rel)
local function pct(v) return v and string.format("%.1f %%", v) or "-" end
local cols = {
  { key = "shape", title = "shape", align = "left" },
  { key = "recall", title = "found within 2 points", format = pct },
  { key = "precision", title = "precision", format = pct },
  { key = "false_per_100", title = "false alerts / 100 nights",
    format = function(v) return v and string.format("%.2f", v) or "-" end },
  { key = "outlier", title = "outlier reported", format = function(v) return v and tostring(v) or "-" end },
  { key = "creep", title = "creep: first change, nights into it (drift)",
    format = function(v) return v and (v == math.huge and "never" or string.format("%d (+%.1f %%)", v,
      100 * (1.002 ^ v - 1))) or "-" end },
}
if opts.markdown then
  local out = { head, "", "| " }
  for _, c in ipairs(cols) do out[#out] = out[#out] .. c.title .. " | " end
  out[#out + 1] = "|" .. string.rep("---|", #cols)
  for _, r in ipairs(rows) do
    local line = "| "
    for _, c in ipairs(cols) do line = line .. (c.format and c.format(r[c.key]) or tostring(r[c.key])) .. " | " end
    out[#out + 1] = line
  end
  print((table.concat(out, "\n"):gsub(" \n", "\n"):gsub(" $", "")))
else
  print(head .. "\n")
  io.write(require("vp.fmt").table(rows, cols, { indent = "  " }))
end
