-- gen/runs.lua: write OUTDIR/runs/base/run1..5.vprof and OUTDIR/runs/new/run1..5.vprof:
-- five runs of a baseline build and five of a new one whose Physics is 15 %
-- slower (about +2 % of the frame), for comparing and gating with several
-- runs a side (docs/compare.md, docs/check.md):
--
--   vpscript compare.lua examples/runs/base examples/runs/new --runs
--   vpscript check.lua examples/rules/vprof_runs.lua examples/runs/new --runs --baseline examples/runs/base
--
-- Each run is 3,000 frames of a ~14.7 ms frame: Root -> CEngine::Frame ->
-- {Physics, Render, Game, Sound}. Every node's time is its mean x (1 + d_t)
-- x noise, where d_t is a slow drift of its own in each run (an AR(1)
-- series: d_t = 0.99 d_(t-1) + innovation, about +-2 % around the mean)
-- and noise is a sum of three uniforms (+-15 %); one frame in 200 takes
-- twice as long in Render. Deterministic: an xorshift32 PRNG with a fixed
-- seed per run, no math.random, no libm beyond sqrt.
local vp = require "vp"

local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("runs.lua", ..., "examples")
local FRAMES, RUNS = 3000, 5

-- One sequence per run, its seed spread over 32 bits.
local function rng(seed)
    local state = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF
    return (lib.xorshift32(state ~= 0 and state or 1))
end

-- Nodes: id, name, group, mean self time (us).
local NODES = {
    { 2, "Physics", "Physics", 2000 }, { 3, "Render", "World Rendering", 9000 },
    { 4, "Game", "Game", 2500 }, { 5, "Sound", "Sound", 400 },
}
local FRAME_SELF = 800
local GROUP_ID = { Unaccounted = 0, ["World Rendering"] = 1, Game = 3, Physics = 8, Sound = 20 }

local function write_run(path, seed, physics_factor)
    local rnd = rng(seed)
    -- a zero-mean, unit-variance draw from three uniforms
    local function z() return (rnd() + rnd() + rnd() - 1.5) * 2 end
    local phi = 0.99
    local innov = 0.01 * math.sqrt(1 - phi * phi)
    local drift = 0.01 * z()
    local w = vp.writer("vprof", path, { root_id = 0, escape_width = 4, group_base = 0 })
    w:default_groups()
    local frame_id = w:node(0, "CEngine::Frame", GROUP_ID.Unaccounted)
    local ids = {}
    for _, n in ipairs(NODES) do ids[n[1]] = w:node(frame_id, n[2], GROUP_ID[n[3]]) end
    for k = 1, FRAMES do
        drift = phi * drift + innov * z()
        local scale = 1 + drift
        local times, total = { [0] = { us = 0, calls = 1 } }, FRAME_SELF * scale
        for _, n in ipairs(NODES) do
            local us = n[4] * scale * (1 + 0.15 * (rnd() + rnd() + rnd() - 1.5) / 1.5)
            if n[2] == "Physics" then us = us * physics_factor end
            if n[2] == "Render" and rnd() < 0.005 then us = us * 2 end
            us = math.floor(us / 4 + 0.5) * 4
            times[ids[n[1]]] = { us = us, calls = 1 }
            total = total + us
        end
        times[frame_id] = { us = math.floor(total / 4 + 0.5) * 4, calls = 1 }
        w:frame(1000 + k, times)
    end
    return w:close()
end

local bytes = 0
for side, factor in pairs({ base = 1, new = 1.15 }) do
    local dir = outdir .. "/runs/" .. side
    lib.mkdir(dir)
    for r = 1, RUNS do
        bytes = bytes + write_run(string.format("%s/run%d.vprof", dir, r), (side == "base" and 100 or 200) + r, factor)
    end
end
return string.format("%s/runs/{base,new}/run1..%d.vprof: %d frames each, %d bytes", outdir, RUNS, FRAMES, bytes)
