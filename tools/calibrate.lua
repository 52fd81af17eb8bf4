-- tools/calibrate.lua: how often each comparison method cries wolf, and how
-- often it finds a planted change, on simulated frame-time captures whose
-- frames are not independent. A benchmark, not a test (`make calibrate`);
-- docs/compare.md shows its table.
--
--   vpscript tools/calibrate.lua [--pairs N] [--runs-pairs N] [--frames N] [--seed S] [--quick]
--
-- A capture is tools/sim.lua's: n frame times x_t = base (1 + d_t) e_t s_t,
-- rounded to 4 us:
--   d_t  slow drift, AR(1): d_t = phi d_(t-1) + sqrt(1 - phi^2) sd u_t, started
--        in its stationary law (so every run wanders on its own);
--   e_t  frame-to-frame noise, lognormal: exp(0.05 z_t);
--   s_t  spikes: with probability 0.5 % a frame takes 2 to 4 times as long.
-- A pair is two such captures drawn independently: "no change" (the same
-- design), "+1 %" .. "+5 %" (B's base that much slower), "tail" (B's spikes
-- four times as frequent, 2 %: more stutter, nearly the same median).
-- Each method is run on every pair; a cell is the share of pairs it flagged
-- at alpha 0.05 / 0.01 (for "no change": false alarms; otherwise
-- detections). The methods are vp.infer's, the functions vp.compare and
-- vp.gate call, beside two that take the frames as independent draws (the
-- tests' Mann-Whitney oracle, a per-frame Welch t): what a naive test
-- reports on the same pairs.
local infer = require "vp.infer"
local mwu

-- Generator ---------------------------------------------------------------------------

do -- tools/sim.lua sits beside this script, the tests' Mann-Whitney oracle in tests/
  local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
  package.path = here .. "/?.lua;" .. here .. "/../tests/?.lua;" .. package.path
  mwu = require "mwu_oracle"
end
local sim = require "sim"
local opts = sim.options("calibrate", arg, {
  pairs = 1000, runs_pairs = 300, frames = 3000, seed = 20240601, runs = 5 },
  { pairs = 200, runs_pairs = 100 },
  { pairs = "pairs of one capture a side per scenario" })
local sqrt = math.sqrt
local DESIGN = sim.DESIGN
local capture = sim.capture

local SCENARIOS = {
  { name = "no change", shift = 0 }, { name = "+1 %", shift = 0.01 }, { name = "+2 %", shift = 0.02 },
  { name = "+3 %", shift = 0.03 }, { name = "+5 %", shift = 0.05 }, { name = "tail", shift = 0, tail = 0.02 },
}

-- Methods -----------------------------------------------------------------------------
-- Each takes the raw Series a, b and their samples (dependent and
-- independent) and returns a p-value (nil: could not test).

local function cmp_p(stat, sopts)
  return function(c)
    local sa, sb = c.sa, c.sb
    if sopts then sa, sb = infer.sample(c.a, sopts), infer.sample(c.b, sopts) end
    local d = infer.compare(stat, sa, sb)
    return d and d.p
  end
end

-- an interval that excludes 0 counts as a detection at 0.05 (the intervals are 95 %)
local function excludes(lo_key, hi_key)
  return function(c)
    local e = c.effects()
    if not e or e[lo_key] == nil then return nil end
    return (e[lo_key] > 0 or e[hi_key] < 0) and 0 or 1
  end
end

local METHODS = {
  { "frame_ms.mean", "batch means, Welch t (default)", cmp_p({ kind = "mean" }), default = true },
  { "frame_ms.mean", "batch means k = 30, r not bias-corrected (prototype)",
    cmp_p({ kind = "mean" }, { batches = 30, r_correct = false }) },
  { "frame_ms.mean", "Mann-Whitney U per frame (not offered)", function(c) return mwu.test(c.a, c.b).p end },
  { "frame_ms.mean", "Welch t per frame, independence assumed", function(c)
    local d = infer.compare({ kind = "mean" }, c.ia, c.ib)
    return d and d.p
  end },
  { "frame_ms.p50", "Woodruff, batch means (default)", cmp_p({ kind = "quantile", p = 0.5 }), default = true },
  { "frame_ms.p95", "Woodruff, batch means (default)", cmp_p({ kind = "quantile", p = 0.95 }), default = true },
  { "frame_ms.p99", "Woodruff, batch means (default)", cmp_p({ kind = "quantile", p = 0.99 }), default = true },
  { "low_1pct_fps", "tail mean, batch means (default)", cmp_p({ kind = "low_fps", pct = 1 }), default = true },
  { "shape", "quantile grid, batch means (default)", function(c)
    local s = infer.shape(c.sa, c.sb, "grid")
    return s and s.p
  end, default = true },
  { "shape", "Kolmogorov-Smirnov, effective n", function(c)
    local s = infer.shape(c.sa, c.sb, "ks")
    return s and s.p
  end },
  { "shape", "Anderson-Darling, effective n", function(c)
    local s = infer.shape(c.sa, c.sb, "ad")
    return s and s.p
  end },
  { "effect", "Cliff's delta 95 % interval excludes 0", excludes("delta_lo", "delta_hi"), only05 = true },
  { "effect", "Hodges-Lehmann 95 % interval excludes 0", excludes("hl_lo", "hl_hi"), only05 = true },
}

local function make_case(a, b)
  local c = { a = a, b = b, sa = infer.sample(a), sb = infer.sample(b),
    ia = infer.sample(a, { independent = true }), ib = infer.sample(b, { independent = true }) }
  function c.effects()
    if c._e == nil then c._e = infer.effects(c.sa, c.sb) or false end
    return c._e or nil
  end
  return c
end

-- Running -----------------------------------------------------------------------------

-- one line on stderr per finished block
local function progress(label, i, n)
  if i == n then io.stderr:write(string.format("calibrate: %s (%d pairs, %.0f s)\n", label, n, os.clock())) end
end

-- counts[method][scenario] = {hits at 0.05, hits at 0.01, tested}
local function run_single(design, scenarios, methods, pairs, label)
  local counts = {}
  for m = 1, #methods do counts[m] = {} end
  for si, sc in ipairs(scenarios) do
    for m = 1, #methods do counts[m][si] = { 0, 0, 0 } end
    for i = 1, pairs do
      local a = capture(opts.frames, design, 0, design.spike_p)
      local b = capture(opts.frames, design, sc.shift, sc.tail or design.spike_p)
      local c = make_case(a, b)
      for m, meth in ipairs(methods) do
        local p = meth[3](c)
        local k = counts[m][si]
        if p then
          k[3] = k[3] + 1
          if p < 0.05 then k[1] = k[1] + 1 end
          if p < 0.01 then k[2] = k[2] + 1 end
        end
      end
      progress(label .. ": " .. sc.name, i, pairs)
    end
  end
  return counts
end

-- several runs a side: Welch's t on the run means
local function run_runs(design, scenarios, pairs, label)
  local row = {}
  for si, sc in ipairs(scenarios) do
    local k = { 0, 0, 0 }
    for i = 1, pairs do
      local va, vb = {}, {}
      for r = 1, opts.runs do
        va[r] = capture(opts.frames, design, 0, design.spike_p):mean()
        vb[r] = capture(opts.frames, design, sc.shift, sc.tail or design.spike_p):mean()
      end
      local d = infer.runs(va, vb)
      if d then
        k[3] = k[3] + 1
        if d.p < 0.05 then k[1] = k[1] + 1 end
        if d.p < 0.01 then k[2] = k[2] + 1 end
      end
      progress(label .. ": " .. sc.name, i, pairs)
    end
    row[si] = k
  end
  return row
end

local function cell(k, only05)
  if k[3] == 0 then return "-" end
  local a = string.format("%.1f", 100 * k[1] / k[3])
  if only05 then return a end
  return string.format("%s / %.1f", a, 100 * k[2] / k[3])
end

local function table_md(title, scenarios, rows)
  local out = { "", title, "" }
  local head = { "| metric | method |" }
  local rule = { "|---|---|" }
  for _, sc in ipairs(scenarios) do
    head[#head + 1] = " " .. sc.name .. " |"
    rule[#rule + 1] = "--:|"
  end
  out[#out + 1] = table.concat(head)
  out[#out + 1] = table.concat(rule)
  for _, r in ipairs(rows) do
    local line = { "| ", r.metric, " | ", r.method, " |" }
    for si = 1, #scenarios do line[#line + 1] = " " .. cell(r.counts[si], r.only05) .. " |" end
    out[#out + 1] = table.concat(line)
  end
  return table.concat(out, "\n")
end

local function with(d, over)
  local x = {}
  for k, v in pairs(d) do x[k] = v end
  for k, v in pairs(over) do x[k] = v end
  return x
end

local function pct(x) return string.format("%g %%", 100 * x) end

local t0 = os.clock()
math.randomseed(opts.seed)
local out = {}
out[#out + 1] = string.format("Calibration: %d frames a capture, %d pairs a scenario (%d for runs, %d runs a side), "
  .. "seed %d.", opts.frames, opts.pairs, opts.runs_pairs, opts.runs, opts.seed)
out[#out + 1] = string.format("Design: base %g ms, noise lognormal %s, spikes %s of frames x U(2, 4), drift AR(1) "
  .. "phi %g with sd %s, times rounded to %g us.", DESIGN.base, pct(DESIGN.noise), pct(DESIGN.spike_p), DESIGN.phi,
  pct(DESIGN.drift_sd), DESIGN.quantum * 1000)
out[#out + 1] = "Cells: % of pairs flagged at alpha 0.05 / 0.01 (\"no change\": false alarms; the rest: detections)."
out[#out + 1] = string.format("With %d pairs a false-alarm rate of 5 %% is measured to +-%.1f %% and 1 %% to "
  .. "+-%.1f %% (95 %%).", opts.pairs, 196 * sqrt(0.05 * 0.95 / opts.pairs), 196 * sqrt(0.01 * 0.99 / opts.pairs))

local main = run_single(DESIGN, SCENARIOS, METHODS, opts.pairs, "main")
local rows = {}
for m, meth in ipairs(METHODS) do
  rows[#rows + 1] = { metric = meth[1], method = meth[2], counts = main[m], only05 = meth.only05 }
end
rows[#rows + 1] = { metric = "frame_ms.mean", method = string.format("runs: Welch t on %d run means a side",
  opts.runs), counts = run_runs(DESIGN, SCENARIOS, opts.runs_pairs, "runs") }
out[#out + 1] = table_md(string.format("Drift sd %s, phi %g (about +-%s over a run):", pct(DESIGN.drift_sd),
  DESIGN.phi, pct(2 * DESIGN.drift_sd)), SCENARIOS, rows)

-- Harder drift: the default methods only.
local HARD = {
  { label = "drift sd 2 %, phi 0.99", design = with(DESIGN, { drift_sd = 0.02 }) },
  { label = "drift sd 1 %, phi 0.995", design = with(DESIGN, { phi = 0.995 }) },
  { label = "drift sd 1 %, phi 0.999", design = with(DESIGN, { phi = 0.999 }) },
}
local hard_scen = { SCENARIOS[1], SCENARIOS[4], SCENARIOS[6] }
local defaults = {}
for _, meth in ipairs(METHODS) do
  if meth.default then defaults[#defaults + 1] = meth end
end
for _, h in ipairs(HARD) do
  local counts = run_single(h.design, hard_scen, defaults, opts.pairs, h.label)
  local hrows = {}
  for m, meth in ipairs(defaults) do hrows[m] = { metric = meth[1], method = meth[2], counts = counts[m] } end
  hrows[#hrows + 1] = { metric = "frame_ms.mean", method = string.format("runs: Welch t on %d run means a side",
    opts.runs), counts = run_runs(h.design, hard_scen, opts.runs_pairs, h.label .. " runs") }
  out[#out + 1] = table_md("Harder drift: " .. h.label .. ":", hard_scen, hrows)
end
io.stderr:write(string.format("calibrate: done in %.0f s\n", os.clock() - t0))
io.stdout:write(table.concat(out, "\n"), "\n")
