-- vp.json's C encoder against the Lua one it replaced (tests/json_reference.lua):
-- the same bytes for random documents, with and without schemas, and for
-- the strings that test the UTF-8 repair and the escapes byte by byte.
local vp = require "vp"
local json = require "vp.json"
local ref = dofile("tests/json_reference.lua")

local ARRAY_MT = getmetatable(json.array({}))

local function same(value, schema)
  local shape = json.schema(schema)
  local want = ref.encode(value, shape, json.null, ARRAY_MT)
  assert.equal(want, json.encode(value, schema))
  local pieces = {}
  json.write(value, schema, function(s) pieces[#pieces + 1] = s end)
  assert.equal(want, table.concat(pieces))
end

-- xorshift32: the same documents on every run.
local function prng(seed)
  local x = seed
  return function(n)
    x = x ~ (x << 13) & 0xffffffff
    x = x ~ (x >> 17)
    x = x ~ (x << 5) & 0xffffffff
    return x % n
  end
end

local NUMBERS = { 0, -0.0, 1, -1, 0.1, 1 / 3, 1e300, -1e-300, 2 ^ 53, 2 ^ 63, math.maxinteger, math.mininteger,
  0 / 0, math.huge, -math.huge, 123456789.125, 1e15, 1e16, 4.0, -7.5 }
-- Bytes that start, continue, break or overflow UTF-8 sequences, and the
-- characters JSON escapes.
local BYTES = { 0, 1, 8, 9, 10, 12, 13, 31, 32, 34, 47, 92, 65, 127, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
  0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xfe, 0xff, 0xa0, 0x9f, 0x8f, 0x90 }

local function random_string(r)
  local t = {}
  for i = 1, r(12) do t[i] = string.char(BYTES[r(#BYTES) + 1]) end
  return table.concat(t)
end

local function random_value(r, depth)
  local k = r(depth > 3 and 5 or 9)
  if k == 0 then return nil end
  if k == 1 then return r(2) == 1 end
  if k == 2 then return NUMBERS[r(#NUMBERS) + 1] end
  if k == 3 then return random_string(r) end
  if k == 4 then return json.null end
  if k <= 6 then -- a list, sometimes marked, sometimes with a hole
    local t = {}
    for i = 1, r(5) do t[i] = random_value(r, depth + 1) end
    if r(3) == 0 then json.array(t) end
    return t
  end
  local t = {} -- an object: string keys, sometimes number keys too
  for _ = 1, r(6) do t[random_string(r)] = random_value(r, depth + 1) end
  if r(3) == 0 then t[r(5) + 1] = random_value(r, depth + 1) end
  if r(4) == 0 then t[r(100) / 7] = "f" end
  return t
end

describe("vp.json's C encoder", function()
  it("writes what the Lua encoder wrote for 2,000 random values without a schema", function()
    local r = prng(12345)
    for _ = 1, 2000 do same(random_value(r, 0)) end
  end)

  it("writes what the Lua encoder wrote with schemas: order, optional keys, lists, * and undeclared keys", function()
    local r = prng(777)
    local schema = "{file, frames?, hitches: [{frame, causes: [{node, ms}], extra?}], by: {*: {a, b?}}, e: []}"
    for _ = 1, 500 do
      local doc = { file = random_value(r, 2), hitches = {}, by = {}, zz = random_value(r, 2) }
      if r(2) == 0 then doc.frames = random_value(r, 2) end
      for i = 1, r(4) do
        doc.hitches[i] = { frame = r(1000), causes = { { node = random_string(r), ms = NUMBERS[r(#NUMBERS) + 1] } },
          extra = r(2) == 0 and random_string(r) or nil, [random_string(r)] = random_value(r, 3) }
      end
      for _ = 1, r(4) do doc.by[random_string(r)] = { a = random_value(r, 3), c = random_value(r, 3) } end
      if r(2) == 0 then doc.e = json.array({}) end
      same(doc, schema)
    end
  end)

  it("repairs and escapes every string of up to three bytes from a set of edge bytes as the Lua encoder did", function()
    local edge = { 0, 10, 31, 34, 92, 127, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff }
    for _, a in ipairs(edge) do
      for _, b in ipairs(edge) do
        for _, c in ipairs(edge) do
          local s = string.char(a, b, c)
          assert.equal(ref.utf8(s), json.utf8(s))
          same(s)
        end
      end
    end
    -- whole sequences: the largest code points, surrogates, overlong forms
    for _, s in ipairs({ "\u{10FFFF}", "\u{FFFF}", "\u{800}", "\u{7FF}", "\xed\xa0\x80", "\xed\x9f\xbf",
      "\xf4\x90\x80\x80", "\xe0\x80\xaf", "\xf0\x80\x80\xaf", "\xc0\xaf", "ok\0nul", "é\xe9" }) do
      assert.equal(ref.utf8(s), json.utf8(s))
      same({ [s] = s })
    end
  end)

  it("writes a Series as its list and other userdata as tostring, as before", function()
    same({ s = vp.Series({ 1, 2.5, 0 / 0 }) }, "{s}")
    same({ f = io.stdout }, "{f?}")
  end)

  it("raises the same errors as the Lua encoder", function()
    local function err(f)
      local ok, e = pcall(f)
      assert.is_false(ok)
      return e
    end
    local cycle = {}
    cycle[1] = cycle
    for _, v in ipairs({ { [true] = 1 }, { f = print }, cycle }) do
      assert.equal(err(function() ref.encode(v, nil, json.null, ARRAY_MT) end), err(function() json.encode(v) end))
    end
  end)
end)
