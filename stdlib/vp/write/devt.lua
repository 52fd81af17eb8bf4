-- vp.write.devt: the event profiler (.devt) writer, vp.writer("devt", path
-- [, opts]), built from the .devt layout in specs/format-notes.md alone.
--
-- The file is built in memory (a .devt is small), so the header's
-- group_count can be filled in at the end, and deliberately broken files
-- are easy: explicit totals, explicit block counts, raw bytes anywhere, and
-- a final cut. Events are {time1 =, time2 =, type =} or {time1, time2, type}.
local write = require "vp.write"

local pack = string.pack
local WHO = "devt writer"
local UINT32_MAX = 0xFFFFFFFF

-- Option key as an integer in 0..max (0 when absent).
local function opt_uint(opts, key, max)
  if opts[key] == nil then return 0 end
  return write.uint(opts[key], WHO, key, max)
end

local def = { methods = {} }

function def.options(opts)
  local o = {
    time = opt_uint(opts, "time", UINT32_MAX),
    unknown = opt_uint(opts, "unknown", UINT32_MAX),
    graph_duration = opt_uint(opts, "graph_duration", UINT32_MAX),
    prefix = opt_uint(opts, "prefix", 0xFFFF),
  }
  -- A count the header states, given to write a file whose count is wrong.
  if opts.group_count ~= nil then o.group_count = write.uint(opts.group_count, WHO, "group_count", UINT32_MAX) end
  o.bitfield = opts.bitfield
  if o.bitfield ~= nil and type(o.bitfield) ~= "string" then write.fail("option 'bitfield' must be a string") end
  return o
end

function def.new(st, o)
  st.o, st.groups = o, 0
  -- The header: the bitfield as given (broken files: any length), else the
  -- zeros of the right size for `prefix`; group_count is filled in at the end.
  st.file:put(pack("<I4I4I4I2", o.time, o.unknown, o.graph_duration, o.prefix)
    .. (o.bitfield or ("\0"):rep(write.bitfield_size(o.prefix))))
  st.count_at = st.file:size()
  st.file:put(pack("<I4", 0))
end

local function event(e)
  return pack("<I4I4I1", write.uint_field(e, WHO, "time1", 1, UINT32_MAX, 0),
    write.uint_field(e, WHO, "time2", 2, UINT32_MAX, 0), write.uint_field(e, WHO, "type", 3, 255, 0))
end

--- w:group(events [, {total = n, chunks = {...}}]): a group: its u32 total,
-- then the events as a chunked array.
function def.methods.group(st, events, f)
  if type(events) ~= "table" then write.fail("bad argument #1 to 'group' (table expected, got %s)", type(events)) end
  if f ~= nil and type(f) ~= "table" then write.fail("bad argument #2 to 'group' (table expected, got %s)", type(f)) end
  local elems = write.list(events, WHO, "event", event)
  st.file:put(write.totaled(elems, write.framing(f, WHO)))
  st.groups = st.groups + 1
end

-- The finished file: the group count filled in.
function def.finish(st, bytes)
  local at = st.count_at
  return bytes:sub(1, at) .. pack("<I4", st.o.group_count or st.groups) .. bytes:sub(at + 5)
end

return { open = write.class("devt", def) }
