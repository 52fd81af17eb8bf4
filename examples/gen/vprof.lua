-- gen/vprof.lua: write OUTDIR/sample.vprof, a realistic Source-engine VProf
-- recording, deterministically (own xorshift32 PRNG with a fixed seed, no
-- math.random, no clock).
--
--   vpscript examples/gen/vprof.lua OUTDIR      (or via examples/generate.lua)
--
-- The capture: 4,000 frames of a ~14 ms frame (about 70 fps) over a
-- Source-like tree (Root -> CEngine::Frame -> networking, server frame with
-- physics/NPCs/entities, client frame, file system/streaming, rendering,
-- sound, VGUI, Swap_Buffers), recorded like the public engines do:
-- group ids from 0, the 31 default budget groups declared in frame 1, then
-- the custom groups "AI_Pathing", "Streaming", "Scripting_Internal" (hidden)
-- and, from frame 800, "Scripting". The root's own time is 0 with 1 call.
--
-- Structure worth testing:
--   * nodes appearing mid-capture: the Lua scripting subsystem
--     (Root/CEngine::Frame/Lua_GameThink and its children) starts at frame
--     800 together with its group "Scripting" (id 34); Stream_LoadChunk
--     appears at frame 1200; Shader_Compile at frame 3100;
--   * same-named siblings: Physics_Step has two children named "Simulate"
--     (two physics sub-steps), distinct node ids;
--   * calls above 254 (escaped): R_DrawStaticProps, R_DrawModelsFastPath;
--   * a combat phase, frames 2000..2700, where Physics and NPC load rise
--     (Physics group self time often above 4 ms), without hitches other
--     than the planted one.
--
-- Planted hitches (1-based frame numbers, as scripts report them). With the
-- default hitch rule (>= 2.5 x the median of the previous 30 frames and
-- >= 5 ms above it) these four frames, and no others, are hitches:
--   frame 1200: ~30 ms in Root/CEngine::Frame/FileSystem_Update/
--               Stream_Update/Stream_LoadChunk (group "Streaming"):
--               a level chunk loaded synchronously;
--   frame 2500: ~30 ms in Root/CEngine::Frame/_Host_RunFrame_Server/
--               Physics_Step/Ragdoll_Constraints (group "Physics"):
--               a ragdoll pile (24 calls);
--   frame 3100: ~45 ms in Root/CEngine::Frame/CL_Render/R_DrawWorld/
--               Shader_Compile (group "World Rendering"): a shader compiled
--               on first use (the node's first frame);
--   frame 3700: ~30 ms in Root/CEngine::Frame/Lua_GameThink/Lua_GC
--               (group "Scripting"): a full Lua garbage collection.
--
-- Other runs of the same design, for comparisons and gates (tests/
-- verdicts_spec.lua): vpscript examples/gen/vprof.lua OUTDIR NAME SEED
-- [PHYSICS [SCALE]] writes OUTDIR/NAME with another noise seed, the Physics
-- group's self times PHYSICS times longer and every node's SCALE times.
-- Returns a one-line description of what it wrote.
local vp = require "vp"

local given = select(2, ...)
local lib = type(given) == "table" and given or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("vprof.lua", (...), "examples")
local run = { select(type(given) == "table" and 3 or 2, ...) }
local FRAMES = 4000
local path = outdir .. "/" .. (run[1] or "sample.vprof")
local SEED = tonumber(run[2]) or 0x9E3779B9
local PHYSICS, SCALE = tonumber(run[3]) or 1, tonumber(run[4]) or 1

local rnd, irange = lib.xorshift32(SEED)

-- Bounded noise around 1: the sum of three uniforms, no libm involved.
local function noise(spread)
    return 1 + spread * (rnd() + rnd() + rnd() - 1.5) / 1.5
end

-- Custom groups: name, flags, first frame they are declared in.
local CUSTOM = {
    {"AI_Pathing", 6, 1},
    {"Streaming", 6, 1},
    {"Scripting_Internal", 0x8000 | 4, 1}, -- hidden: folds into its parent's group
    {"Scripting", 4, 800},
}

-- The tree in execution order: key, name, parent key, group, mean self time
-- (us), calls (number or {lo, hi}), first frame (default 1). Keys are unique,
-- names need not be.
local N = {}
local function node(key, name, parent, group, us, calls, start)
    N[#N + 1] = {key = key, name = name, parent = parent, group = group, us = us,
                 calls = calls or 1, start = start or 1}
end

node("frame", "CEngine::Frame", "root", "Unaccounted", 110)
node("move", "CL_Move", "frame", "Networking", 40)
node("sendmove", "CL_SendMove", "move", "Networking", 60)
node("readpk", "CL_ReadPackets", "move", "Networking", 120)
node("pktents", "CL_ProcessPacketEntities", "readpk", "Networking", 200, {1, 3})

node("server", "_Host_RunFrame_Server", "frame", "Game", 90)
node("gamerules", "GameRules_Think", "server", "Game", 30)
node("ents", "Entity_Think", "server", "Game", 60)
for i, cls in ipairs({"prop_physics", "func_door", "trigger_multiple", "env_sprite",
                      "weapon_smg1", "item_healthkit", "logic_relay", "func_breakable",
                      "ambient_generic", "point_template"}) do
    node("ent_" .. cls, cls, "ents", "Game", 20 + (i * 7) % 40, {1, 4 + i % 5})
end
node("usercmd", "Player_RunCommand", "server", "Player", 220, {1, 3})
node("npcs", "NPCs", "server", "NPCs", 50)
for i, cls in ipairs({"npc_combine_s", "npc_zombie", "npc_headcrab", "npc_citizen",
                      "npc_metropolice", "npc_antlion"}) do
    node("npc_" .. cls, cls, "npcs", "NPCs", 25, {1, 3 + i})
    node("think_" .. cls, "NPC_Think", "npc_" .. cls, "NPCs", 60 + 10 * i, {1, 3 + i})
    node("path_" .. cls, "AI_Pathfind", "npc_" .. cls, "AI_Pathing", 25 + 5 * i, {0, 2 + i})
end
node("svanim", "SV_StudioSetupBones", "server", "Server Animation", 260, {20, 40})
node("physics", "Physics_Step", "server", "Physics", 150)
node("sim1", "Simulate", "physics", "Physics", 900)
node("sim2", "Simulate", "physics", "Physics", 700)
node("collide", "Collision", "physics", "Physics", 750, {40, 60})
node("ragdoll", "Ragdoll_Constraints", "physics", "Physics", 120, {0, 3})
node("vehicle", "Vehicle_Update", "physics", "Physics", 60)

node("client", "_Host_RunFrame_Client", "frame", "Unaccounted", 40)
node("predict", "CL_Prediction", "client", "Prediction", 210)
node("interp", "CL_Interpolate", "client", "Interpolation", 140, {60, 90})
node("clanim", "C_BaseAnimating::SetupBones", "client", "Client_Animation", 420, {30, 50})

node("fs", "FileSystem_Update", "frame", "FileSystem", 40)
node("stream", "Stream_Update", "fs", "Streaming", 60)
node("streamload", "Stream_LoadChunk", "stream", "Streaming", 0, {0, 0}, 1200)

node("lua", "Lua_GameThink", "frame", "Scripting", 140, 1, 800)
node("luahooks", "Lua_Hooks", "lua", "Scripting", 280, {20, 40}, 800)
node("luatimers", "Lua_Timers", "lua", "Scripting", 90, {5, 12}, 800)
node("luamarshal", "Lua_Marshal", "lua", "Scripting_Internal", 80, {100, 200}, 800)
node("luagc", "Lua_GC", "lua", "Scripting", 70, 1, 800)

node("render", "CL_Render", "frame", "World Rendering", 170)
node("view", "View_SetupVis", "render", "World Rendering", 60)
node("occl", "R_OcclusionQueries", "render", "Occlusion", 140, {10, 30})
node("world", "R_DrawWorld", "render", "World Rendering", 820)
node("brush", "R_DrawBrushModels", "world", "Brush_Model_Rendering", 310, {40, 80})
node("disp", "R_DrawDisplacements", "world", "Displacement_Rendering", 210, {10, 20})
node("shader", "Shader_Compile", "world", "World Rendering", 0, {0, 0}, 3100)
node("staticprops", "R_DrawStaticProps", "render", "Static_Prop_Rendering", 620, {300, 420})
node("detail", "R_DrawDetailProps", "render", "Detail_Prop_Rendering", 240)
node("models", "R_DrawModels", "render", "Other_Model_Rendering", 480, {90, 140})
node("fastpath", "R_DrawModelsFastPath", "models", "Fast Path Model Rendering", 280, {200, 320})
node("shadows", "R_RenderShadows", "render", "Shadow_Rendering", 420)
node("shadowdepth", "Shadow_DepthTexture", "shadows", "Shadow_Rendering", 340, {4, 8})
node("lightcache", "R_LightCacheUpdate", "render", "Light_Cache", 70)
node("dlights", "R_DrawDynamicLights", "render", "Dynamic_Light_Rendering", 100, {0, 6})
node("particles", "Particle_Simulation", "render", "Particle/Effect_Rendering", 120)
for i, sys in ipairs({"impact_concrete", "muzzleflash_smg1", "smoke_grenade", "fire_medium",
                      "blood_impact_red", "water_splash", "env_fire", "explosion_huge"}) do
    node("psys_" .. sys, sys, "particles", "Particle/Effect_Rendering", 20 + 6 * i, {0, i})
end
node("pdraw", "Particle_Rendering", "render", "Particle/Effect_Rendering", 330)
node("ropes", "R_DrawRopes", "render", "Ropes", 40, {0, 12})
node("overlays", "R_DrawOverlays", "render", "Overlays", 60)
node("texcache", "Texture_Cache_Update", "render", "Texture_Cache", 30)

node("sound", "S_Update", "frame", "Sound", 180)
node("mix", "S_MixChannels", "sound", "Sound", 170, {16, 32})
node("vgui", "VGUI_Paint", "frame", "VGUI", 210)
node("hud", "VGUI_DrawHud", "vgui", "VGUI", 170, {20, 30})
node("swap", "Swap_Buffers", "frame", "Swap_Buffers", 1500)

-- Load of a node in frame k: the combat phase raises physics, NPCs, AI and
-- particles; the planted hitches set their node's time outright.
local COMBAT_FIRST, COMBAT_LAST = 2000, 2700
local function factor(n, k)
    if k >= COMBAT_FIRST and k <= COMBAT_LAST then
        if n.group == "Physics" then return 1.55 end
        if n.group == "NPCs" or n.group == "AI_Pathing" then return 1.4 end
        if n.group == "Particle/Effect_Rendering" then return 1.6 end
    end
    return 1
end

local PLANTED = {
    [1200] = {streamload = {us = 30000, calls = 1}},
    [2500] = {ragdoll = {us = 30000, calls = 24}},
    [3100] = {shader = {us = 45000, calls = 3}},
    [3700] = {luagc = {us = 30000, calls = 1}},
}

local w = vp.writer("vprof", path, {root_id = 0, escape_width = 4, group_base = 0})
local gid -- group ids by name: the defaults' (w:default_groups) and the custom ones

local id = {root = 0}
local tick, elapsed_ms = 48213, 0.0
for k = 1, FRAMES do
    if k == 1 then gid = w:default_groups() end
    for _, g in ipairs(CUSTOM) do
        if g[3] == k then gid[g[1]] = w:group(g[1], g[2]) end
    end
    for _, n in ipairs(N) do
        if n.start == k then
            id[n.key] = w:node(id[n.parent], n.name, (assert(gid[n.group], n.group)))
        end
    end

    -- Self times first (parents before children), then inclusive times
    -- summed bottom-up, in reverse declaration order.
    local self, calls = {}, {}
    for _, n in ipairs(N) do
        if n.start <= k then
            local c = n.calls
            if type(c) == "table" then c = irange(c[1], c[2]) end
            local us = n.us * factor(n, k) * noise(0.18) * SCALE
            if n.group == "Physics" then us = us * PHYSICS end
            -- occasional small work in the on-demand nodes after they appear
            if n.key == "streamload" and rnd() < 0.02 then us, c = 300 + 500 * rnd(), 1 end
            if n.key == "shader" and rnd() < 0.01 then us, c = 200 + 400 * rnd(), 1 end
            self[n.key], calls[n.key] = us, c
        end
    end
    for key, v in pairs(PLANTED[k] or {}) do
        self[key], calls[key] = v.us, v.calls
    end
    local incl = {}
    for i = #N, 1, -1 do
        local n = N[i]
        if self[n.key] then
            incl[n.key] = (incl[n.key] or 0) + self[n.key]
            if n.parent ~= "root" then
                incl[n.parent] = (incl[n.parent] or 0) + incl[n.key]
            end
        end
    end

    local times = {[0] = {us = 0, calls = 1}}
    for key, us in pairs(incl) do
        times[id[key]] = {us = us, calls = calls[key]}
    end
    w:frame(tick, times)

    -- The tick is the game tick (66/s), not a frame number: it repeats and,
    -- after a hitch, jumps.
    elapsed_ms = elapsed_ms + incl.frame / 1000
    tick = 48213 + math.floor(elapsed_ms / 15.0)
end

local bytes = w:close()
return string.format("%s: %d frames, %d bytes", path, FRAMES, bytes)
