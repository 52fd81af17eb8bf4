-- vp.repl.format: the REPL's pretty printer (repl.format): tables with
-- their keys in natural order, depth and items limits, cycles, strings
-- quoted and cut, userdata through vp.repl.describe. Part of vp.repl (see
-- there); the settings come from the caller.
local describe = require "vp.repl.describe"

local format = {}

local safe_tostring = describe.tostring

--- format.KEYWORDS: Lua's reserved words.
format.KEYWORDS = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}
local is_keyword = {}
for _, k in ipairs(format.KEYWORDS) do is_keyword[k] = true end

--- format.is_ident(s) -> true when s is a string Lua takes as a name.
function format.is_ident(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil and not is_keyword[s]
end
local is_ident = format.is_ident

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

--- format.function_text(f) -> "<function file:line>" or "<function: builtin>".
function format.function_text(f)
  local info = debug.getinfo(f, "S")
  if not info or info.what == "C" then return "<function: builtin>" end
  return string.format("<function %s:%d>", info.short_src, info.linedefined)
end

local TYPE_ORDER = { number = 1, string = 2, boolean = 3 }

--- format.natural_less(a, b) -> boolean: repl.natural_less.
function format.natural_less(a, b)
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
local natural_less = format.natural_less

--- format.key_less(a, b) -> boolean: the order of a table's keys as shown:
-- numbers, then strings (natural_less), booleans, then anything else.
function format.key_less(a, b)
  local ta, tb = TYPE_ORDER[type(a)] or 4, TYPE_ORDER[type(b)] or 4
  if ta ~= tb then return ta < tb end
  if ta == 1 then return a < b end
  if ta == 2 then return natural_less(a, b) end
  if ta == 3 then return (not a) and b end
  return natural_less(safe_tostring(a), safe_tostring(b))
end
local key_less = format.key_less

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
  if t == "function" then return format.function_text(v) end
  if t == "userdata" then return describe.describe(v) end
  return safe_tostring(v)
end

--- format.format(value, settings) -> string, cut: repl.format with the
-- settings in use ({depth =, items =, width =, string_len =}).
function format.format(value, settings)
  local o = { cut = {} }
  for k, v in pairs(settings) do o[k] = v end
  local text = format_value(value, o, 0, {})
  return text, next(o.cut) and o.cut or nil
end

return format
