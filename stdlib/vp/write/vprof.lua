-- vp.write.vprof: the VProf (.vprof) writer, vp.writer("vprof", path [, opts]),
-- built from specs/vprof-format.md and the VProf section of
-- specs/format-notes.md only.
--
-- The writer keeps its own copy of the tree, the way the engine's recorder
-- does: a new node is prepended to its parent's child list, and every frame
-- writes the timings of the whole tree in pre-order over that list. Group
-- and node declarations are queued and written inside the next frame
-- (groups first), as Record_Snapshot does. The file is written as it goes.
local write = require "vp.write"

local fail, failed, to_integer, to_number = write.fail, write.failed, write.to_integer, write.to_number
local pack, concat, unpack, floor, mtype = string.pack, table.concat, table.unpack, math.floor, math.type

local TOK_START, TOK_ADDNODE, TOK_ADDGROUP, TOK_TIMINGS, TOK_END = 0, 1, 2, 3, 4
local INT32_MIN, INT32_MAX, UINT32_MAX = -0x80000000, 0x7FFFFFFF, 0xFFFFFFFF
local TWO64 = 18446744073709551616.0

--- The spec's 31 default budget groups (its table, section 4), in id order.
local DEFAULTS = {
  { "Unaccounted", 6 }, { "World Rendering", 1 }, { "Displacement_Rendering", 1 }, { "Game", 6 },
  { "Player", 6 }, { "NPCs", 6 }, { "Server Animation", 6 }, { "Client_Animation", 1 }, { "Physics", 6 },
  { "Static_Prop_Rendering", 1 }, { "Other_Model_Rendering", 1 }, { "Fast Path Model Rendering", 1 },
  { "Light_Cache", 1 }, { "Brush_Model_Rendering", 1 }, { "Shadow_Rendering", 1 },
  { "Detail_Prop_Rendering", 1 }, { "Particle/Effect_Rendering", 1 }, { "Ropes", 1 },
  { "Dynamic_Light_Rendering", 1 }, { "Networking", 6 }, { "Sound", 6 }, { "VGUI", 6 }, { "FileSystem", 6 },
  { "Prediction", 1 }, { "Interpolation", 1 }, { "Swap_Buffers", 1 }, { "Occlusion", 1 }, { "Overlays", 1 },
  { "Tools", 5 }, { "Texture_Cache", 1 }, { "Replay", 2 },
}

-- Argument n of method fname as an int32, `what` naming it when it does not fit.
local function i32(v, n, fname, what)
  local i = to_integer(v)
  if not i then fail("bad argument #%d to '%s' (number expected, got %s)", n, fname, type(v)) end
  if i < INT32_MIN or i > INT32_MAX then fail("%s %d does not fit an int32", what, i) end
  return i
end

-- Option key of vp.writer's table as an int32 (def when absent).
local function opt_i32(opts, key, def)
  local v = opts[key]
  if v == nil then return def end
  local i = to_integer(v)
  if not i then fail("option '%s' must be an integer", key) end
  if i < INT32_MIN or i > INT32_MAX then fail("vp.writer: option '%s' (%d) does not fit an int32", key, i) end
  return i
end

local def = { stream = true, methods = {} }

function def.options(opts)
  local o = {
    version = opt_i32(opts, "version", 1),
    root_id = opt_i32(opts, "root_id", 0),
    escape_width = opt_i32(opts, "escape_width", 4),
    group_base = opt_i32(opts, "group_base", 0),
  }
  if o.escape_width ~= 4 and o.escape_width ~= 8 then
    fail("vp.writer: option 'escape_width' must be 4 or 8, got %d", o.escape_width)
  end
  if o.group_base < 0 then
    fail("vp.writer: option 'group_base' must be >= 0 (0 or 31), got %d", o.group_base)
  end
  return o
end

-- The tree: nodes by slot (1: the root, k: the (k-1)-th node added), each
-- with its id, parent, first child and next sibling (slots, false for none).
local function tree_add(st, id, parent)
  local ids = st.ids
  local s = #ids + 1
  ids[s], st.slot[id], st.first[s], st.parent[s] = id, s, false, parent or false
  if parent then
    -- Prepended, as CVProfNode::GetSubNode does.
    st.next[s] = st.first[parent]
    st.first[parent] = s
  else
    st.next[s] = false
  end
  if s == 1 or id > st.max_id then st.max_id = id end
  st.order = nil
end

-- The node ids in pre-order, walked without recursion (the tree's depth
-- is the caller's).
local function preorder(st)
  local first, nxt, parent, ids = st.first, st.next, st.parent, st.ids
  local o, k, s = {}, 0, 1
  while true do
    k = k + 1
    o[k] = ids[s]
    if first[s] then
      s = first[s]
    else
      while s ~= 1 and not nxt[s] do s = parent[s] end
      if s == 1 then break end
      s = nxt[s]
    end
  end
  st.order = o
  return o
end

function def.new(st, o)
  st.o = o
  st.ids, st.slot, st.first, st.next, st.parent = {}, {}, {}, {}, {}
  st.groups, st.nodes = {}, {} -- records queued for the next frame
  st.ngroups, st.nframes = 0, 0
  -- The frame being written: each node's calls and units, and the
  -- positions of the ones whose timing is escaped.
  st.vals, st.longs = {}, {}
  tree_add(st, o.root_id, nil)
  st.file:put(pack("<i4i4", o.version, o.root_id))
end

--- w:group(name [, flags]) -> id: queue an AddBudgetGroup record.
function def.methods.group(st, name, flags)
  name = write.string(name, 1, "group")
  local f = 0
  if flags ~= nil then
    f = to_integer(flags)
    if not f then fail("bad argument #2 to 'group' (number expected, got %s)", type(flags)) end
  end
  -- Flags are a bit set written as int32: the unsigned spelling is taken too.
  if f < INT32_MIN or f > UINT32_MAX then fail("group flags %d do not fit 32 bits", f) end
  local id = st.o.group_base + st.ngroups
  if id > INT32_MAX then failed(st, "too many budget groups") end
  st.groups[#st.groups + 1] = pack("<I1", TOK_ADDGROUP) .. write.cstr(name) .. pack("<I4", f & UINT32_MAX)
  st.ngroups = st.ngroups + 1
  return id
end

--- w:default_groups() -> {name = id}: the 31 default groups, in id order.
function def.methods.default_groups(st)
  local ids = {}
  for _, g in ipairs(DEFAULTS) do ids[g[1]] = def.methods.group(st, g[1], g[2]) end
  return ids
end

--- w:node(parent_id, name, group_id [, node_id]) -> node_id
function def.methods.node(st, parent_id, name, group_id, node_id)
  local parent = i32(parent_id, 1, "node", "parent id")
  name = write.string(name, 2, "node")
  local group = i32(group_id, 3, "node", "group id")
  local id
  if node_id == nil then
    if st.max_id == INT32_MAX then failed(st, "no node id left above %d", st.max_id) end
    id = st.max_id + 1
  else
    id = i32(node_id, 4, "node", "node id")
  end
  local ps = st.slot[parent]
  if not ps then failed(st, "unknown parent node id %d", parent) end
  if st.slot[id] then failed(st, "node id %d is already used", id) end
  st.nodes[#st.nodes + 1] = pack("<I1i4", TOK_ADDNODE, parent) .. write.cstr(name) .. pack("<i4i4", group, id)
  tree_add(st, id, ps)
  return id
end

-- Microseconds of node id from a times entry: a number >= 0, below 2^64.
local function micros(v, id)
  local us = to_number(v)
  if not us then fail("w:frame: time of node %d must be a number, got %s", id, type(v)) end
  if not (us >= 0 and us < TWO64) then
    fail("w:frame: time of node %d must be a finite number >= 0", id)
  end
  return us
end

local function count_of(c, id)
  c = to_integer(c)
  if not c or c < 0 then fail("w:frame: calls of node %d must be an integer >= 0", id) end
  return c
end

-- One timing: calls (escaped from 255 on), then the time in 4 us units
-- (escaped from 0xFFFF on, in escape_width bytes).
local function timing(calls, units, escape)
  return (calls < 255 and pack("<I1", calls) or pack("<I1I2", 255, calls))
    .. (units < 0xFFFF and pack("<I2", units) or pack(escape, 0xFFFF, units))
end

-- The pack formats of BLOCK timings that are all short (calls < 255 and
-- units < 0xFFFF: almost every one), by count.
local BLOCK = 4096
local TIMINGS, END = pack("<I1", TOK_TIMINGS), pack("<I1", TOK_END)
local SHORT = setmetatable({}, { __index = function(t, n)
  local f = "<" .. ("I1I2"):rep(n)
  t[n] = f
  return f
end })

--- w:frame(tick [, times]); times[node_id] = us | {us =, calls =}
function def.methods.frame(st, tick, times)
  tick = i32(tick, 1, "frame", "tick")
  if times ~= nil and type(times) ~= "table" then
    fail("bad argument #2 to 'frame' (table expected, got %s)", type(times))
  end
  local wide = st.o.escape_width == 8
  local order = st.order or preorder(st)
  local n = #order
  -- Each node's calls and units, in pre-order, checked before anything is
  -- written; times left out are 0 time and 0 calls.
  local vals, longs, matched, nlong = st.vals, st.longs, 0, 0
  for k = 1, n do
    local id = order[k]
    local v = times and times[id]
    local us, calls = 0, 0
    if v ~= nil then
      matched = matched + 1
      if type(v) == "table" then
        us, calls = v.us, v.calls
        if us == nil then
          us = 0
        elseif type(us) ~= "number" or not (us >= 0 and us < TWO64) then
          us = micros(us, id)
        end
        if calls == nil then
          calls = 1
        elseif mtype(calls) ~= "integer" or calls < 0 then
          calls = count_of(calls, id)
        end
      else
        us, calls = v, 1
        if type(us) ~= "number" or not (us >= 0 and us < TWO64) then us = micros(us, id) end
      end
    end
    -- Floor division: the time truncated to 4 us units (a float's too).
    local units = us // 4
    if units > UINT32_MAX and not wide then
      failed(st, "time %s us of node id %d does not fit escape width 4",
        mtype(us) == "integer" and tostring(us) or ("%.0f"):format(floor(us)), id)
    end
    if calls > 65535 then calls = 65535 end
    if calls >= 255 or units >= 0xFFFF then
      nlong = nlong + 1
      longs[nlong] = k
    end
    vals[2 * k - 1], vals[2 * k] = calls, units
  end
  if times then
    local keys = 0
    for _ in next, times do keys = keys + 1 end
    if keys > matched then
      for key in next, times do
        local id = mtype(key) == "integer" and key
        if not id or id < INT32_MIN or id > INT32_MAX then
          fail("w:frame: times keys must be node ids (int32), got %s", type(key))
        end
        if not st.slot[id] then fail("w:frame: times names node id %d, which was never added", id) end
      end
    end
  end
  -- The timings: the short ones packed BLOCK at a time, the escaped ones
  -- between them one by one.
  local timings
  if nlong == 0 and n <= BLOCK then
    timings = pack(SHORT[n], unpack(vals, 1, 2 * n))
  else
    local parts, first = {}, 1
    local escape = wide and "<I2I8" or "<I2I4"
    longs[nlong + 1] = n + 1
    for j = 1, nlong + 1 do
      local stop = longs[j]
      while first < stop do
        local last = math.min(stop - 1, first + BLOCK - 1)
        parts[#parts + 1] = pack(SHORT[last - first + 1], unpack(vals, 2 * first - 1, 2 * last))
        first = last + 1
      end
      if stop <= n then
        parts[#parts + 1] = timing(vals[2 * stop - 1], vals[2 * stop], escape)
        first = stop + 1
      end
    end
    timings = concat(parts)
  end
  local queued = ""
  if #st.groups > 0 or #st.nodes > 0 then
    queued = concat(st.groups) .. concat(st.nodes)
    st.groups, st.nodes = {}, {}
  end
  st.file:put(pack("<I1i4", TOK_START, tick) .. queued .. TIMINGS .. timings .. END)
  st.nframes = st.nframes + 1
end

-- Fields: the options, always; the counts while the writer is open.
function def.get(st, k)
  local o = st.o
  if k == "root_id" or k == "escape_width" or k == "group_base" or k == "version" then return o[k] end
  if st.closed then return nil end
  if k == "frames" then return st.nframes end
  if k == "node_count" then return #st.ids end
  if k == "group_count" then return st.ngroups end
  return nil
end

-- Closing adds nothing: records queued after the last frame are dropped
-- (they cannot stand outside a frame).

return { open = write.class("vprof", def), DEFAULTS = DEFAULTS }
