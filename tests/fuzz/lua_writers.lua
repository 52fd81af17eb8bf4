-- lua_writers.lua: the writers harness (tests/fuzz/lua_driver.c runs it in
-- one persistent Lua state): a round trip. Input: a selector byte (the
-- format: 0 devt, 1 dlag, 2 dm, 3 dw) and the file. A capture that opens
-- whole (not truncated, nothing trailing) is written again with the
-- format's writer, from what the reader returned and nothing else, and the
-- copy is read back: every record of the two must be equal (NaN equal to
-- NaN: a float NaN keeps no payload through a Lua number).
--
-- A reader and its writer share nothing but the spec, so a difference is a
-- bug in one of them; the driver aborts with the first difference.
local vp = require "vp"

local FORMATS = { "devt", "dlag", "dm", "dw" }
local tmp = os.tmpname()

local function without(t, drop)
  local o = {}
  for k, v in pairs(t) do
    if not drop[k] then o[k] = v end
  end
  return o
end

local write = {}

function write.devt(cap)
  local w = vp.writer("devt", tmp, { time = cap.time, unknown = cap.unknown,
    graph_duration = cap.graph_duration, prefix = cap.prefix, bitfield = cap.bitfield })
  for g in cap:groups() do
    local evs = {}
    for ev in g:events() do evs[#evs + 1] = { time1 = ev.time1, time2 = ev.time2, type = ev.type } end
    w:group(evs, { total = g.total })
  end
  w:close()
end

local function samples(list)
  local s = {}
  for i, x in ipairs(list) do s[i] = { value = x.value, time = x.time, unknown = x.unknown } end
  return s
end

function write.dlag(cap)
  local w = vp.writer("dlag", tmp, { time = cap.time })
  for m in cap:measurements() do w:measurement(samples(m:totable().samples), { total = m.total }) end
  local states = {}
  for gs in cap:graph_states() do
    states[#states + 1] = without(gs, { index = true, bits = true, file_offset = true })
  end
  w:graph_states(states)
  w:traceroute_host(cap.traceroute_host)
  for hop in cap:hops() do
    local h = hop:totable()
    w:hop { address = h.address, name = h.name, samples = samples(h.samples),
      unknown_u8_1 = h.unknown_u8_1, unknown_u32 = h.unknown_u32, unknown_floats = h.unknown_floats,
      unknown_u8_2 = h.unknown_u8_2 }
  end
  w:close()
end

local GROUP_DROP = { bit = true, index = true, offset = true, size = true }

function write.dm(cap)
  local w = vp.writer("dm", tmp)
  for _, r in cap:slots() do
    if r then
      local groups = {}
      for _, g in ipairs(r:group_list()) do groups[g.bit] = without(g, GROUP_DROP) end
      w:record { time = r.time, bitfield = r.bitfield, groups = groups }
    else
      w:empty()
    end
  end
  w:close()
end

local TRACE_DROP = { slot = true, size = true, has_movement = true, index = true, offset = true }

function write.dw(cap)
  local w = vp.writer("dw", tmp, { header = cap.header, max_size = cap.max_size })
  for _, t in cap:slots() do
    if t then w:trace(without(t:totable(), TRACE_DROP)) else w:empty_slot() end
  end
  w:close { last_trace_counter = cap.last_trace_counter, footer = cap.has_footer }
end

-- Everything a capture holds, as plain tables.
local dump = {}

function dump.devt(cap)
  local d = { cap.time, cap.unknown, cap.graph_duration, cap.prefix, cap.bitfield }
  for g in cap:groups() do d[#d + 1] = g:totable() end
  return d
end

function dump.dlag(cap)
  local d = { cap.time, cap.traceroute_host }
  for m in cap:measurements() do d[#d + 1] = m:totable() end
  for gs in cap:graph_states() do d[#d + 1] = gs end
  for h in cap:hops() do d[#d + 1] = h:totable() end
  return d
end

function dump.dm(cap)
  local d = {}
  for i, r in cap:slots() do d[i] = r and r:totable() or false end
  return d
end

function dump.dw(cap)
  local d = { cap.header, cap.max_size, cap.last_trace_counter or false }
  for i, t in cap:slots() do d[#d + 1 + i] = t and t:totable() or false end
  return d
end

-- The first difference between a and b, or nil.
local function diff(a, b, where)
  if type(a) == "number" and type(b) == "number" then
    if a == b or (a ~= a and b ~= b) then return nil end
    return string.format("%s: %.17g ~= %.17g", where, a, b)
  end
  if type(a) ~= "table" or type(b) ~= "table" then
    if a == b then return nil end
    return string.format("%s: %s ~= %s", where, tostring(a), tostring(b))
  end
  for k, v in pairs(a) do
    local d = diff(v, b[k], where .. "." .. tostring(k))
    if d then return d end
  end
  for k in pairs(b) do
    if a[k] == nil then return string.format("%s.%s: only in the copy", where, tostring(k)) end
  end
  return nil
end

return function(path, selector, _)
  local fmt = FORMATS[selector % #FORMATS + 1]
  local cap = vp.open(path, { format = fmt })
  if not cap then return end
  if cap.truncated or (cap.trailing_bytes or 0) > 0 then
    cap:close()
    return
  end
  write[fmt](cap)
  local copy = vp.open(tmp, { format = fmt })
  if not copy then error(fmt .. ": the written copy does not open", 0) end
  local d = diff(dump[fmt](cap), dump[fmt](copy), fmt)
  cap:close()
  copy:close()
  os.remove(tmp)
  if d then error("round trip: " .. d, 0) end
end
