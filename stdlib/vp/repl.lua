-- vp.repl: the Lua side of the vpscript REPL (`vpscript -i [captures...]`):
-- the pretty printer for results, Tab completion candidates, help() and the
-- error display. The host (program/repl.c) does the line editing and calls
--   repl.start(env, files)     open the captures, install help() and `repl`
--   repl.show(...)             print a statement's results
--   repl.complete(line)        -> start, candidates (Tab)
--   repl.error_text(msg)       message and a short traceback
-- In the REPL the module is the global `repl`: `repl.depth = 5` shows
-- nested tables deeper, `repl.items = 200` longer ones (repl.width,
-- repl.string_len likewise). Everything here is plain Lua and can be used
-- from scripts too, e.g. `print(require("vp.repl").format(t))`.
local doc = require "vp.doc"

local repl = {}

local function lfs_module()
  local ok, lfs = pcall(require, "lfs")
  return ok and type(lfs) == "table" and lfs or nil
end

-- pretty printer -----------------------------------------------------------

repl.defaults = { depth = 3, items = 50, width = 78, string_len = 200 }

-- The settings in use: repl.depth etc., set by the user, else the defaults.
local function setting(k, opts)
  local v = opts and opts[k]
  if v == nil then v = rawget(repl, k) end
  if math.type(v) ~= "integer" or v < 0 then v = repl.defaults[k] end
  return v
end

local KEYWORDS = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}
local is_keyword = {}
for _, k in ipairs(KEYWORDS) do is_keyword[k] = true end

local function is_ident(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil and not is_keyword[s]
end

local ESCAPES = { ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r", ['"'] = '\\"', ["\\"] = "\\\\" }

local function quote(s, maxlen)
  local body, extra = s, ""
  if #s > maxlen then
    body, extra = s:sub(1, maxlen), string.format("... (%d bytes)", #s)
  end
  body = body:gsub('[%c"\\]', function(c)
    return ESCAPES[c] or string.format("\\%03d", c:byte())
  end)
  return '"' .. body .. '"' .. extra
end

local function safe_tostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == "string" then return s end
  local mt = getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name") or type(v)
  return string.format("<%s: tostring failed: %s>", tostring(name), tostring(s))
end

local function function_text(f)
  local info = debug.getinfo(f, "S")
  if not info or info.what == "C" then return "<function: builtin>" end
  return string.format("<function %s:%d>", info.short_src, info.linedefined)
end

local TYPE_ORDER = { number = 1, string = 2, boolean = 3 }

--- repl.natural_less(a, b) -> boolean: strings in the order people count:
-- runs of digits compare as numbers ("group 2" before "group 10"), the rest
-- byte by byte; equal numbers with more leading zeros come later.
function repl.natural_less(a, b)
  local i, j, na, nb = 1, 1, #a, #b
  while i <= na and j <= nb do
    local da, db = a:match("^%d+", i), b:match("^%d+", j)
    if da and db then
      local ta, tb = da:gsub("^0+", ""), db:gsub("^0+", "")
      if #ta ~= #tb then return #ta < #tb end
      if ta ~= tb then return ta < tb end
      if #da ~= #db then return #da < #db end
      i, j = i + #da, j + #db
    else
      local ca, cb = a:sub(i, i), b:sub(j, j)
      if ca ~= cb then return ca < cb end
      i, j = i + 1, j + 1
    end
  end
  return (na - i) < (nb - j)
end

local function key_less(a, b)
  local ta, tb = TYPE_ORDER[type(a)] or 4, TYPE_ORDER[type(b)] or 4
  if ta ~= tb then return ta < tb end
  if ta == 1 then return a < b end
  if ta == 2 then return repl.natural_less(a, b) end
  if ta == 3 then return (not a) and b end
  return repl.natural_less(safe_tostring(a), safe_tostring(b))
end

local format_value

local function format_table(t, o, level, path)
  if path[t] then return "<cycle>" end
  local mt = getmetatable(t)
  if type(mt) == "table" and rawget(mt, "__tostring") then return safe_tostring(t) end
  if next(t) == nil then return "{}" end
  if level >= o.depth then
    o.cut.depth = true
    return "{...}"
  end
  path[t] = true
  local entries, n = {}, 0
  local seq = 0
  while rawget(t, seq + 1) ~= nil do seq = seq + 1 end
  local keys = {}
  for k in next, t do
    if not (math.type(k) == "integer" and k >= 1 and k <= seq) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_less)
  local total = seq + #keys
  local function add(s)
    n = n + 1
    if n <= o.items then entries[n] = s end
  end
  for i = 1, seq do add(format_value(rawget(t, i), o, level + 1, path)) end
  for _, k in ipairs(keys) do
    if n >= o.items then
      n = n + 1
    else
      -- a userdata key (a group of cap:group_self_ms()) as its short name
      local kv = type(k) == "userdata" and safe_tostring(k) or format_value(k, o, o.depth, path)
      local ks = is_ident(k) and k or ("[" .. kv .. "]")
      add(ks .. " = " .. format_value(rawget(t, k), o, level + 1, path))
    end
  end
  path[t] = nil
  if total > o.items then
    o.cut.items = true
    entries[#entries + 1] = string.format("... (%d more)", total - o.items)
  end
  local one = "{ " .. table.concat(entries, ", ") .. " }"
  if #one <= o.width - 2 * level and not one:find("\n") then return one end
  local pad = "  "
  for i, e in ipairs(entries) do
    entries[i] = pad .. e:gsub("\n", "\n" .. pad)
  end
  return "{\n" .. table.concat(entries, ",\n") .. "\n}"
end

format_value = function(v, o, level, path)
  local t = type(v)
  if t == "string" then return quote(v, o.string_len) end
  if t == "table" then return format_table(v, o, level, path) end
  if t == "function" then return function_text(v) end
  if t == "userdata" then return repl.describe(v) end
  return safe_tostring(v)
end

--- repl.format(value [, opts]) -> string, cut: a readable rendering; tables
-- with their keys in natural order (numbers first, "x2" before "x10"),
-- `depth` and `items` limits, `<cycle>` where a table contains itself;
-- captures, nodes, frames and groups with their key timings
-- (repl.describe), other userdata through __tostring. opts: depth, items,
-- width, string_len (default: repl.depth etc., else repl.defaults). cut is
-- nil, or {depth = true} when a table was shown as {...}, {items = true}
-- when one was shortened (both may be set).
function repl.format(value, opts)
  local o = { cut = {} }
  for k in pairs(repl.defaults) do o[k] = setting(k, opts) end
  local text = format_value(value, o, 0, {})
  return text, next(o.cut) and o.cut or nil
end

--- repl.cut_hint(cut) -> string | nil: the line the REPL prints after a
-- value that was cut, naming the setting that shows more.
function repl.cut_hint(cut)
  if not cut then return nil end
  local parts = {}
  if cut.depth then
    parts[#parts + 1] = string.format("nested tables cut at depth %d ({...}): repl.depth = %d shows more",
      setting("depth"), setting("depth") + 2)
  end
  if cut.items then
    parts[#parts + 1] = string.format("long tables cut at %d entries: repl.items = %d shows more", setting("items"),
      setting("items") * 4)
  end
  return "-- " .. table.concat(parts, "; ")
end

--- repl.show(...): print values the way the REPL shows results, then a
-- hint when something was cut (repl.cut_hint).
function repl.show(...)
  local n = select("#", ...)
  local parts, multi, cut = {}, false, nil
  for i = 1, n do
    local c
    parts[i], c = repl.format((select(i, ...)))
    if c then
      cut = cut or {}
      for k in pairs(c) do cut[k] = true end
    end
    if parts[i]:find("\n") then multi = true end
  end
  io.stdout:write(table.concat(parts, multi and "\n" or "\t"), "\n")
  if n == 1 and (...) == nil then
    local missing = repl.nil_hint(repl.source)
    if missing then io.stdout:write(missing, "\n") end
  end
  local totals = n == 1 and repl.totals_hint((...))
  if totals then io.stdout:write(totals, "\n") end
  local hint = repl.cut_hint(cut)
  if hint then io.stdout:write(hint, "\n") end
  io.stdout:flush()
end

-- key timings --------------------------------------------------------------

-- Per capture, what the descriptions read: computed once (one C pass each),
-- dropped with the capture.
local per_capture = setmetatable({}, { __mode = "k" })

local function class_of(v)
  local mt = getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name")
  return type(name) == "string" and name or nil
end

-- The capture a child (node, frame, group) keeps alive: its user value 1.
local function capture_of(child)
  local ok, cap = pcall(debug.getuservalue, child, 1)
  if ok and class_of(cap) == "vp.vprof" then return cap end
  return nil
end

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

--- repl.describe(value) -> string: how the REPL shows a userdata: a VProf
-- capture with its counts (groups as cap.group_count, and how many have
-- nodes) and frame times; a node with its time, self time and calls per
-- frame, its peak and group; a frame with how it compares with the median
-- frame and the node with the most self time; a group with its self time
-- per frame. Anything else (or a closed capture) through __tostring.
function repl.describe(v)
  local f = DESCRIBE[class_of(v)]
  if f then
    local ok, s = pcall(f, v)
    if ok and type(s) == "string" then return s end
  end
  return safe_tostring(v)
end

-- lookups that found nothing ----------------------------------------------

--- repl.source: the chunk the REPL runs (set by the vpscript REPL before
-- each one), which repl.show and repl.error_text read to name a lookup
-- that found nothing.
repl.source = nil

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

-- The value of expression e in the REPL's environment, or nil.
local function value_of(e)
  local f = load("return " .. e, "=repl", "t", repl.env or _G)
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

-- "-- no key 'Physic' in cap:group_self_ms() (did you mean 'Physics'?)" for
-- the lookup `name` of src (its last one when name is nil): a field
-- (x.name, x["name"]), a group or node by name (cap:group("..."),
-- cap:node("...")). nil when src has no such lookup.
local function lookup_hint(src, name)
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
  local v = value_of(e)
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

--- repl.totals_hint(v) -> string | nil: under a node's totals (a row of
-- cap:totals, or the list of them) the line that names
-- them apart from the per-frame figures the node's own line shows.
function repl.totals_hint(v)
  local row = type(v) == "table" and (rawget(v, "node") ~= nil and v or (type(rawget(v, 1)) == "table" and v[1]))
  if type(row) ~= "table" or class_of(rawget(row, "node")) ~= "vp.vprof.node" then return nil end
  local t, sf = rawget(row, "time_ms"), rawget(row, "self_ms")
  local cap = capture_of(row.node)
  local n = cap and cap.frame_count
  if type(t) ~= "number" or type(sf) ~= "number" or not n then return nil end
  return string.format("-- calls, time_ms and self_ms are totals over the frames asked for (all %s unless a "
    .. "range was given); the node's line shows them per frame", int(n))
end

--- repl.nil_hint(src [, name]) -> string | nil: what the REPL says under a
-- nil it shows, or an "attempt to index a nil value" it reports, when a
-- lookup in src found nothing: the missing key, group or node and the
-- nearest names there are (vp.near).
repl.nil_hint = lookup_hint

-- errors -------------------------------------------------------------------

-- The message with a short traceback (repl.error_text, without the hint).
local function trace_text(msg, max)
  local head, tb = msg:match("^(.-)\nstack traceback:\n(.*)$")
  if not head then return msg end
  local frames = {}
  for line in tb:gmatch("[^\n]+") do
    line = line:gsub("^%s+", "")
    if line ~= "[C]: in ?" and line ~= "[C]: in function 'error'" and line ~= "[C]: in function 'assert'" then
      frames[#frames + 1] = line
    end
  end
  if #frames == 0 or (#frames == 1 and frames[1]:match("^repl:%d+: in main chunk$")) then
    return head
  end
  local out = { head, "stack traceback:" }
  for i = 1, math.min(#frames, max) do out[#out + 1] = "  " .. frames[i] end
  if #frames > max then out[#out + 1] = string.format("  ... (%d more)", #frames - max) end
  return table.concat(out, "\n")
end

--- repl.error_text(msg) -> string: the message with a short traceback: the
-- interpreter's own frames dropped, at most `max` frames, and none at all
-- when the error was raised directly at the prompt. Indexing a nil that a
-- lookup of repl.source gave adds what was missing and the nearest names
-- (repl.nil_hint); indexing a nil global says it is nil.
function repl.error_text(msg, max)
  msg = tostring(msg)
  local text = trace_text(msg, max or 6)
  local field = msg:match("attempt to index a nil value %(field '([^']+)'%)")
  local global = msg:match("attempt to index a nil value %(global '([^']+)'%)")
  local bare = msg:match("attempt to index a nil value$") or msg:match("attempt to index a nil value\n")
  local hint = (field or bare) and lookup_hint(repl.source, field)
    or global and string.format("-- %s is nil (a call that failed? vp.open returns nil and the reason: "
      .. "print(vp.open(path)) shows it)", global)
  return hint and (text .. "\n" .. hint) or text
end

-- completion ---------------------------------------------------------------

-- Where an unterminated short string starts (the index after its quote), or
-- false when the cursor sits in a comment or a long string.
local function open_string(line)
  local i, n = 1, #line
  while i <= n do
    local c = line:sub(i, i)
    if c == '"' or c == "'" then
      local j = i + 1
      while j <= n and line:sub(j, j) ~= c do
        j = j + (line:sub(j, j) == "\\" and 2 or 1)
      end
      if j > n then return i + 1 end
      i = j + 1
    elseif c == "-" and line:sub(i + 1, i + 1) == "-" then
      return false
    elseif c == "[" and line:find("^%[=*%[", i) then
      local eq = line:match("^%[(=*)%[", i)
      local close = line:find("]" .. eq .. "]", i, true)
      if not close then return false end
      i = close + #eq + 2
    else
      i = i + 1
    end
  end
  return nil
end

local function add_unique(list, seen, s)
  if not seen[s] then
    seen[s] = true
    list[#list + 1] = s
  end
end

local function complete_file(line, q)
  local text = line:sub(q)
  local dir, base = text:match("^(.*/)([^/]*)$")
  if not dir then dir, base = "", text end
  local lfs = lfs_module()
  if not lfs then return q + #dir, {} end
  local real = dir == "" and "." or dir
  if real:sub(1, 2) == "~/" then real = (os.getenv("HOME") or "~") .. real:sub(2) end
  local out = {}
  local ok, iter, state = pcall(lfs.dir, real)
  if ok then
    for name in iter, state do
      if name ~= "." and name ~= ".." and name:sub(1, #base) == base
          and (name:sub(1, 1) ~= "." or base:sub(1, 1) == ".") then
        local mode = lfs.attributes(real .. "/" .. name, "mode")
        out[#out + 1] = name .. (mode == "directory" and "/" or "")
      end
    end
  end
  table.sort(out)
  -- A single file completes the string: close the quote.
  if #out == 1 and out[1]:sub(-1) ~= "/" then out[1] = out[1] .. line:sub(q - 1, q - 1) end
  return q + #dir, out
end

local function safe_index(obj, key)
  local t = type(obj)
  if t ~= "table" and t ~= "userdata" and t ~= "string" then return nil end
  local ok, v = pcall(function() return obj[key] end)
  if ok then return v end
  return nil
end

local function is_callable(v)
  if type(v) == "function" then return true end
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__call") ~= nil
end

-- Names reachable with `.` (or only methods, for `:`) on a value: a table's
-- own keys, its metatable's __methods (every vpscript class has one) or
-- __index table chain, the documented fields of its class, and a capture's
-- fields table (its first user value).
local function member_names(obj, methods_only)
  local out, seen = {}, {}
  local function take(tbl, want_fn)
    for k, v in next, tbl do
      if is_ident(k) and (not want_fn or is_callable(v)) then add_unique(out, seen, k) end
    end
  end
  if type(obj) == "table" then take(obj, methods_only) end
  local mt = getmetatable(obj)
  if type(mt) == "table" then
    local methods = rawget(mt, "__methods")
    if type(methods) == "table" then
      take(methods, false)
    else
      local idx, depth = rawget(mt, "__index"), 0
      while type(idx) == "table" and depth < 8 do
        take(idx, methods_only)
        local imt = getmetatable(idx)
        idx = type(imt) == "table" and rawget(imt, "__index") or nil
        depth = depth + 1
      end
    end
    if not methods_only then
      local class = doc.of(obj)
      for _, f in ipairs(class and doc.fields(class) or {}) do add_unique(out, seen, f) end
      if type(obj) == "userdata" then
        local ok, fields = pcall(debug.getuservalue, obj, 1)
        if ok and type(fields) == "table" then take(fields, false) end
      end
    end
  end
  return out
end

local function global_names(env)
  local out, seen = {}, {}
  local t, depth = env, 0
  while type(t) == "table" and depth < 4 do
    for k in next, t do
      if is_ident(k) then add_unique(out, seen, k) end
    end
    local mt = getmetatable(t)
    t = type(mt) == "table" and rawget(mt, "__index") or nil
    depth = depth + 1
  end
  for _, k in ipairs(KEYWORDS) do add_unique(out, seen, k) end
  return out
end

-- The value a chain of names ("cap", "caps.a", "x.fr") stands for in env.
local function resolve_chain(env, chain)
  local obj
  for name in chain:gmatch("[^.]+") do
    if obj == nil and env then
      obj = safe_index(env, name)
      env = nil
    else
      obj = safe_index(obj, name)
    end
    if obj == nil then return nil end
  end
  return obj
end

-- Methods whose first argument is a node (path or id), and the one that
-- takes a group name, by class.
local NODE_ARG = {
  ["vp.vprof"] = { node = true, series = true, find = true, dist = true, totals = true },
  ["vp.vprof.frame"] = { time_ms = true, self_ms = true, calls = true },
}
local GROUP_ARG = { ["vp.vprof"] = { group = true } }

-- The capture and the kind of name ("node" or "group") a string opened as
-- the first argument of `obj:method(` wants, or nil.
local function string_argument(line, q, env)
  local chain, method = line:sub(1, q - 2):match("([%a_][%w_%.]*):([%a_][%w_]*)%s*%(%s*$")
  if not chain then return nil end
  local obj = resolve_chain(env, chain)
  local class = obj ~= nil and class_of(obj)
  if not class then return nil end
  local cap = class == "vp.vprof" and obj or capture_of(obj)
  if not cap then return nil end
  if NODE_ARG[class] and NODE_ARG[class][method] then return cap, "node" end
  if GROUP_ARG[class] and GROUP_ARG[class][method] then return cap, "group" end
  return nil
end

-- The method whose string argument opens at q (`cap:find("` -> "find").
local function method_name(line, q)
  return line:sub(1, q - 2):match(":([%a_][%w_]*)%s*%(%s*$")
end

-- Methods whose only argument is the string completed: a single
-- completion closes their call too (cap:group("Physics")).
local ONE_ARGUMENT = { group = true, node = true }

-- What closes a single completion: the quote before q, and the call's
-- parenthesis for a method of one argument.
local function closing(line, q)
  return line:sub(q - 1, q - 1) .. (ONE_ARGUMENT[method_name(line, q) or ""] and ")" or "")
end

-- Node paths, one level at a time: "Root" and the root's children at the
-- top (paths may be given relative to the root), then the children of the
-- node the text names. A node without children closes the string; one
-- typed in full gets its "/" so the next Tab goes on.
local function complete_node(line, q, cap)
  local text = line:sub(q)
  local dir, base = text:match("^(.*/)([^/]*)$")
  if not dir then dir, base = "", text end
  local parent
  if dir ~= "" then
    local found, n = pcall(cap.node, cap, dir:sub(1, -2))
    if not found or n == nil then return q + #dir, {} end
    parent = n
  end
  local quote_char = closing(line, q)
  local out, kids = {}, {}
  local function offer(n)
    local key = require("vp.fmt").path_last(n.path)
    if key:sub(1, #base) == base then
      out[#out + 1] = key
      kids[key] = n:children()() ~= nil
    end
  end
  local ok = pcall(function()
    if parent then
      for c in parent:children() do offer(c) end
    else
      offer(cap.root)
      for c in cap.root:children() do offer(c) end
    end
  end)
  if not ok then return q + #dir, {} end
  table.sort(out, repl.natural_less)
  if #out == 1 then
    if not kids[out[1]] then
      out[1] = out[1] .. quote_char
    elseif out[1] == base then
      out[1] = out[1] .. "/"
    end
  end
  return q + #dir, out
end

-- The names that start with the text typed from q, sorted; a single one
-- closes the string (and the call: closing).
local function names_from(line, q, names)
  local text, out = line:sub(q), {}
  for _, name in ipairs(names) do
    if name:sub(1, #text) == text then out[#out + 1] = name end
  end
  table.sort(out, repl.natural_less)
  if #out == 1 then out[1] = out[1] .. closing(line, q) end
  return q, out
end

-- Node names, each once, for a method that finds nodes by name wherever
-- they are (cap:find(" before any "/").
local function complete_name(line, q, cap)
  local names, seen = {}, {}
  pcall(function()
    for n in cap:nodes() do
      if not seen[n.name] then
        seen[n.name] = true
        names[#names + 1] = n.name
      end
    end
  end)
  return names_from(line, q, names)
end

local function complete_group(line, q, cap)
  local names = {}
  pcall(function()
    for g in cap:groups() do names[#names + 1] = g.name end
  end)
  return names_from(line, q, names)
end

--- repl.complete(line [, env]) -> start, candidates: completions for the
-- text before the cursor. `start` is the 1-based position where the word
-- being completed begins; each candidate replaces line:sub(start).
-- Completes globals and keywords, `a.b.c` fields and `obj:method` names
-- (through metatables); inside an open string, node paths where a VProf
-- capture or frame method takes a node (cap:node("Root/CE<Tab>,
-- cap:series(", fr:time_ms(", cap:find(" once it holds a "/"), node names
-- where it takes a name (cap:find(" before any "/"),
-- group names in cap:group(", and file names anywhere else.
function repl.complete(line, env)
  env = env or _G
  local none = #line + 1
  local q = open_string(line)
  if q then
    local cap, kind = string_argument(line, q, env)
    if kind == "node" and method_name(line, q) == "find" and not line:find("/", q, true) then kind = "name" end
    if kind == "node" then return complete_node(line, q, cap) end
    if kind == "name" then return complete_name(line, q, cap) end
    if kind == "group" then return complete_group(line, q, cap) end
    return complete_file(line, q)
  end
  if q == false then return none, {} end
  local chain = line:match("[%w_%.:]*$")
  local before = line:sub(#line - #chain, #line - #chain)
  if chain:match("^%d") or (before ~= "" and before:match("[%)%]}\"'%.:]")) then return none, {} end
  local names, seps = { chain:match("^[%w_]*") }, {}
  local pos = #names[1] + 1
  while pos <= #chain do
    seps[#seps + 1] = chain:sub(pos, pos)
    local name = chain:match("^[%w_]*", pos + 1)
    names[#names + 1] = name
    pos = pos + 1 + #name
  end
  local word = names[#names]
  local start = #line - #word + 1
  for i = 1, #names - 1 do
    if not names[i]:match("^[%a_][%w_]*$") or (seps[i] == ":" and i < #seps) then return none, {} end
  end
  local pool
  if #names == 1 then
    pool = global_names(env)
  else
    local obj = env[names[1]]
    for i = 2, #names - 1 do
      obj = safe_index(obj, names[i])
    end
    if obj == nil then return none, {} end
    pool = member_names(obj, seps[#seps] == ":")
  end
  local out = {}
  local hidden = word:sub(1, 2) ~= "__"
  for _, s in ipairs(pool) do
    if s:sub(1, #word) == word and not (hidden and s:sub(1, 2) == "__") then out[#out + 1] = s end
  end
  table.sort(out)
  return start, out
end

-- help ---------------------------------------------------------------------

local function wrap(text, width, indent)
  return indent .. require("vp.fmt").wrap(text, width, indent)
end

local KIND_TITLES = {
  { "function", "functions" }, { "operator", "operators" }, { "method", "methods" }, { "field", "fields" },
}

--- repl.class_text(class [, value]) -> string: a class's members with their
-- one-line descriptions; with `value`, methods its metatable has that the
-- documentation lacks are listed too.
function repl.class_text(class, value)
  local out = { class.class .. ": " .. class.title }
  if class.doc then out[#out + 1] = wrap(class.doc, 74, "  ") end
  if class.base then
    out[#out + 1] = string.format('  and every member of %s (help("%s"))', class.base.class, class.base.class)
  end
  local width = 0
  for _, m in ipairs(class.members) do
    local sig = m.sig or m.name
    if #sig <= 32 then width = math.max(width, #sig) end
  end
  for _, kt in ipairs(KIND_TITLES) do
    local rows = {}
    for _, m in ipairs(class.members) do
      if m.kind == kt[1] then
        local sig = m.sig or m.name
        if #sig > width then
          rows[#rows + 1] = "  " .. sig .. "\n" .. wrap(m.doc, 70, "      ")
        else
          local pad = string.rep(" ", width + 4)
          rows[#rows + 1] = "  " .. sig .. string.rep(" ", width - #sig + 2)
            .. wrap(m.doc, math.max(30, 76 - #pad), pad):sub(#pad + 1)
        end
      end
    end
    if #rows > 0 then
      out[#out + 1] = kt[2] .. ":"
      for _, r in ipairs(rows) do out[#out + 1] = r end
    end
  end
  local mt = value ~= nil and getmetatable(value)
  local methods = type(mt) == "table" and rawget(mt, "__methods")
  if type(methods) == "table" then
    local missing = {}
    for k in pairs(methods) do
      if type(k) == "string" and not class.index[k] then missing[#missing + 1] = k end
    end
    table.sort(missing)
    if #missing > 0 then out[#out + 1] = "undocumented methods: " .. table.concat(missing, ", ") end
  end
  out[#out + 1] = string.format('(help("%s.NAME") shows one member with an example)', class.class)
  return table.concat(out, "\n")
end

--- repl.member_text(class, member) -> string: one member with its example.
function repl.member_text(class, m)
  local out = { (m.sig or m.name) .. "    [" .. class.class .. " " .. m.kind .. "]", wrap(m.doc, 74, "  ") }
  if m.example then
    out[#out + 1] = "example:"
    out[#out + 1] = "  " .. m.example:gsub("\n", "\n  ")
  end
  return table.concat(out, "\n")
end

-- The documented member a function value is, found by identity among the
-- vp module's functions and the __methods of every registered class.
local function function_member(f)
  local ok, vp = pcall(require, "vp")
  if ok and type(vp) == "table" then
    for k, v in pairs(vp) do
      if rawequal(v, f) then
        local c = doc.class("vp")
        local m = c and c.index[k]
        if m then return c, m end
      end
    end
  end
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and type(mt) == "table" then
      local methods = rawget(mt, "__methods")
      if type(methods) == "table" then
        for k, v in pairs(methods) do
          if rawequal(v, f) then
            local c = doc.class(name)
            local m = c and c.index[k]
            if m then return c, m end
          end
        end
      end
    end
  end
  return nil
end

local GENERAL = [[
vpscript REPL: type Lua; expressions print their values.
  cap                      the capture opened from the command line (cap1, cap2, ... when several)
  help(obj)                methods and fields of a value: help(cap), help(vp), help(cap.root)
  help("name")             a class or member: help("vp.Series"), help("percentile"), help("cap:frames")
  Tab                      complete globals, fields, methods (cap:fr<Tab>) and file names in strings
  =expr, expr              print the value; a statement that is not finished continues on the next line
  Ctrl-C                   interrupt a running statement (or drop the line being typed); Ctrl-D exits]]

local function general_text(env)
  local out = { GENERAL }
  local caps = {}
  for k, v in pairs(env) do
    if type(k) == "string" and k:match("^cap%d*$") and v ~= nil then caps[#caps + 1] = k end
  end
  table.sort(caps)
  if #caps > 0 then
    out[#out + 1] = "open captures:"
    for _, k in ipairs(caps) do out[#out + 1] = string.format("  %-6s %s", k, repl.describe(env[k])) end
  end
  out[#out + 1] = "documented classes:"
  for _, c in ipairs(doc.classes()) do
    out[#out + 1] = string.format("  %-22s %s", c.class, c.title)
  end
  for _, p in ipairs(doc.problems()) do out[#out + 1] = "documentation problem: " .. p end
  return table.concat(out, "\n")
end

local function value_text(v)
  local class = doc.of(v)
  if class then return repl.class_text(class, v) end
  if type(v) == "function" then
    local c, m = function_member(v)
    if c then return repl.member_text(c, m) end
    return function_text(v) .. " (no documentation)"
  end
  local mt = getmetatable(v)
  if type(mt) == "table" and type(rawget(mt, "__methods")) == "table" then
    local names = member_names(v, true)
    table.sort(names)
    return string.format("%s (no documentation)\nmethods: %s", safe_tostring(v), table.concat(names, ", "))
  end
  if type(v) == "table" then
    local keys = {}
    for k in next, v do keys[#keys + 1] = k end
    table.sort(keys, key_less)
    local out = { string.format("a table with %d entries", #keys) }
    for i = 1, math.min(#keys, 40) do
      local x = rawget(v, keys[i])
      out[#out + 1] = string.format("  %-24s %s", safe_tostring(keys[i]), type(x))
    end
    if #keys > 40 then out[#out + 1] = string.format("  ... (%d more)", #keys - 40) end
    return table.concat(out, "\n")
  end
  return string.format("%s: %s (no documentation)", type(v), repl.format(v))
end

local function string_text(s, env)
  local hits = doc.find(s)
  if #hits > 0 then
    local out = {}
    for _, h in ipairs(hits) do
      out[#out + 1] = h.member and repl.member_text(h.class, h.member) or repl.class_text(h.class)
    end
    return table.concat(out, "\n\n")
  end
  -- "cap:frames", "cap.root.name": a member of a live value.
  local head, sep, last = s:match("^([%a_][%w_%.]*)([.:])([%a_][%w_]*)$")
  local obj
  if head then
    obj = env[head:match("^[^.]+")]
    for part in head:gmatch("%.([%a_][%w_]*)") do obj = safe_index(obj, part) end
    local class = obj ~= nil and doc.of(obj)
    local m = class and class.index[last]
    if m then return repl.member_text(class, m) end
    if sep == "." and obj ~= nil then
      local v = safe_index(obj, last)
      if v ~= nil then return value_text(v) end
    end
  elseif s:match("^[%a_][%w_]*$") and env[s] ~= nil then
    return value_text(env[s])
  end
  return string.format('no documentation for "%s" (help() lists the documented classes)', s)
end

local function help_for(env, n, x)
  if n == 0 then return general_text(env) end
  if type(x) == "string" then return string_text(x, env) end
  if x == nil then return "nil (no documentation): help() lists what there is" end
  return value_text(x)
end

--- repl.help_text([x]) -> string: what help(x) prints (names resolve in _G).
function repl.help_text(...)
  return help_for(_G, select("#", ...), (...))
end

--- repl.help([x]): print help; the REPL installs it as the global `help`.
function repl.help(...)
  io.stdout:write(repl.help_text(...), "\n")
end

-- start --------------------------------------------------------------------

--- repl.start(env, files): install help() and `repl` (this module, for
-- repl.depth and the other settings) in env and open each file as
-- env.cap (one file) or env.cap1, env.cap2, ... (several; env.cap is then
-- the first that opened). One line per file says what was opened; a file
-- that does not open is reported and the REPL starts anyway.
function repl.start(env, files)
  env.help = function(...)
    io.stdout:write(help_for(env, select("#", ...), (...)), "\n")
  end
  env.repl = repl
  repl.env = env
  local vp = require "vp"
  local several = #files > 1
  for i, path in ipairs(files) do
    local ok, cap, msg = pcall(vp.open, path)
    if not ok then cap, msg = nil, cap end
    if not cap then
      msg = tostring(msg or "cannot open")
      if msg:sub(1, #path) ~= path then msg = path .. ": " .. msg end
      io.stderr:write("vpscript: ", msg, "\n")
    else
      local name = several and ("cap" .. i) or "cap"
      local also = ""
      env[name] = cap
      if several and rawget(env, "cap") == nil then
        env.cap = cap
        also = "  (also cap)"
      end
      io.stdout:write(name, " = ", repl.describe(cap), also, "\n")
      for _, w in ipairs(cap.warnings or {}) do io.stderr:write("warning: ", tostring(w), "\n") end
    end
  end
  io.stdout:flush()
end

return repl
