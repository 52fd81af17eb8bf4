-- vp.write.dw: the weapon trace (.dw) writer, vp.writer("dw", path [,
-- {header =, max_size =}]), built from the .dw section of
-- specs/format-notes.md alone.
--
-- Layout written: u8[4] header, u8 max_size, one slot per trace or empty
-- slot in call order, then (at close, unless told not to) the u32
-- last_trace_counter footer; the file is written as it goes. Traces and
-- hits are tables with the field names the reader gives; flags take
-- true/false or the byte to write, and the count overrides build
-- deliberately inconsistent files.
local write = require "vp.write"

local fail, pack, concat = write.fail, string.pack, table.concat
local int, vec, flag, check_keys = write.int, write.vec, write.flag, write.check_keys
local UINT32_MAX = 0xFFFFFFFF

-- Hit types 0..10 by name (format-notes).
local HIT_TYPES = { "ERROR", "Spawn", "Bounce", "Posefile_Hit", "Ragdoll_Hit", "Ragdoll_Miss", "Impact", "Shot",
  "Detonate", "Timeout", "Validated" }
local HIT_TYPE = {}
for i, name in ipairs(HIT_TYPES) do HIT_TYPE[name] = i - 1 end

local TRACE_KEYS = write.keys({ "used", "unknown_01", "trace_id", "ammo_type_id", "movement", "client", "server",
  "client_count", "server_count" })
local HIT_KEYS = write.keys({ "type", "type_name", "trace_id", "time", "unknown_09", "position", "direction",
  "physics_material", "have_entity", "entity", "have_ragdoll", "ragdoll", "side", "index", "offset" })
local ENTITY_KEYS = write.keys({ "guid", "entity_id", "controller", "position", "rotation", "unknown_24",
  "unknown_25" })
local RAGDOLL_KEYS = write.keys({ "guid", "entity_id", "controller", "count", "transforms" })
local MOVEMENT_KEYS = write.keys({ "unknown_00", "ray_start", "ray_end", "weapon_range", "unknown_20", "unknown_22",
  "unknown_44", "bullet", "unknown_49", "unknown_4c", "damage_per_round", "unknown_5c", "unknown_68",
  "weapon_template_id", "slot_index", "unknown_79", "offset" })

local function num(t, k, what)
  local v = t[k]
  if v == nil then return 0 end
  local x = write.to_number(v)
  if not x then fail("%s: field '%s' must be a number", what, k) end
  return x
end

-- Unknown bytes: a string of at most n bytes, zero-padded.
local function bytes(t, k, n, what)
  local v = t[k]
  if v == nil then return ("\0"):rep(n) end
  if type(v) ~= "string" then fail("%s: field '%s' must be a string of bytes", what, k) end
  if #v > n then fail("%s: field '%s' holds %d bytes, at most %d fit", what, k, #v, n) end
  return v .. ("\0"):rep(n - #v)
end

-- A guid: `guid` as it is, or entity_id and controller (id << 8 | controller).
local function guid(t, what)
  if t.guid ~= nil then return int(t, "guid", 0, math.mininteger, math.maxinteger, what) end
  return int(t, "entity_id", 0, 0, 1 << 56, what) << 8 | int(t, "controller", 0, 0, 255, what)
end

local function hit_type(t, what)
  local v = t.type
  if type(v) == "string" then
    local n = HIT_TYPE[v]
    if not n then fail("%s: unknown hit type '%s'", what, v) end
    return n
  end
  if v == nil then return 0 end
  local n = write.to_integer(v)
  if not n or n < 0 or n > 255 then fail("%s: field 'type' must be a hit type name or 0..255", what) end
  return n
end

-- A ragdoll's transforms: 4x4 tables (rows) or 16 numbers, row-major.
local function transforms(list)
  local n = type(list) == "table" and #list or 0
  if n > 255 then fail("dw hit ragdoll: at most 255 transforms (u8 count)") end
  local out = {}
  for i = 1, n do
    local m = rawget(list, i)
    if type(m) ~= "table" then fail("dw hit ragdoll: transform %d must be a 4x4 table", i) end
    local flat = #m == 16
    local f = {}
    for k = 0, 15 do
      local x
      if flat then
        x = rawget(m, k + 1)
      else
        local row = rawget(m, k // 4 + 1)
        if type(row) ~= "table" then fail("dw hit ragdoll: transform %d row %d must be a table", i, k // 4 + 1) end
        x = rawget(row, k % 4 + 1)
      end
      f[k + 1] = x == nil and 0 or write.to_number(x)
      if not f[k + 1] then fail("dw hit ragdoll: transform %d holds a value that is no number", i) end
    end
    out[i] = pack("<" .. ("f"):rep(16), table.unpack(f, 1, 16))
  end
  return out
end

-- One hit from its table; trace_id defaults to the trace's.
local function hit(h, trace_id)
  local what = "dw hit"
  if type(h) ~= "table" then fail("%s must be a table", what) end
  check_keys(h, what, HIT_KEYS)
  local out = {
    pack("<I1I4I4I2", hit_type(h, what), int(h, "trace_id", trace_id, 0, UINT32_MAX, what),
      int(h, "time", 0, 0, UINT32_MAX, what), int(h, "unknown_09", 0, 0, 0xFFFF, what)),
    vec(h, "position", 3, what), vec(h, "direction", 3, what),
    pack("<I4", int(h, "physics_material", 0, 0, UINT32_MAX, what)),
  }
  local e = h.entity
  local entity = ("\0"):rep(8 + 12 + 16 + 2)
  if type(e) == "table" then
    local ew = "dw hit entity"
    check_keys(e, ew, ENTITY_KEYS)
    entity = pack("<i8", guid(e, ew)) .. vec(e, "position", 3, ew) .. vec(e, "rotation", 4, ew)
      .. pack("<i1I1", int(e, "unknown_24", 0, -128, 127, ew), int(e, "unknown_25", 0, 0, 255, ew))
  end
  local have_entity = flag(h, "have_entity", type(e) == "table", what)
  out[#out + 1] = pack("<I1", have_entity)
  if have_entity ~= 0 then out[#out + 1] = entity end
  local r = h.ragdoll
  local have_ragdoll
  if type(r) == "table" then
    local rw = "dw hit ragdoll"
    check_keys(r, rw, RAGDOLL_KEYS)
    local id = guid(r, rw)
    local ms = transforms(r.transforms)
    local count = int(r, "count", -1, -1, 255, rw)
    have_ragdoll = flag(h, "have_ragdoll", 1, what)
    out[#out + 1] = pack("<I1", have_ragdoll)
    if have_ragdoll ~= 0 then
      out[#out + 1] = pack("<i8I1", id, count >= 0 and count or #ms) .. concat(ms)
    end
  else
    have_ragdoll = flag(h, "have_ragdoll", 0, what)
    if have_ragdoll ~= 0 then fail("dw hit: have_ragdoll without a ragdoll table") end
    out[#out + 1] = pack("<I1", 0)
  end
  return concat(out)
end

-- The 136-byte movement block, field by field at the offsets of the notes.
local function movement(m)
  local what = "dw movement"
  check_keys(m, what, MOVEMENT_KEYS)
  local s = concat({
    bytes(m, "unknown_00", 4, what),                                          -- 0x00
    vec(m, "ray_start", 3, what), vec(m, "ray_end", 3, what),                 -- 0x04, 0x10
    pack("<fI2", num(m, "weapon_range", what), int(m, "unknown_20", 0, 0, 0xFFFF, what)), -- 0x1C, 0x20
    bytes(m, "unknown_22", 34, what), bytes(m, "unknown_44", 4, what),        -- 0x22, 0x44
    pack("<I1", int(m, "bullet", 0, 0, 255, what)), bytes(m, "unknown_49", 3, what), -- 0x48, 0x49
    vec(m, "unknown_4c", 3, what),                                            -- 0x4C
    pack("<I4", int(m, "damage_per_round", 0, 0, UINT32_MAX, what)),          -- 0x58
    bytes(m, "unknown_5c", 12, what), vec(m, "unknown_68", 3, what),          -- 0x5C, 0x68
    pack("<I4I1", int(m, "weapon_template_id", 0, 0, UINT32_MAX, what), int(m, "slot_index", 0, 0, 255, what)),
    bytes(m, "unknown_79", 15, what),                                         -- 0x79 .. 0x87
  })
  assert(#s == 0x88, "movement block layout")
  return s
end

-- The hits of one side of a trace.
local function side(t, key, trace_id)
  local list = t[key]
  if list == nil then return {} end
  if type(list) ~= "table" then fail("w:trace: field '%s' must be a list of hit tables", key) end
  if #list > 255 then fail("w:trace: at most 255 %s hits (u8 count)", key) end
  local out = {}
  for i = 1, #list do
    local h = rawget(list, i)
    if type(h) ~= "table" then fail("w:trace: %s hit %d must be a table", key, i) end
    out[i] = hit(h, trace_id)
  end
  return out
end

local def = { stream = true, methods = {}, close_keys = write.keys({ "last_trace_counter", "footer" }) }

function def.options(opts)
  check_keys(opts, "vp.writer dw options", write.keys({ "header", "max_size" }))
  local h = opts.header
  local header = "\0\0\0\0"
  if type(h) == "string" then
    if #h ~= 4 then fail("vp.writer dw: header must be 4 bytes, got %d", #h) end
    header = h
  elseif type(h) == "table" then
    local b = {}
    for i = 1, 4 do
      local v = rawget(h, i)
      b[i] = v == nil and 0 or write.to_integer(v)
      if not b[i] then fail("vp.writer dw: header byte %d must be an integer", i) end
    end
    header = pack("BBBB", b[1] & 0xFF, b[2] & 0xFF, b[3] & 0xFF, b[4] & 0xFF)
  elseif math.type(h) == "integer" then
    header = pack("<I4", h & UINT32_MAX)
  elseif h ~= nil then
    fail("vp.writer dw: header must be a 4-byte string, a list of 4 bytes or a u32")
  end
  return { header = header, max_size = int(opts, "max_size", 0, 0, 255, "vp.writer dw") }
end

function def.new(st, o)
  st.traces = 0
  st.file:put(o.header .. pack("<I1", o.max_size))
end

--- w:trace{...} -> offset of the slot
function def.methods.trace(st, t)
  if type(t) ~= "table" then fail("bad argument #1 to 'trace' (table expected, got %s)", type(t)) end
  local what = "w:trace"
  check_keys(t, what, TRACE_KEYS)
  local used = flag(t, "used", 1, what)
  local unknown_01 = int(t, "unknown_01", 0, 0, 255, what)
  local trace_id = int(t, "trace_id", 0, 0, UINT32_MAX, what)
  local ammo = int(t, "ammo_type_id", 0, 0, UINT32_MAX, what)
  local client_count = int(t, "client_count", -1, -1, 255, what)
  local server_count = int(t, "server_count", -1, -1, 255, what)
  local move = ("\0"):rep(0x88)
  if type(t.movement) == "table" then
    if ammo == 0 then fail("w:trace: a movement block is only written when ammo_type_id is not 0") end
    move = movement(t.movement)
  end
  local client, server = side(t, "client", trace_id), side(t, "server", trace_id)
  local at = st.file:size()
  st.file:put(concat({ pack("<I1I1I4I4", used, unknown_01, trace_id, ammo), ammo ~= 0 and move or "",
    pack("<I1", client_count >= 0 and client_count or #client), concat(client),
    pack("<I1", server_count >= 0 and server_count or #server), concat(server) }))
  st.traces = st.traces + 1
  return at
end

--- w:empty_slot() -> offset: an empty slot (the byte 0).
function def.methods.empty_slot(st)
  local at = st.file:size()
  st.file:put("\0")
  return at
end

--- w:close{last_trace_counter = N, footer = true}
function def.close_options(st, t)
  return { footer = t.footer == nil or not not t.footer,
    counter = int(t, "last_trace_counter", st.traces & UINT32_MAX, 0, UINT32_MAX, "w:close") }
end

-- Closing writes the footer: last_trace_counter, by default the traces written.
function def.tail(st, copts)
  if not copts then return pack("<I4", st.traces & UINT32_MAX) end
  return copts.footer and pack("<I4", copts.counter) or ""
end

function def.get(st, k)
  if k == "traces" and not st.closed then return st.traces end
  return nil
end

return { open = write.class("dw", def) }
