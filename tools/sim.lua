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

local sim = {}

--- The calibration's design: 16 ms frames, 5 % noise, 0.5 % spikes, drift
-- AR(1) with phi 0.99 and sd 1 %, 4 us steps.
sim.DESIGN = { base = 16, noise = 0.05, spike_p = 0.005, phi = 0.99, drift_sd = 0.01, quantum = 0.004 }

local sqrt, log, cos, exp, floor, random = math.sqrt, math.log, math.cos, math.exp, math.floor, math.random
local TWO_PI = 2 * math.pi

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

return sim
