-- vp.json's encoder as it was written in Lua before the walk moved to C
-- (bindings/l_json.c, core/jsonw.c). tests/json_equal_spec.lua holds the C
-- encoder to it: the same bytes for the same value and schema.
--
--   local ref = dofile("tests/json_reference.lua")
--   ref.encode(value, parsed_schema, json.null, array_mt) -> string
local ref = {}

local null, array_mt

local ESC = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r",
  ["\t"] = "\\t",
}
local function esc(c)
  return ESC[c] or string.format("\\u%04x", c:byte())
end

-- ref.utf8(s): json.utf8 as it was (utf8.len finds each invalid byte).
function ref.utf8(s)
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
  return '"' .. ref.utf8(s):gsub('[%c"\\]', esc) .. '"'
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
  if v == nil or v == null then
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

function ref.encode(value, shape, json_null, mt)
  null, array_mt = json_null, mt
  local out = {}
  encode(value, shape, out, 0)
  return table.concat(out)
end

return ref
