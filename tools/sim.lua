-- tools/sim.lua: simulated frame-time captures whose frames are not
-- independent, for the calibration (tools/calibrate.lua) and the specs
-- that check the same property in small (tests/infer_spec.lua).
--
--   package.path = "tools/?.lua;" .. package.path
--   local sim = require "sim"
--   math.randomseed(1)
--   local s = sim.capture(3000, sim.DESIGN, 0.03)   -- a vp.Series, 3 % slower
--
-- A capture is n frame times x_t = base (1 + d_t) e_t s_t, rounded to the
-- quantum: d_t a slow drift, AR(1): d_t = phi d_(t-1) + sqrt(1 - phi^2) sd
-- u_t, started in its stationary law (so every run wanders on its own);
-- e_t lognormal noise exp(noise z_t); s_t a spike, 2 to 4 times the frame,
-- with probability spike_p. Draws come from math.random (seed it).
local vp = require "vp"

local cli = require "vp.cli"

local sim = {}

--- The calibration's design: 16 ms frames, 5 % noise, 0.5 % spikes, drift
-- AR(1) with phi 0.99 and sd 1 %, 4 us steps.
sim.DESIGN = { base = 16, noise = 0.05, spike_p = 0.005, phi = 0.99, drift_sd = 0.01, quantum = 0.004 }

local sqrt, log, cos, exp, floor, random = math.sqrt, math.log, math.cos, math.exp, math.floor, math.random
local TWO_PI = 2 * math.pi

-- What the tools' common keys mean (sim.options' help, unless a tool says).
local OPTION_HELP = { runs_pairs = "pairs of --runs runs a side", frames = "frames a capture",
  seed = "the random seed (the same seed, the same table)", runs = "runs a side" }

--- sim.options(name, arg, defaults, quick, help) -> opts: the tools' command
-- line (vp.cli.parse, with --help and no other common option): --KEY N for
-- each key of defaults (--runs-pairs: runs_pairs; help[key] says what it
-- is, where the tools' common meaning does not) and --quick, which sets the
-- keys of quick that the command line leaves unset. A word it does not know
-- exits 2 with the usage.
function sim.options(name, args, defaults, quick, help)
  local keys, options = {}, {}
  for k in pairs(defaults) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do
    local v = defaults[k]
    options[i] = { "--" .. k:gsub("_", "-"), type = math.type(v) == "integer" and "integer" or "number",
      default = v, help = help and help[k] or OPTION_HELP[k] }
  end
  local quick_keys = {}
  for k, v in pairs(quick) do quick_keys[#quick_keys + 1] = "--" .. k:gsub("_", "-") .. " " .. tostring(v) end
  table.sort(quick_keys)
  options[#options + 1] = { "--quick", type = "flag", help = "a quicker run: " .. table.concat(quick_keys, ", ") }
  local opts, _, at = cli.parse(args, { name = "tools/" .. name .. ".lua", options = options, common = false })
  if opts.quick then
    for k, v in pairs(quick) do
      if not at.options[k] then opts[k] = v end
    end
  end
  return opts
end

--- sim.normal() -> a standard normal draw (Box-Muller).
function sim.normal()
  local u = random()
  if u == 0 then u = 1e-300 end
  return sqrt(-2 * log(u)) * cos(TWO_PI * random())
end
local normal = sim.normal

--- sim.capture(n, design [, shift [, spike_p]]) -> Series: n frame times
-- of the design, the base (1 + shift) times slower, spikes with
-- probability spike_p (default the design's).
function sim.capture(n, d, shift, spike_p)
  local phi, sd = d.phi, d.drift_sd
  local innov = sd * sqrt(1 - phi * phi)
  local drift = sd * normal()
  local base = d.base * (1 + (shift or 0))
  local noise, q, ps = d.noise, d.quantum, spike_p or d.spike_p
  local t = {}
  for i = 1, n do
    drift = phi * drift + innov * normal()
    local x = base * (1 + drift) * exp(noise * normal())
    if ps > 0 and random() < ps then x = x * (2 + 2 * random()) end
    t[i] = floor(x / q + 0.5) * q
  end
  return vp.Series(t)
end

-- Families of benchmark captures ---------------------------------------------------
-- What real captures contain, as whole VProf captures (written with the
-- VProf writer, read back by vp.open, compared by vp.compare: the
-- calibration runs the product's own path end to end). A capture is n
-- frames of a Source-like tree, Root -> Frame -> one node per budget
-- group (sim.GROUPS); a frame's time is the sum of its groups' times.
-- Each group's time in frame t of phase h is
--   base_g x load_h,g x (1 + d_t) x exp(noise z_t,g)
-- d_t the run's slow drift (AR(1), as sim.capture's); a spike (a frame of
-- 2.5 to 4 times the usual, in the "Other" group) with probability
-- spike_p; and the scenario's recurring hitches (60-400 ms in
-- "Streaming", at nearly the same frames every run). A family says how
-- the phases come:
--   drift     one phase: today's calibration shape (drift and spikes);
--   scripted  a scripted benchmark: 4-7 phases, each with its own load of
--             every group (x0.6 .. x1.8), in the same order and lengths
--             every run, but each boundary moved by up to +-1.5 % of the
--             frames from run to run; 2-4 recurring hitches whose size
--             varies from run to run (x exp(0.3 z)), each within +-2
--             frames of its place;
--   freeplay  the same kinds of phase, in another order and with other
--             lengths every run, and 2-4 hitches wherever they fall.
-- The tested group ("AI") takes 3-10 % of the frame (drawn per scenario).
-- Effects, on B only: "+3 % frame" (every group 3 % slower), "+15 % AI"
-- (the tested group 15 % slower), "4x hitches" (spikes four times as
-- frequent). Draws come from math.random (seed it).

sim.GROUPS = { "Render", "Game", "Physics", "AI", "Sound", "Streaming", "Other" }
local GROUP_MS = { Render = 6.5, Game = 3.0, Physics = 2.4, AI = 1.0, Sound = 0.8, Streaming = 0.3, Other = 2.0 }

sim.FAMILY = { noise = 0.10, spike_p = 0.003, phi = 0.99, drift_sd = 0.01, quantum = 0.004 }
sim.EFFECTS = {
  { name = "no change" }, { name = "+3 % frame", frame = 0.03 }, { name = "+15 % AI", group = "AI", by = 0.15 },
  { name = "4x hitches", spikes = 4 },
}

local function uniform(a, b) return a + (b - a) * random() end

-- Phase lengths: k shares of n frames, each at least 5 %.
local function lengths(k, n)
  local w, total = {}, 0
  for i = 1, k do
    w[i] = 0.05 + random()
    total = total + w[i]
  end
  local out, used = {}, 0
  for i = 1, k do
    out[i] = i == k and n - used or floor(n * w[i] / total)
    used = used + out[i]
  end
  return out
end

--- sim.scenario(family, n) -> a scenario: what every run of one benchmark
-- (or of one game's free play) shares: the base times of the groups, the
-- kinds of phase with their loads, their order and lengths (scripted),
-- the recurring hitches.
function sim.scenario(family, n)
  local base = {}
  for g, ms in pairs(GROUP_MS) do base[g] = ms end
  -- the tested group: 3-10 % of a ~16 ms frame
  base.AI = 16 * uniform(0.03, 0.10)
  local kinds = {}
  local k = family == "drift" and 1 or math.random(4, 7)
  for h = 1, k do
    local load = {}
    for _, g in ipairs(sim.GROUPS) do load[g] = family == "drift" and 1 or uniform(0.6, 1.8) end
    kinds[h] = load
  end
  local sc = { family = family, n = n, base = base, kinds = kinds, order = {}, lengths = lengths(k, n), hitches = {} }
  for h = 1, k do sc.order[h] = h end
  if family ~= "drift" then
    for i = 1, math.random(2, 4) do
      sc.hitches[i] = { at = math.random(floor(0.05 * n), floor(0.95 * n)), ms = uniform(60, 400) }
    end
  end
  return sc
end

-- The phase of every frame of one run: the scenario's order and lengths
-- with jittered boundaries (scripted), or a fresh order and lengths
-- (free play).
local function phase_of_frames(sc)
  local n, order, lens = sc.n, sc.order, sc.lengths
  if sc.family == "freeplay" then
    order = {}
    for i = 1, #sc.kinds do order[i] = i end
    for i = #order, 2, -1 do
      local j = math.random(1, i)
      order[i], order[j] = order[j], order[i]
    end
    lens = lengths(#order, n)
  end
  local ends, at = {}, 0
  for i = 1, #lens do
    at = at + lens[i]
    ends[i] = at
  end
  if sc.family == "scripted" then
    for i = 1, #ends - 1 do ends[i] = ends[i] + floor(uniform(-0.015, 0.015) * n + 0.5) end
  end
  local of, h = {}, 1
  for t = 1, n do
    while h < #ends and t > ends[h] do h = h + 1 end
    of[t] = order[h]
  end
  return of
end

--- sim.run(sc [, effect]) -> {[group] = {ms, ...}} per frame: one run of
-- the scenario, with the effect (one of sim.EFFECTS) applied.
function sim.run(sc, effect)
  effect = effect or {}
  local d = sim.FAMILY
  local n = sc.n
  local of = phase_of_frames(sc)
  local innov = d.drift_sd * sqrt(1 - d.phi * d.phi)
  local drift = d.drift_sd * normal()
  local spike_p = d.spike_p * (effect.spikes or 1)
  local out = {}
  for _, g in ipairs(sim.GROUPS) do out[g] = {} end
  for t = 1, n do
    drift = d.phi * drift + innov * normal()
    local load, frame = sc.kinds[of[t]], 0
    for _, g in ipairs(sim.GROUPS) do
      local x = sc.base[g] * load[g] * (1 + drift) * exp(d.noise * normal())
      if effect.group == g then x = x * (1 + effect.by) end
      out[g][t] = x
      frame = frame + x
    end
    if random() < spike_p then out.Other[t] = out.Other[t] + frame * uniform(1.5, 3) end
  end
  local hitches = sc.hitches
  if sc.family == "freeplay" then
    hitches = {}
    for i = 1, math.random(2, 4) do hitches[i] = { at = math.random(1, n), ms = uniform(60, 400) } end
  end
  for _, h in ipairs(hitches) do
    local t = math.max(1, math.min(n, h.at + (sc.family == "scripted" and math.random(-2, 2) or 0)))
    out.Streaming[t] = out.Streaming[t] + h.ms * (sc.family == "scripted" and exp(0.3 * normal()) or 1)
  end
  if effect.frame then
    for _, g in ipairs(sim.GROUPS) do
      local col = out[g]
      for t = 1, n do col[t] = col[t] * (1 + effect.frame) end
    end
  end
  return out
end

--- sim.write(run, path) -> bytes: the run as a VProf capture (one node per
-- group under Root/Frame, each in its own budget group; times rounded to
-- the quantum).
function sim.write(run, path)
  local vp_ = vp
  local w = vp_.writer("vprof", path, { root_id = 0, escape_width = 4, group_base = 0 })
  local gid = w:default_groups()
  local frame_id = w:node(0, "Frame", gid.Unaccounted)
  local ids = {}
  for _, g in ipairs(sim.GROUPS) do
    local group = gid[g] or w:group(g, 0)
    gid[g] = group
    ids[g] = w:node(frame_id, g, group)
  end
  local q = sim.FAMILY.quantum * 1000
  local n = #run[sim.GROUPS[1]]
  for t = 1, n do
    local times, total = { [0] = { us = 0, calls = 1 } }, 0
    for _, g in ipairs(sim.GROUPS) do
      local us = floor(run[g][t] * 1000 / q + 0.5) * q
      times[ids[g]] = { us = us, calls = 1 }
      total = total + us
    end
    times[frame_id] = { us = total, calls = 1 }
    w:frame(1000 + t, times)
  end
  return w:close()
end

return sim
