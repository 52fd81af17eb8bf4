-- vp.doc.dw: documentation of the .dw (weapon trace) model and its writer.
-- Read by vp.doc (the REPL's help() and docs/api.md).
local doc = require "vp.doc"

return doc.parse([=[
class vp.dw: weapon trace capture (.dw)
  The client's debugweapon overlay exported with debugweapon_export: a 4-byte header, max_size, a ring of
  trace slots and a u32 last_trace_counter footer. Each used slot is one bullet with the client's and the
  server's hit records side by side. Opening validates every slot once and indexes them; fields are decoded on
  access. A file that ends inside a slot (truncated, or without its footer) keeps every complete slot with a
  warning (vp.open(path, {strict = true}) makes that an ETRUNC error); a used byte other than 0 or 1 is an
  EFORMAT error naming its offset.
${CAPTURE}
field header
  the 4 header bytes as a string (they change with the debugweapon mode)
  > print(#cap.header)
field header_bytes
  the 4 header bytes as a list of numbers
  > print(cap.header_bytes[1])
field header_u32
  the header read as a little-endian u32
  > print(cap.header_u32)
field max_size
  u8, matches debugweapon.maxSize (the ring's slot count)
  > print(cap.max_size)
field last_trace_counter
  u32 footer: counts traces recorded, wraps past the maximum; nil when the footer is missing
  > print(cap.last_trace_counter)
field has_footer
  false when the file ended inside the slots
  > print(cap.has_footer)
field wrapped
  true when last_trace_counter is below trace_count (the counter has wrapped)
  > print(cap.wrapped)
field truncated
  true when bytes at the end could not be read as a slot
  > print(cap.truncated)
field trace_count
  used slots (also #cap)
  > print(cap.trace_count)
field slot_count
  slots in the file, empty ones included
  > print(cap.slot_count)
field empty_slots
  slots whose used byte is 0
  > print(cap.empty_slots)
field client_hit_count
  client hit records over all traces
  > print(cap.client_hit_count)
field server_hit_count
  server hit records over all traces
  > print(cap.server_hit_count)
field movement_count
  traces with the 136-byte movement block (ammo_type_id ~= 0)
  > print(cap.movement_count)
field hits_by_type
  hit records per type name (both sides), e.g. hits_by_type.Impact
  > print(cap.hits_by_type.Validated)
field slots_end
  byte offset after the last complete slot
  > print(cap.slots_end)
operator # #cap
  number of traces (used slots)
  > print(#cap)
method cap:traces([i]) -> iterator
  the traces (used slots) in file order, from the i-th
  > for t in cap:traces() do print(t.trace_id, t.client_count, t.server_count) end
method cap:slots() -> iterator of slot, trace|false
  every slot in file order: its 1-based number and its trace, or false when empty (the same iterator as a .dm
  capture's)
  > for i, t in cap:slots() do print(i, t and t.trace_id or 'empty') end
method cap:trace(i) -> trace
  trace i (1-based among used slots), random access; out of range raises
  > print(cap:trace(1).trace_id)
method cap:summary() -> {{name =, value =}, ...}
  rows for info.lua: header, max_size, slots, traces, empty slots, hits, movement blocks, counter, truncated
  > for _, r in ipairs(cap:summary()) do print(r.name, r.value) end
method cap:close()
  release the file; later use of the capture or its traces raises
  > cap:close()

class vp.dw.trace: one bullet (used slot) of a .dw capture
  A trace keeps its capture alive; using it after cap:close() raises "capture is closed". Hits are plain
  tables: side ("client"/"server"), index (1-based in its list), offset, type (0..10), type_name (ERROR,
  Spawn, Bounce, Posefile_Hit, Ragdoll_Hit, Ragdoll_Miss, Impact, Shot, Detonate, Timeout, Validated;
  unknown_N past 10), trace_id, time, unknown_09 (u16), position and direction ({x, y, z}; direction is not
  normalised), physics_material (a material id for Impact/Ragdoll_Hit/Validated, INT32_MAX for Spawn, 0 for
  Posefile_Hit), have_entity (boolean: any non-zero byte), entity = {guid, entity_id (guid >> 8), controller
  (guid & 0xff), position, rotation {x, y, z, w}, unknown_24 (i8), unknown_25 (u8)} or nil, have_ragdoll
  (boolean), ragdoll = {guid, entity_id, controller, count, transforms = list of 4x4 matrices m[row][col]} or
  nil. A guid is a Lua integer (the u64's bits).
field index
  1-based position among the traces
  > print(t.index)
field slot
  1-based slot number (empty slots counted)
  > print(t.slot)
field offset
  byte offset of the slot's used byte
  > print(t.offset)
field size
  bytes of the slot
  > print(t.size)
field used
  true: the slot holds a trace (its used byte is 1); empty slots are false in cap:slots()
  > print(t.used)
field unknown_01
  u8 after the used byte, meaning unknown
  > print(t.unknown_01)
field trace_id
  u32, PRNG generated: identifies one bullet
  > print(string.format('%08x', t.trace_id))
field ammo_type_id
  u32; the movement block is present when it is not 0
  > print(t.ammo_type_id)
field has_movement
  true when the 136-byte movement block is present
  > print(t.has_movement)
field movement
  the movement block as a table, or nil: offset, ray_start, ray_end, weapon_range, bullet, damage_per_round
  (u32), weapon_template_id, slot_index, and unknown_00 (4 bytes), unknown_20 (u16), unknown_22 (34 bytes),
  unknown_44 (4 bytes that look like a pointer), unknown_49 (3 bytes), unknown_4c (Vec3f), unknown_5c (12
  bytes), unknown_68 (Vec3f), unknown_79 (15 bytes), named by their offset in the block
  > local mv = t.movement; if mv then print(mv.weapon_template_id, mv.damage_per_round) end
field client_count
  number of client hit records
  > print(t.client_count)
field server_count
  number of server hit records
  > print(t.server_count)
method t:client_hits() -> iterator
  the client's hit records in file order
  > for h in t:client_hits() do print(h.type_name, h.position.x) end
method t:server_hits() -> iterator
  the server's hit records in file order
  > for h in t:server_hits() do print(h.type_name, h.entity and h.entity.entity_id) end
method t:hits() -> iterator
  client hits, then server hits (each with its side)
  > for h in t:hits() do print(h.side, h.type_name) end
method t:hit_list("client"|"server") -> list
  one side's hits as a list
  > print(#t:hit_list("server"))
method t:totable() -> table
  every field, the movement block and both hit lists (client, server) as plain tables
  > local copy = t:totable()
operator == t1 == t2
  true for the same trace of the same capture
  > print(cap:trace(1) == cap:trace(1))

class vp.dw.writer: writer for .dw files (vp.writer("dw", path, opts))
  Writes a .dw as it goes (tests, examples, broken files). opts: header (4-byte string, list
  of 4 bytes or a u32; default zeros), max_size (default 0). Tables use the reader's field names; vectors are
  {x=, y=, z=} or {1, 2, 3}; unknown byte fields take strings (zero-padded); a guid may be given as entity_id
  + controller. Unknown keys raise, so a typo cannot write a default silently.
extends vp.writer
method w:trace{trace_id =, ammo_type_id =, unknown_01 =, movement = {...}, client = {hit...}, server = \
    {hit...}} -> offset
  append a used slot; movement only when ammo_type_id ~= 0; hit.type is a number or a name; hit.trace_id
  defaults to the trace's; entity = {...} and ragdoll = {guid =, transforms = {m4x4...}} add their blocks.
  Overrides for broken files: used, client_count, server_count, have_entity, have_ragdoll, ragdoll.count
  > w:trace{trace_id = 1, client = {{type = "Impact", position = {x = 1, y = 2, z = 3}}}}
method w:empty_slot() -> offset
  append an empty slot (the byte 0)
  > w:empty_slot()
field traces
  traces (used slots) written so far
  > print(w.traces)
method w:close{last_trace_counter =, footer = true} -> bytes
  write the footer (default counter: traces written; footer = false leaves it out) and close; returns the file
  size (again on a second close); also __close and __gc
  > w:close{last_trace_counter = 3}
]=], {
  CAPTURE = doc.capture_fields("dw", "missing footer, truncated slot, hit types past 10"),
})
