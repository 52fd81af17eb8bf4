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

require "vp" -- preloads vp.json.core
local core = require "vp.json.core"
local jr = require "vp.jsonread"

--- json.null: JSON null, a light userdata NULL (the value lua-cjson's null
-- is too): a declared key whose value is nil is written as null anyway.
json.null = core.null

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
-- The walk over the value and the bytes it writes are C (bindings/l_json.c,
-- core/jsonw.c: the rules above); this module parses the schemas.

--- json.utf8(s) -> s with every byte that is not part of a valid UTF-8
-- sequence replaced by U+FFFD (s itself when it is valid).
json.utf8 = core.utf8

--- json.encode(value [, schema]) -> string: one JSON text (no newline).
function json.encode(value, schema)
  return core.encode(value, json.schema(schema), json.null, array_mt)
end

--- json.write(value, schema, write): the text json.encode gives, handed to
-- write(piece) as it is made (a list of a million objects is never whole
-- in memory: --json on a huge report).
function json.write(value, schema, write)
  core.encode(value, json.schema(schema), json.null, array_mt, write)
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
      for _, k in ipairs(undeclared and core.keys(v, shape.index) or {}) do
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

-- Decoding ------------------------------------------------------------------------

-- A decoded value with the reader's null as json.null; a bare token that is
-- no JSON number (NaN, 0x10, 1e999) raises.
local function plain(v)
  if v == jr.null then return json.null end
  local bad = jr.is_bad(v)
  if bad then error("vp.json: '" .. bad .. "' is not a JSON number", 0) end
  if type(v) == "table" then
    for k, x in pairs(v) do v[k] = plain(x) end
  end
  return v
end

--- json.decode(s) -> value: one JSON text (RFC 8259, vp.jsonread: the one
-- reader, so what the tool writes reads back as its own readers read);
-- JSON null is json.null, a repeated key keeps its last value. Raises
-- "vp.json: at byte N: ..." on malformed text.
function json.decode(s)
  local ok, doc = pcall(jr.decode, s)
  if not ok then
    if type(doc) == "table" then error(string.format("vp.json: at byte %d: %s", doc.offset, doc.message), 2) end
    error(doc, 0)
  end
  local ok2, v = pcall(plain, doc.value)
  if not ok2 then error(v, 2) end
  return v
end

return json
