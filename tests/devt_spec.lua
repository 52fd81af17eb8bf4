-- The .devt (event profiler) model through the real bindings, its writer,
-- and events.lua. Reader tests build their files by hand with string.pack
-- from specs/format-notes.md, so they do not lean on the writer; writer
-- tests decode the writer's bytes by hand, so they do not lean on the
-- reader.
local vp = require "vp"
local h = require "helpers"

local dir

local TYPE_NAMES = {
  [0] = "Frame", "Update", "WeaponInput_FireBurst", "WeaponInput_FireEnd", "WeaponInput_Reload",
  "WeaponInput_Unk5", "WeaponInput_UseScope", "WeaponInput_SelectFireMode",
  "WeaponInput_SelectWeapon", "Weapon_Burst", "Weapon_FireWeaponProjectile",
}

local function event(t1, t2, ty) return string.pack("<I4I4I1", t1, t2, ty) end

local function header(o)
  o = o or {}
  local prefix = o.prefix or 0
  local bits = o.bitfield or string.rep("\0", ((prefix >> 6) + 1) << 3)
  return string.pack("<I4I4I4I2", o.time or 0, o.unknown or 0, o.graph_duration or 0, prefix) .. bits
end

-- groups: list of {events = {bytes...}, total = n}
local function devt(o, groups)
  local parts = { header(o), string.pack("<I4", o.group_count or #groups) }
  for _, g in ipairs(groups) do
    parts[#parts + 1] = string.pack("<I4", g.total or #g.events)
    parts[#parts + 1] = h.chunked(g.events)
  end
  return table.concat(parts) .. (o.tail or "")
end

local function seq(n, t0, ty)
  local list = {}
  for i = 1, n do list[i] = event(t0 + i, t0 + i + 5, ty or 0) end
  return list
end

describe("devt", function()
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("capture", function()
    it("exposes every header field", function()
      local bytes = devt({ time = 123456, unknown = 0xDEADBEEF, graph_duration = 10000, prefix = 70,
        bitfield = "\5\0\0\0\0\0\0\0\0\1\0\0\0\0\0\128" }, {})
      local path = h.write_in(dir, "hdr.devt", bytes)
      local cap = assert(vp.open(path))
      h.has_fields(cap, {
        format = "devt", path = path, size = #bytes, warnings = {}, time = 123456, unknown = 0xDEADBEEF,
        graph_duration = 10000, prefix = 70, bitfield = "\5\0\0\0\0\0\0\0\0\1\0\0\0\0\0\128",
        bits = { 0, 2, 72, 127 }, group_count = 0, event_count = 0, trailing_bytes = 0, truncated = false,
      })
      -- (70 >> 6) + 1 = 2 words of 8 bytes
      assert.are.equal(16, #cap.bitfield)
      assert.are.equal(0, #cap)
      assert.has_error(function() cap:group(1) end, "group 1 is out of range: there are none")
      local n = 0
      for _ in cap:events() do n = n + 1 end
      assert.are.equal(0, n)
      cap:close()
    end)

    it("sizes the bitfield as ((prefix >> 6) + 1) << 3 bytes", function()
      for prefix, size in pairs({ [0] = 8, [63] = 8, [64] = 16, [127] = 16, [128] = 24, [700] = 88 }) do
        local bytes = devt({ prefix = prefix }, { { events = { event(1, 2, 3) } } })
        local cap = assert(h.open_bytes(dir, "bf" .. prefix .. ".devt", bytes))
        assert.are.equal(size, #cap.bitfield)
        assert.are.equal(1, cap:group(1):event(1).time1)
        assert.are.same({}, cap.warnings)
        cap:close()
      end
    end)

    it("reads the four groups, every event field and the type names", function()
      local evs = {}
      for ty = 0, 12 do evs[#evs + 1] = event(100 + ty, 200 + ty, ty) end
      evs[#evs + 1] = event(0xFFFFFFFF, 0, 255)
      local bytes = devt({}, {
        { events = { event(1, 2, 0), event(17, 19, 0) } },
        { events = { event(5, 6, 1) } },
        { events = evs },
        { events = {} },
      })
      local path = h.write_in(dir, "groups.devt", bytes)
      local cap = assert(vp.open(path))
      assert.are.equal(4, cap.group_count)
      assert.are.equal(2 + 1 + #evs, cap.event_count)
      local names = {}
      for g in cap:groups() do names[#names + 1] = g.name end
      assert.are.same({ "frames", "updates", "weapon_inputs", "weapons" }, names)
      local g1 = cap:group(1)
      assert.are.equal(1, g1.index)
      assert.are.equal(2, g1.total)
      assert.are.equal(2, g1.count)
      assert.are.equal(2, #g1)
      assert.are.equal(26, g1.file_offset) -- 14 header + 8 bitfield + group_count
      assert.are.equal(cap, g1.capture)
      assert.are.equal(g1, cap:group("frames"))
      assert.are.equal(cap:group(4), cap:group("weapons"))
      assert.are_not.equal(cap:group(1), cap:group(2))
      assert.are.equal(26 + 4 + 1 + 18, cap:group(2).file_offset)
      assert.has_error(function() cap:group(5) end, "group 5 is out of range 1..4")
      assert.has_error(function() cap:group(0) end, "group 0 is out of range 1..4")
      assert.is_nil(cap:group("nope"))
      assert.are.equal(2 + 1 + #evs, #cap)
      local e = g1:event(2)
      assert.are.same({ index = 2, group = 1, time1 = 17, time2 = 19, type = 0, type_name = "Frame",
        type_uncertain = false }, e)
      assert.has_error(function() g1:event(3) end, "event 3 is out of range 1..2")
      assert.has_error(function() g1:event(0) end, "event 0 is out of range 1..2")
      assert.are.same({ index = 1, name = "frames", total = 2, count = 2, file_offset = 26,
        events = { g1:event(1), e } }, g1:totable())
      assert.has_error(function() cap:group(4):event(1) end, "event 1 is out of range: there are none")
      local g3 = cap:group(3)
      local i = 0
      for ev in g3:events() do
        i = i + 1
        assert.are.equal(i, ev.index)
        assert.are.equal(3, ev.group)
        if ev.type <= 12 then
          assert.are.equal(100 + ev.type, ev.time1)
          assert.are.equal(200 + ev.type, ev.time2)
          assert.are.equal(TYPE_NAMES[ev.type] or ("type_" .. ev.type), ev.type_name)
          assert.are.equal(ev.type >= 5 and ev.type <= 7, ev.type_uncertain)
        else
          assert.are.equal(0xFFFFFFFF, ev.time1)
          assert.are.equal("type_255", ev.type_name)
          assert.is_false(ev.type_uncertain)
        end
      end
      assert.are.equal(#evs, i)
      assert.are.equal(0, #cap:group(4))
      assert.are.same({}, cap.warnings)
      cap:close()
    end)

    it("iterates all events with their group, in file order", function()
      local cap = assert(h.open_bytes(dir, "all.devt", devt({}, {
        { events = seq(3, 0) }, { events = {} }, { events = seq(2, 100, 4) } })))
      local got = {}
      for ev, g in cap:events() do
        got[#got + 1] = string.format("%d:%s:%d:%d", ev.group, g.name, ev.index, ev.time1)
        assert.are.equal(ev.group, g.index)
      end
      assert.are.same({ "1:frames:1:1", "1:frames:2:2", "1:frames:3:3", "3:weapon_inputs:1:101",
        "3:weapon_inputs:2:102" }, got)
      cap:close()
    end)

    for _, n in ipairs({ 0, 1, 254, 255, 256, 300, 510, 511 }) do
      it("reads a chunked array of exactly " .. n .. " events", function()
        local evs = seq(n, 1000)
        local bytes = devt({}, { { events = evs } })
        -- the rule's byte count: one count byte per full block plus the last
        assert.are.equal(22 + 4 + 4 + (n // 255 + 1) + 9 * n, #bytes)
        local cap = assert(h.open_bytes(dir, "n" .. n .. ".devt", bytes))
        assert.are.same({}, cap.warnings)
        assert.are.equal(0, cap.trailing_bytes)
        local g = cap:group(1)
        assert.are.equal(n, #g)
        local i = 0
        for ev in g:events() do
          i = i + 1
          assert.are.equal(1000 + i, ev.time1)
          assert.are.equal(1005 + i, ev.time2)
        end
        assert.are.equal(n, i)
        if n > 0 then assert.are.equal(1000 + n, g:event(n).time1) end
        cap:close()
      end)
    end

    it("takes a count of 0 as the end of an array (the notes' rule)", function()
      -- FF, 255 events, 00, then the next group: nothing after the 00 belongs
      -- to the first array
      local bytes = devt({}, { { events = seq(255, 0) }, { events = seq(2, 500) } })
      local cap = assert(h.open_bytes(dir, "zero_end.devt", bytes))
      assert.are.equal(255, #cap:group(1))
      assert.are.equal(2, #cap:group(2))
      assert.are.equal(501, cap:group(2):event(1).time1)
      cap:close()
    end)
  end)

  describe("tolerated with a warning", function()
    it("a total that disagrees with the events present", function()
      local cap = assert(h.open_bytes(dir, "total.devt", devt({}, {
        { events = seq(3, 0) }, { events = seq(2, 0), total = 7 } })))
      assert.are.same({ "at byte 58: group 2 total says 7 events, the array holds 2" }, cap.warnings)
      assert.are.equal(7, cap:group(2).total)
      assert.are.equal(2, #cap:group(2))
      cap:close()
    end)

    it("more than four groups", function()
      local groups = {}
      for g = 1, 6 do groups[g] = { events = seq(1, g * 10) } end
      local cap = assert(h.open_bytes(dir, "six.devt", devt({}, groups)))
      assert.are.same({ "at byte 22: group_count is 6; files have been seen with at most 4 groups" },
        cap.warnings)
      assert.are.equal(6, cap.group_count)
      assert.are.equal("group_5", cap:group(5).name)
      assert.are.equal(61, cap:group(6):event(1).time1)
      cap:close()
    end)

    it("bytes after the last group", function()
      local bytes = devt({ tail = "\1\2\3" }, { { events = seq(2, 0) } })
      local cap = assert(h.open_bytes(dir, "trail.devt", bytes))
      assert.are.same({ "at byte " .. (#bytes - 3) .. ": 3 bytes after the last group were ignored" },
        cap.warnings)
      assert.are.equal(3, cap.trailing_bytes)
      assert.are.equal(2, #cap:group(1))
      cap:close()
    end)
  end)

  describe("bad input", function()
    -- A strict open refuses what a lenient one keeps with a warning (and
    -- every complete event).
    local function fails(...) h.refuses_bytes(dir, ...) end
    local function cut(...) return h.keeps_cut(dir, ...) end

    it("a block count claiming more events than the bytes left", function()
      local bytes = header() .. string.pack("<I4I4", 1, 200) .. string.char(200) .. event(1, 2, 0) .. event(3, 4, 0)
      local msg = "at byte 30: block count 200 of group 1 events needs at least 1800 bytes, only 18 left"
      fails("count.devt", bytes, msg, "ETRUNC")
      local cap = cut("count.devt", bytes, { msg .. "; the file is truncated: kept 2 complete events in 1 group" })
      assert.are.equal(1, cap.group_count)
      assert.are.equal(2, cap.event_count)
      assert.are.equal(200, cap:group(1).total)
      assert.are.equal(3, cap:group(1):event(2).time1)
      cap:close()
    end)

    it("a group count claiming more groups than the bytes left", function()
      local bytes = header() .. string.pack("<I4", 1000) .. string.pack("<I4", 0) .. "\0"
      fails("gcount.devt", bytes, "at byte 22: group_count 1000 needs at least 5000 bytes (5 per group), "
        .. "only 5 left", "ELIMIT")
      local cap = cut("gcount.devt", bytes, {
        "at byte 22: group_count is 1000; files have been seen with at most 4 groups",
        "at byte 31: expected the u32 group 2 total (4 bytes), only 0 left before the end of the file; the "
          .. "file is truncated: kept 0 complete events in 1 group" })
      assert.are.equal(1, cap.group_count)
      assert.are.equal(0, #cap:group(1))
      cap:close()
    end)

    it("a bitfield size past the end, in either mode", function()
      local bytes = string.pack("<I4I4I4I2", 1, 2, 3, 0xFFFF) .. string.pack("<I4", 0)
      local msg = "at byte 14: visibility bitfield (prefix): a bitfield of 65535 entries needs 8192 bytes, only 4 left"
      fails("bits.devt", bytes, msg, "ETRUNC")
      fails("bits.devt", bytes, msg, "ETRUNC", {})
    end)

    it("a full block of 255 without the count byte that must follow", function()
      local bytes = header() .. string.pack("<I4I4", 1, 255) .. "\255" .. table.concat(seq(255, 0))
      local msg = "at byte " .. #bytes .. ": expected the count byte of a block of group 1 events (element 256), "
        .. "found the end of the file"
      fails("noend.devt", bytes, msg, "ETRUNC")
      local cap = cut("noend.devt", bytes, { msg .. "; the file is truncated: kept 255 complete events in 1 group" })
      assert.are.equal(255, #cap:group(1))
      assert.are.equal(255, cap:group(1):event(255).time1)
      cap:close()
    end)

    it("a file cut inside the header fails in either mode", function()
      local full = devt({ time = 9 }, { { events = seq(4, 0) }, { events = seq(3, 0) } })
      h.header_cuts(dir, "devt", full, {
        { 9, "at byte 8: expected the u32 graph_duration (4 bytes), only 1 left before the end of the file" },
        { 13, "at byte 12: expected the u16 prefix (2 bytes), only 1 left before the end of the file" },
        { 20, "at byte 14: visibility bitfield (prefix): a bitfield of 0 entries needs 8 bytes, only 6 left" },
        { 24, "at byte 22: expected the u32 group_count (4 bytes), only 2 left before the end of the file" },
      })
    end)

    it("a file cut inside the groups: strict refuses, lenient keeps every complete event", function()
      local full = devt({ time = 9 }, { { events = seq(4, 0) }, { events = seq(3, 0) } })
      -- group 2: total at 26 + 4 + 1 + 36 = 67, its block count at 71
      local in_events = "at byte 71: block count 3 of group 2 events needs at least 27 bytes, only 25 left"
      local in_total = "at byte 67: expected the u32 group 2 total (4 bytes), only 2 left before the end of the file"
      fails("tcut.devt", full:sub(1, #full - 2), in_events, "ETRUNC")
      fails("ttotal.devt", full:sub(1, 69), in_total, "ETRUNC")
      local cap = cut("tcut.devt", full:sub(1, #full - 2),
        { in_events .. "; the file is truncated: kept 6 complete events in 2 groups" })
      assert.are.equal(2, cap.group_count)
      assert.are.equal(6, cap.event_count)
      assert.are.equal(4, #cap:group(1))
      assert.are.equal(2, #cap:group(2))
      assert.are.equal(3, cap:group(2).total)
      assert.are.equal(2, cap:group(2):event(2).time1)
      assert.are.equal(6, #h.all(cap:events()))
      assert.matches(", truncated, with warnings>$", tostring(cap))
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[r.name] = r.value end
      assert.is_true(rows.truncated)
      cap:close()
      cap = cut("ttotal.devt", full:sub(1, 69),
        { in_total .. "; the file is truncated: kept 4 complete events in 1 group" })
      assert.are.equal(1, cap.group_count)
      assert.are.equal(4, #cap:group(1))
      cap:close()
      -- the whole file: nothing to refuse
      cap = h.open_ok(h.write_in(dir, "whole.devt", full), { strict = true })
      assert.is_false(cap.truncated)
      assert.are.same({}, cap.warnings)
      cap:close()
    end)

    it("missing, empty and directory paths", function()
      local msg = h.open_fails(dir .. "/missing.devt", nil, "ENOENT")
      assert.truthy(msg:find(dir .. "/missing.devt", 1, true))
      h.open_fails(h.write_in(dir, "empty.devt", ""), nil, "EEMPTY")
    end)
  end)

  describe("lifetimes", function()
    it("raises 'capture is closed' for groups and iterators used after close", function()
      local cap = assert(h.open_bytes(dir, "life.devt", devt({}, { { events = seq(3, 0) } })))
      local g = cap:group(1)
      local it_all, it_group, it_groups = cap:events(), g:events(), cap:groups()
      assert.are.equal(1, it_all().time1)
      cap:close()
      cap:close() -- idempotent
      assert.has_error(function() return #g end, "capture is closed")
      assert.has_error(function() return g.name end, "capture is closed")
      assert.has_error(function() return g:event(1) end, "capture is closed")
      assert.has_error(it_all, "capture is closed")
      assert.has_error(it_group, "capture is closed")
      assert.has_error(it_groups, "capture is closed")
      assert.has_error(function() cap:events() end, "capture is closed")
      assert.are.equal("<devt life.devt: closed>", tostring(cap))
    end)

    it("a group keeps its capture alive", function()
      local g = h.after_gc(function()
        return assert(h.open_bytes(dir, "alive.devt", devt({}, { { events = seq(3, 0) } }))):group(1)
      end)
      assert.are.equal(3, #g)
      assert.are.equal(2, g:event(2).time1)
      assert.are.equal("devt", g.capture.format)
    end)
  end)

  describe("summary and tostring", function()
    it("gives info.lua its rows and a one-line description", function()
      local path = h.write_in(dir, "sum.devt", devt({ time = 5, graph_duration = 7, prefix = 3 },
        { { events = seq(3, 100) }, { events = seq(2, 10, 1), total = 4 } }))
      local cap = assert(vp.open(path))
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[#rows + 1] = r.name .. "=" .. tostring(r.value) end
      assert.are.same({ "time=5", "graph_duration=7", "prefix=3", "groups=2", "events=5",
        "events_frames=3", "events_updates=2", "first_time1=11", "last_time1=103", "warnings=1" }, rows)
      assert.are.equal("<devt sum.devt: 2 groups, 5 events, graph_duration 7, with warnings>",
        tostring(cap))
      assert.are.equal("<devt group 2 updates: 2 events, total 4>", tostring(cap:group(2)))
      cap:close()
    end)

    it("is detected by extension and can be forced", function()
      local bytes = devt({}, { { events = seq(1, 0) } })
      h.write_in(dir, "forced.bin", bytes)
      assert.are.equal("devt", vp.detect(h.write_in(dir, "x.devt", bytes)))
      local cap = assert(vp.open(dir .. "/forced.bin", { format = "devt" }))
      assert.are.equal(1, cap.event_count)
      cap:close()
    end)
  end)

  describe("writer", function()
    local function wpath(name) return dir .. "/w_" .. name .. ".devt" end

    it("writes the header, a default bitfield and the group count", function()
      local w = vp.writer("devt", wpath("hdr"), { time = 1, unknown = 2, graph_duration = 3, prefix = 64 })
      w:group({ { time1 = 10, time2 = 11, type = 9 } })
      w:group({})
      local size = w:close()
      local s = h.read_file(wpath("hdr"))
      assert.are.equal(#s, size)
      assert.are.equal(string.pack("<I4I4I4I2", 1, 2, 3, 64) .. string.rep("\0", 16) .. string.pack("<I4", 2)
        .. string.pack("<I4", 1) .. "\1" .. string.pack("<I4I4I1", 10, 11, 9)
        .. string.pack("<I4", 0) .. "\0", s)
    end)

    it("frames 0, 254, 255 and 300 events by the exact rule", function()
      for _, n in ipairs({ 0, 254, 255, 300 }) do
        local evs = {}
        for i = 1, n do evs[i] = { i, i + 1, i % 11 } end
        local w = vp.writer("devt", wpath("n" .. n), {})
        w:group(evs)
        local s = w:data()
        w:close()
        local pos = 14 + 8 + 1
        local gc, total
        gc, total, pos = string.unpack("<I4I4", s, pos)
        assert.are.equal(1, gc)
        assert.are.equal(n, total)
        local got, counts
        got, counts, pos = h.unchunk(s, pos, "<I4I4I1")
        for i, e in ipairs(got) do assert.are.same({ i, i + 1, i % 11 }, e) end
        assert.are.equal(n, #got)
        assert.are.equal(#s + 1, pos)
        local expect = ({ [0] = { 0 }, [254] = { 254 }, [255] = { 255, 0 }, [300] = { 255, 45 } })[n]
        assert.are.same(expect, counts)
      end
    end)

    it("builds broken files: totals, block counts, group_count, raw bytes, cuts", function()
      local w = vp.writer("devt", wpath("broken"), { group_count = 9, bitfield = "\1\2" })
      assert.are.equal(14 + 2 + 4, w:tell())
      w:group({ { 1, 2, 3 } }, { total = 5, chunks = { 200 } })
      w:raw("\9\9")
      local s = w:data()
      assert.are.equal(string.pack("<I4I4I4I2", 0, 0, 0, 0) .. "\1\2" .. string.pack("<I4", 9)
        .. string.pack("<I4", 5) .. "\200" .. string.pack("<I4I4I1", 1, 2, 3) .. "\9\9", s)
      w:truncate(10)
      assert.are.equal(s:sub(1, 10), w:data())
      assert.are.equal(10, w:close())
      assert.is_true(w.closed)
      assert.has_error(function() w:group({}) end, "devt writer is closed")
      -- block counts split as asked; events beyond the listed blocks follow uncounted
      local w2 = vp.writer("devt", wpath("split"), {})
      w2:group({ { 1, 1, 1 }, { 2, 2, 2 }, { 3, 3, 3 } }, { chunks = { 1, 0 } })
      local s2 = w2:data()
      assert.are.equal(string.pack("<I4", 3) .. "\1" .. string.pack("<I4I4I1", 1, 1, 1) .. "\0"
        .. string.pack("<I4I4I1", 2, 2, 2) .. string.pack("<I4I4I1", 3, 3, 3), s2:sub(27))
      w2:close()
    end)

    it("rejects values that do not fit the fields", function()
      local w = vp.writer("devt", wpath("range"), {})
      assert.has_error(function() w:group({ { 1, 2, 256 } }) end)
      assert.has_error(function() w:group({ { -1, 2, 0 } }) end)
      assert.has_error(function() w:group({ 5 }) end)
      assert.has_error(function() w:group({}, { chunks = { 300 } }) end)
      assert.has_error(function() vp.writer("devt", wpath("p"), { prefix = 65536 }) end)
      w:close()
    end)

    it("round-trips through the reader", function()
      local w = vp.writer("devt", wpath("rt"), { time = 77, graph_duration = 5000, prefix = 11 })
      local evs = {}
      for i = 1, 300 do evs[i] = { time1 = 1000 + 16 * i, time2 = 1001 + 16 * i, type = i % 11 } end
      w:group(evs)
      w:group({ { 5, 6, 1 } })
      w:close()
      local cap = assert(vp.open(wpath("rt")))
      assert.are.same({}, cap.warnings)
      assert.are.equal(301, cap.event_count)
      assert.are.equal(1000 + 16 * 300, cap:group(1):event(300).time1)
      cap:close()
    end)
  end)

  describe("events.lua", function()
    -- Planted: 20 Frame events 16 ms apart except one 100 ms gap (frame 10);
    -- 11 Update events 33 ms apart; weapon inputs and weapons with known gaps.
    local function planted()
      local frames, t = {}, 1000
      for i = 1, 20 do
        if i > 1 then t = t + (i == 10 and 100 or 16) end
        frames[i] = event(t, t + 2, 0)
      end
      local updates = {}
      for k = 0, 10 do updates[#updates + 1] = event(1000 + 33 * k, 1000 + 33 * k, 1) end
      local inputs = { event(1100, 1100, 2), event(1150, 1150, 3), event(1200, 1200, 2), event(1300, 1300, 6) }
      local weapons = { event(1100, 1100, 9), event(1101, 1101, 10), event(1191, 1191, 10),
        event(1281, 1281, 10) }
      return h.write_in(dir, "planted.devt", devt({ time = 42, graph_duration = 10000 }, {
        { events = frames }, { events = updates }, { events = inputs }, { events = weapons } }))
    end

    it("prints exact counts, rates, intervals and frame pacing as JSON", function()
      local path = planted()
      local doc = h.run_json("scripts/events.lua", path, "--json")
      h.has_fields(doc, {
        file = path, format = "devt", time = 42, graph_duration = 10000, groups = 4, events = 39,
        time_field = "time1", time_unit = "ms", first_time = 1000,
        last_time = 1388, -- 1000 + 18 x 16 + 100
        span_ms = 388,
      })
      local keys = {}
      for _, r in ipairs(doc.by_type) do keys[#keys + 1] = string.format("%d/%d", r.group, r.type) end
      assert.are.same({ "1/0", "2/1", "3/2", "3/3", "3/6", "4/9", "4/10" }, keys)
      local f = doc.by_type[1]
      assert.are.equal("frames", f.group_name)
      assert.are.equal("Frame", f.type_name)
      assert.is_false(f.type_uncertain)
      assert.are.equal(20, f.count)
      assert.is_true(h.near(f.rate_per_s, 20 / 0.388))
      assert.are.equal(16, f.interval_p50_ms)
      assert.are.equal(100, f.interval_p95_ms) -- rank ceil(0.95 x 19) = 19
      assert.are.equal(100, f.interval_max_ms)
      local u = doc.by_type[2]
      assert.are.equal(11, u.count)
      assert.are.same({ 33, 33, 33 }, { u.interval_p50_ms, u.interval_p95_ms, u.interval_max_ms })
      local burst = doc.by_type[3]
      assert.are.equal(2, burst.count)
      assert.are.equal(100, burst.interval_max_ms)
      local scope = doc.by_type[5]
      assert.are.equal("WeaponInput_UseScope", scope.type_name)
      assert.is_true(scope.type_uncertain)
      assert.are.equal(1, scope.count)
      assert.are.equal(require("cjson").null, scope.interval_p50_ms)
      local proj = doc.by_type[7]
      assert.are.equal(3, proj.count)
      assert.are.same({ 90, 90, 90 }, { proj.interval_p50_ms, proj.interval_p95_ms, proj.interval_max_ms })
      local p = doc.frame_pacing
      assert.are.equal(20, p.frames)
      assert.are.equal(19, p.intervals)
      assert.is_true(h.near(p.interval_mean_ms, 388 / 19))
      assert.are.equal(16, p.interval_p50_ms)
      assert.are.equal(100, p.interval_p95_ms)
      assert.are.equal(100, p.interval_p99_ms)
      assert.are.equal(100, p.interval_max_ms)
      assert.is_true(h.near(p.mean_fps, 1000 / (388 / 19)))
      assert.is_true(h.near(p.low_1pct_fps, 10)) -- the slowest 1 interval: 100 ms
    end)

    it("prints a readable table", function()
      local r = h.run("scripts/events.lua", planted())
      assert.are.equal(0, r.code)
      assert.truthy(r.stdout:find("WeaponInput_UseScope ?", 1, true))
      assert.truthy(r.stdout:find("frame pacing", 1, true))
      assert.truthy(r.stdout:find("Weapon_FireWeaponProjectile", 1, true))
    end)

    it("reports a capture without Frame events and empty groups", function()
      local path = h.write_in(dir, "noframes.devt", devt({}, { { events = {} }, { events = { event(5, 5, 1) } } }))
      local doc = h.run_json("scripts/events.lua", path, "--json")
      assert.are.equal(1, doc.events)
      assert.are.equal(0, doc.span_ms)
      assert.are.equal(require("cjson").null, doc.by_type[1].rate_per_s)
      assert.are.equal(require("cjson").null, doc.frame_pacing)
    end)

    it("reads a cut export: every complete event, a warning naming the offset, exit 0", function()
      local whole = h.read_file(planted())
      local path = h.write_in(dir, "cut_planted.devt", whole:sub(1, #whole - 5))
      local doc, r = h.run_json("scripts/events.lua", path, "--json")
      assert.truthy(r.stderr:find("the file is truncated: kept 38 complete events in 4 groups", 1, true))
      assert.are.equal(38, doc.events)
    end)

    it("states its definitions in --help and fails clearly on other input", function()
      h.help_mentions("scripts/events.lua", { "time1", "nearest" })
      h.script_refuses("scripts/events.lua", h.write_in(dir, "bad.devt", "\1\2\3"),
        "at byte 0: expected the u32 time")
    end)
  end)
end)
