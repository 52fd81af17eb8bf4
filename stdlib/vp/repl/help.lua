-- vp.repl.help: the texts help() prints in the REPL (repl.help_text): a
-- class's members, one member with its example, a live value's class or
-- keys, the general text with the open captures. Everything comes from
-- the vp.doc documentation table. Part of vp.repl (see there).
local doc = require "vp.doc"
local describe = require "vp.repl.describe"
local format = require "vp.repl.format"
local complete = require "vp.repl.complete"

local help = {}

local safe_tostring, function_text, key_less = describe.tostring, format.function_text, format.key_less
local member_names, safe_index, resolve_chain = complete.member_names, complete.safe_index, complete.resolve_chain

local function wrap(text, width, indent)
  return indent .. require("vp.fmt").wrap(text, width, indent)
end

local KIND_TITLES = {
  { "function", "functions" }, { "operator", "operators" }, { "method", "methods" }, { "field", "fields" },
}

--- help.class_text(class [, value]) -> string: repl.class_text: a class's
-- members with their one-line descriptions; with `value`, methods its
-- metatable has that the documentation lacks are listed too.
function help.class_text(class, value)
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

--- help.member_text(class, member) -> string: repl.member_text: one member
-- with its example.
function help.member_text(class, m)
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
    for _, k in ipairs(caps) do out[#out + 1] = string.format("  %-6s %s", k, describe.describe(env[k])) end
  end
  out[#out + 1] = "documented classes:"
  for _, c in ipairs(doc.classes()) do
    out[#out + 1] = string.format("  %-22s %s", c.class, c.title)
  end
  for _, p in ipairs(doc.problems()) do out[#out + 1] = "documentation problem: " .. p end
  return table.concat(out, "\n")
end

local function value_text(v, settings)
  local class = doc.of(v)
  if class then return help.class_text(class, v) end
  if type(v) == "function" then
    local c, m = function_member(v)
    if c then return help.member_text(c, m) end
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
  return string.format("%s: %s (no documentation)", type(v), (format.format(v, settings)))
end

local function string_text(s, env, settings)
  local hits = doc.find(s)
  if #hits > 0 then
    local out = {}
    for _, h in ipairs(hits) do
      out[#out + 1] = h.member and help.member_text(h.class, h.member) or help.class_text(h.class)
    end
    return table.concat(out, "\n\n")
  end
  -- "cap:frames", "cap.root.name": a member of a live value.
  local head, sep, last = s:match("^([%a_][%w_%.]*)([.:])([%a_][%w_]*)$")
  if head then
    local obj = resolve_chain(env, head)
    local class = obj ~= nil and doc.of(obj)
    local m = class and class.index[last]
    if m then return help.member_text(class, m) end
    if sep == "." and obj ~= nil then
      local v = safe_index(obj, last)
      if v ~= nil then return value_text(v, settings) end
    end
  elseif s:match("^[%a_][%w_]*$") then
    local v = resolve_chain(env, s)
    if v ~= nil then return value_text(v, settings) end
  end
  return string.format('no documentation for "%s" (help() lists the documented classes)', s)
end

--- help.text(env, settings, n [, x]) -> string: what help(x) prints (help()
-- when n, the count of arguments, is 0): names resolve in env, values show
-- with the pretty printer's settings ({depth =, items =, ...}).
function help.text(env, settings, n, x)
  if n == 0 then return general_text(env) end
  if type(x) == "string" then return string_text(x, env, settings) end
  if x == nil then return "nil (no documentation): help() lists what there is" end
  return value_text(x, settings)
end

return help
