-- vp.json: the one JSON encoder of vpscript's output.
--
--   local json = require "vp.json"
--   io.write(json.encode(doc, "{file, frames, groups: [{group, mean_ms}]}"), "\n")
--
-- Every JSON, NDJSON and JUnit-adjacent document vpscript prints goes through
-- json.encode, so these rules hold everywhere, and the same value always
-- gives the same bytes:
--
--   * Keys come in the order the schema declares them; keys it does not
--     declare follow in byte order (numbers, as keys, before strings, in
--     numeric order). Without a schema every object's keys are in byte order.
--   * A declared key whose value is nil is written as null (a key declared
--     with a trailing "?" is left out instead).
--   * A value the schema declares as a list is an array, [] when empty.
--     Without a schema a table is an array when its keys are exactly 1..n
--     (n >= 1) or it was marked with json.array; otherwise an object, {}
--     when empty.
--   * Integers are written as integers, other numbers with 14 significant
--     digits (%.14g); NaN and infinities are null.
--   * Strings are valid UTF-8: each byte that is not part of a valid UTF-8
--     sequence becomes U+FFFD; '"', '\' and control characters are escaped.
--   * A userdata with a totable method (a vp.Series) is written as the list
--     it returns; other userdata as tostring().
--
-- Schema notation, the one DESIGN.md writes JSON documents in:
--
--   {a, b, c: {x, y}, d: [{k, v}], e: [], f?, *: {n}}
--
-- an object whose keys come in that order: a and b any value, c an object
-- with keys x, y; d a list of objects; e a list of any values; f left out
-- when nil; * any further keys (in byte order) whose values are objects
-- with key n. A key that is not a plain word ([%w_.-]+) is quoted: "p50 ms".
local json = {}

local cjson = require("cjson").new()

json.null = cjson.null

local array_mt = { __name = "vp.json.array" }

--- json.array(t) -> t, marked as a list: written as [] when empty even
-- without a schema. t stays a plain table.
function json.array(t)
  return setmetatable(t or {}, array_mt)
end

-- Schemas ----------------------------------------------------------------------
-- A parsed shape is nil (any value), {kind = "list", item = shape} or
-- {kind = "object", keys = {{name, shape, optional}...}, index = {name = true},
-- open = true when "*" is declared, rest = the shape of the further keys}.

local cache = {}

local function parse(src)
  local pos = 1
  local function fail(what)
    error(string.format("vp.json: schema %q: %s at position %d", src, what, pos), 0)
  end
  local function peek()
    pos = src:find("%S", pos) or #src + 1
    return src:sub(pos, pos)
  end
  local shape
  local function key()
    peek()
    local q = src:match('^"([^"]*)"', pos)
    if q then
      pos = pos + #q + 2
      return q
    end
    local k = src:match("^[%w_%.%-]+", pos) or src:match("^%*", pos)
    if not k then fail("expected a key") end
    pos = pos + #k
    return k, k == "*"
  end
  function shape()
    local c = peek()
    if c == "{" then
      pos = pos + 1
      local obj = { kind = "object", keys = {}, index = {} }
      if peek() == "}" then
        pos = pos + 1
        return obj
      end
      while true do
        local name, star = key()
        local optional = false
        if peek() == "?" then
          optional = true
          pos = pos + 1
        end
        local sub
        if peek() == ":" then
          pos = pos + 1
          sub = shape()
        end
        if star then
          obj.open, obj.rest = true, sub
        else
          if obj.index[name] then fail("key '" .. name .. "' declared twice") end
          obj.index[name] = true
          obj.keys[#obj.keys + 1] = { name = name, shape = sub, optional = optional }
        end
        local d = peek()
        if d == "}" then
          pos = pos + 1
          return obj
        end
        if d ~= "," then fail("expected ',' or '}'") end
        pos = pos + 1
      end
    elseif c == "[" then
      pos = pos + 1
      local item
      if peek() ~= "]" then item = shape() end
      if peek() ~= "]" then fail("expected ']'") end
      pos = pos + 1
      return { kind = "list", item = item }
    end
    return nil
  end
  local s = shape()
  if peek() ~= "" then fail("unexpected text") end
  return s
end

--- json.schema(src) -> the parsed schema (cached); raises on a malformed one.
-- A parsed schema may be passed wherever a schema string is accepted.
function json.schema(src)
  if type(src) ~= "string" then return src end
  local s = cache[src]
  if s == nil then
    s = parse(src) or false
    cache[src] = s
  end
  return s or nil
end

-- Encoding ---------------------------------------------------------------------

local ESC = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r",
  ["\t"] = "\\t",
}
local function esc(c)
  return ESC[c] or string.format("\\u%04x", c:byte())
end

--- json.utf8(s) -> s with every byte that is not part of a valid UTF-8
-- sequence replaced by U+FFFD (s itself when it is valid).
function json.utf8(s)
  if utf8.len(s) then return s end
  local out, i, n = {}, 1, #s
  while i <= n do
    local ok, bad = utf8.len(s, i)
    if ok then
      out[#out + 1] = s:sub(i)
      break
    end
    out[#out + 1] = s:sub(i, bad - 1)
    out[#out + 1] = "\239\191\189"
    i = bad + 1
  end
  return table.concat(out)
end

local function quote(s)
  return '"' .. json.utf8(s):gsub('[%c"\\]', esc) .. '"'
end

local function number(x)
  if math.type(x) == "integer" then return string.format("%d", x) end
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  return string.format("%.14g", x)
end

-- Keys in byte order, numbers first (numerically).
local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta == "number" end
  return a < b
end

local function sorted_keys(t, skip)
  local keys = {}
  for k in pairs(t) do
    local tk = type(k)
    if tk ~= "string" and tk ~= "number" then
      error("vp.json: a table key of type " .. tk .. " cannot be written as JSON", 0)
    end
    if not (skip and skip[k]) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_less)
  return keys
end

-- The length of t when its keys are exactly 1..n (n >= 1), else nil.
local function sequence_length(t)
  local n = #t
  if n == 0 then return nil end
  local count = 0
  for _ in pairs(t) do
    count = count + 1
    if count > n then return nil end
  end
  return count == n and n or nil
end

local encode

local function encode_list(t, item, out, depth)
  local n = #t
  if n == 0 then
    out[#out + 1] = "[]"
    return
  end
  out[#out + 1] = "["
  for i = 1, n do
    if i > 1 then out[#out + 1] = "," end
    encode(t[i], item, out, depth)
    if out.flush and #out >= 8192 then out.flush() end
  end
  out[#out + 1] = "]"
end

local function encode_object(t, shape, out, depth)
  out[#out + 1] = "{"
  local first = true
  local function member(k, v, sub)
    if not first then out[#out + 1] = "," end
    first = false
    out[#out + 1] = quote(tostring(k))
    out[#out + 1] = ":"
    encode(v, sub, out, depth)
  end
  if shape then
    for _, e in ipairs(shape.keys) do
      local v = t[e.name]
      if v ~= nil or not e.optional then member(e.name, v, e.shape) end
    end
  end
  for _, k in ipairs(sorted_keys(t, shape and shape.index)) do
    member(k, t[k], shape and shape.rest)
  end
  out[#out + 1] = "}"
end

function encode(v, shape, out, depth)
  local t = type(v)
  if v == nil or v == json.null then
    out[#out + 1] = "null"
  elseif t == "boolean" then
    out[#out + 1] = v and "true" or "false"
  elseif t == "number" then
    out[#out + 1] = number(v)
  elseif t == "string" then
    out[#out + 1] = quote(v)
  elseif t == "table" then
    if depth > 200 then error("vp.json: value nested too deeply (a cycle?)", 0) end
    local kind = shape and shape.kind
    if kind == "object" then
      encode_object(v, shape, out, depth + 1)
    elseif kind == "list" or getmetatable(v) == array_mt then
      encode_list(v, shape and shape.item, out, depth + 1)
    elseif sequence_length(v) then
      encode_list(v, nil, out, depth + 1)
    else
      encode_object(v, nil, out, depth + 1)
    end
  elseif t == "userdata" then
    local mt = getmetatable(v)
    local ok, list = false, nil
    if mt then ok, list = pcall(function() return v:totable() end) end
    if ok and type(list) == "table" then
      encode_list(list, nil, out, depth + 1)
    else
      out[#out + 1] = quote(tostring(v))
    end
  else
    error("vp.json: a " .. t .. " value cannot be written as JSON", 0)
  end
end

--- json.encode(value [, schema]) -> string: one JSON text (no newline).
function json.encode(value, schema)
  local out = {}
  encode(value, json.schema(schema), out, 0)
  return table.concat(out)
end

--- json.write(value, schema, write): the text json.encode gives, handed to
-- write(piece) as it is made (a list of a million objects is never whole
-- in memory: --json on a huge report).
function json.write(value, schema, write)
  local out = {}
  out.flush = function()
    write(table.concat(out))
    for i = #out, 1, -1 do out[i] = nil end
  end
  encode(value, json.schema(schema), out, 0)
  out.flush()
end

-- The paths of a value against a schema that `undeclared` (keys the schema
-- does not declare) or, without it, missing (declared keys absent) finds.
local function schema_paths(value, schema, undeclared)
  local found = {}
  local function walk(v, shape, path)
    if type(v) ~= "table" or not shape then return end
    if shape.kind == "list" then
      for i = 1, #v do walk(v[i], shape.item, path .. "[" .. i .. "]") end
    elseif shape.kind == "object" then
      for _, e in ipairs(shape.keys) do
        local p = path == "" and e.name or (path .. "." .. e.name)
        if not undeclared and v[e.name] == nil and not e.optional then found[#found + 1] = p end
        walk(v[e.name], e.shape, p)
      end
      for _, k in ipairs(undeclared and sorted_keys(v, shape.index) or {}) do
        local p = path == "" and tostring(k) or (path .. "." .. tostring(k))
        if shape.open then walk(v[k], shape.rest, p) else found[#found + 1] = p end
      end
    end
  end
  walk(value, json.schema(schema), "")
  return found
end

--- json.undeclared(value, schema) -> list of the paths ("groups[1].extra")
-- of keys the schema does not declare (and does not allow with "*"):
-- specs use it to keep a script's documented shape and its output equal.
function json.undeclared(value, schema)
  return schema_paths(value, schema, true)
end

--- json.missing(value, schema) -> list of the paths of keys the schema
-- declares that a decoded document lacks (JSON null decodes to a value, so
-- only keys left out count): the other half of json.undeclared.
function json.missing(value, schema)
  return schema_paths(value, schema, false)
end

--- json.decode(s) -> value (lua-cjson; JSON null is json.null).
function json.decode(s)
  return cjson.decode(s)
end

return json
