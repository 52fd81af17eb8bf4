-- tools/families.lua: how often compare.lua's verdicts are false alarms,
-- and how often they find a planted change, on pairs of whole simulated
-- captures shaped like real ones: drift and spikes; a scripted benchmark
-- (phases, recurring hitches, boundaries that move from run to run); free
-- play; several runs a side (tools/sim.lua's families). A benchmark, not a
-- test: `make calibrate` runs it with tools/calibrate.lua, and
-- docs/compare.md shows its table.
--
--   vpscript tools/families.lua [--pairs N] [--runs-pairs N] [--frames N] [--seed S] [--quick]
--
-- Every pair is written as two VProf captures, read back with vp.open and
-- compared by vp.compare.analyze with its defaults (pairing auto), exactly
-- as compare.lua and check.lua do; a metric counts as flagged when its own
-- p-value (before any adjustment over metrics, as a check rule with
-- significant = true and alpha = 0.05 sees it) is below 0.05, and, for a
-- planted change, when it also moved the planted way.
local compare = require "vp.compare"


do -- tools/sim.lua sits beside this script
  local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
  package.path = here .. "/?.lua;" .. package.path
end
local sim = require "sim"
local opts = sim.options("families", arg, {
  pairs = 200, runs_pairs = 200, frames = 3000, seed = 20261201, runs = 5 },
  { pairs = 50, runs_pairs = 12 },
  { pairs = "pairs of one capture a side per family and change" })

-- The metrics read, and for each planted change the metric that should
-- find it and the way it should move ("worse").
local METRICS = { "frame_ms.mean", "frame_ms.p50", "frame_ms.p99", "low_1pct_fps", "group.AI.mean_ms", "hitches" }
local MATCH = {}
for i, m in ipairs(METRICS) do MATCH[i] = "^" .. m:gsub("%.", "%%.") .. "$" end
local TARGET = { ["+3 % frame"] = "frame_ms.mean", ["+15 % AI"] = "group.AI.mean_ms", ["4x hitches"] = "hitches" }

local FAMILIES = {
  { name = "drift", label = "drift and spikes (one phase)" },
  { name = "scripted", label = "scripted benchmark" },
  { name = "freeplay", label = "free play" },
  { name = "scripted", label = "scripted benchmark, 5 runs a side", runs = true },
}

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -m 700 '" .. dir .. "'"), "cannot create a temporary directory")

local vp = require "vp"
local function capture(sc, effect, name)
  local path = dir .. "/" .. name .. ".vprof"
  sim.write(sim.run(sc, effect), path)
  return assert(vp.open(path))
end

-- One pair: {metric = {flagged, worse, tested}}, the pairing method, cannot_tell of frame_ms.mean.
local function pair(fam, effect)
  local sc = sim.scenario(fam.name, opts.frames)
  local a, b = {}, {}
  local k = fam.runs and opts.runs or 1
  for r = 1, k do
    a[r] = capture(sc, nil, "a" .. r)
    b[r] = capture(sc, effect, "b" .. r)
  end
  local res = compare.analyze(k == 1 and a[1] or a, k == 1 and b[1] or b,
    { alpha = 0.05, match = MATCH, nodes = 0 })
  for r = 1, k do
    a[r]:close()
    b[r]:close()
  end
  local out = {}
  for _, m in ipairs(res.metrics) do
    out[m.metric] = { tested = m.p_value ~= nil, flagged = m.p_value ~= nil and m.p_value < 0.05,
      worse = (m.impact or 0) > 0, cannot_tell = m.cannot_tell }
  end
  return out, res.pairing and res.pairing.method or "runs"
end

local t0 = os.clock()
math.randomseed(opts.seed)
-- counts[family][effect][metric] = {flagged (the planted way, for a change), tested}; plus pairing, no power
local rows = {}
for fi, fam in ipairs(FAMILIES) do
  local n = fam.runs and opts.runs_pairs or opts.pairs
  local row = { family = fam, effects = {} }
  for ei, effect in ipairs(sim.EFFECTS) do
    local c = { metrics = {}, aligned = 0, cannot = 0, n = n }
    for _, m in ipairs(METRICS) do c.metrics[m] = { 0, 0 } end
    for _ = 1, n do
      local res, method = pair(fam, effect.name ~= "no change" and effect or nil)
      if method == "aligned" then c.aligned = c.aligned + 1 end
      local fm = res["frame_ms.mean"]
      if fm and fm.cannot_tell then c.cannot = c.cannot + 1 end
      for _, m in ipairs(METRICS) do
        local x = res[m]
        if x and x.tested then
          local k = c.metrics[m]
          k[2] = k[2] + 1
          local planted = effect.name ~= "no change"
          if x.flagged and (not planted or x.worse) then k[1] = k[1] + 1 end
        end
      end
    end
    row.effects[ei] = c
    io.stderr:write(string.format("families: %s, %s (%d pairs, %.0f s)\n", fam.label, effect.name, n, os.clock() - t0))
  end
  rows[fi] = row
end
os.execute("rm -rf '" .. dir .. "'")

local function pct(k)
  if k[2] == 0 then return "-" end
  return string.format("%.1f", 100 * k[1] / k[2])
end

local out = {}
out[#out + 1] = string.format("Families: %d frames a capture, %d pairs a cell (%d for the runs, %d runs a side), "
  .. "seed %d.", opts.frames, opts.pairs, opts.runs_pairs, opts.runs, opts.seed)
out[#out + 1] = "Cells: % of pairs whose p-value is below 0.05 (\"no change\": false alarms in either direction; "
  .. "a planted change: flagged the planted way)."
out[#out + 1] = ""
local head = { "| family | metric |" }
local rule = { "|---|---|" }
for _, e in ipairs(sim.EFFECTS) do
  head[#head + 1] = " " .. e.name .. " |"
  rule[#rule + 1] = "--:|"
end
out[#out + 1] = table.concat(head)
out[#out + 1] = table.concat(rule)
for _, row in ipairs(rows) do
  for _, m in ipairs(METRICS) do
    local line = { "| ", row.family.label, " | ", m, " |" }
    for ei, e in ipairs(sim.EFFECTS) do
      local cell = pct(row.effects[ei].metrics[m])
      if TARGET[e.name] == m then cell = "**" .. cell .. "**" end
      line[#line + 1] = " " .. cell .. " |"
    end
    out[#out + 1] = table.concat(line)
  end
  if not row.family.runs then
    local line = { "| ", row.family.label, " | paired (aligned) |" }
    local tell = { "| ", row.family.label, " | frame_ms.mean: cannot tell |" }
    for ei = 1, #sim.EFFECTS do
      local c = row.effects[ei]
      line[#line + 1] = string.format(" %.1f |", 100 * c.aligned / c.n)
      tell[#tell + 1] = string.format(" %.1f |", 100 * c.cannot / c.n)
    end
    out[#out + 1] = table.concat(line)
    out[#out + 1] = table.concat(tell)
  end
end
io.stderr:write(string.format("families: done in %.0f s\n", os.clock() - t0))
io.stdout:write(table.concat(out, "\n"), "\n")
