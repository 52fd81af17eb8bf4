-- vp.repl.complete: Tab completion for the REPL (repl.complete): globals
-- and keywords, fields and methods through metatables and the vp.doc
-- docs, node paths, node names and group names inside the string a method
-- takes, file names in any other string. Part of vp.repl (see there).
local doc = require "vp.doc"
local describe = require "vp.repl.describe"
local format = require "vp.repl.format"

local complete = {}

local is_ident, natural_less = format.is_ident, format.natural_less
local class_of, capture_of = describe.class_of, describe.capture_of

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
  local lfs = require("vp.cli").lfs()
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

--- complete.safe_index(obj, key) -> obj[key], or nil when obj cannot be
-- indexed or the lookup raises.
function complete.safe_index(obj, key)
  local t = type(obj)
  if t ~= "table" and t ~= "userdata" and t ~= "string" then return nil end
  local ok, v = pcall(function() return obj[key] end)
  if ok then return v end
  return nil
end

local safe_index = complete.safe_index

local function is_callable(v)
  if type(v) == "function" then return true end
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__call") ~= nil
end

--- complete.member_names(obj [, methods_only]) -> names: those reachable
-- with `.` (or only methods, for `:`) on a value: a table's own keys, its
-- metatable's __methods (every vpscript class has one) or __index table
-- chain, the documented fields of its class, and a capture's fields table
-- (its first user value).
function complete.member_names(obj, methods_only)
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

local member_names = complete.member_names

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
  for _, k in ipairs(format.KEYWORDS) do add_unique(out, seen, k) end
  return out
end

--- complete.resolve_chain(env, chain) -> the value a chain of names ("cap",
-- "caps.a", "x.fr") stands for in env, or nil; every step goes through
-- complete.safe_index, so a value whose __index raises gives nil.
function complete.resolve_chain(env, chain)
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

local resolve_chain = complete.resolve_chain

-- The capture and what a string opened as the first argument of
-- `obj:method(` names, as the method's documentation says (vp.doc: its
-- arg, {kind = "path"|"pattern"|"group", alone =}), or nil.
local function string_argument(line, q, env)
  local chain, method = line:sub(1, q - 2):match("([%a_][%w_%.]*):([%a_][%w_]*)%s*%(%s*$")
  if not chain then return nil end
  local obj = resolve_chain(env, chain)
  local class = obj ~= nil and class_of(obj)
  if not class then return nil end
  local cap = class == "vp.vprof" and obj or capture_of(obj)
  if not cap then return nil end
  local m = doc.member(class, method)
  if not (m and m.arg) then return nil end
  return cap, m.arg
end

-- What closes a single completion: the quote before q, and the call's
-- parenthesis when the string is the method's only argument (arg.alone:
-- cap:group("Physics")).
local function closing(line, q, arg)
  return line:sub(q - 1, q - 1) .. (arg.alone and ")" or "")
end

-- Node paths, one level at a time: "Root" and the root's children at the
-- top (paths may be given relative to the root), then the children of the
-- node the text names. A node without children closes the string; one
-- typed in full gets its "/" so the next Tab goes on.
local function complete_node(line, q, cap, arg)
  local text = line:sub(q)
  local dir, base = text:match("^(.*/)([^/]*)$")
  if not dir then dir, base = "", text end
  local parent
  if dir ~= "" then
    local found, n = pcall(cap.node, cap, dir:sub(1, -2))
    if not found or n == nil then return q + #dir, {} end
    parent = n
  end
  local quote_char = closing(line, q, arg)
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
  table.sort(out, natural_less)
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
local function names_from(line, q, names, arg)
  local text, out = line:sub(q), {}
  for _, name in ipairs(names) do
    if name:sub(1, #text) == text then out[#out + 1] = name end
  end
  table.sort(out, natural_less)
  if #out == 1 then out[1] = out[1] .. closing(line, q, arg) end
  return q, out
end

-- Node names, each once, for a method that finds nodes by name wherever
-- they are (cap:find(" before any "/").
local function complete_name(line, q, cap, arg)
  local names, seen = {}, {}
  pcall(function()
    for n in cap:nodes() do
      if not seen[n.name] then
        seen[n.name] = true
        names[#names + 1] = n.name
      end
    end
  end)
  return names_from(line, q, names, arg)
end

local function complete_group(line, q, cap, arg)
  local names = {}
  pcall(function()
    for g in cap:groups() do names[#names + 1] = g.name end
  end)
  return names_from(line, q, names, arg)
end

--- complete.complete(line, env) -> start, candidates: repl.complete, the
-- names resolved in env.
function complete.complete(line, env)
  local none = #line + 1
  local q = open_string(line)
  if q then
    local cap, arg = string_argument(line, q, env)
    local kind = arg and arg.kind
    -- a pattern is a node name until it holds a "/", then a path
    if kind == "pattern" then kind = line:find("/", q, true) and "path" or "name" end
    if kind == "path" then return complete_node(line, q, cap, arg) end
    if kind == "name" then return complete_name(line, q, cap, arg) end
    if kind == "group" then return complete_group(line, q, cap, arg) end
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

return complete
