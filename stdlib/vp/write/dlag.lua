-- vp.write.dlag: the lag profiler (.dlag) writer, vp.writer("dlag", path
-- [, opts]), built from the .dlag layout in specs/format-notes.md alone.
--
-- Parts are written in file order: measurements, graph states, the
-- traceroute host, tail records (hops). A later part completes the ones
-- skipped before it (an empty graph-state array 00, an empty host), and so
-- does finishing the file unless opts.complete is false. The header's
-- measurement count is filled in at the end; the file is built in memory.
-- Broken files: explicit counts, totals and block counts, a host without
-- its NUL, raw bytes anywhere, and a final cut.
local write = require "vp.write"

local fail, pack, concat = write.fail, string.pack, table.concat
local WHO = "dlag writer"
local UINT32_MAX = 0xFFFFFFFF

-- How far the file has got, in file order.
local MEASUREMENTS, GRAPH_STATES, HOST, HOPS = 1, 2, 3, 4
local PHASES = { "the measurements", "the graph states", "the traceroute host", "the tail records" }

local def = { methods = {} }

function def.options(opts)
  local o = { time = opts.time == nil and 0 or write.uint(opts.time, WHO, "time", UINT32_MAX) }
  if opts.measurement_count ~= nil then
    o.measurement_count = write.uint(opts.measurement_count, WHO, "measurement_count", UINT32_MAX)
  end
  o.complete = opts.complete == nil or not not opts.complete
  return o
end

function def.new(st, o)
  st.o, st.phase, st.measurements = o, MEASUREMENTS, 0
  st.file:put(pack("<I4I4", o.time, 0)) -- the measurement count, filled in at the end
end

-- Enter part `phase`: an error for a part after a later one (or a second
-- one of those written once); the parts skipped on the way completed as a
-- real export has them.
local function enter(st, phase)
  local at = st.phase
  if at > phase or (at == phase and phase ~= MEASUREMENTS and phase ~= HOPS) then
    write.failed(st, "%s cannot be written after %s", PHASES[phase], PHASES[at])
  end
  if at < GRAPH_STATES and phase > GRAPH_STATES then st.file:put("\0") end
  if at < HOST and phase > HOST then st.file:put("\0") end
  st.phase = phase
end

local function float(t, key, pos)
  local v = write.field(t, key, pos)
  if v == nil then return 0 end
  local x = write.to_number(v)
  if not x then fail("%s: %s must be a number", WHO, key) end
  return x
end

-- A sample: {value =, time =, unknown =} or {value, time, unknown}.
local function sample(s)
  return pack("<fI4I4", float(s, "value", 1), write.uint_field(s, WHO, "time", 2, UINT32_MAX, 0),
    write.uint_field(s, WHO, "unknown", 3, UINT32_MAX, 0))
end

-- A vector field of a graph state: {x =, y =, z =, w =} or {a, b, c, d}.
local function vec4(t, key)
  local v = t[key]
  if v == nil then return ("\0"):rep(16) end
  if type(v) ~= "table" then fail("%s: %s must be a table of 4 numbers", WHO, key) end
  return pack("<ffff", float(v, "x", 1), float(v, "y", 2), float(v, "z", 3), float(v, "w", 4))
end

-- A graph state: {measurement_count =, bitfield = bytes, offset = vec4,
-- scale = vec4, print_titles =, unknown =}.
local function graph_state(g)
  local count = write.uint_field(g, WHO, "measurement_count", 0, 0xFFFF, 0)
  local bits = g.bitfield
  if bits ~= nil then bits = write.string(bits, 1, "graph_states") end
  return pack("<I2", count) .. (bits or ("\0"):rep(write.bitfield_size(count))) .. vec4(g, "offset")
    .. vec4(g, "scale") .. pack("<I1I1", write.flag(g, "print_titles", false, WHO),
      write.uint_field(g, WHO, "unknown", 0, 255, 0))
end

-- The arguments of a part written as a list, w:part(list [, opts]).
local function part(fname, list, opts)
  if type(list) ~= "table" then fail("bad argument #1 to '%s' (table expected, got %s)", fname, type(list)) end
  if opts ~= nil and type(opts) ~= "table" then
    fail("bad argument #2 to '%s' (table expected, got %s)", fname, type(opts))
  end
end

--- w:measurement(samples [, {total =, chunks =}])
function def.methods.measurement(st, samples, opts)
  part("measurement", samples, opts)
  local elems, f = write.list(samples, WHO, "sample", sample), write.framing(opts, WHO)
  enter(st, MEASUREMENTS)
  st.measurements = st.measurements + 1
  st.file:put(write.totaled(elems, f))
end

--- w:graph_states(states [, {chunks =}])
function def.methods.graph_states(st, states, opts)
  part("graph_states", states, opts)
  local elems, f = write.list(states, WHO, "graph state", graph_state), write.framing(opts, WHO)
  enter(st, GRAPH_STATES)
  st.file:put(write.chunked(elems, f.chunks))
end

--- w:traceroute_host(host [, {nul = false}])
function def.methods.traceroute_host(st, host, opts)
  host = write.string(host, 1, "traceroute_host"):match("^[^%z]*")
  local nul = not (type(opts) == "table" and opts.nul ~= nil and not opts.nul)
  enter(st, HOST)
  st.file:put(nul and host .. "\0" or host)
end

-- "a.b.c.d" as 4 bytes, or nil.
local function address_parse(s)
  local b = { s:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$") }
  if #b ~= 4 then return nil end
  for i = 1, 4 do
    b[i] = tonumber(b[i])
    if b[i] > 255 then return nil end
  end
  return pack("BBBB", b[1], b[2], b[3], b[4])
end

--- w:hop{address = "a.b.c.d" | {a, b, c, d}, samples = {...}, chunks =,
---       name =, unknown_u8_1 =, unknown_u32 =, unknown_floats = {4},
---       unknown_u8_2 =}
function def.methods.hop(st, h)
  if type(h) ~= "table" then fail("bad argument #1 to 'hop' (table expected, got %s)", type(h)) end
  local a = h.address
  local address
  if type(a) == "string" then
    address = address_parse(a)
    if not address then fail("%s: address '%s' is not a.b.c.d", WHO, a) end
  elseif type(a) == "table" then
    local b = {}
    for j = 1, 4 do
      local v = rawget(a, j)
      b[j] = v == nil and 0 or write.uint(v, WHO, "address byte", 255)
    end
    address = pack("BBBB", b[1], b[2], b[3], b[4])
  elseif a == nil then
    address = "\0\0\0\0"
  else
    fail("%s: address must be a string or a table of 4 bytes", WHO)
  end
  local samples = write.list(h.samples, WHO, "sample", sample)
  local f = write.framing(h, WHO)
  local name = h.name == nil and "" or write.string(h.name, 1, "hop")
  local u8_1 = write.uint_field(h, WHO, "unknown_u8_1", 0, 255, 0)
  local u32 = write.uint_field(h, WHO, "unknown_u32", 0, UINT32_MAX, 0)
  local floats = { 0, 0, 0, 0 }
  if type(h.unknown_floats) == "table" then
    for j = 1, 4 do floats[j] = write.to_number(rawget(h.unknown_floats, j)) or 0 end
  end
  local u8_2 = write.uint_field(h, WHO, "unknown_u8_2", 0, 255, 0)
  enter(st, HOPS)
  st.file:put(concat({ address, write.chunked(samples, f.chunks), write.cstr(name),
    pack("<I1I4ffffI1", u8_1, u32, floats[1], floats[2], floats[3], floats[4], u8_2) }))
end

-- The finished file: the parts not written completed (unless
-- opts.complete is false) and the measurement count filled in.
function def.finish(st, bytes)
  local o = st.o
  if o.complete then
    if st.phase < GRAPH_STATES then bytes = bytes .. "\0" end
    if st.phase < HOST then bytes = bytes .. "\0" end
  end
  return bytes:sub(1, 4) .. pack("<I4", o.measurement_count or st.measurements) .. bytes:sub(9)
end

return { open = write.class("dlag", def) }
