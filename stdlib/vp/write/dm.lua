-- vp.write.dm: the movement trace (.dm) writer, vp.writer("dm", path), built
-- from the .dm section of specs/format-notes.md alone.
--
-- The file is one chunked array of records, written as it goes: the open
-- block's records (255 at most) wait until the block is full, since its
-- count byte comes first. Records are tables with the field names the
-- reader gives; flags take true/false or the byte to write, and overrides
-- (bitfield, counts) and raw bytes build broken files.
local write = require "vp.write"

local fail, pack, concat = write.fail, string.pack, table.concat
local int, vec, flag = write.int, write.vec, write.flag

-- Group bits 0..19 (format-notes).
local GROUP_BITS = 20

local BASE_KEYS = { "short_time", "position", "orientation", "direction", "state", "have_ext" }
local EXT_KEYS = { "unknown_1", "velocity", "unknown_2", "unknown_3", "jetpack_energy", "ground_time",
  "time_since_last_jump", "have_collision", "arrows", "arrow_count", "floats", "float_count", "unknown_4",
  "unknown_5", "unknown_6" }
local COLLISION_KEYS = { "arrows", "arrow_count", "floats", "float_count" }
-- What the reader's tables hold besides the fields: taken, never written.
local READ_KEYS = { "bit", "index", "offset", "size" }
local GROUP_KEYS = write.keys(BASE_KEYS)
for _, list in ipairs({ EXT_KEYS, READ_KEYS }) do
  for _, k in ipairs(list) do GROUP_KEYS[k] = true end
end
local RECORD_KEYS = write.keys({ "time", "groups", "bitfield", "used" })

local WHAT = "dm group"

-- The collision block's lists: the arrows ({origin =, direction =}, 6 f32
-- each) and the floats.
local function collision(g)
  local arrows = type(g.arrows) == "table" and g.arrows or {}
  if #arrows > 255 then fail("%s: at most 255 arrows (u8 count)", WHAT) end
  local a = {}
  for i = 1, #arrows do
    local arrow = rawget(arrows, i)
    if type(arrow) ~= "table" then fail("%s: arrow %d must be {origin=, direction=}", WHAT, i) end
    a[i] = vec(arrow, "origin", 3, WHAT) .. vec(arrow, "direction", 3, WHAT)
  end
  local floats = type(g.floats) == "table" and g.floats or {}
  if #floats > 255 then fail("%s: at most 255 floats (u8 count)", WHAT) end
  local f = {}
  for i = 1, #floats do
    local x = write.to_number(rawget(floats, i))
    if not x then fail("%s: float %d must be a number", WHAT, i) end
    f[i] = pack("<f", x)
  end
  local arrow_count = int(g, "arrow_count", -1, -1, 255, WHAT)
  local float_count = int(g, "float_count", -1, -1, 255, WHAT)
  return pack("<I1", arrow_count >= 0 and arrow_count or #a) .. concat(a)
    .. pack("<I1", float_count >= 0 and float_count or #f) .. concat(f)
end

-- One movement group from its table: the base block, the extended block
-- when have_ext is 1 (any extended field sets it), the collision block in
-- it when have_collision is not 0 (arrows or floats set it).
local function group(g)
  if type(g) ~= "table" then fail("%s must be a table", WHAT) end
  for k in pairs(g) do
    if type(k) ~= "string" or not GROUP_KEYS[k] then fail("%s: unknown field '%s'", WHAT, tostring(k)) end
  end
  local out = {
    pack("<I2", int(g, "short_time", 0, 0, 0xFFFF, WHAT)), vec(g, "position", 3, WHAT),
    vec(g, "orientation", 4, WHAT), vec(g, "direction", 3, WHAT), pack("<I2", int(g, "state", 0, 0, 0xFFFF, WHAT)),
  }
  local have_ext = flag(g, "have_ext", write.has_any(g, EXT_KEYS), WHAT)
  out[#out + 1] = pack("<I1", have_ext)
  if have_ext ~= 1 then return concat(out) end
  out[#out + 1] = pack("<I2", int(g, "unknown_1", 0, 0, 0xFFFF, WHAT))
  out[#out + 1] = vec(g, "velocity", 3, WHAT)
  out[#out + 1] = pack("<I1I1I2i2i2", int(g, "unknown_2", 0, 0, 255, WHAT), int(g, "unknown_3", 0, 0, 255, WHAT),
    int(g, "jetpack_energy", 0, 0, 0xFFFF, WHAT), int(g, "ground_time", 0, -0x8000, 0x7FFF, WHAT),
    int(g, "time_since_last_jump", 0, -0x8000, 0x7FFF, WHAT))
  local have_collision = flag(g, "have_collision", write.has_any(g, COLLISION_KEYS), WHAT)
  out[#out + 1] = pack("<I1", have_collision)
  if have_collision ~= 0 then out[#out + 1] = collision(g) end
  out[#out + 1] = vec(g, "unknown_4", 3, WHAT) .. vec(g, "unknown_5", 3, WHAT)
    .. pack("<I1", int(g, "unknown_6", 0, 0, 255, WHAT))
  return concat(out)
end

local def = { stream = true, methods = {}, close_keys = write.keys({ "terminate", "trailing" }) }

function def.options(opts)
  write.check_keys(opts, "vp.writer dm options", {})
  return opts
end

function def.new(st)
  -- The open block: its records and the raw bytes among them, and how
  -- many records it holds.
  st.block, st.nblock, st.in_block, st.records = {}, 0, 0, 0
end

local function put_block(st, s)
  st.block[#st.block + 1] = s
  st.nblock = st.nblock + #s
end

-- The open block as written: its count byte, then its bytes.
local function block_bytes(st)
  return pack("<I1", st.in_block) .. concat(st.block)
end

-- Count the element just put; a full block goes to the file.
local function commit(st)
  st.records = st.records + 1
  st.in_block = st.in_block + 1
  if st.in_block == 255 then
    st.file:put(block_bytes(st))
    st.block, st.nblock, st.in_block = {}, 0, 0
  end
end

-- Where the next record starts once written out: the blocks already
-- emitted, the count byte of the open block and its bytes.
function def.size(st)
  return st.file:size() + 1 + st.nblock
end

-- Raw bytes go inside the array, where the next record would, not counted.
function def.raw(st, bytes)
  put_block(st, bytes)
end

--- w:record{time =, groups = {[bit] = group}, bitfield =, used =} -> offset.
-- used (true) writes the have_data byte 1; false or a number writes that
-- byte alone (broken files).
function def.methods.record(st, r)
  if type(r) ~= "table" then fail("bad argument #1 to 'record' (table expected, got %s)", type(r)) end
  write.check_keys(r, "w:record", RECORD_KEYS)
  local what = "w:record"
  local have_data = flag(r, "used", 1, what)
  local time = int(r, "time", 0, 0, 0xFFFFFFFF, what)
  local groups, bits = {}, 0
  local gs = r.groups
  if gs ~= nil then
    if type(gs) ~= "table" then fail("w:record: groups must be a table {[bit] = group}") end
    for b in pairs(gs) do
      if math.type(b) ~= "integer" or b < 0 or b >= GROUP_BITS then
        fail("w:record: groups are keyed by bit 0..19 (use bitfield= to set other bits)")
      end
    end
    for b = 0, GROUP_BITS - 1 do
      local g = rawget(gs, b)
      if g ~= nil then
        groups[#groups + 1] = group(g)
        bits = bits | 1 << b
      end
    end
  end
  local bitfield = int(r, "bitfield", bits, 0, 0xFFFFFFFF, what)
  local at = def.size(st)
  put_block(st, have_data == 1 and pack("<I1I4I4", 1, time, bitfield) .. concat(groups) or pack("<I1", have_data))
  commit(st)
  return at
end

--- w:empty() -> offset: an empty record (have_data 0).
function def.methods.empty(st)
  local at = def.size(st)
  put_block(st, "\0")
  commit(st)
  return at
end

--- w:close{terminate = true, trailing = bytes}
function def.close_options(_, t)
  local trailing = t.trailing
  return { terminate = t.terminate == nil or not not t.terminate,
    trailing = (type(trailing) == "string" or type(trailing) == "number") and tostring(trailing) or "" }
end

-- Closing ends the array: the open block's count byte and bytes (with
-- terminate = false, not the 00 of an empty block after a full one), then
-- the trailing bytes asked for.
function def.tail(st, copts)
  local terminate, trailing = true, ""
  if copts then terminate, trailing = copts.terminate, copts.trailing end
  if terminate or st.in_block ~= 0 or st.nblock ~= 0 then return block_bytes(st) .. trailing end
  return trailing
end

function def.get(st, k)
  if k == "records" and not st.closed then return st.records end
  return nil
end

return { open = write.class("dm", def) }
