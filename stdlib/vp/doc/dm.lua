-- vp.doc.dm: documentation of the .dm (movement trace) model and its writer.
-- Read by vp.doc (the REPL's help() and docs/api.md).
local doc = require "vp.doc"

return doc.parse([=[
class vp.dm: movement trace capture (.dm)
  The client's debugmovement overlay exported with debugmovement_export: one chunked array of records, each
  with a time, a 20-bit group mask and one group of position, orientation and movement state per set bit.
  Opening validates every record and indexes them; records are decoded on access. A file that ends inside the
  array keeps every complete record with a warning naming the offset (vp.open(path, {strict = true}) makes it
  an error, as are bytes after the array). have_data or have_ext values other than 0/1 and bitfield bits
  20..31 are read as the notes say and reported as warnings.
${CAPTURE}
field record_count
  records with data (have_data == 1); also #cap
  > print(cap.record_count)
field slot_count
  elements of the record array, empty records included
  > print(cap.slot_count)
field empty_records
  elements without data
  > print(cap.empty_records)
field group_count
  groups over all records
  > print(cap.group_count)
field ext_group_count
  groups with the extended block
  > print(cap.ext_group_count)
field collision_group_count
  groups with collision data
  > print(cap.collision_group_count)
field groups_by_bit
  groups per bit: {[bit] = count} for the bits present (0..19)
  > for bit, n in pairs(cap.groups_by_bit) do print(bit, n) end
field bits_seen
  OR of every record's bitfield
  > print(string.format('%x', cap.bits_seen))
field time_min
  smallest record time (nil without records)
  > print(cap.time_min)
field time_max
  largest record time (nil without records)
  > print(cap.time_max)
field terminated
  true when the array's final count byte was read
  > print(cap.terminated)
field truncated
  true when the file ends inside the array
  > print(cap.truncated)
field trailing_bytes
  bytes after the array's final count byte (not read)
  > print(cap.trailing_bytes)
field array_end
  byte offset where the readable array ends
  > print(cap.array_end)
operator # #cap
  number of records with data
  > print(#cap)
method cap:records([i]) -> iterator
  the records with data in file order, from the i-th
  > for r in cap:records() do print(r.time, r.group_count) end
method cap:slots() -> iterator of slot, record|false
  every element of the array: its 1-based number and its record, or false when empty (the same iterator as a
  .dw capture's)
  > for i, r in cap:slots() do print(i, r and r.time) end
method cap:record(i) -> record
  record i (1-based among records with data); out of range raises
  > print(cap:record(1).time)
method cap:track(bit) -> table of lists
  every group under one bit (0..19) as columns in the order of (record time, record index), built in C without
  a table per record: time, record (1-based), x, y, z (position), ext (true when the extended block is there),
  vx, vy, vz, ground_time, since_jump, energy (0 without the extended block); what movement.lua reads
  > local t = cap:track(0) print(#t.time, t.x[1])
method cap:summary() -> {{name =, value =}, ...}
  rows for info.lua: records, empty records, groups, group bits, time range, truncation
  > for _, r in ipairs(cap:summary()) do print(r.name, r.value) end
method cap:close()
  release the file; later use of the capture or its records raises
  > cap:close()

class vp.dm.record: one record of a .dm capture
  A record keeps its capture alive; using it after cap:close() raises "capture is closed". Groups are plain
  tables: bit (0..19), index (1-based in the record), offset, size, short_time (u16), position, orientation
  (quaternion {x, y, z, w}), direction, state (u16, looks like the movement state), have_ext (boolean); with
  the extended block: unknown_1 (u16), velocity, unknown_2, unknown_3 (u8), jetpack_energy (u16), ground_time
  (i16: positive on the ground, negative in the air), time_since_last_jump (i16), have_collision (boolean),
  arrow_count, arrows = list of {origin, direction}, float_count and floats = list of numbers when
  have_collision, unknown_4, unknown_5 (Vec3f), unknown_6 (u8).
field index
  1-based position among the records with data
  > print(r.index)
field slot
  1-based element number in the array (empty records counted)
  > print(r.slot)
field offset
  byte offset of the record's have_data byte
  > print(r.offset)
field size
  bytes of the record
  > print(r.size)
field used
  true: the slot holds a record (its have_data byte is 1); empty slots are false in cap:slots()
  > print(r.used)
field time
  u32 record time
  > print(r.time)
field bitfield
  u32 mask of the groups recorded (bits 0..19)
  > print(string.format('%x', r.bitfield))
field group_count
  set bits among 0..19: the groups present
  > print(r.group_count)
field bits
  list of the set bits among 0..19, low first
  > print(table.concat(r.bits, ' '))
method r:groups() -> iterator
  the record's groups, low bit first
  > for g in r:groups() do print(g.bit, g.position.x, g.ground_time) end
method r:group(bit) -> group | nil
  the group recorded under bit, or nil
  > local g = r:group(0); if g then print(g.state) end
method r:group_list() -> list
  every group as a list, low bit first
  > print(#r:group_list())
method r:totable() -> table
  every field and the groups as plain tables
  > local copy = r:totable()
operator == r1 == r2
  true for the same record of the same capture
  > print(cap:record(1) == cap:record(1))

class vp.dm.writer: writer for .dm files (vp.writer("dm", path))
  Writes a .dm as it goes (tests, examples, broken files): records are framed as the chunked array, 255 per
  block. Group tables use the reader's field names; any extended field (velocity, jetpack_energy,
  ground_time, ...) writes the extended block and arrows or floats write the collision block. Unknown keys
  raise.
extends vp.writer
method w:record{time =, groups = {[bit] = group}, bitfield =, used =} -> offset
  append a record; the bitfield defaults to the bits of groups (0..19). For broken files: bitfield, used (the
  have_data byte: true 1, or any byte), and in a group have_ext, have_collision (true/false or a byte),
  arrow_count and float_count
  > w:record{time = 10, groups = {[0] = {position = {x = 1, y = 2, z = 3}}}}
method w:empty() -> offset
  append an empty record (have_data 0)
  > w:empty()
field records
  records written so far (array elements)
  > print(w.records)
method w:raw(bytes) -> offset
  bytes inside the array where the next record goes, not counted; returns where they start
  > w:raw("\1\0")
method w:close{terminate = true, trailing = bytes} -> bytes
  end the array (terminate = false leaves out the 00 after a full block), append trailing bytes, close;
  returns the file size (again on a second close); also __close and __gc
  > w:close{trailing = "junk"}
]=], {
  CAPTURE = doc.capture_fields("dm", "truncation, trailing bytes, odd flags, bits 20..31"),
})
