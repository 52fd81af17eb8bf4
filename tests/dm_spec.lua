-- The .dm (movement trace) model through the real bindings: every field of
-- format-notes.md (checked on bytes built here with string.pack straight
-- from the notes), optional blocks present and absent, chunked arrays of 0,
-- 254, 255 and 300 elements, random access, lifetimes, the writer's bytes,
-- bad input with exact offsets, and movement.lua's JSON.
local vp = require "vp"
local h = require "helpers"

local dir

-- Bytes from the notes ---------------------------------------------------

local function group_bytes(g)
  local s = string.pack("<I2", g.short_time) .. h.vec3(g.pos)
    .. string.pack("<ffff", g.orient[1], g.orient[2], g.orient[3], g.orient[4]) .. h.vec3(g.dir)
    .. string.pack("<I2B", g.state, g.have_ext or 0)
  if g.have_ext == 1 then
    s = s .. string.pack("<I2", g.u1) .. h.vec3(g.vel)
      .. string.pack("<BBI2i2i2B", g.u2, g.u3, g.energy, g.ground, g.tslj, g.have_coll or 0)
    if (g.have_coll or 0) ~= 0 then
      s = s .. string.pack("<B", #g.arrows)
      for _, a in ipairs(g.arrows) do s = s .. h.vec3(a[1]) .. h.vec3(a[2]) end
      s = s .. string.pack("<B", #g.floats)
      for _, f in ipairs(g.floats) do s = s .. string.pack("<f", f) end
    end
    s = s .. h.vec3(g.u4) .. h.vec3(g.u5) .. string.pack("<B", g.u6)
  end
  return s
end

local function record_bytes(time, bits, groups)
  local s = string.pack("<BI4I4", 1, time, bits)
  for _, g in ipairs(groups) do s = s .. group_bytes(g) end
  return s
end

local G0 = { short_time = 0xABCD, pos = { 1, 2, 3 }, orient = { 0, 0.5, 0, 0.75 }, dir = { 1, 0, 0 },
  state = 0x0102 }
local G3 = { short_time = 3, pos = { -1, -2, -3 }, orient = { 0, 0, 0, 1 }, dir = { 0, 0, 1 }, state = 7,
  have_ext = 1, u1 = 0xBEEF, vel = { 4.5, 0, -1.25 }, u2 = 0x22, u3 = 0x33, energy = 0xFFFF, ground = -1500,
  tslj = 32767, u4 = { 1, 1, 1 }, u5 = { 2, 2, 2 }, u6 = 0x66 }
local G19 = { short_time = 19, pos = { 10, 20, 30 }, orient = { 1, 0, 0, 0 }, dir = { 0, 1, 0 }, state = 2,
  have_ext = 1, u1 = 1, vel = { 0, 0, 0 }, u2 = 0, u3 = 1, energy = 500, ground = 250, tslj = -5,
  have_coll = 3, arrows = { { { 1, 2, 3 }, { 0, 0, 1 } }, { { 4, 5, 6 }, { 0, -1, 0 } } },
  floats = { 0.5, -0.25, 8 }, u4 = { -1, -1, -1 }, u5 = { 0, 0, 0 }, u6 = 0 }

local function spec_file()
  return h.chunked {
    record_bytes(1000, (1 << 0) | (1 << 3) | (1 << 19), { G0, G3, G19 }),
    "\0",
    record_bytes(2000, 0, {}),
  }
end

local function open_spec()
  return h.open_ok(h.write_in(dir, "spec.dm", spec_file()))
end

local function group_table(g)
  local t = { short_time = g.short_time, position = g.pos, orientation = g.orient, direction = g.dir,
    state = g.state }
  if g.have_ext == 1 then
    t.unknown_1, t.velocity, t.unknown_2, t.unknown_3 = g.u1, g.vel, g.u2, g.u3
    t.jetpack_energy, t.ground_time, t.time_since_last_jump = g.energy, g.ground, g.tslj
    t.unknown_4, t.unknown_5, t.unknown_6 = g.u4, g.u5, g.u6
    if g.have_coll then
      t.have_collision = g.have_coll
      t.arrows = {}
      for i, a in ipairs(g.arrows) do t.arrows[i] = { origin = a[1], direction = a[2] } end
      t.floats = g.floats
    end
  end
  return t
end

-- n records without groups, written by the writer.
local function n_records(name, n)
  local path = dir .. "/" .. name
  local w = vp.writer("dm", path)
  for i = 1, n do w:record { time = i } end
  w:close()
  return path
end

describe("dm", function()
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("layout from the notes", function()
    it("reads the capture fields", function()
      local bytes = spec_file()
      assert.are.equal(1 + (9 + 45 + 93 + 155) + 1 + 9, #bytes)
      local cap = h.open_ok(h.write_in(dir, "spec.dm", bytes))
      h.has_fields(cap, {
        format = "dm", size = #bytes, warnings = {}, record_count = 2, slot_count = 3, empty_records = 1,
        group_count = 3, ext_group_count = 2, collision_group_count = 1,
        groups_by_bit = { [0] = 1, [3] = 1, [19] = 1 }, bits_seen = 0x80009, time_min = 1000, time_max = 2000,
        terminated = true, truncated = false, trailing_bytes = 0, array_end = #bytes,
      })
      assert.are.equal(2, #cap)
      assert.matches("^<dm spec%.dm: 2 records, 3 groups, 1 empty>$", tostring(cap))
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[r.name] = r.value end
      assert.are.equal(2, rows.records)
      assert.are.equal(1, rows["empty records"])
      assert.are.equal("0 3 19", rows["group bits"])
      assert.are.equal(1000, rows["first time"])
      cap:close()
    end)

    it("reads every field of records and groups", function()
      local cap = open_spec()
      local r = cap:record(1)
      assert.are.equal(1, r.index)
      assert.are.equal(1, r.slot)
      assert.are.equal(1, r.offset)
      assert.are.equal(9 + 45 + 93 + 155, r.size)
      assert.is_true(r.used)
      assert.are.equal(1000, r.time)
      assert.are.equal(0x80009, r.bitfield)
      assert.are.equal(3, r.group_count)
      assert.are.same({ 0, 3, 19 }, r.bits)

      local gs = h.all(r:groups())
      assert.are.equal(3, #gs)
      local g0, g3, g19 = gs[1], gs[2], gs[3]
      -- minimal group: 45 bytes, no extended block
      assert.are.equal(0, g0.bit)
      assert.are.equal(1, g0.index)
      assert.are.equal(10, g0.offset)
      assert.are.equal(45, g0.size)
      assert.are.equal(0xABCD, g0.short_time)
      h.same_vec({ 1, 2, 3 }, g0.position)
      h.same_vec({ 0, 0.5, 0, 0.75 }, g0.orientation)
      h.same_vec({ 1, 0, 0 }, g0.direction)
      assert.are.equal(0x0102, g0.state)
      assert.is_false(g0.have_ext)
      assert.is_nil(g0.velocity)
      assert.is_nil(g0.ground_time)
      assert.is_nil(g0.unknown_4)
      -- extended block without collision data
      assert.are.equal(3, g3.bit)
      assert.are.equal(55, g3.offset)
      assert.are.equal(93, g3.size)
      assert.is_true(g3.have_ext)
      assert.are.equal(0xBEEF, g3.unknown_1)
      h.same_vec({ 4.5, 0, -1.25 }, g3.velocity)
      assert.are.equal(0x22, g3.unknown_2)
      assert.are.equal(0x33, g3.unknown_3)
      assert.are.equal(0xFFFF, g3.jetpack_energy)
      assert.are.equal(-1500, g3.ground_time)
      assert.are.equal(32767, g3.time_since_last_jump)
      assert.is_false(g3.have_collision)
      assert.is_nil(g3.arrows)
      assert.is_nil(g3.floats)
      h.same_vec({ 1, 1, 1 }, g3.unknown_4)
      h.same_vec({ 2, 2, 2 }, g3.unknown_5)
      assert.are.equal(0x66, g3.unknown_6)
      -- with collision data (any non-zero flag)
      assert.are.equal(19, g19.bit)
      assert.are.equal(148, g19.offset)
      assert.are.equal(155, g19.size)
      assert.is_true(g19.have_collision) -- any non-zero byte announces the block
      assert.are.equal(250, g19.ground_time)
      assert.are.equal(-5, g19.time_since_last_jump)
      assert.are.equal(2, g19.arrow_count)
      assert.are.equal(3, g19.float_count)
      assert.is_nil(g3.arrow_count)
      assert.are.equal(2, #g19.arrows)
      h.same_vec({ 4, 5, 6 }, g19.arrows[2].origin)
      h.same_vec({ 0, -1, 0 }, g19.arrows[2].direction)
      assert.are.same({ 0.5, -0.25, 8 }, g19.floats)
      h.same_vec({ -1, -1, -1 }, g19.unknown_4)

      assert.are.same(g3, r:group(3))
      assert.is_nil(r:group(4))
      assert.is_nil(r:group(25))
      assert.are.same(gs, r:group_list())
      local tt = r:totable()
      assert.are.equal(1000, tt.time)
      assert.is_true(tt.used)
      assert.are.same(gs, tt.groups)
      assert.are.equal(r, cap:record(1))
      assert.are_not.equal(r, cap:record(2))

      local r2 = cap:record(2)
      assert.are.equal(2, r2.index)
      assert.are.equal(3, r2.slot)
      assert.are.equal(304, r2.offset)
      assert.are.equal(2000, r2.time)
      assert.are.equal(0, r2.group_count)
      assert.are.same({}, h.all(r2:groups()))
      cap:close()
    end)

    it("lists empty records as false in cap:slots()", function()
      local cap = open_spec()
      h.same_slots(cap, "records", "time", { 1000, false, 2000 })
      cap:close()
    end)

    it("gives the same bytes from the writer", function()
      local path = dir .. "/written.dm"
      local w = vp.writer("dm", path)
      assert.are.equal(1, w:record { time = 1000,
        groups = { [0] = group_table(G0), [3] = group_table(G3), [19] = group_table(G19) } })
      assert.are.equal(303, w:empty())
      assert.are.equal(304, w:record { time = 2000 })
      assert.are.equal(3, w.records)
      h.same_file(spec_file(), path, w:close())
    end)
  end)

  describe("chunked record arrays", function()
    it("reads 0 elements from the single byte 00", function()
      local path = n_records("n0.dm", 0)
      assert.are.equal("\0", h.read_file(path))
      local cap = h.open_ok(path)
      assert.are.equal(0, cap.record_count)
      assert.are.equal(0, cap.slot_count)
      assert.is_true(cap.terminated)
      assert.are.same({}, cap.warnings)
      assert.is_nil(cap.time_min)
      assert.are.same({}, h.all(cap:records()))
      cap:close()
    end)

    it("frames 254, 255 and 300 elements as the notes say", function()
      for _, case in ipairs {
        { n = 254, counts = { [0] = 254 }, size = 1 + 254 * 9 },
        { n = 255, counts = { [0] = 255, [1 + 255 * 9] = 0 }, size = 1 + 255 * 9 + 1 },
        { n = 300, counts = { [0] = 255, [1 + 255 * 9] = 45 }, size = 2 + 300 * 9 },
      } do
        local path = n_records("n" .. case.n .. ".dm", case.n)
        local bytes = h.read_file(path)
        assert.are.equal(case.size, #bytes)
        for off, c in pairs(case.counts) do assert.are.equal(c, bytes:byte(off + 1), case.n .. "@" .. off) end
        -- the writer agrees with the notes' framing built here
        local elements = {}
        for i = 1, case.n do elements[i] = string.pack("<BI4I4", 1, i, 0) end
        assert.are.equal(h.chunked(elements), bytes)
        local cap = h.open_ok(path)
        assert.are.equal(case.n, cap.record_count)
        assert.are.same({}, cap.warnings)
        local n, last = 0, nil
        for r in cap:records() do
          n = n + 1
          assert.are.equal(n, r.time)
          last = r
        end
        assert.are.equal(case.n, n)
        assert.are.equal(case.n, last.index)
        -- a record after the first block starts after the second count byte
        if case.n == 300 then assert.are.equal(2 + 255 * 9, cap:record(256).offset) end
        assert.are.equal(case.n, cap:record(case.n).time)
        cap:close()
      end
    end)

    it("seeks to any record past the index checkpoints", function()
      local path = dir .. "/mixed.dm"
      local w = vp.writer("dm", path)
      for i = 1, 700 do
        if i % 5 == 0 then w:empty() end
        w:record { time = 10 * i, groups = (i % 2 == 0) and { [1] = { state = i } } or nil }
      end
      w:close()
      local cap = h.open_ok(path)
      assert.are.equal(700, cap.record_count)
      assert.are.equal(840, cap.slot_count)
      for _, i in ipairs { 1, 63, 64, 65, 128, 129, 254, 255, 256, 257, 511, 512, 513, 699, 700 } do
        local r = cap:record(i)
        assert.are.equal(10 * i, r.time)
        assert.are.equal(i, r.index)
        assert.are.equal(i + i // 5, r.slot)
        if i % 2 == 0 then assert.are.equal(i, r:group(1).state) end
      end
      assert.has_error(function() cap:record(701) end, "record 701 is out of range 1..700")
      assert.has_error(function() cap:record(0) end, "record 0 is out of range 1..700")
      assert.are.same({ 6970, 6980, 6990, 7000 }, h.fields(cap:records(697), "time"))
      cap:close()
    end)
  end)

  describe("values the notes do not cover", function()
    it("ignores bitfield bits 20..31 with a warning", function()
      local w = vp.writer("dm", dir .. "/high.dm")
      w:record { time = 5, bitfield = 0x00300001, groups = { [0] = { state = 9 } } }
      w:close()
      local cap = h.open_ok(dir .. "/high.dm")
      local r = cap:record(1)
      assert.are.equal(0x00300001, r.bitfield)
      assert.are.equal(1, r.group_count)
      assert.are.same({ 0 }, r.bits)
      assert.are.equal(9, r:group(0).state)
      assert.are.same({ "1 records set bitfield bits 20..31 (mask 0x00300000, the first at byte 6): "
        .. "only bits 0..19 name groups, the rest were ignored" }, cap.warnings)
      cap:close()
    end)

    it("reads have_data other than 1 as empty and have_ext other than 1 as absent", function()
      local bytes = h.chunked {
        "\2",
        record_bytes(7, 1, { { short_time = 1, pos = { 0, 0, 0 }, orient = { 0, 0, 0, 1 }, dir = { 0, 0, 0 },
          state = 0, have_ext = 2 } }),
      }
      local cap = h.open_ok(h.write_in(dir, "odd.dm", bytes))
      assert.are.equal(1, cap.record_count)
      assert.are.equal(1, cap.empty_records)
      local g = cap:record(1):group(0)
      assert.is_false(g.have_ext)
      assert.is_nil(g.velocity)
      assert.are.same({
        "1 records have a have_data byte other than 0 or 1 (the first at byte 1): read as empty, as "
          .. "only 1 is followed by data",
        "1 groups have a have_ext byte other than 0 or 1 (the first at byte 55): read without the "
          .. "extended block, which only 1 announces",
      }, cap.warnings)
      cap:close()
    end)
  end)

  describe("bad input", function()
    it("names a bitfield whose groups run past the end", function()
      local bytes = spec_file()
      local path = h.write_in(dir, "cut.dm", bytes:sub(1, 60))
      local cap = h.cut_file(path, "ETRUNC", "at byte 6: slot 1: bitfield 0x00080009 names 3 groups, "
        .. "which need at least 135 bytes, only 50 left before the end of the file; the file is truncated: "
        .. "kept 0 complete records")
      assert.are.equal(0, cap.record_count)
      assert.is_false(cap.terminated)
      cap:close()
    end)

    it("names the field when the file ends inside a group", function()
      local bytes = spec_file()
      local cap = h.open_ok(h.write_in(dir, "cut2.dm", bytes:sub(1, 200)))
      assert.are.same({ "at byte 193: slot 1, group 3 (bit 19): expected the extended block (23 bytes), "
        .. "only 7 left before the end of the file; the file is truncated: kept 0 complete records" },
        cap.warnings)
      cap:close()
      -- cut inside the second record: the first is kept
      cap = h.open_ok(h.write_in(dir, "cut3.dm", bytes:sub(1, 303 + 1 + 4)))
      assert.are.equal(1, cap.record_count)
      assert.are.equal(2, cap.slot_count)
      assert.are.same({ "at byte 305: slot 3: expected time and bitfield (8 bytes), only 3 left before "
        .. "the end of the file; the file is truncated: kept 2 complete records" }, cap.warnings)
      assert.are.equal(1000, cap:record(1).time)
      cap:close()
    end)

    it("names a block count that claims more records than the bytes left", function()
      local cap = h.open_ok(h.write_in(dir, "over.dm", "\200\0\0"))
      assert.are.equal(2, cap.slot_count)
      assert.are.equal(2, cap.empty_records)
      assert.are.same({ "at byte 3: slot 3: expected the have_data byte (1 byte), only 0 left before the "
        .. "end of the file; the file is truncated (the block count 200 at byte 0 claims more records "
        .. "than the 2 bytes after it can hold): kept 2 complete records" }, cap.warnings)
      cap:close()
    end)

    it("warns when the final count byte after a full block is missing", function()
      local path = dir .. "/noterm.dm"
      local w = vp.writer("dm", path)
      for _ = 1, 255 do w:empty() end
      w:close { terminate = false }
      assert.are.equal(256, #h.read_file(path))
      local cap = h.open_ok(path)
      assert.are.equal(255, cap.slot_count)
      assert.is_false(cap.terminated)
      assert.are.same({ "at byte 256: expected the count byte of a block of dm records (element 256), "
        .. "found the end of the file: the file ends without the record array's final count byte; "
        .. "kept 255 complete records" }, cap.warnings)
      cap:close()
    end)

    it("reports garbage after the last record", function()
      local path = dir .. "/garbage.dm"
      local w = vp.writer("dm", path)
      w:record { time = 1 }
      w:close { trailing = "junk!" }
      local cap = h.open_ok(path)
      assert.are.equal(1, cap.record_count)
      assert.are.equal(5, cap.trailing_bytes)
      assert.are.equal(10, cap.array_end)
      assert.are.same({ "at byte 10: 5 bytes after the record array's final count byte (garbage after "
        .. "the last record?) were not read" }, cap.warnings)
      cap:close()
      assert.matches("at byte 10: 5 bytes after", h.open_fails(path, { strict = true }, "EFORMAT"))
    end)

    it("refuses an empty file", function()
      local path = h.write_in(dir, "empty.dm", "")
      assert.matches("empty%.dm", h.open_fails(path, nil, "EEMPTY"))
    end)

    it("never reads past the end of fuzz-like inputs #slow", function()
      h.each_mutant(dir, "fz.dm", spec_file(), 777, function(cap)
        for r in cap:records() do
          for g in r:groups() do assert.is_number(g.state) end
        end
      end)
    end)
  end)

  describe("lifetimes", function()
    it("raises 'capture is closed' on records and iterators after close", function()
      local cap = open_spec()
      local r = cap:record(1)
      local it = cap:records()
      local groups = r:groups()
      cap:close()
      assert.has_error(function() return r.time end, "capture is closed")
      assert.has_error(function() r:groups() end, "capture is closed")
      assert.has_error(function() groups() end, "capture is closed")
      assert.has_error(function() it() end, "capture is closed")
      assert.has_error(function() return cap:record(1) end, "capture is closed")
    end)

    it("keeps the capture alive while a record lives", function()
      local r = h.after_gc(function() return open_spec():record(2) end)
      assert.are.equal(2000, r.time)
    end)
  end)

  describe("writer", function()
    it("raises on unknown fields and bits outside 0..19", function()
      local w = vp.writer("dm", dir .. "/w.dm")
      assert.has_error(function() w:record { tme = 1 } end, "w:record: unknown field 'tme'")
      assert.has_error(function() w:record { groups = { [0] = { posiiton = {} } } } end,
        "dm group: unknown field 'posiiton'")
      assert.has_error(function() w:record { groups = { [20] = {} } } end,
        "w:record: groups are keyed by bit 0..19 (use bitfield= to set other bits)")
      w:close()
    end)
  end)

  describe("movement.lua", function()
    -- Six samples 100 ms apart moving at 10 units/s along x, a jump at the
    -- third, air for two intervals, and a 2-unit correction at the fifth.
    local path
    setup(function()
      path = dir .. "/walk.dm"
      local w = vp.writer("dm", path)
      local xs = { 0, 1, 2, 3, 6, 7 }
      local gt = { 100, 200, -100, -200, 100, 200 }
      local tslj = { 500, 600, 0, 100, 200, 300 }
      local energy = { 100, 80, 60, 70, 70, 70 }
      for i = 1, 6 do
        local groups = { [0] = { position = { x = xs[i], y = 0, z = 0 }, velocity = { x = 10, y = 0, z = 0 },
          ground_time = gt[i], time_since_last_jump = tslj[i], jetpack_energy = energy[i] } }
        if i % 2 == 1 then groups[2] = { position = { x = xs[i], y = 0, z = 0 } } end
        w:record { time = 900 + 100 * i, groups = groups }
      end
      w:close()
    end)

    it("derives distance, speeds, ground/air time, jumps, jetpack use and corrections", function()
      local doc = h.run_json("scripts/movement.lua", path, "--json")
      h.has_fields(doc, {
        format = "dm", bit = 0, bits = { { bit = 0, groups = 6 }, { bit = 2, groups = 3 } }, records = 6,
        samples = 6, ext_samples = 6, first_time = 1000, last_time = 1500, duration_ms = 500,
        speed_velocity = { samples = 6, mean = 10, p50 = 10, p95 = 10, max = 10 },
        ground_ms = 300, air_ms = 200, unknown_ms = 0, ground_pct = 60, air_pct = 40, jumps = 1, takeoffs = 1,
        landings = 1, jetpack = { samples = 6, first = 100, last = 70, min = 60, max = 100, used = 40, recharged = 10 },
      })
      assert.is_true(h.near(7, doc.distance))
      local sp = doc.speed_position
      assert.are.equal(5, sp.pairs)
      assert.is_true(h.near(14, sp.overall))
      assert.is_true(h.near(14, sp.mean))
      assert.is_true(h.near(10, sp.p50))
      assert.is_true(h.near(30, sp.p95))
      assert.is_true(h.near(30, sp.max))
      local c = doc.corrections
      assert.are.equal(1, c.count)
      assert.are.equal(5, c.checked_pairs)
      assert.are.equal(0.5, c.min_correction)
      local one = c.list[1]
      assert.are.equal(1400, one.time)
      assert.are.equal(5, one.record)
      assert.are.equal(100, one.dt_ms)
      assert.is_true(h.near(2, one.size, 1e-5))
      assert.is_true(h.near(4, one.expected.x, 1e-5))
      assert.are.same({ x = 6, y = 0, z = 0 }, one.to)
    end)

    it("follows --bit, honours --min-correction and fails on a bit with no groups", function()
      local doc = h.run_json("scripts/movement.lua", path, "--json", "--bit", "2")
      assert.are.equal(2, doc.bit)
      assert.are.equal(3, doc.samples)
      assert.are.equal(0, doc.ext_samples)
      assert.are.equal(0, doc.speed_velocity.samples)
      assert.are.equal(require("cjson").null, doc.speed_velocity.mean)
      assert.are.equal(400, doc.unknown_ms)
      assert.are.equal(0, doc.corrections.checked_pairs)
      doc = h.run_json("scripts/movement.lua", path, "--json", "--min-correction", "2.5")
      assert.are.equal(0, doc.corrections.count)
      local r = h.run("scripts/movement.lua", path, "--bit", "5")
      assert.are.equal(2, r.code)
      assert.matches("no record has a group under bit 5 %(bits present: 0 2%)", r.stderr)
    end)

    it("prints a readable summary and the definitions in --help", function()
      local r = h.run("scripts/movement.lua", path)
      assert.are.equal(0, r.code, r.stderr)
      assert.matches("distance%s+7 units", r.stdout)
      assert.matches("jumps%s+1 %(takeoffs 1, landings 1%)", r.stdout)
      -- first..last is not min..max: each figure says which it is
      assert.matches("jetpack energy%s+used 40, recharged 10 %(first 100, last 70, min 60, max 100%)", r.stdout)
      assert.matches("1,400%s+5%s+2", r.stdout)
      h.help_mentions("scripts/movement.lua", { "correction", "ground_time > 0 is on the ground" })
      r = h.run("scripts/movement.lua", dir .. "/nope.dm")
      assert.are.equal(2, r.code)
    end)

    it("finds the three planted corrections and twelve jumps in the example", function()
      local sample = h.example_sample("dm")
      local doc = h.run_json("scripts/movement.lua", sample, "--json")
      assert.are.equal(1200, doc.samples)
      assert.are.equal(3, doc.corrections.count)
      local times = {}
      for i, c in ipairs(doc.corrections.list) do times[i] = c.time end
      assert.are.same({ 612300, 631000, 647500 }, times)
      assert.is_true(h.near(1.5, doc.corrections.list[1].size, 1e-3))
      assert.is_true(h.near(4, doc.corrections.list[3].size, 1e-3))
      assert.are.equal(12, doc.jumps)
      assert.are.equal(15, doc.takeoffs)
      assert.are.equal(1800, doc.jetpack.used)
      -- deterministic
      assert.are.equal(h.read_file(sample), h.read_file(h.example_sample("dm")))
    end)
  end)
end)
