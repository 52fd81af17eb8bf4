-- The VProf model through the real bindings: every API function, every
-- format-notes rule, exact error messages, lifetimes.
local vp = require "vp"
local h = require "helpers"

local dir

-- A small capture: frame 2 adds C under A (prepended), frame 3 makes A hitch.
local function small()
  return h.vprof(dir .. "/small.vprof", {
    groups = { "Custom", { "Secret", 0x8000 } },
    nodes = {
      { id = 1, name = "A", group = "Physics" },
      { id = 2, parent = 1, name = "B", group = "Game" },
      { id = 5, parent = 2, name = "Hidden", group = "Secret" },
    },
    frames = {
      { tick = 10, [0] = { us = 0, calls = 1 }, [1] = 10000, [2] = 4000, [5] = 1000 },
      { tick = 10, add = { { id = 3, parent = 1, name = "C", group = "Custom" } },
        [0] = { us = 0, calls = 1 }, [1] = { us = 12000, calls = 2 }, [2] = 4000, [3] = 3000, [5] = 1000 },
      { tick = 12, [0] = { us = 0, calls = 1 }, [1] = 40000, [2] = 4000, [3] = 30000, [5] = 2000 },
    },
  })
end

describe("vprof", function()
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("capture", function()
    it("exposes the common and VProf fields", function()
      local path = small()
      local cap = assert(vp.open(path))
      assert.are.equal("vprof", cap.format)
      assert.are.equal(path, cap.path)
      assert.are.equal(#h.read_file(path), cap.size)
      assert.are.same({}, cap.warnings)
      assert.are.equal(3, cap.frame_count)
      assert.are.equal(3, #cap)
      assert.are.equal(5, cap.node_count)
      assert.is_false(cap.truncated)
      assert.is_false(cap.zero_timings)
      assert.are.equal(4, cap.escape_width)
      assert.are.equal(0, cap.first_group_id)
      assert.are.equal(1, cap.version)
      assert.are.equal("Root", cap.root.name)
      assert.matches("^<vprof small%.vprof: 3 frames, 5 nodes, %d+ groups>$", tostring(cap))
      cap:close()
    end)

    it("computes frame time from the root's children and self time per group", function()
      local cap = assert(vp.open(small()))
      local ft = cap:frame_times()
      assert.are.same({ 10.0, 12.0, 40.0 }, ft:totable())
      local by_name = {}
      for g, s in pairs(cap:group_self_ms()) do by_name[g.name] = s:totable() end
      assert.are.same({ 6.0, 5.0, 6.0 }, by_name.Physics) -- A minus B (and C)
      assert.are.same({ 3.0, 3.0, 2.0 }, by_name.Game)
      assert.are.same({ 0.0, 3.0, 30.0 }, by_name.Custom) -- zero before C existed
      assert.are.same({ 1.0, 1.0, 2.0 }, by_name.Secret)
      assert.is_nil(by_name.Networking) -- groups without nodes have no column
    end)

    it("folds hidden groups into the nearest visible ancestor's group", function()
      local cap = assert(vp.open(small()))
      local by_name = {}
      for g, s in pairs(cap:group_self_ms({ fold_hidden = true })) do by_name[g.name] = s:totable() end
      assert.is_nil(by_name.Secret)
      assert.are.same({ 4.0, 4.0, 4.0 }, by_name.Game)
    end)

    it("walks nodes in pre-order with prepended children", function()
      local cap = assert(vp.open(small()))
      local paths = {}
      for n in cap:nodes() do paths[#paths + 1] = n.path end
      assert.are.same({ "Root", "Root/A", "Root/A/C", "Root/A/B", "Root/A/B/Hidden" }, paths)
      local kids = {}
      for c in cap:node(1):children() do kids[#kids + 1] = c.name end
      assert.are.same({ "C", "B" }, kids)
    end)

    it("finds nodes by id and path and interns them", function()
      local cap = assert(vp.open(small()))
      local a = cap:node(1)
      assert.are.equal(a, cap:node("Root/A"))
      assert.are.equal(a, cap:node("A"))
      assert.are.equal(a, cap:node(3).parent)
      assert.is_nil(cap:node(99))
      assert.is_nil(cap:node("Root/Nope"))
      assert.are.equal("Physics", a.group.name)
      assert.are.equal(1, a.depth)
      assert.are.equal(2, cap:node(3).first_frame)
      assert.is_nil(cap.root.parent)
      local t = { [a] = true }
      assert.is_true(t[cap:node("Root/A")])
      assert.are.equal("<node Root/A/C (id 3)>", tostring(cap:node(3)))
    end)

    it("lists groups in id order and finds them by id and name", function()
      local cap = assert(vp.open(small()))
      local ids = {}
      for g in cap:groups() do ids[#ids + 1] = g.id end
      for i = 2, #ids do assert.is_true(ids[i] > ids[i - 1]) end
      local custom = cap:group("Custom")
      assert.are.equal(31, custom.id)
      assert.are.equal(custom, cap:group(31))
      local secret = cap:group("Secret")
      assert.is_true(secret.hidden)
      assert.are.equal(0x8000, secret.flags)
      local phys = cap:group("Physics")
      assert.is_true(phys.server)
      assert.is_true(phys.other)
      assert.is_false(phys.client)
      assert.is_true(phys.declared)
      assert.is_nil(cap:group("Nope"))
    end)

    it("gives random access to frames and their node values", function()
      local cap = assert(vp.open(small()))
      local f = cap:frame(2)
      assert.are.equal(2, f.index)
      assert.are.equal(10, f.tick)
      assert.are.equal(12.0, f.frame_ms)
      assert.are.equal(5, f.node_count)
      assert.are.equal(12.0, f:time_ms(cap:node(1)))
      assert.are.equal(2, f:calls("Root/A"))
      assert.are.equal(5.0, f:self_ms(1))
      assert.are.equal(0.0, cap:frame(1):time_ms(3)) -- C did not exist yet
      assert.has_error(function() cap:frame(0) end, "frame 0 is out of range 1..3")
      assert.has_error(function() cap:frame(4) end, "frame 4 is out of range 1..3")
      local seen = {}
      for n, ms, calls in f:nodes() do seen[#seen + 1] = { n.name, ms, calls } end
      assert.are.same({ { "Root", 0.0, 1 }, { "A", 12.0, 2 }, { "C", 3.0, 1 }, { "B", 4.0, 1 },
        { "Hidden", 1.0, 1 } }, seen)
      assert.has_error(function() f:time_ms("Root/Nope") end)
    end)

    it("iterates frame ranges lazily", function()
      local cap = assert(vp.open(small()))
      local idx = {}
      for f in cap:frames() do idx[#idx + 1] = f.index end
      assert.are.same({ 1, 2, 3 }, idx)
      idx = {}
      for f in cap:frames(2, 3) do idx[#idx + 1] = f.frame_ms end
      assert.are.same({ 12.0, 40.0 }, idx)
      -- an end out of range raises as cap:frame does; j = i - 1 is the empty range
      assert.has_error(function() cap:frames(5) end, "frame 5 is out of range 1..3")
      assert.has_error(function() cap:frames(0, 2) end, "frame 0 is out of range 1..3")
      assert.has_error(function() cap:frames(2, 4) end, "frame 4 is out of range 1..3")
      assert.has_error(function() cap:frames(3, 1) end,
        "frame range 3..1 is reversed: the first frame is after the last")
      assert.has_error(function() cap:totals(1, 9) end, "frame 9 is out of range 1..3")
      assert.has_error(function() cap:totals(cap:node(1), 0, 2) end, "frame 0 is out of range 1..3")
      idx = {}
      for f in cap:frames(4) do idx[#idx + 1] = f end
      for f in cap:frames(2, 1) do idx[#idx + 1] = f end
      assert.are.same({}, idx)
      assert.are.equal(0, h.find(cap:totals(3, 2), "node", cap:node(1)).frames)
    end)

    it("computes node series and node stats in C", function()
      local cap = assert(vp.open(small()))
      assert.are.same({ 0.0, 3.0, 30.0 }, cap:series("Root/A/C", "time_ms"):totable())
      assert.are.same({ 6.0, 5.0, 6.0 }, cap:series(1, "self_ms"):totable())
      assert.are.same({ 1, 2, 1 }, cap:series(cap:node(1), "calls"):totable())
      local many = cap:series({ "Root/A/C", 1, cap:node(2) }, "time_ms")
      assert.are.equal(3, #many)
      assert.are.same({ 0.0, 3.0, 30.0 }, many[1]:totable())
      assert.are.same({ 10.0, 12.0, 40.0 }, many[2]:totable())
      assert.are.same({ 4.0, 4.0, 4.0 }, many[3]:totable())
      assert.has_error(function() cap:series({ "Root/A", "Root/Nope" }) end,
        "cap:series: node 2 of the list: no node Root/Nope in this capture")
      local rows = cap:totals()
      local a = h.find(rows, "node", cap:node(1))
      assert.are.equal(3, a.frames)
      assert.are.equal(4, a.calls)
      assert.are.equal(62.0, a.time_ms)
      assert.are.equal(17.0, a.self_ms)
      assert.are.equal(40.0, a.peak_ms)
      assert.are.equal(3, a.peak_frame)
      local c = h.find(cap:totals(1, 2), "node", cap:node(3))
      assert.are.equal(1, c.frames)
      assert.are.equal(3.0, c.time_ms)
    end)

    it("summarises itself for info.lua", function()
      local cap = assert(vp.open(small()))
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[r.name] = r.value end
      assert.are.equal(3, rows.frames)
      assert.are.equal(10, rows.first_tick)
      assert.are.equal(12, rows.last_tick)
      assert.are.equal(4, rows.escape_width)
      assert.is_false(rows.escapes_seen)
      assert.are.equal(62.0, rows.duration_ms)
      assert.are.equal(5, rows.nodes)
    end)
  end)

  describe("format-notes rules", function()
    it("detects an 8-byte escape field and reports it", function()
      local path = h.vprof(dir .. "/w8.vprof", {
        escape_width = 8,
        nodes = { { id = 1, name = "Load", group = "FileSystem" }, { id = 2, name = "Tail" } },
        frames = {
          { [1] = 300000, [2] = 100 },
          { [1] = 1000, [2] = 100 },
          { [1] = 500004, [2] = 100 },
        },
      })
      local cap = assert(vp.open(path))
      assert.are.equal(8, cap.escape_width)
      assert.is_true(cap.escapes_seen)
      assert.are.same({ 300.1, 1.1, 500.104 }, cap:frame_times():totable())
      assert.are.same({}, cap.warnings)
      -- forcing the wrong width is an error, not garbage
      assert.is_nil(vp.open(path, { escape_width = 4 }))
    end)

    it("counts group ids from 31 when the file declares only custom groups", function()
      local path = h.vprof(dir .. "/b31.vprof", {
        defaults = false, group_base = 31,
        groups = { "Scripting" },
        nodes = { { id = 1, name = "Lua", group = "Scripting" }, { id = 2, name = "Phys", group = 8 } },
        frames = { { [1] = 1000, [2] = 2000 } },
      })
      local cap = assert(vp.open(path))
      assert.are.equal(31, cap.first_group_id)
      assert.are.equal("Scripting", cap:node(1).group.name)
      assert.are.equal(31, cap:node(1).group.id)
      assert.are.equal("Physics", cap:node(2).group.name)
      assert.is_false(cap:node(2).group.declared)
      assert.are.same({}, cap.warnings)
    end)

    it("names undeclared groups and warns", function()
      local path = h.vprof(dir .. "/undecl.vprof", {
        nodes = { { id = 1, name = "X", group = 99 } },
        frames = { { [1] = 1000 } },
      })
      local cap = assert(vp.open(path))
      assert.are.equal("group#99", cap:node(1).group.name)
      assert.are.equal(1, #cap.warnings)
      assert.matches("budget group id 99 is never declared; calling it 'group#99'", cap.warnings[1], 1, true)
    end)

    it("keeps same-named siblings apart and numbers their paths", function()
      local path = h.vprof(dir .. "/dup.vprof", {
        nodes = { { id = 1, name = "Simulate" }, { id = 2, name = "Simulate" }, { id = 3, name = "simulate" } },
        frames = { { [1] = 1000, [2] = 2000, [3] = 4000 } },
      })
      local cap = assert(vp.open(path))
      assert.are.equal("Root/Simulate", cap:node(1).path)
      assert.are.equal("Root/Simulate#2", cap:node(2).path)
      assert.are.equal("Root/simulate", cap:node(3).path)
      assert.are.equal(2.0, cap:frame(1):time_ms("Root/Simulate#2"))
      assert.are.equal(7.0, cap:frame(1).frame_ms)
    end)

    it("detects a capture without timings", function()
      local path = h.vprof(dir .. "/zero.vprof", {
        nodes = { { id = 1, name = "A" } },
        frames = { { [0] = { us = 0, calls = 1 } }, { [0] = { us = 0, calls = 1 } } },
      })
      local cap = assert(vp.open(path))
      assert.is_true(cap.zero_timings)
      assert.matches("this capture holds no timings", cap.warnings[1], 1, true)
    end)

    it("keeps complete frames of a truncated capture and names the offset", function()
      local path = h.vprof(dir .. "/full.vprof", {
        nodes = { { id = 1, name = "A" } },
        frames = { { [1] = 1000 }, { [1] = 2000 }, { add = { { id = 2, name = "Late" } }, [1] = 3000, [2] = 5 } },
      })
      local bytes = h.read_file(path)
      local cut = h.write_in(dir, "cut.vprof", bytes:sub(1, #bytes - 3))
      local cap = assert(vp.open(cut))
      assert.is_true(cap.truncated)
      assert.are.equal(2, cap.frame_count)
      assert.are.equal(2, cap.node_count) -- the cut frame's new node is dropped
      local size = #bytes - 3
      assert.matches(("truncated at byte %d: the file ends inside frame 3"):format(size), cap.warnings[1], 1, true)
      -- {strict = true} refuses what the lenient open keeps, with the same message
      local none, msg, code = vp.open(cut, { strict = true })
      assert.is_nil(none)
      assert.are.equal("ETRUNC", code)
      assert.matches(("at byte %d: the file ends inside frame 3"):format(size), msg, 1, true)
    end)

    it("treats the tick as a tick, not a frame number", function()
      local path = h.vprof(dir .. "/ticks.vprof", {
        nodes = { { id = 1, name = "A" } },
        frames = { { tick = 5, [1] = 1 }, { tick = 5, [1] = 1 }, { tick = 90, [1] = 1 } },
      })
      local cap = assert(vp.open(path))
      assert.are.same({ 5, 5, 90 }, { cap:frame(1).tick, cap:frame(2).tick, cap:frame(3).tick })
      assert.are.same({ 1, 2, 3 }, { cap:frame(1).index, cap:frame(2).index, cap:frame(3).index })
    end)
  end)

  describe("bad input", function()
    local function fails(name, bytes, code, message)
      h.refuses(h.write_in(dir, name, bytes), { format = "vprof" }, code, message)
    end

    local hdr = string.pack("<i4i4", 1, 0)

    it("reports a missing file, a directory and an empty file", function()
      h.refuses(dir .. "/missing.vprof", nil, "ENOENT", "No such file or directory")
      assert.matches("is a directory", h.open_fails(dir, nil, "EISDIR"))
      h.refuses(h.write_in(dir, "empty.vprof", ""), nil, "EEMPTY", "the file is empty")
    end)

    it("names the offset and what was expected", function()
      fails("ver.vprof", string.pack("<i4i4", 2, 0), "EVERSION", "at byte 0: VProf version 2 is not known, expected 1")
      fails("short.vprof", "\1\0\0\0\0", "ETRUNC",
        "at byte 0: expected the 8-byte VProf header (int32 version, int32 root node id), the file has 5 bytes")
      fails("tok.vprof", hdr .. string.pack("<Bi4B", 0, 1, 9), "EFORMAT",
        "at byte 13: expected Token_AddNode (1), Token_AddBudgetGroup (2) or Token_Timings (3) in frame 1 "
          .. "(which starts at byte 8), found byte 9 (an unknown token)")
      fails("start.vprof", hdr .. "\4", "EFORMAT",
        "at byte 8: expected Token_StartFrame (0) to begin frame 1 after the 8-byte header, found byte 4 "
          .. "(Token_EndOfFrame)")
      fails("parent.vprof", hdr .. string.pack("<Bi4Bi4zi4i4", 0, 1, 1, 7, "Orphan", 0, 3), "EFORMAT",
        "at byte 13: node 'Orphan' (id 3) names parent id 7, which no earlier record declared")
      fails("dupid.vprof", hdr .. string.pack("<Bi4Bi4zi4i4Bi4zi4i4", 0, 1, 1, 0, "A", 0, 3, 1, 0, "B", 0, 3),
        "EFORMAT", "at byte 28: node 'B' reuses id 3, which an earlier record declared")
      fails("nonul.vprof", hdr .. string.pack("<Bi4B", 0, 1, 2) .. "Unaccou", "ETRUNC",
        "at byte 21: the file ends inside frame 1 (which starts at byte 8): expected the rest of the "
          .. "Token_AddBudgetGroup record at byte 13 (NUL-terminated name, int32 flags); no frame is complete")
      fails("end.vprof", hdr .. string.pack("<Bi4BBI2B", 0, 1, 3, 1, 0, 7), "EFORMAT",
        "at byte 17: expected Token_EndOfFrame (4) after the timings of 1 nodes in frame 1 "
          .. "(which starts at byte 8), found byte 7")
      -- after a complete frame, damage is kept as truncation is: the strict open refuses it
      h.refuses(h.write_in(dir, "garbage.vprof", hdr .. string.pack("<Bi4BBI2B", 0, 1, 3, 1, 0, 4) .. "xyz"),
        { format = "vprof", strict = true }, "EFORMAT",
        "at byte 18: expected Token_StartFrame (0) to begin frame 2, found byte 120 (an unknown token)")
    end)

    it("keeps the complete frames before damage, as truncation does, and names the offset (issue 26)", function()
      local frames = {}
      for i = 1, 40 do frames[i] = { tick = i, [1] = 1000 + i, [2] = 7 } end
      frames[30].add = { { id = 3, name = "Late", parent = 1 } }
      frames[30][3] = 2
      local path = h.vprof(dir .. "/whole.vprof", { nodes = { { id = 1, name = "A" }, { id = 2, name = "B" } },
        frames = frames })
      local whole = assert(vp.open(path))
      local bytes = h.read_file(path)
      local function damaged(name, at, byte)
        return h.write_in(dir, name, bytes:sub(1, at) .. string.char(byte) .. bytes:sub(at + 2))
      end
      -- a bad token where frame 30 starts; a bad one inside frame 30 (its new node rolled back); the end token of 35
      local f30, f35 = whole:frame(30).offset, whole:frame(35).offset
      for _, case in ipairs({
        { "start.vprof", f30, 9, 29, "expected Token_StartFrame (0) to begin frame 30, found byte 9" },
        { "inside.vprof", f30 + 5, 7, 29, "in frame 30 (which starts at byte " .. f30 .. "), found byte 7" },
        { "endtok.vprof", f35 - 1, 9, 33, "expected Token_EndOfFrame (4) after the timings of 4 nodes in frame 34" },
      }) do
        local name, at, byte, kept, what = table.unpack(case)
        local file = damaged(name, at, byte)
        local cap = assert(vp.open(file))
        assert.is_true(cap.corrupt, name)
        assert.is_false(cap.truncated, name)
        assert.are.equal(kept, cap.frame_count, name)
        assert.are.equal(kept < 30 and 3 or 4, cap.node_count, name)
        assert.are.equal(whole:frame_times():slice(1, kept):sum(), cap:frame_times():sum(), name)
        assert.are.equal(1, #cap.warnings, name)
        assert.matches(string.format("corrupt at byte %d: ", at), cap.warnings[1], 1, true)
        assert.matches(what, cap.warnings[1], 1, true)
        assert.matches(string.format("; the %d complete frames before it are kept", kept), cap.warnings[1], 1, true)
        -- {strict = true} refuses it, with the same message
        local none, msg, code = vp.open(file, { strict = true })
        assert.is_nil(none, name)
        assert.are.equal("EFORMAT", code)
        assert.matches(what, msg, 1, true)
        cap:close()
        -- a script warns and goes on; --strict makes it exit 2
        local r = h.run("scripts/hitches.lua", file)
        assert.are.equal(0, r.code, r.stderr)
        assert.matches("warning: .*corrupt at byte " .. at, r.stderr)
        r = h.run("scripts/hitches.lua", file, "--strict")
        assert.are.equal(2, r.code, r.stderr)
      end
      whole:close()
    end)

    it("says a file of another format is not a capture", function()
      local path = h.write_in(dir, "notes.txt", "hello world, not a capture\n")
      assert.matches("not a format vpscript reads", h.open_fails(path, nil, "EFORMAT"), 1, true)
    end)
  end)

  describe("lifetimes", function()
    it("raises when a child is used after close, and close is idempotent", function()
      local cap = assert(vp.open(small()))
      local f, n, g = cap:frame(1), cap:node(1), cap:group("Physics")
      local it = cap:frames()
      cap:close()
      cap:close()
      for _, fn in ipairs({
        function() return f.frame_ms end,
        function() return f:time_ms(1) end,
        function() return n.name end,
        function() return g.name end,
        function() return it() end,
        function() return cap:frame(1) end,
      }) do
        assert.has_error(fn, "capture is closed")
      end
      assert.matches("closed", tostring(cap))
    end)

    it("keeps the capture alive through its children across GC", function()
      local f, n
      do
        local cap = assert(vp.open(small()))
        f, n = cap:frame(3), cap:node("Root/A/C")
      end
      collectgarbage()
      collectgarbage()
      assert.are.equal(40.0, f.frame_ms)
      assert.are.equal(30.0, f:time_ms(n))
      assert.are.equal("Root/A/C", n.path)
    end)

    it("closes on scope exit with <close>", function()
      local f
      do
        local cap <close> = assert(vp.open(small()))
        f = cap:frame(1)
      end
      assert.has_error(function() return f.tick end, "capture is closed")
    end)

    it("keeps Series valid after close", function()
      local cap = assert(vp.open(small()))
      local ft = cap:frame_times()
      cap:close()
      assert.are.equal(40.0, ft:max())
    end)
  end)

  describe("progress", function()
    -- The reader reports every 32 MiB: one frame whose node name is longer
    -- than that makes it report once, at the end of the frame.
    local function big()
      local path = dir .. "/big.vprof"
      local le = function(v) return string.pack("<i4", v) end
      h.write_file(path, table.concat {
        le(1), le(0),                                           -- version, root id
        "\0", le(7),                                            -- StartFrame, tick
        "\1", le(0), string.rep("n", 33 * 2 ^ 20), "\0", le(0), le(1), -- AddNode
        "\3", "\1\0\0", "\1\250\0",                           -- Timings: root, node
        "\4",                                                   -- EndOfFrame
      })
      return path
    end

    it("calls opts.progress(done, total) with byte counts", function()
      local path, calls = big(), {}
      local cap = assert(vp.open(path, { progress = function(done, total)
        calls[#calls + 1] = { done, total }
      end }))
      assert.are.equal(1, cap.frame_count)
      assert.are.same({ { cap.size, cap.size } }, calls)
      assert.has_error(function() vp.open(path, { progress = 1 }) end,
        "vp.open: progress must be a function")
      assert.is_truthy(vp.open(path, { progress = false }))
    end)

    it("raises what the progress function raises, once the reader is done", function()
      local ok, err = pcall(vp.open, big(), { progress = function() error({ mine = true }) end })
      assert.is_false(ok)
      assert.are.same({ mine = true }, err)
    end)
  end)
end)
