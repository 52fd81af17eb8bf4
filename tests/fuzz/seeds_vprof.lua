-- seeds_vprof.lua: write a seed corpus for the VProf fuzzer.
--
--   ./vpscript tests/fuzz/seeds_vprof.lua DIR
--
-- Small captures built with the writer, one per feature the parser must
-- handle: escape widths 4 and 8, group ids from 0 and from 31, nodes added
-- mid-capture, same-named siblings, calls and time escapes, an all-zero
-- capture, and truncated ones. Each stays well under the fuzzer's 64 KiB.
--
-- The harness (fuzz_vprof.c) reads its first byte as the escape width mode
-- (0 detect, 1 force 4, 2 force 8, modulo 3) and the rest as the file, so
-- every seed is written with that byte first: 0 for all, and 1 and 2 as
-- well for the seeds written with escape width 4 and 8 (without the byte,
-- every seed failed the version check: 174 edges as seeded, 1,684 with it).
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local vp = require "vp"

local seed_path = S.file_seeds("seeds_vprof.lua", "vprof")
local written = {}
local function path(name)
  local p = seed_path(name)
  if not written[p] then
    written[#written + 1] = p
    written[p] = name
  end
  return p
end

-- A small Source-like tree; returns the node ids in a table by name.
local function tree(w, groups)
    local g = groups or {}
    local root = w.root_id
    local ids = {root = root}
    ids.frame = w:node(root, "CEngine::Frame", g.unaccounted or 0)
    ids.server = w:node(ids.frame, "_Host_RunFrame_Server", g.game or 3)
    ids.physics = w:node(ids.server, "Physics", g.physics or 8)
    ids.render = w:node(ids.frame, "CL_Render", g.world or 1)
    ids.swap = w:node(ids.frame, "Swap_Buffers", g.swap or 25)
    return ids
end

local function frame_times(ids, k, scale)
    scale = scale or 1
    return {
        [ids.root] = {us = 0, calls = 1},
        [ids.frame] = (14000 + k * 37 % 900) * scale,
        [ids.server] = (4000 + k * 13 % 300) * scale,
        [ids.physics] = {us = (1500 + k * 7 % 200) * scale, calls = 1 + k % 3},
        [ids.render] = (7000 + k * 11 % 500) * scale,
        [ids.swap] = 900 * scale,
    }
end

local function basic(name, opts, nframes, scale)
    local w = vp.writer("vprof", path(name), opts)
    if (opts and opts.group_base or 0) == 0 then w:default_groups() end
    local ids = tree(w)
    for k = 1, nframes do w:frame(1000 + k, frame_times(ids, k, scale)) end
    return w:close()
end

basic("w4", {escape_width = 4}, 8)
-- times above 0xFFFF units (262 ms) use the escape field in both widths
basic("w4_escape", {escape_width = 4}, 4, 25)
basic("w8_escape", {escape_width = 8}, 4, 25)
basic("w8", {escape_width = 8}, 6)
basic("root7", {root_id = 7}, 3)

-- group ids from 31: the defaults are implied, custom groups follow
do
    local w = vp.writer("vprof", path("base31"), {group_base = 31})
    local scripting = w:group("Scripting", 4)
    local pathing = w:group("AI_Pathing", 2)
    local ids = tree(w, {physics = 8})
    local ai = w:node(ids.server, "AI_Think", pathing)
    local lua = w:node(ids.frame, "Lua_Update", scripting)
    for k = 1, 6 do
        local t = frame_times(ids, k)
        t[ai] = 300 + k
        t[lua] = {us = 120, calls = 40}
        w:frame(k, t)
    end
    w:close()
end

-- nodes and a group that appear mid-capture; same-named siblings
do
    local w = vp.writer("vprof", path("midcapture"))
    w:default_groups()
    local ids = tree(w)
    for k = 1, 3 do w:frame(k, frame_times(ids, k)) end
    local streaming = w:group("Streaming", 4)
    local s1 = w:node(ids.physics, "Simulate", 8)
    local s2 = w:node(ids.physics, "Simulate", 8)
    local load = w:node(ids.frame, "Stream_Load", streaming)
    for k = 4, 8 do
        local t = frame_times(ids, k)
        t[s1], t[s2], t[load] = 500, 600, {us = 30000, calls = 2}
        w:frame(k, t)
    end
    w:close()
end

-- calls escapes: 254, 255, 256, 65535 and clamped 70000
do
    local w = vp.writer("vprof", path("calls"))
    local ids = {}
    for i, c in ipairs({254, 255, 256, 65535, 70000}) do ids[i] = {w:node(0, "n" .. i, 0), c} end
    for k = 1, 3 do
        local t = {}
        for _, n in ipairs(ids) do t[n[1]] = {us = 4 * k, calls = n[2]} end
        w:frame(k, t)
    end
    w:close()
end

-- all zero: every time 0, root calls 1 (2013/TF2-era recordings)
do
    local w = vp.writer("vprof", path("allzero"))
    w:default_groups()
    tree(w)
    for k = 1, 6 do w:frame(k, {[0] = {us = 0, calls = 1}}) end
    w:close()
end

-- deep chain: the parser must not recurse on input-controlled depth
do
    local w = vp.writer("vprof", path("deep"))
    local parent = 0
    local t = {}
    for i = 1, 300 do
        parent = w:node(parent, "d" .. i, i % 31)
        t[parent] = 4 * (301 - i)
    end
    w:frame(1, t)
    w:frame(2, t)
    w:close()
end

-- truncations: copies of a valid capture cut inside its last frame, inside
-- the first frame's group records, inside the header; a frame that stops in
-- its tick, and one whose node name has no NUL
S.cut(path("midcapture"), path("trunc_timings"), -7)
S.cut(path("midcapture"), path("trunc_groups"), 8 + 5 + 200)
S.cut(path("w4"), path("trunc_header"), 6)
for _, seed in ipairs({
    {"trunc_tick", "\0\2\0"},
    {"trunc_node", "\0\2\0\0\0\1\0\0\0\0Unterminated_Na"},
}) do
    local w = vp.writer("vprof", path(seed[1]))
    local ids = tree(w)
    w:frame(1, frame_times(ids, 1))
    w:raw(seed[2])
    w:close()
end

-- header only: a recording stopped before its first frame
vp.writer("vprof", path("empty")):close()

-- The escape-width byte before every seed (see the top); seeds of a forced
-- width get a copy with that mode as well.
for _, p in ipairs(written) do
  local bytes = S.read(p)
  S.write(p, "\0" .. bytes)
  local name = written[p]
  if name:match("w4") then S.write(p:gsub("%.vprof$", "_forced.vprof"), "\1" .. bytes) end
  if name:match("w8") then S.write(p:gsub("%.vprof$", "_forced.vprof"), "\2" .. bytes) end
end
