-- The VProf writer checked byte by byte against specs/vprof-format.md and the
-- VProf section of specs/format-notes.md. Files are decoded here by hand with
-- string.unpack, never with vp.open: the reader is tested against the writer
-- elsewhere, so this spec must not lean on it.
local vp = require "vp"

-- The spec's default group table (section 4), transcribed independently of
-- the writer's copy.
local DEFAULT_GROUPS = {
    {"Unaccounted", 6}, {"World Rendering", 1}, {"Displacement_Rendering", 1},
    {"Game", 6}, {"Player", 6}, {"NPCs", 6}, {"Server Animation", 6},
    {"Client_Animation", 1}, {"Physics", 6}, {"Static_Prop_Rendering", 1},
    {"Other_Model_Rendering", 1}, {"Fast Path Model Rendering", 1}, {"Light_Cache", 1},
    {"Brush_Model_Rendering", 1}, {"Shadow_Rendering", 1}, {"Detail_Prop_Rendering", 1},
    {"Particle/Effect_Rendering", 1}, {"Ropes", 1}, {"Dynamic_Light_Rendering", 1},
    {"Networking", 6}, {"Sound", 6}, {"VGUI", 6}, {"FileSystem", 6}, {"Prediction", 1},
    {"Interpolation", 1}, {"Swap_Buffers", 1}, {"Occlusion", 1}, {"Overlays", 1},
    {"Tools", 5}, {"Texture_Cache", 1}, {"Replay", 2},
}

local function slurp(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
end

local tmpfiles = {}
local function tmp()
    local p = os.tmpname()
    tmpfiles[#tmpfiles + 1] = p
    return p
end

-- A VProf writer (with opts) of a new temporary file, and its path.
local function new_writer(opts)
    local p = tmp()
    return vp.writer("vprof", p, opts), p
end

-- Decode one timing record at `pos`: calls, time units, next position.
local function timing_at(s, pos, width)
    local calls, units
    calls, pos = string.unpack("<I1", s, pos)
    if calls == 255 then
        calls, pos = string.unpack("<I2", s, pos)
    end
    units, pos = string.unpack("<I2", s, pos)
    if units == 0xFFFF then
        units, pos = string.unpack(width == 8 and "<I8" or "<I4", s, pos)
    end
    return calls, units, pos
end

-- Decode a whole file: header and frames, each frame with its structural
-- records in order and one timing per node declared so far (root included).
local function decode(s, width)
    local version, root, pos = string.unpack("<i4i4", s)
    local out = {version = version, root = root, frames = {}}
    local nnodes = 1
    while pos <= #s do
        local tok
        tok, pos = string.unpack("<I1", s, pos)
        assert(tok == 0, "expected Token_StartFrame at byte " .. (pos - 2))
        local fr = {records = {}, timings = {}}
        fr.tick, pos = string.unpack("<i4", s, pos)
        while true do
            tok, pos = string.unpack("<I1", s, pos)
            if tok == 1 then
                local r = {kind = "node"}
                r.parent, r.name, r.group, r.id, pos = string.unpack("<i4zi4i4", s, pos)
                fr.records[#fr.records + 1] = r
                nnodes = nnodes + 1
            elseif tok == 2 then
                local r = {kind = "group"}
                r.name, r.flags, pos = string.unpack("<zi4", s, pos)
                fr.records[#fr.records + 1] = r
            else
                assert(tok == 3, "expected a structural token or Token_Timings, got " .. tok)
                break
            end
        end
        for i = 1, nnodes do
            local calls, units
            calls, units, pos = timing_at(s, pos, width)
            fr.timings[i] = {calls = calls, units = units}
        end
        tok, pos = string.unpack("<I1", s, pos)
        assert(tok == 4, "expected Token_EndOfFrame, got " .. tok)
        out.frames[#out.frames + 1] = fr
    end
    return out
end

describe("vprof writer", function()
    teardown(function()
        for _, p in ipairs(tmpfiles) do os.remove(p) end
    end)

    describe("header", function()
        it("writes int32 version and int32 root id, nothing else before a frame", function()
            local w, p = new_writer({root_id = 7})
            assert.are.equal(8, w.bytes)
            assert.are.equal(8, w:close())
            local s = slurp(p)
            assert.are.equal("\1\0\0\0\7\0\0\0", s)
        end)

        it("writes the version and root id it is given, negative ones included", function()
            local w, p = new_writer({version = 2, root_id = -3})
            w:close()
            assert.are.same({2, -3, 9}, {string.unpack("<i4i4", slurp(p))})
        end)

        it("drops group and node records that no frame follows", function()
            local w = new_writer()
            w:group("Lonely", 1)
            w:node(0, "Lonely", 0)
            assert.are.equal(8, w:close())
        end)
    end)

    describe("frame envelope", function()
        it("writes StartFrame, int32 tick, Timings, the root's timing, EndOfFrame", function()
            local w, p = new_writer()
            w:frame(-5, {[0] = {us = 8, calls = 1}})
            w:frame(0x01020304)
            w:close()
            local s = slurp(p)
            assert.are.equal(8 + 2 * 10, #s)
            assert.are.equal("\0\251\255\255\255\3\1\2\0\4", s:sub(9, 18))
            -- a frame without times writes zero calls and zero time
            assert.are.equal("\0\4\3\2\1\3\0\0\0\4", s:sub(19, 28))
        end)

        it("writes AddBudgetGroup as token 2, name, NUL, int32 flags", function()
            local w, p = new_writer()
            w:group("Scripting", 0x8004)
            w:frame(1)
            w:close()
            local s = slurp(p)
            assert.are.equal("\0\1\0\0\0" .. "\2Scripting\0\4\128\0\0" .. "\3\0\0\0\4", s:sub(9))
        end)

        it("writes AddNode as token 1, int32 parent, name, NUL, int32 group, int32 id", function()
            local w, p = new_writer({root_id = 3})
            w:node(3, "CEngine::Frame", 25, 0x11223344)
            w:frame(1)
            w:close()
            local s = slurp(p)
            local rec = "\1\3\0\0\0CEngine::Frame\0\25\0\0\0\68\51\34\17"
            assert.are.equal("\0\1\0\0\0" .. rec .. "\3" .. "\0\0\0" .. "\0\0\0" .. "\4", s:sub(9))
        end)

        it("writes a frame's groups before its nodes, each in call order", function()
            local w, p = new_writer()
            w:node(0, "n1", 0, 1)
            local g1 = w:group("G1", 1)
            w:node(0, "n2", g1, 2)
            w:group("G2", 2)
            w:frame(1)
            w:close()
            local d = decode(slurp(p), 4)
            local kinds = {}
            for _, r in ipairs(d.frames[1].records) do kinds[#kinds + 1] = r.kind .. ":" .. r.name end
            assert.are.same({"group:G1", "group:G2", "node:n1", "node:n2"}, kinds)
        end)

        it("writes a node's record in the first frame after it is added, and only there", function()
            local w, p = new_writer()
            local a = w:node(0, "A", 3)
            w:frame(10, {[a] = 100})
            w:frame(11, {[a] = 100})
            local b = w:node(a, "B", 8)
            w:frame(12, {[a] = 100, [b] = 40})
            w:frame(13)
            w:close()
            local d = decode(slurp(p), 4)
            assert.are.equal(4, #d.frames)
            assert.are.same({10, 11, 12, 13},
                {d.frames[1].tick, d.frames[2].tick, d.frames[3].tick, d.frames[4].tick})
            assert.are.equal(1, #d.frames[1].records)
            assert.are.equal(0, #d.frames[2].records)
            assert.are.equal(1, #d.frames[3].records)
            assert.are.same({kind = "node", parent = a, name = "B", group = 8, id = b},
                d.frames[3].records[1])
            assert.are.equal(2, #d.frames[2].timings)
            assert.are.equal(3, #d.frames[3].timings)
            assert.are.same({calls = 1, units = 10}, d.frames[3].timings[3])
        end)
    end)

    describe("calls encoding", function()
        -- one node per calls value; each node's time identifies it
        local cases = {
            {0, "\0"}, {1, "\1"}, {254, "\254"}, {255, "\255\255\0"}, {256, "\255\0\1"},
            {65535, "\255\255\255"}, {70000, "\255\255\255"},
        }
        for _, c in ipairs(cases) do
            it(("writes calls = %d as %d byte(s)"):format(c[1], #c[2]), function()
                local w, p = new_writer()
                local n = w:node(0, "n", 0)
                w:frame(1, {[n] = {us = 40, calls = c[1]}})
                w:close()
                local s = slurp(p)
                -- header 8, StartFrame+tick 5, AddNode 1+4+2+4+4, Timings 1, root 3
                local at = 8 + 5 + 15 + 1 + 3 + 1
                assert.are.equal(c[2] .. "\10\0" .. "\4", s:sub(at))
                local calls = timing_at(s, at, 4)
                assert.are.equal(math.min(c[1], 65535), calls)
            end)
        end
        it("defaults calls to 1 when the time is a plain number or {us=} alone", function()
            local w, p = new_writer()
            local a, b, c = w:node(0, "a", 0), w:node(0, "b", 0), w:node(0, "c", 0)
            w:frame(1, {[a] = 12, [b] = {us = 12}, [c] = {calls = 9}})
            w:close()
            local t = decode(slurp(p), 4).frames[1].timings
            -- pre-order over prepended children: root, c, b, a
            assert.are.same({calls = 0, units = 0}, t[1])
            assert.are.same({calls = 9, units = 0}, t[2])
            assert.are.same({calls = 1, units = 3}, t[3])
            assert.are.same({calls = 1, units = 3}, t[4])
        end)
    end)

    describe("time encoding", function()
        for _, width in ipairs({4, 8}) do
            local esc = width == 8 and "<I8" or "<I4"
            local cases = {
                {0, string.pack("<I2", 0)},
                {3, string.pack("<I2", 0)},            -- truncated, not rounded
                {9.9, string.pack("<I2", 2)},
                {4 * 0xFFFE + 3, string.pack("<I2", 0xFFFE)},
                {4 * 0xFFFF, "\255\255" .. string.pack(esc, 0xFFFF)},
                {4 * 0x10000, "\255\255" .. string.pack(esc, 0x10000)},
                {4 * 0xFFFFFFFF, "\255\255" .. string.pack(esc, 0xFFFFFFFF)},
            }
            if width == 8 then
                cases[#cases + 1] = {4 * 0x300000000, "\255\255" .. string.pack(esc, 0x300000000)}
            end
            for _, c in ipairs(cases) do
                it(("writes %s us with escape width %d as %d bytes"):format(c[1], width, #c[2]),
                    function()
                        local w, p = new_writer({escape_width = width})
                        assert.are.equal(width, w.escape_width)
                        local n = w:node(0, "n", 0)
                        w:frame(1, {[n] = {us = c[1], calls = 2}})
                        w:close()
                        local s = slurp(p)
                        local at = 8 + 5 + 15 + 1 + 3 + 1
                        assert.are.equal("\2" .. c[2] .. "\4", s:sub(at))
                        local _, units = timing_at(s, at, width)
                        assert.are.equal(math.floor(c[1] / 4), units)
                    end)
            end
        end

        it("escapes the root's time too", function()
            local w, p = new_writer({escape_width = 8})
            w:frame(1, {[0] = 300000})
            w:close()
            assert.are.equal("\3\1\255\255" .. string.pack("<I8", 75000) .. "\4", slurp(p):sub(14))
        end)

        it("refuses a time that escape width 4 cannot hold, writing nothing", function()
            local w = new_writer()
            local n = w:node(0, "n", 0)
            local ok, err = pcall(w.frame, w, 1, {[n] = 4 * 0x100000000})
            assert.is_false(ok)
            assert.matches("does not fit escape width 4", err)
            assert.are.equal(8, w.bytes)
            w:close()
        end)
    end)

    describe("tree order", function()
        it("writes timings in pre-order with new children prepended", function()
            local w, p = new_writer()
            local a = w:node(0, "A", 0)
            local b = w:node(0, "B", 0)
            local a1 = w:node(a, "A1", 0)
            local a2 = w:node(a, "A2", 0)
            local c = w:node(0, "C", 0)
            local b1 = w:node(b, "B1", 0)
            -- calls tell the nodes apart in the timing stream
            local calls = {[0] = 1, [a] = 10, [b] = 20, [a1] = 11, [a2] = 12, [c] = 30, [b1] = 21}
            local times = {}
            for id, k in pairs(calls) do times[id] = {us = 0, calls = k} end
            w:frame(1, times)
            w:close()
            local got = {}
            for i, t in ipairs(decode(slurp(p), 4).frames[1].timings) do got[i] = t.calls end
            assert.are.same({1, 30, 20, 21, 10, 12, 11}, got)
        end)

        it("keeps same-named siblings apart", function()
            local w, p = new_writer()
            local s1 = w:node(0, "Simulate", 8)
            local s2 = w:node(0, "Simulate", 8)
            assert.are_not.equal(s1, s2)
            w:frame(1, {[s1] = 400, [s2] = 800})
            w:close()
            local d = decode(slurp(p), 4)
            assert.are.equal(2, #d.frames[1].records)
            assert.are.same({200, 100},
                {d.frames[1].timings[2].units, d.frames[1].timings[3].units})
        end)

        it("assigns the next free id above the largest used, root included", function()
            local w = new_writer({root_id = 10})
            assert.are.equal(10, w.root_id)
            assert.are.equal(11, w:node(10, "a", 0))
            assert.are.equal(50, w:node(10, "b", 0, 50))
            assert.are.equal(51, w:node(10, "c", 0))
            assert.are.equal(5, w:node(50, "d", 0, 5))
            assert.are.equal(52, w:node(5, "e", 0))
            assert.are.equal(6, w.node_count)
            w:close()
        end)
    end)

    describe("budget group ids", function()
        it("numbers groups from 0 with group_base 0", function()
            local w = new_writer({group_base = 0})
            assert.are.equal(0, w:group("Unaccounted", 6))
            assert.are.equal(1, w:group("World Rendering", 1))
            w:close()
        end)

        it("declares the spec's 31 default groups in order, then custom ones from 31", function()
            local w, p = new_writer()
            local gid = w:default_groups()
            local want = {}
            for i, g in ipairs(DEFAULT_GROUPS) do want[g[1]] = i - 1 end
            assert.are.same(want, gid) -- each one's id by name
            assert.are.equal(31, w.group_count)
            assert.are.equal(31, w:group("Scripting", 4))
            w:frame(1)
            w:close()
            local recs = decode(slurp(p), 4).frames[1].records
            assert.are.equal(32, #recs)
            for i, g in ipairs(DEFAULT_GROUPS) do
                assert.are.same({kind = "group", name = g[1], flags = g[2]}, recs[i])
            end
            assert.are.same({kind = "group", name = "Scripting", flags = 4}, recs[32])
            -- the ids returned are the ones given: from group_base
            local w1 = new_writer({group_base = 1})
            local g1 = w1:default_groups()
            assert.are.equal(1, g1.Unaccounted)
            assert.are.equal(31, g1.Replay)
            w1:close()
        end)

        it("numbers groups from 31 with group_base 31 and writes only those", function()
            local w, p = new_writer({group_base = 31})
            assert.are.equal(31, w.group_base)
            local g = w:group("AI_Pathing", 2)
            assert.are.equal(31, g)
            assert.are.equal(32, w:group("Streaming", 4))
            w:node(0, "Physics", 8)
            w:node(0, "Pathing", g)
            w:frame(1)
            w:close()
            local recs = decode(slurp(p), 4).frames[1].records
            assert.are.equal(4, #recs)
            assert.are.equal("AI_Pathing", recs[1].name)
            assert.are.equal(8, recs[3].group)
            assert.are.equal(31, recs[4].group)
        end)
    end)

    describe("raw bytes, offsets and closing", function()
        it("appends raw bytes where the stream is and counts every byte", function()
            local w, p = new_writer()
            w:frame(1)
            local before = w:tell()
            assert.are.equal(8 + 10, before)
            w:raw("\0\2\0\0\0\3")
            assert.are.equal(before + 6, w.bytes)
            assert.are.equal(before + 6, w:tell())
            local size = w:close()
            assert.are.equal(before + 6, size)
            assert.are.equal(size, w.bytes)
            local s = slurp(p)
            assert.are.equal(size, #s)
            assert.are.equal("\0\2\0\0\0\3", s:sub(before + 1))
        end)

        it("writes a large capture through its buffer without losing a byte #slow", function()
            local w, p = new_writer()
            local ids = {}
            for i = 1, 200 do ids[i] = w:node(i == 1 and 0 or ids[i - 1], "n" .. i, i % 31) end
            local t = {}
            for i = 1, 200 do t[ids[i]] = {us = i * 4, calls = i} end
            for f = 1, 3000 do w:frame(f, t) end
            local size = w:close()
            local s = slurp(p)
            assert.are.equal(size, #s)
            local d = decode(s, 4)
            assert.are.equal(3000, #d.frames)
            assert.are.same({calls = 200, units = 200}, d.frames[3000].timings[201])
        end)

        it("is idempotent to close and refuses use afterwards", function()
            local w = new_writer()
            assert.are.equal(8, w:close())
            assert.are.equal(8, w:close())
            assert.is_true(w.closed)
            assert.has_error(function() w:frame(1) end, "vprof writer is closed")
            assert.has_error(function() w:group("x", 1) end, "vprof writer is closed")
        end)

        it("closes the file on __close and on garbage collection", function()
            local p1, p2 = tmp(), tmp()
            do
                local w <close> = vp.writer("vprof", p1)
                w:frame(1)
            end
            assert.are.equal(18, #slurp(p1))
            do
                local w = vp.writer("vprof", p2)
                w:frame(1)
                w:frame(2)
            end
            collectgarbage()
            collectgarbage()
            assert.are.equal(28, #slurp(p2))
        end)

        it("describes itself with tostring", function()
            local w, p = new_writer()
            assert.are.equal("<vprof writer " .. p .. ">", tostring(w))
            assert.are.equal(p, w.path)
            w:close()
        end)
    end)

    describe("misuse", function()
        local p, w
        before_each(function()
            p = tmp()
            w = vp.writer("vprof", p)
        end)
        after_each(function() w:close() end)

        it("raises on an unknown parent", function()
            assert.has_error(function() w:node(99, "x", 0) end,
                "vprof writer " .. p .. ": unknown parent node id 99")
        end)
        it("raises on a duplicate node id, the root's included", function()
            w:node(0, "x", 0, 5)
            assert.has_error(function() w:node(0, "y", 0, 5) end,
                "vprof writer " .. p .. ": node id 5 is already used")
            assert.has_error(function() w:node(0, "y", 0, 0) end,
                "vprof writer " .. p .. ": node id 0 is already used")
        end)
        it("raises on times for a node never added", function()
            assert.has_error(function() w:frame(1, {[42] = 1}) end,
                "w:frame: times names node id 42, which was never added")
        end)
        it("raises on a negative or non-numeric time and negative calls", function()
            local n = w:node(0, "x", 0)
            assert.has_error(function() w:frame(1, {[n] = -1}) end)
            assert.has_error(function() w:frame(1, {[n] = "soon"}) end)
            assert.has_error(function() w:frame(1, {[n] = {us = 1, calls = -2}}) end)
            assert.has_error(function() w:frame(1, {[n] = 0 / 0}) end)
            assert.are.equal(8, w.bytes)
        end)
        it("raises on ids and ticks outside int32", function()
            assert.has_error(function() w:node(0, "x", 0, 0x80000000) end)
            assert.has_error(function() w:frame(0x80000000) end)
        end)
        it("raises on a bad escape width or group base, and on an uncreatable path", function()
            assert.has_error(function() vp.writer("vprof", tmp(), {escape_width = 5}) end,
                "vp.writer: option 'escape_width' must be 4 or 8, got 5")
            assert.has_error(function() vp.writer("vprof", tmp(), {group_base = -1}) end)
            assert.has_error(function() vp.writer("vprof", "/nonexistent-dir/x.vprof") end)
        end)
    end)
end)
