-- vp.repl.describe: how the REPL shows a capture, node, frame or group
-- (with its key timings), and the hints it prints under a value or an
-- error: a lookup that found nothing, a node's totals, a value that was
-- cut. Part of vp.repl (see there); the settings and the environment come
-- from the caller.
local describe = {}

--- describe.tostring(v) -> string: tostring(v), or what it is when its
-- __tostring fails.
function describe.tostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == "string" then return s end
  local mt = getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name") or type(v)
  return string.format("<%s: tostring failed: %s>", tostring(name), tostring(s))
end
local safe_tostring = describe.tostring

-- key timings --------------------------------------------------------------

-- Per capture, what the descriptions read: computed once (one C pass each),
-- dropped with the capture.
local per_capture = setmetatable({}, { __mode = "k" })

--- describe.class_of(v) -> the __name of v's metatable, or nil.
function describe.class_of(v)
  local mt = getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name")
  return type(name) == "string" and name or nil
end
local class_of = describe.class_of

--- describe.capture_of(child) -> the VProf capture a node, frame or group
-- keeps alive (its user value 1), or nil.
function describe.capture_of(child)
  local ok, cap = pcall(debug.getuservalue, child, 1)
  if ok and class_of(cap) == "vp.vprof" then return cap end
  return nil
end
local capture_of = describe.capture_of

local function cached(cap, key, make)
  local c = per_capture[cap]
  if not c then
    c = {}
    per_capture[cap] = c
  end
  if c[key] == nil then c[key] = make() end
  return c[key]
end

local function node_rows(cap)
  return cached(cap, "nodes", function()
    local rows = {}
    for _, r in ipairs(cap:totals()) do rows[r.node] = r end
    return rows
  end)
end

local function frame_times(cap)
  return cached(cap, "frame_times", function() return cap:frame_times() end)
end

local function ms(x) return require("vp.fmt").ms(x) end
local function int(x) return require("vp.fmt").int(x) end

-- "<... 91 nodes>" -> "<... 91 nodes" .. extra .. ">"
local function extend(v, extra)
  return (safe_tostring(v):gsub(">$", "")) .. extra .. ">"
end

local DESCRIBE = {}

DESCRIBE["vp.vprof"] = function(cap)
  local with_nodes = 0
  for g in cap:groups() do
    if g.has_nodes then with_nodes = with_nodes + 1 end
  end
  local out = string.format("<vprof %s: %s frames, %s nodes, %s groups (%s with nodes)",
    tostring(cap.path or "?"):match("[^/]*$"), int(cap.frame_count), int(cap.node_count), int(cap.group_count),
    int(with_nodes))
  local ft = frame_times(cap)
  if #ft > 0 then
    out = out .. string.format("; frame %s ms mean, p99 %s, max %s @ %s", ms(ft:mean()), ms(ft:percentile(99)),
      ms(ft:max()), int(ft:argmax()))
  end
  if cap.truncated then out = out .. "; truncated" end
  return out .. ">"
end

DESCRIBE["vp.vprof.node"] = function(n)
  local cap = capture_of(n)
  local r = cap and cap.frame_count > 0 and node_rows(cap)[n]
  if not r then return safe_tostring(n) end
  local f = cap.frame_count
  return extend(n, string.format(": %s ms/frame, self %s, %s calls/frame, peak %s @ frame %s, group %s",
    ms(r.time_ms / f), ms(r.self_ms / f), require("vp.fmt").fixed(r.calls / f, 2), ms(r.peak_ms),
    int(r.peak_frame), n.group and n.group.name or "-"))
end

DESCRIBE["vp.vprof.frame"] = function(fr)
  local cap = capture_of(fr)
  local extra = ""
  if cap then
    local med = frame_times(cap):median()
    if med == med and med > 0 then
      extra = string.format("; %.2f x the median frame (%s ms)", fr.frame_ms / med, ms(med))
    end
  end
  local top, top_ms = nil, 0
  for n in fr:nodes() do
    local s = fr:self_ms(n)
    if s > top_ms then top, top_ms = n, s end
  end
  if top then extra = extra .. string.format("; most self time: %s %s ms", top.path, ms(top_ms)) end
  -- frame numbers and ticks with thousands separators, as every count the REPL prints
  return (extend(fr, extra):gsub("^<frame (%d+) tick (%-?%d+):", function(no, tick)
    return string.format("<frame %s tick %s:", int(tonumber(no)), int(tonumber(tick)))
  end))
end

DESCRIBE["vp.vprof.group"] = function(g)
  local cap = capture_of(g)
  if not cap then return safe_tostring(g) end
  -- the summaries (the same figures as the columns, without them)
  local s = cached(cap, "group_stats", function() return cap:dist("groups") end)[g]
  if not s or #s == 0 then return extend(g, ": no nodes") end
  return extend(g, string.format(": self %s ms/frame mean, p99 %s, max %s @ frame %s", ms(s:mean()),
    ms(s:percentile(99)), ms(s:max()), int(s:argmax())))
end

--- describe.describe(value) -> string: repl.describe.
function describe.describe(v)
  local f = DESCRIBE[class_of(v)]
  if f then
    local ok, s = pcall(f, v)
    if ok and type(s) == "string" then return s end
  end
  return safe_tostring(v)
end

-- lookups that found nothing ----------------------------------------------

-- The expression that ends just before position i of src (a name, fields,
-- calls, indexes: `cap:group_self_ms()`), or nil.
local function prefix_before(src, i)
  local j, depth = i, 0
  while j >= 1 do
    local ch = src:sub(j, j)
    if ch == ")" or ch == "]" then
      depth = depth + 1
    elseif ch == "(" or ch == "[" then
      if depth == 0 then break end
      depth = depth - 1
    elseif depth == 0 and not ch:match("[%w_%.:]") then
      break
    end
    j = j - 1
  end
  local e = src:sub(j + 1, i):match("^%s*(.-)%s*$")
  if e == "" or not e:match("^[%a_]") or e:match("[.:]$") then return nil end
  return e
end

-- The value of expression e in env, or nil.
local function value_of(e, env)
  local f = load("return " .. e, "=repl", "t", env)
  if not f then return nil end
  local ok, v = pcall(f)
  return ok and v or nil
end

-- The names a table answers to: its string keys, and the names of the
-- objects it is keyed by (cap:group_self_ms()'s groups, whose names its
-- __index takes too).
local function names_of(v)
  local out = {}
  for k in next, v do
    if type(k) == "string" then
      out[#out + 1] = k
    elseif type(k) == "userdata" then
      local ok, name = pcall(function() return k.name end)
      if ok and type(name) == "string" then out[#out + 1] = name end
    end
  end
  return out
end

--- describe.nil_hint(src, name, env) -> string | nil: repl.nil_hint, the
-- expressions of src evaluated in env: "-- no key 'Physic' in
-- cap:group_self_ms() (did you mean 'Physics'?)" for the lookup `name` of
-- src (its last one when name is nil): a field (x.name, x["name"]), a
-- group or node by name (cap:group("..."), cap:node("...")). nil when src
-- has no such lookup.
function describe.nil_hint(src, name, env)
  if type(src) ~= "string" then return nil end
  local near = require "vp.near"
  local best
  for pos, method, arg in src:gmatch("()[:.](%a+)%s*%(%s*[\"']([^\"']*)[\"']%s*%)") do
    if (method == "group" or method == "node") and (name == nil or arg == name) then best = { pos, method, arg } end
  end
  for pos, key in src:gmatch("()%.([%a_][%w_]*)") do
    if (name == nil or key == name) and not src:sub(pos + 1 + #key):match("^%s*[%(\"'{]")
      and (not best or pos > best[1]) then
      best = { pos, nil, key }
    end
  end
  for pos, key in src:gmatch("()%[%s*[\"']([^\"']*)[\"']%s*%]") do
    if (name == nil or key == name) and (not best or pos > best[1]) then best = { pos, nil, key } end
  end
  if not best then return nil end
  local pos, method, key = best[1], best[2], best[3]
  local e = prefix_before(src, pos - 1)
  if not e then return nil end
  local v = value_of(e, env)
  local names
  if method == "group" then
    names = {}
    pcall(function() for g in v:groups() do names[#names + 1] = g.name end end)
    return string.format("-- no budget group '%s' in %s%s", key, e, near.hint(key, names))
  elseif method == "node" then
    names = {}
    -- a path given from the root's children is answered the same way
    local relative = not key:find("^Root/") and key ~= "Root"
    pcall(function()
      for n in v:nodes() do names[#names + 1] = relative and n.path:gsub("^Root/", "") or n.path end
    end)
    return string.format("-- no node '%s' in %s%s", key, e, near.hint(key, names))
  end
  if type(v) ~= "table" then return nil end
  local found, there = pcall(function() return v[key] end)
  if found and there ~= nil then return nil end
  return string.format("-- no key '%s' in %s%s", key, e, near.hint(key, names_of(v)))
end

--- describe.totals_hint(v) -> string | nil: repl.totals_hint.
function describe.totals_hint(v)
  local row = type(v) == "table" and (rawget(v, "node") ~= nil and v or (type(rawget(v, 1)) == "table" and v[1]))
  if type(row) ~= "table" or class_of(rawget(row, "node")) ~= "vp.vprof.node" then return nil end
  local t, sf = rawget(row, "time_ms"), rawget(row, "self_ms")
  local cap = capture_of(row.node)
  local n = cap and cap.frame_count
  if type(t) ~= "number" or type(sf) ~= "number" or not n then return nil end
  return string.format("-- calls, time_ms and self_ms are totals over the frames asked for (all %s unless a "
    .. "range was given); the node's line shows them per frame", int(n))
end

--- describe.cut_hint(cut, settings) -> string | nil: repl.cut_hint, with
-- the settings in use ({depth =, items =}).
function describe.cut_hint(cut, settings)
  if not cut then return nil end
  local parts = {}
  if cut.depth then
    parts[#parts + 1] = string.format("nested tables cut at depth %d ({...}): repl.depth = %d shows more",
      settings.depth, settings.depth + 2)
  end
  if cut.items then
    parts[#parts + 1] = string.format("long tables cut at %d entries: repl.items = %d shows more", settings.items,
      settings.items * 4)
  end
  return "-- " .. table.concat(parts, "; ")
end

return describe
