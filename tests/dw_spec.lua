-- The .dw (weapon trace) model through the real bindings: every field of
-- format-notes.md (checked on bytes built here with string.pack straight
-- from the notes, independent of both the reader and the writer), optional
-- blocks present and absent, empty slots, the footer, random access,
-- lifetimes, the writer's bytes, and bad input with exact offsets.
local vp = require "vp"
local h = require "helpers"

local dir

-- Bytes from the notes ---------------------------------------------------

-- The 136-byte movement block with a distinct value in every field; each
-- part is checked to start at the offset the notes give.
local MOVEMENT_PARTS = {
  { 0x00, "ABCD" },
  { 0x04, h.vec3 { 1.5, 2.5, 3.5 } },           -- ray_start
  { 0x10, h.vec3 { -1, -2, -3 } },              -- ray_end
  { 0x1C, string.pack("<f", 250) },           -- weapon_range
  { 0x20, string.pack("<I2", 0xBEEF) },
  { 0x22, string.rep("\x22", 33) .. "\x23" },
  { 0x44, string.pack("<I4", 0x7FF61234) },   -- looks like a pointer
  { 0x48, string.pack("<B", 3) },             -- bullet
  { 0x49, "\x49\x4a\x4b" },
  { 0x4C, h.vec3 { 4, 5, 6 } },
  { 0x58, string.pack("<I4", 0x12345678) },   -- damage_per_round (u32)
  { 0x5C, string.rep("\x5c", 11) .. "\x5d" },
  { 0x68, h.vec3 { 7, 8, 9 } },
  { 0x74, string.pack("<I4", 4242) },         -- weapon_template_id
  { 0x78, string.pack("<B", 6) },             -- slot_index
  { 0x79, string.rep("\x79", 14) .. "\x7a" },
}

local function movement_bytes()
  local out = {}
  local off = 0
  for _, p in ipairs(MOVEMENT_PARTS) do
    assert(off == p[1], string.format("movement part at 0x%02X, expected 0x%02X", off, p[1]))
    out[#out + 1] = p[2]
    off = off + #p[2]
  end
  assert(off == 0x88)
  return table.concat(out)
end

-- hit = {type, trace_id, time, unknown, pos, dir, material,
--        entity = {guid, pos, rot, i8, u8, flag}, ragdoll = {guid, mats, flag, count}}
local function hit_bytes(t)
  local s = string.pack("<BI4I4I2", t.type, t.trace_id, t.time, t.unknown or 0)
    .. h.vec3(t.pos) .. h.vec3(t.dir) .. string.pack("<I4", t.material or 0)
  if t.entity then
    local e = t.entity
    s = s .. string.pack("<B", e.flag or 1) .. string.pack("<I8", e.guid) .. h.vec3(e.pos)
      .. string.pack("<ffff", e.rot[1], e.rot[2], e.rot[3], e.rot[4]) .. string.pack("<bB", e.i8, e.u8)
  else
    s = s .. "\0"
  end
  if t.ragdoll then
    local r = t.ragdoll
    s = s .. string.pack("<B", r.flag or 1) .. string.pack("<I8B", r.guid, r.count or #r.mats)
    for _, m in ipairs(r.mats) do
      for row = 1, 4 do s = s .. string.pack("<ffff", m[row][1], m[row][2], m[row][3], m[row][4]) end
    end
  else
    s = s .. "\0"
  end
  return s
end

local HIT_A = { type = 6, trace_id = 0xDEADBEEF, time = 1000, unknown = 0x0102, pos = { 1, 2, 3 },
  dir = { 0.5, -0.25, 2 }, material = 19 }
local MAT1 = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 }, { 13, 14, 15, 16 } }
local MAT2 = { { -1, 0, 0, 0 }, { 0, -1, 0, 0 }, { 0, 0, -1, 0 }, { 0.5, 0.25, 0.125, 1 } }
local HIT_B = { type = 3, trace_id = 0xDEADBEEF, time = 1010, unknown = 7, pos = { 10, 20, 30 },
  dir = { 0, 0, -1 }, material = 0,
  entity = { guid = (0x123456 << 8) | 0x09, pos = { -4, -5, -6 }, rot = { 0.5, 0.5, 0.5, 0.5 }, i8 = -3,
    u8 = 250 },
  ragdoll = { guid = (0x123456 << 8) | 0x09, mats = { MAT1, MAT2 } } }
local HIT_C = { type = 10, trace_id = 0xDEADBEEF, time = 1070, pos = { 10.25, 20, 30 }, dir = { 0, 1, 0 },
  material = 0x7fffffff,
  entity = { guid = 0xFFFFFFFFFFFFFF01, pos = { 1, 1, 1 }, rot = { 0, 0, 0, 1 }, i8 = 127, u8 = 0, flag = 2 } }

-- Slot 1: a full trace; slot 2 empty; slot 3: no movement, no hits.
local function spec_file(footer)
  local slot1 = string.pack("<BBI4I4", 1, 0x7F, 0xDEADBEEF, 9) .. movement_bytes()
    .. string.pack("<B", 2) .. hit_bytes(HIT_A) .. hit_bytes(HIT_B)
    .. string.pack("<B", 1) .. hit_bytes(HIT_C)
  local slot3 = string.pack("<BBI4I4BB", 1, 0, 0x01020304, 0, 0, 0)
  return "\1\2\3\4" .. "\5" .. slot1 .. "\0" .. slot3 .. string.pack("<I4", footer or 2)
end

local function open_spec()
  return h.open_ok(h.write_in(dir, "spec.dw", spec_file()))
end

-- The same content through the writer.
local function hit_table(t)
  local ht = { type = t.type, trace_id = t.trace_id, time = t.time, unknown_09 = t.unknown,
    position = { x = t.pos[1], y = t.pos[2], z = t.pos[3] },
    direction = { x = t.dir[1], y = t.dir[2], z = t.dir[3] }, physics_material = t.material }
  if t.entity then
    local e = t.entity
    ht.entity = { guid = e.guid, position = e.pos, rotation = e.rot, unknown_24 = e.i8, unknown_25 = e.u8 }
    ht.have_entity = e.flag
  end
  if t.ragdoll then ht.ragdoll = { guid = t.ragdoll.guid, transforms = t.ragdoll.mats } end
  return ht
end

local function written_spec_file(path)
  local w = vp.writer("dw", path, { header = "\1\2\3\4", max_size = 5 })
  w:trace {
    unknown_01 = 0x7F, trace_id = 0xDEADBEEF, ammo_type_id = 9,
    movement = {
      unknown_00 = "ABCD", ray_start = { 1.5, 2.5, 3.5 }, ray_end = { x = -1, y = -2, z = -3 },
      weapon_range = 250, unknown_20 = 0xBEEF, unknown_22 = string.rep("\x22", 33) .. "\x23",
      unknown_44 = string.pack("<I4", 0x7FF61234), bullet = 3, unknown_49 = "\x49\x4a\x4b",
      unknown_4c = { 4, 5, 6 }, damage_per_round = 0x12345678,
      unknown_5c = string.rep("\x5c", 11) .. "\x5d", unknown_68 = { 7, 8, 9 },
      weapon_template_id = 4242, slot_index = 6, unknown_79 = string.rep("\x79", 14) .. "\x7a",
    },
    client = { hit_table(HIT_A), hit_table(HIT_B) },
    server = { hit_table(HIT_C) },
  }
  w:empty_slot()
  w:trace { trace_id = 0x01020304 }
  return w:close { last_trace_counter = 2 }
end

describe("dw", function()
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("layout from the notes", function()
    it("reads the header, max_size, slots and footer", function()
      local bytes = spec_file()
      assert.are.equal(4 + 1 + (1 + 1 + 4 + 4 + 136 + 1 + 41 + 216 + 1 + 79) + 1 + 12 + 4, #bytes)
      local cap = h.open_ok(h.write_in(dir, "spec.dw", bytes))
      h.has_fields(cap, {
        format = "dw", size = #bytes, warnings = {}, header = "\1\2\3\4", header_bytes = { 1, 2, 3, 4 },
        header_u32 = 0x04030201, max_size = 5, last_trace_counter = 2, has_footer = true, wrapped = false,
        truncated = false, trace_count = 2, slot_count = 3, empty_slots = 1, client_hit_count = 2,
        server_hit_count = 1, movement_count = 1, slots_end = #bytes - 4,
      })
      assert.are.equal(2, #cap)
      h.has_fields(cap.hits_by_type, { Impact = 1, Posefile_Hit = 1, Validated = 1, ERROR = 0 })
      assert.matches("^<dw spec%.dw: 2 traces, 3 slots, 2 client / 1 server hits>$", tostring(cap))
      cap:close()
    end)

    it("reads every field of a trace and its movement block by offset", function()
      local cap = open_spec()
      local t = cap:trace(1)
      h.has_fields(t, {
        index = 1, slot = 1, offset = 5, size = 1 + 1 + 4 + 4 + 136 + 1 + 41 + 216 + 1 + 79, used = true,
        unknown_01 = 0x7F, trace_id = 0xDEADBEEF, ammo_type_id = 9, has_movement = true, client_count = 2,
        server_count = 1,
      })
      local m = t.movement
      assert.are.equal(15, m.offset)
      assert.are.equal("ABCD", m.unknown_00)
      h.same_vec({ 1.5, 2.5, 3.5 }, m.ray_start)
      h.same_vec({ -1, -2, -3 }, m.ray_end)
      assert.are.equal(250, m.weapon_range)
      assert.are.equal(0xBEEF, m.unknown_20)
      assert.are.equal(string.rep("\x22", 33) .. "\x23", m.unknown_22)
      -- the pointer-like u32 is kept as bytes, never as a number
      assert.are.equal("string", type(m.unknown_44))
      assert.are.equal(string.pack("<I4", 0x7FF61234), m.unknown_44)
      assert.are.equal(3, m.bullet)
      assert.are.equal("\x49\x4a\x4b", m.unknown_49)
      h.same_vec({ 4, 5, 6 }, m.unknown_4c)
      assert.are.equal(0x12345678, m.damage_per_round)
      assert.are.equal(string.rep("\x5c", 11) .. "\x5d", m.unknown_5c)
      h.same_vec({ 7, 8, 9 }, m.unknown_68)
      assert.are.equal(4242, m.weapon_template_id)
      assert.are.equal(6, m.slot_index)
      assert.are.equal(string.rep("\x79", 14) .. "\x7a", m.unknown_79)
      cap:close()
    end)

    it("reads hit records with and without the entity and ragdoll blocks", function()
      local cap = open_spec()
      local t = cap:trace(1)
      local c = h.all(t:client_hits())
      assert.are.equal(2, #c)
      local a = c[1]
      assert.are.equal("client", a.side)
      assert.are.equal(1, a.index)
      assert.are.equal(15 + 136 + 1, a.offset)
      assert.are.equal(6, a.type)
      assert.are.equal("Impact", a.type_name)
      assert.are.equal(0xDEADBEEF, a.trace_id)
      assert.are.equal(1000, a.time)
      assert.are.equal(0x0102, a.unknown_09)
      h.same_vec({ 1, 2, 3 }, a.position)
      h.same_vec({ 0.5, -0.25, 2 }, a.direction) -- not normalised
      assert.are.equal(19, a.physics_material)
      assert.is_false(a.have_entity)
      assert.is_nil(a.entity)
      assert.is_false(a.have_ragdoll)
      assert.is_nil(a.ragdoll)

      local b = c[2]
      assert.are.equal(a.offset + 41, b.offset)
      assert.are.equal("Posefile_Hit", b.type_name)
      assert.are.equal(7, b.unknown_09)
      assert.are.equal(0, b.physics_material)
      assert.is_true(b.have_entity)
      assert.are.equal((0x123456 << 8) | 9, b.entity.guid)
      assert.are.equal(0x123456, b.entity.entity_id)
      assert.are.equal(9, b.entity.controller)
      h.same_vec({ -4, -5, -6 }, b.entity.position)
      h.same_vec({ 0.5, 0.5, 0.5, 0.5 }, b.entity.rotation)
      assert.are.equal(-3, b.entity.unknown_24)
      assert.are.equal(250, b.entity.unknown_25)
      assert.is_true(b.have_ragdoll)
      assert.are.equal(0x123456, b.ragdoll.entity_id)
      assert.are.equal(9, b.ragdoll.controller)
      assert.are.equal(2, b.ragdoll.count)
      assert.are.same({ MAT1, MAT2 }, b.ragdoll.transforms)

      local s = h.all(t:server_hits())
      assert.are.equal(1, #s)
      local v = s[1]
      assert.are.equal("server", v.side)
      assert.are.equal(b.offset + 216 + 1, v.offset)
      assert.are.equal("Validated", v.type_name)
      assert.are.equal(0x7fffffff, v.physics_material)
      -- any non-zero flag announces the block
      assert.is_true(v.have_entity)
      assert.are.equal(0xFFFFFFFFFFFFFF01 >> 8, v.entity.entity_id)
      assert.are.equal(1, v.entity.controller)
      assert.are.equal(127, v.entity.unknown_24)
      assert.is_nil(v.ragdoll)

      local both = {}
      for x in t:hits() do both[#both + 1] = x.side .. ":" .. x.type_name end
      assert.are.same({ "client:Impact", "client:Posefile_Hit", "server:Validated" }, both)
      assert.are.same(c, t:hit_list("client"))
      assert.are.same(s, t:hit_list("server"))
      cap:close()
    end)

    it("reads a trace without the movement block and without hits", function()
      local cap = open_spec()
      local t = cap:trace(2)
      assert.are.equal(2, t.index)
      assert.are.equal(3, t.slot)
      assert.are.equal(0x01020304, t.trace_id)
      assert.are.equal(0, t.ammo_type_id)
      assert.is_false(t.has_movement)
      assert.is_nil(t.movement)
      assert.are.equal(0, t.client_count)
      assert.are.equal(0, t.server_count)
      assert.are.same({}, h.all(t:client_hits()))
      assert.are.same({}, h.all(t:hits()))
      assert.are.equal(12, t.size)
      local tt = t:totable()
      assert.are.equal(0x01020304, tt.trace_id)
      assert.are.same({}, tt.client)
      assert.is_nil(tt.movement)
      cap:close()
    end)

    it("lists empty slots as false in cap:slots()", function()
      local cap = open_spec()
      h.same_slots(cap, "traces", "trace_id", { 0xDEADBEEF, false, 0x01020304 })
      cap:close()
    end)

    it("gives the same bytes from the writer", function()
      local path = dir .. "/written.dw"
      h.same_file(spec_file(), path, written_spec_file(path))
    end)

    it("summarises for info.lua", function()
      local cap = open_spec()
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[r.name] = r.value end
      assert.are.equal("01 02 03 04", rows.header)
      assert.are.equal(5, rows.max_size)
      assert.are.equal(3, rows.slots)
      assert.are.equal(2, rows.traces)
      assert.are.equal(1, rows["empty slots"])
      assert.are.equal(2, rows["client hits"])
      assert.are.equal(1, rows["server hits"])
      assert.are.equal(2, rows["last trace counter"])
      assert.is_false(rows.truncated)
      cap:close()
      local r = h.run("scripts/info.lua", dir .. "/spec.dw")
      assert.are.equal(0, r.code, r.stderr)
      assert.matches("traces%s+2", r.stdout)
      assert.matches("empty slots%s+1", r.stdout)
    end)
  end)

  describe("footer", function()
    it("reads the whole u32 and tells when the counter wrapped", function()
      local cap = h.open_ok(h.write_in(dir, "wrap.dw", spec_file(0xFFFFFFFF)))
      assert.are.equal(0xFFFFFFFF, cap.last_trace_counter)
      assert.is_false(cap.wrapped)
      cap:close()
      -- 2 used slots but the counter says 1: it went round
      cap = h.open_ok(h.write_in(dir, "wrap1.dw", spec_file(1)))
      assert.are.equal(1, cap.last_trace_counter)
      assert.is_true(cap.wrapped)
      cap:close()
    end)

    it("is 0 for a ring of empty slots", function()
      local w = vp.writer("dw", dir .. "/empty.dw", { max_size = 8 })
      for _ = 1, 8 do w:empty_slot() end
      assert.are.equal(4 + 1 + 8 + 4, w:close())
      local cap = h.open_ok(dir .. "/empty.dw")
      assert.are.equal(0, cap.trace_count)
      assert.are.equal(8, cap.slot_count)
      assert.are.equal(8, cap.empty_slots)
      assert.are.equal(0, cap.last_trace_counter)
      assert.are.same({}, h.all(cap:traces()))
      assert.has_error(function() cap:trace(1) end, "trace 1 is out of range: there are none")
      local slots = {}
      for i, t in cap:slots() do slots[i] = t end
      assert.are.same({ false, false, false, false, false, false, false, false }, slots)
      cap:close()
    end)

    it("reads a file with no slots at h.all", function()
      local cap = h.open_ok(h.write_in(dir, "none.dw", "\0\0\0\0\0" .. string.pack("<I4", 0)))
      assert.are.equal(0, cap.slot_count)
      assert.are.equal(0, cap.last_trace_counter)
      cap:close()
    end)
  end)

  describe("many traces", function()
    local path
    setup(function()
      path = dir .. "/many.dw"
      local w = vp.writer("dw", path, { max_size = 255 })
      for i = 1, 200 do
        if i % 7 == 0 then w:empty_slot() end
        w:trace { trace_id = 1000 + i, ammo_type_id = i % 3,
          movement = (i % 3 ~= 0) and { weapon_template_id = i } or nil,
          client = { { type = i % 11, time = i } } }
      end
      w:close()
    end)

    it("seeks to any trace (past the index checkpoints)", function()
      local cap = h.open_ok(path)
      assert.are.equal(200, cap.trace_count)
      assert.are.equal(228, cap.slot_count)
      for _, i in ipairs { 1, 2, 63, 64, 65, 66, 128, 129, 130, 199, 200 } do
        local t = cap:trace(i)
        assert.are.equal(1000 + i, t.trace_id)
        assert.are.equal(i, t.index)
        assert.are.equal(i + i // 7, t.slot)
      end
      assert.has_error(function() cap:trace(0) end, "trace 0 is out of range 1..200")
      assert.has_error(function() cap:trace(201) end, "trace 201 is out of range 1..200")
      assert.are.same({ 1190, 1191, 1192, 1193, 1194, 1195, 1196, 1197, 1198, 1199, 1200 },
        h.fields(cap:traces(190), "trace_id"))
      assert.are.same({}, h.all(cap:traces(201)))
      assert.is_true(cap:trace(65) == cap:trace(65))
      assert.is_false(cap:trace(65) == cap:trace(66))
      -- the same slot of another capture of the same file is another record
      local other = h.open_ok(path)
      assert.is_false(cap:trace(65) == other:trace(65))
      other:close()
      cap:close()
    end)
  end)

  describe("lifetimes", function()
    it("raises 'capture is closed' on traces and iterators after close", function()
      local cap = open_spec()
      local t = cap:trace(1)
      local it = cap:traces()
      local hits = t:client_hits()
      cap:close()
      cap:close() -- idempotent
      assert.has_error(function() return t.trace_id end, "capture is closed")
      assert.has_error(function() t:client_hits() end, "capture is closed")
      assert.has_error(function() it() end, "capture is closed")
      assert.has_error(function() hits() end, "capture is closed")
      assert.has_error(function() cap:traces() end, "capture is closed")
      assert.are.equal("<dw spec.dw: closed>", tostring(cap))
    end)

    it("keeps the capture alive while a trace lives", function()
      local t = h.after_gc(function() return open_spec():trace(2) end)
      assert.are.equal(0x01020304, t.trace_id)
    end)

    it("closes with <close>", function()
      local t
      do
        local cap <close> = open_spec()
        t = cap:trace(1)
      end
      assert.has_error(function() return t.trace_id end, "capture is closed")
    end)
  end)

  describe("bad input", function()
    it("names the offset of a used byte other than 0 or 1", function()
      local bytes = spec_file()
      -- slot 2 (the empty one) is at byte #bytes - 4 - 12 - 1
      local at = #bytes - 17
      local bad = bytes:sub(1, at) .. "\2" .. bytes:sub(at + 2)
      local path = h.write_in(dir, "used2.dw", bad)
      h.refuses(path, nil, "EFORMAT", "at byte " .. at
        .. ": slot 2: expected the used byte 0 (empty) or 1 (trace), found 2")
    end)

    it("refuses a file too short for the header and max_size", function()
      local path = h.write_in(dir, "short.dw", "\1\2\3")
      h.refuses(path, nil, "ETRUNC", "at byte 0: expected the 4-byte header and the max_size byte "
        .. "(5 bytes), the file has only 3")
      assert.matches("does%-not%-exist%.dw", h.open_fails(dir .. "/does-not-exist.dw", nil, "ENOENT"))
    end)

    it("keeps every slot when the footer is missing, with a warning", function()
      local bytes = spec_file()
      local path = h.write_in(dir, "nofooter.dw", bytes:sub(1, #bytes - 4))
      local cap = h.cut_file(path, "ETRUNC", "the file ends without the 4-byte footer (last_trace_counter): "
        .. "its 3 slots run to the last byte")
      assert.are.equal(2, cap.trace_count)
      assert.are.equal(3, cap.slot_count)
      assert.is_false(cap.has_footer)
      assert.is_nil(cap.last_trace_counter)
      cap:close()
    end)

    it("keeps the complete slots before a truncated one, naming offset and field", function()
      local bytes = spec_file()
      -- an empty slot, then slot 1 of the spec file cut inside the ragdoll
      -- transforms of its client hit 2
      local body = "\1\2\3\4\5" .. "\0" .. bytes:sub(6)
      local hit_b = 6 + 1 + 1 + 4 + 4 + 136 + 1 + 41
      local count_at = hit_b + 40 + 38 + 1 + 8
      assert.are.equal(281, count_at)
      local path = h.write_in(dir, "cut.dw", body:sub(1, count_at + 1 + 70))
      local cap = h.cut_file(path, "ETRUNC", "at byte 281: slot 2, client hit 2 of 2: ragdoll count 2 "
        .. "needs at least 128 bytes, only 70 left before the end of the file; the file is truncated or "
        .. "its footer is missing: kept 1 complete slot")
      assert.are.equal(1, cap.slot_count)
      assert.are.equal(0, cap.trace_count)
      assert.are.equal(1, cap.empty_slots)
      assert.is_false(cap.has_footer)
      cap:close()
    end)

    it("names the field when the file ends inside a fixed part", function()
      local bytes = spec_file()
      -- cut 20 bytes into the movement block of slot 1
      local path = h.write_in(dir, "cut2.dw", bytes:sub(1, 15 + 20))
      local cap = h.open_ok(path)
      assert.are.equal(0, cap.slot_count)
      assert.are.same({ "at byte 15: slot 1: expected the movement block (ammo_type_id is not 0) "
        .. "(136 bytes), only 20 left before the end of the file; the file is truncated or its "
        .. "footer is missing: kept 0 complete slots" }, cap.warnings)
      cap:close()
    end)

    it("names a hit count that claims more than the bytes left", function()
      local w = vp.writer("dw", dir .. "/over.dw", { max_size = 1 })
      local off = w:trace { trace_id = 7, client_count = 200,
        client = { { type = 6 } } }
      w:close()
      local cap = h.open_ok(dir .. "/over.dw")
      assert.are.equal(0, cap.trace_count)
      assert.is_true(cap.truncated)
      local count_at = off + 10
      assert.are.equal(15, count_at)
      assert.are.same({ "at byte 15: slot 1: client_count 200 needs at least 8200 bytes, only 46 "
        .. "left before the end of the file; the file is truncated or its footer is missing: kept 0 "
        .. "complete slots" }, cap.warnings)
      cap:close()
    end)

    it("reports garbage after the footer at the offset it breaks the slots", function()
      local bytes = spec_file(2)
      local path = h.write_in(dir, "garbage.dw", bytes .. "garbage")
      -- the old footer (counter 2) is read as slot 4's used byte
      h.refuses(path, nil, "EFORMAT", "at byte " .. (#bytes - 4)
        .. ": slot 4: expected the used byte 0 (empty) or 1 (trace), found 2")
    end)

    it("keeps hit types past 10 with a warning", function()
      local w = vp.writer("dw", dir .. "/type.dw")
      w:trace { trace_id = 1, client = { { type = 12 }, { type = 6 } } }
      w:close()
      local cap = h.open_ok(dir .. "/type.dw")
      local c = cap:trace(1):hit_list("client")
      assert.are.equal(12, c[1].type)
      assert.are.equal("unknown_12", c[1].type_name)
      assert.are.equal(1, cap.hits_by_type.unknown)
      assert.are.equal("1 hit records have a type outside 0..10 (the first at byte 16): kept with "
        .. "their number, named unknown_N", cap.warnings[1])
      cap:close()
    end)

    it("never reads past the end of fuzz-like inputs", function()
      h.each_mutant(dir, "fz.dw", spec_file(), 12345, function(cap)
        for t in cap:traces() do
          for x in t:hits() do assert.is_number(x.type) end
          local _ = t.movement
        end
      end)
    end)
  end)

  describe("writer", function()
    it("raises on unknown fields and impossible values", function()
      local w = vp.writer("dw", dir .. "/w.dw")
      assert.has_error(function() w:trace { trace_idd = 1 } end, "w:trace: unknown field 'trace_idd'")
      assert.has_error(function() w:trace { client = { { typ = 1 } } } end, "dw hit: unknown field 'typ'")
      assert.has_error(function() w:trace { client = { { type = "Boom" } } } end, "dw hit: unknown hit type 'Boom'")
      assert.has_error(function() w:trace { movement = {} } end,
        "w:trace: a movement block is only written when ammo_type_id is not 0")
      local many = {}
      for i = 1, 256 do many[i] = { type = 6 } end
      assert.has_error(function() w:trace { client = many } end, "w:trace: at most 255 client hits (u8 count)")
      assert.has_error(function() w:trace { ammo_type_id = 1, movement = { unknown_44 = "12345" } } end,
        "dw movement: field 'unknown_44' holds 5 bytes, at most 4 fit")
      assert.are.equal(5, w:tell())
      w:close()
      assert.has_error(function() vp.writer("dw", dir .. "/h.dw", { header = "abc" }) end,
        "vp.writer dw: header must be 4 bytes, got 3")
    end)

    it("writes the footer by default with the number of traces", function()
      local w = vp.writer("dw", dir .. "/d.dw", { header = 0x01000000, max_size = 3 })
      w:trace { trace_id = 1 }
      w:trace { trace_id = 2 }
      w:empty_slot()
      w:close()
      local b = h.read_file(dir .. "/d.dw")
      assert.are.equal("\0\0\0\1\3", b:sub(1, 5))
      assert.are.equal(2, string.unpack("<I4", b, #b - 3))
    end)
  end)
end)
