-- lua_bindings.lua: the bindings harness (tests/fuzz/lua_driver.c runs it
-- in one persistent Lua state). Input: a format selector byte, then the
-- file. The file is opened through the real vp.open path (a memfd named by
-- /proc/self/fd/N: source, detection, reader), then every record is
-- walked: frames, nodes and children, groups, events, measurements and
-- samples, graph states, hops, records and their groups, slots, traces and
-- hits; every documented field of every object is read (vp.doc lists
-- them), every iterator run to its end, random access checked against the
-- walk, and the analyses the shipped scripts run on the format are run.
--
-- What may fail: vp.open (nil, message, code) and an analysis raising a
-- vp.error (input it cannot analyse). Anything else raised is a bug: the
-- driver aborts with the traceback.
local vp = require "vp"
local doc = require "vp.doc"
local E = require "vp.error"

local FORMATS = { false, "vprof", "devt", "dlag", "dm", "dw", "laige-profile", "laige-budget" }

-- Every documented field of an object of a vp class, tostring and #.
local fields_of = {}
local function touch(obj)
  local mt = getmetatable(obj)
  local name = mt and mt.__name
  if not name then return end
  local fields = fields_of[name]
  if not fields then
    fields = doc.fields(name)
    fields_of[name] = fields
  end
  for _, f in ipairs(fields) do
    local _ = obj[f]
  end
  local _ = tostring(obj)
  if mt.__len then local _ = #obj end
end

local function check(cond, fmt, ...)
  if not cond then error(string.format(fmt, ...), 2) end
end

-- An analysis may refuse the input with a vp.error; anything else is a bug.
local function analysis(f, ...)
  local ok, err = pcall(f, ...)
  if not ok and not E.is(err) then error(err, 0) end
end

local walk = {}

function walk.vprof(cap)
  local n = 0
  for fr in cap:frames() do
    n = n + 1
    touch(fr)
    for node, ms, calls in fr:nodes() do
      check(type(ms) == "number" and math.type(calls) == "integer", "frame node values")
      local _ = fr:self_ms(node) + fr:calls(node) + fr:time_ms(node)
    end
    if n >= 64 then break end
  end
  if cap.frame_count > 0 then
    touch(cap:frame(1))
    touch(cap:frame(cap.frame_count))
  end
  local nodes = 0
  for node in cap:nodes() do
    nodes = nodes + 1
    touch(node)
    for c in node:children() do check(c.parent == node, "a child's parent is the node") end
    check(cap:node(node.id) == node, "node by id")
    -- KNOWN (issue 15 item 2, the VProf paths): cap:node(path) searches
    -- with a fixed stack of 256 levels, so a deeper node's path leads
    -- nowhere (tests/hostile: "a path deeper than 256 levels", pending).
    -- Checked above that depth; drop the condition once paths are fixed.
    local p = node.path
    if node.depth < 256 then
      check(cap:node(p) ~= nil, "node %d's path %q leads nowhere", node.id, p)
    end
  end
  check(nodes == cap.node_count, "nodes() walked %d of %d", nodes, cap.node_count)
  for g in cap:groups() do
    touch(g)
    check(cap:group(g.id) == g, "group by id")
  end
  local _ = cap:frame_times()
  if cap.root then
    local _ = cap:series(cap.root, "self_ms")
  end
  local _ = cap:group_self_ms()
  local _ = cap:group_self_ms({ fold_hidden = true })
  local _ = cap:totals()
  analysis(require("vp.hitches").analyze, cap)
  analysis(require("vp.budget").analyze, cap)
  analysis(require("vp.top").analyze, cap)
  -- report.lua's data: the budget columns' pass with its per-frame figures
  -- (vp.export.core.columns), the call trees kept, the columns packed
  analysis(function(c) return require("vp.html").live(require("vp.overview").analyze(c)) end, cap)
end

-- The children of owner through iter(owner), each through visit when given:
-- child i has index i, there are #owner of them, and at(owner, n) is the
-- last again. Returns how many.
local function children(owner, iter, at, what, visit)
  local n = 0
  for x in iter(owner) do
    n = n + 1
    check(x.index == n, "%s %d: index %s", what, n, tostring(x.index))
    if visit then visit(x) end
  end
  check(n == #owner, "%ss walked %d, counted %d", what, n, #owner)
  if n > 0 then check(at(owner, n).index == n, "the last %s by index", what) end
  return n
end

function walk.devt(cap)
  local events = 0
  for g in cap:groups() do
    touch(g)
    events = events + children(g, g.events, g.event, "group " .. g.index .. " event")
    local _ = g:totable()
  end
  check(events == #cap, "events walked %d, counted %d", events, #cap)
  local _ = cap:event_stats()
  analysis(require("vp.events").analyze, cap)
end

local function samples_of(owner)
  touch(owner)
  local n = children(owner, owner.samples, owner.sample, "sample")
  check(#owner:values() == n and #owner:times() == n, "values and times")
  local _ = owner:totable()
end

function walk.dlag(cap)
  for m in cap:measurements() do
    samples_of(m)
    check(cap:measurement(m.index) == m, "measurement by index")
  end
  for gs in cap:graph_states() do check(cap:graph_state(gs.index).index == gs.index, "graph state") end
  for hop in cap:hops() do samples_of(hop) end
  analysis(require("vp.lag").analyze, cap)
end

-- A slotted capture (.dm, .dw): its records as children(), each touched
-- and then through visit, then the slots numbered 1.. with false or a
-- record of that slot.
local function slotted(cap, iter, visit, at)
  children(cap, iter, at, "record", function(r)
    touch(r)
    visit(r)
  end)
  local slots = 0
  for i, r in cap:slots() do
    slots = slots + 1
    check(i == slots and (r == false or r.slot == i), "slot numbering")
  end
end

function walk.dm(cap)
  slotted(cap, cap.records, function(r)
    for g in r:groups() do check(r:group(g.bit) ~= nil, "group by bit") end
    local _ = r:group_list()
    local _ = r:totable()
  end, cap.record)
  for b = 0, 19 do
    if cap.groups_by_bit[b] then
      local t = cap:track(b)
      check(#t.time == cap.groups_by_bit[b], "track of bit %d", b)
    end
  end
  analysis(require("vp.movement").analyze, cap)
end

function walk.dw(cap)
  slotted(cap, cap.traces, function(t)
    for _ in t:hits() do end
    for _ in t:client_hits() do end
    for _ in t:server_hits() do end
    local _ = t:hit_list("client")
    local _ = t:totable()
  end, cap.trace)
  analysis(require("vp.hitdiff").analyze, cap)
end

local function laige_walk(cap)
  analysis(require("vp.laige").analyze, cap)
  analysis(require("vp.laige").metrics, cap)
end
walk["laige-profile"] = laige_walk
walk["laige-budget"] = laige_walk

return function(path, selector, _)
  local fmt = FORMATS[selector % #FORMATS + 1]
  local cap = vp.open(path, fmt and { format = fmt } or nil)
  if not cap then return end
  touch(cap)
  local _ = cap:summary()
  analysis(require("vp.info").analyze, cap)
  local w = walk[cap.format]
  if w then w(cap) end
  cap:close()
end
