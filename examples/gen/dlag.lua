-- gen/dlag.lua: write OUTDIR/sample.dlag, a lag profiler export,
-- deterministically (own xorshift32 PRNG with a fixed seed, no
-- math.random, no clock).
--
--   vpscript examples/gen/dlag.lua OUTDIR      (or via examples/generate.lua)
--
-- The capture: 72 measurements (as a build 1962 client writes them; by the
-- positional table that is 1 Client Frame .. 72 MPH), each with one sample
-- every 200 ms for 60 s (300 samples; time from 1,000,000, read as ms),
-- except 13 Server Player Input Delay and 14 Server PInput Delay Sample,
-- which have none. Typical levels: Client Frame ~16.7, Server Frame ~33,
-- Socket RTT ~45, Client/Server Application Ping ~50/48, Packet
-- Downloss/Upploss mostly 0 with a few losses, the rest a steady level
-- with noise.
-- Planted spikes (1-based sample numbers; with the default --k 5 lag.lua
-- flags these):
--   Socket RTT samples 120..122 at 400, 420, 380 ms;
--   Client Frame sample 200 at 95 ms;
--   Packet Downloss samples 150..151 at 12 and 8 (%).
-- Two graph states (72 measurements; page 0 visible in the first, pages
-- 0 and 1 in the second), traceroute on to "gss.example.net" with 5 hops.
local vp = require "vp"

local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("dlag.lua", ...)

local rand = lib.xorshift32(0x1F123BB5)

local T0, N, STEP, COUNT = 1000000, 300, 200, 72

-- level, noise (+-), optional planted values by sample number
local profile = {
  [1] = { 16.7, 1.2, { [200] = 95 } },         -- Client Frame
  [2] = { 33.3, 2 },                           -- Server Frame
  [3] = { 30, 0.5 },                           -- Server Update Rate
  [4] = { 2, 0.5 },                            -- Local Gateway
  [6] = { 28, 3 },                             -- The Internets
  [8] = { 45, 4, { [120] = 400, [121] = 420, [122] = 380 } }, -- Socket RTT
  [9] = { 0, 0, { [150] = 12, [151] = 8 } },   -- Packet Downloss
  [10] = { 0, 0 },                             -- Packet Upploss
  [11] = { 50, 4 },                            -- Client Application Ping
  [12] = { 48, 4 },                            -- Server Application Ping
  [18] = { 1400, 0 },                          -- Probed MTU
  [23] = { 2.4, 0.2 },                         -- Game Compression Ratio
  [24] = { 60, 3 },                            -- Game Packets/Second
  [25] = { 9000, 800 },                        -- Game Bytes/Second
}
local EMPTY = { [13] = true, [14] = true }

local function samples_for(index)
  local p = profile[index] or { 10 + (index * 37) % 90, 1 + index % 5 }
  local level, noise, planted = p[1], p[2], p[3] or {}
  local out = {}
  if EMPTY[index] then return out end
  for i = 1, N do
    local v = planted[i] or (level + noise * (2 * rand() - 1))
    if v < 0 then v = 0 end
    -- values are f32 in the file: round to 1/64 so they survive exactly
    out[i] = { value = math.floor(v * 64 + 0.5) / 64, time = T0 + (i - 1) * STEP, unknown = 0 }
  end
  return out
end

local path = outdir .. "/sample.dlag"
local w = vp.writer("dlag", path, { time = T0 + N * STEP })
for index = 1, COUNT do w:measurement(samples_for(index)) end
local page0 = "\255\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
local page01 = "\255\255\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
w:graph_states({
  { measurement_count = COUNT, bitfield = page0, offset = { x = 0, y = 0, z = 0, w = 0 },
    scale = { x = 1, y = 1, z = 1, w = 1 }, print_titles = 1, unknown = 0 },
  { measurement_count = COUNT, bitfield = page01, offset = { x = 0, y = 10, z = 0, w = 0 },
    scale = { x = 1, y = 0.5, z = 1, w = 1 }, print_titles = 0, unknown = 0 },
})
w:traceroute_host("gss.example.net")
local hops = {
  { "192.168.1.1", "router.lan", 1 }, { "10.20.0.1", "isp-gw.example.net", 8 },
  { "203.0.113.9", "core1.example.net", 15 }, { "198.51.100.40", "edge.example.net", 31 },
  { "198.51.100.77", "gss.example.net", 44 },
}
for _, h in ipairs(hops) do
  local s = {}
  for i = 1, 10 do
    s[i] = { value = math.floor((h[3] + 2 * rand()) * 64 + 0.5) / 64, time = T0 + i * 1000, unknown = 0 }
  end
  w:hop { address = h[1], name = h[2], samples = s, unknown_u8_1 = 1, unknown_u32 = 0,
    unknown_floats = { h[3], h[3], h[3] + 2, 0 }, unknown_u8_2 = 0 }
end
local bytes = w:close()
return string.format("%s: %d measurements, %d hops, %d bytes", path, COUNT, #hops, bytes)
