-- vp.repl: the Lua side of the vpscript REPL (`vpscript -i [captures...]`):
-- the pretty printer for results, Tab completion candidates, help() and the
-- error display. The host (host/main.c) does the line editing and calls
--   repl.start(env, files)     open the captures, install help()
--   repl.show(...)             print a statement's results
--   repl.complete(line)        -> start, candidates (Tab)
--   repl.error_text(msg)       message and a short traceback
-- Everything here is plain Lua and can be used from scripts too, e.g.
-- `print(require("vp.repl").format(t))`.
local doc = require "vp.doc"

local repl = {}

local function lfs_module()
  local ok, lfs = pcall(require, "lfs")
  return ok and type(lfs) == "table" and lfs or nil
end

-- pretty printer -----------------------------------------------------------

repl.defaults = { depth = 3, items = 50, width = 78, string_len = 200 }

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

local function key_less(a, b)
  local ta, tb = TYPE_ORDER[type(a)] or 4, TYPE_ORDER[type(b)] or 4
  if ta ~= tb then return ta < tb end
  if ta <= 2 then return a < b end
  if ta == 3 then return (not a) and b end
  return safe_tostring(a) < safe_tostring(b)
end

local format_value

local function format_table(t, o, level, path)
  if path[t] then return "<cycle>" end
  local mt = getmetatable(t)
  if type(mt) == "table" and rawget(mt, "__tostring") then return safe_tostring(t) end
  if next(t) == nil then return "{}" end
  if level >= o.depth then return "{...}" end
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
      local ks = is_ident(k) and k or ("[" .. format_value(k, o, o.depth, path) .. "]")
      add(ks .. " = " .. format_value(rawget(t, k), o, level + 1, path))
    end
  end
  path[t] = nil
  if total > o.items then entries[#entries + 1] = string.format("... (%d more)", total - o.items) end
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
  return safe_tostring(v)
end

--- repl.format(value [, opts]) -> string: a readable rendering; tables with
-- sorted keys, `depth` and `items` limits, `<cycle>` where a table contains
-- itself; userdata (captures, frames, Series) through their __tostring.
function repl.format(value, opts)
  local o = {}
  for k, v in pairs(repl.defaults) do o[k] = (opts and opts[k]) or v end
  return format_value(value, o, 0, {})
end

--- repl.show(...): print values the way the REPL shows results.
function repl.show(...)
  local n = select("#", ...)
  local parts, multi = {}, false
  for i = 1, n do
    parts[i] = repl.format((select(i, ...)))
    if parts[i]:find("\n") then multi = true end
  end
  io.stdout:write(table.concat(parts, multi and "\n" or "\t"), "\n")
  io.stdout:flush()
end

-- errors -------------------------------------------------------------------

--- repl.error_text(msg) -> string: the message with a short traceback: the
-- interpreter's own frames dropped, at most `max` frames, and none at all
-- when the error was raised directly at the prompt.
function repl.error_text(msg, max)
  max = max or 6
  msg = tostring(msg)
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

--- repl.complete(line [, env]) -> start, candidates: completions for the
-- text before the cursor. `start` is the 1-based position where the word
-- being completed begins; each candidate replaces line:sub(start).
-- Completes globals and keywords, `a.b.c` fields and `obj:method` names
-- (through metatables), and file names inside an open string.
function repl.complete(line, env)
  env = env or _G
  local none = #line + 1
  local q = open_string(line)
  if q then return complete_file(line, q) end
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
  local out, line = {}, ""
  for word in text:gmatch("%S+") do
    if line ~= "" and #line + 1 + #word > width then
      out[#out + 1] = line
      line = word
    else
      line = line == "" and word or (line .. " " .. word)
    end
  end
  if line ~= "" then out[#out + 1] = line end
  return indent .. table.concat(out, "\n" .. indent)
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
    for _, k in ipairs(caps) do out[#out + 1] = string.format("  %-6s %s", k, safe_tostring(env[k])) end
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

--- repl.start(env, files): install help() in env and open each file as
-- env.cap (one file) or env.cap1, env.cap2, ... (several; env.cap is then
-- the first that opened). One line per file says what was opened; a file
-- that does not open is reported and the REPL starts anyway.
function repl.start(env, files)
  env.help = function(...)
    io.stdout:write(help_for(env, select("#", ...), (...)), "\n")
  end
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
      io.stdout:write(name, " = ", safe_tostring(cap), also, "\n")
      for _, w in ipairs(cap.warnings or {}) do io.stderr:write("warning: ", tostring(w), "\n") end
    end
  end
  io.stdout:flush()
end

return repl
