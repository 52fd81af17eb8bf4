-- Specs for vp.json (the output encoder) and vp.error (error objects).
local vp = require "vp"
local json = require "vp.json"
local E = require "vp.error"
local cjson = require "cjson"

describe("vp.json", function()
  it("writes keys in schema order, undeclared ones after in byte order", function()
    local doc = { zeta = 1, frames = 2, file = "a", alpha = 3, [2] = "n" }
    assert.equal('{"file":"a","frames":2,"2":"n","alpha":3,"zeta":1}',
      json.encode(doc, "{file, frames}"))
  end)

  it("gives the same bytes whatever order the table was built in", function()
    local a, b = {}, {}
    local keys = {}
    for i = 1, 200 do keys[i] = "k" .. i end
    for i = 1, #keys do a[keys[i]] = i end
    for i = #keys, 1, -1 do b[keys[i]] = i end
    assert.equal(json.encode(a), json.encode(b))
    assert.truthy(json.encode(a):find('^{"k1":1,"k10":10,"k100":100,'))
  end)

  it("writes declared nil keys as null and leaves optional ones out", function()
    assert.equal('{"a":null,"c":1}', json.encode({ c = 1 }, "{a, b?, c}"))
    assert.equal('{"a":null,"b":2,"c":null}', json.encode({ b = 2 }, "{a, b?, c}"))
  end)

  it("writes declared lists as arrays, [] when empty, and nests shapes", function()
    local schema = "{hitches: [{frame, causes: [{node, ms}]}], by_kind: {*}}"
    assert.equal('{"hitches":[],"by_kind":{}}', json.encode({ hitches = {}, by_kind = {} }, schema))
    local doc = { hitches = { { causes = { { ms = 1.5, node = "A" } }, frame = 7 } }, by_kind = { b = 2, a = 1 } }
    assert.equal('{"hitches":[{"frame":7,"causes":[{"node":"A","ms":1.5}]}],"by_kind":{"a":1,"b":2}}',
      json.encode(doc, schema))
  end)

  it("applies the * shape to every further key", function()
    local doc = { n = 1, x = { b = 1, a = 2 }, y = { a = 3 } }
    assert.equal('{"n":1,"x":{"a":2,"b":1},"y":{"a":3,"b":null}}', json.encode(doc, "{n, *: {a, b}}"))
  end)

  it("tells arrays from objects without a schema", function()
    assert.equal("[1,2,3]", json.encode({ 1, 2, 3 }))
    assert.equal('{"1":1,"3":3}', json.encode({ [1] = 1, [3] = 3 }))
    assert.equal("{}", json.encode({}))
    assert.equal("[]", json.encode(json.array()))
    assert.equal('{"1":"a","x":1}', json.encode({ "a", x = 1 }))
  end)

  it("writes integers as integers, floats with 14 digits, NaN and infinities as null", function()
    assert.equal("[3,3,29.776,0.1,-0,1e+300,null,null,null]",
      json.encode({ 3, 3.0, 29.776000000000003, 0.1, -0.0, 1e300, 0 / 0, math.huge, -math.huge }))
    assert.equal(string.format("%d", math.mininteger), json.encode(math.mininteger))
  end)

  it("escapes control characters and quotes, keeps '/' and UTF-8 as they are", function()
    local s = 'a"b\\c/d\n\r\t\b\f\1\127é'
    local out = json.encode(s)
    assert.equal('"a\\"b\\\\c/d\\n\\r\\t\\b\\f\\u0001\\u007fé"', out)
    assert.equal(s, cjson.decode(out))
  end)

  it("replaces every byte that is not valid UTF-8 with U+FFFD", function()
    local bad = { "\255", "a\192\128b", "\237\160\128", "\244\144\128\128", "x\226\130", "\128\128" }
    local want = { "\239\191\189", "a\239\191\189\239\191\189b", ("\239\191\189"):rep(3),
      ("\239\191\189"):rep(4), "x\239\191\189\239\191\189", ("\239\191\189"):rep(2) }
    for i, s in ipairs(bad) do
      local out = json.encode({ name = s })
      assert.truthy(utf8.len(out), "output is valid UTF-8 for case " .. i)
      assert.equal(want[i], cjson.decode(out).name, "case " .. i)
    end
    assert.equal("ok \226\130\172", json.utf8("ok \226\130\172"))
  end)

  it("writes a Series as a list", function()
    assert.equal('{"s":[1,2.5]}', json.encode({ s = vp.Series({ 1, 2.5 }) }))
  end)

  it("refuses keys and values JSON cannot hold, and cycles", function()
    assert.has_error(function() json.encode({ [true] = 1 }) end)
    assert.has_error(function() json.encode({ f = print }) end)
    local t = {}
    t.t = t
    assert.has_error(function() json.encode(t) end)
  end)

  it("reports malformed schemas with the position", function()
    local ok, e = pcall(json.schema, "{a, b")
    assert.is_false(ok)
    assert.truthy(tostring(e):find("position"))
    assert.has_error(function() json.schema("{a, a}") end)
    assert.has_error(function() json.schema("{a} x") end)
  end)

  it("lists the keys a schema does not declare", function()
    local doc = { a = 1, b = { { x = 1, y = 2 } }, m = { q = { n = 1, o = 2 } } }
    assert.same({ "b[1].y", "m.q.o" }, json.undeclared(doc, "{a, b: [{x}], m: {*: {n}}}"))
    assert.same({}, json.undeclared(doc, "{a, b: [{x, y}], m: {*}}"))
  end)

  it("lists the keys a schema declares that a document lacks", function()
    local doc = { a = 1, b = { { x = 1 }, { y = 2 } } }
    assert.same({ "b[2].x", "c" }, json.missing(doc, "{a, b: [{x}], c}"))
    assert.same({}, json.missing(doc, "{a, b: []}"))
  end)
end)

describe("vp.json.decode", function()
  it("reads back what the encoder writes as an independent reader (lua-cjson) does", function()
    local doc = { file = "a/b.vprof", frames = 4000, mean = 16.6666666666667, list = { 1, 2.5, -3 },
      nested = { ok = true, no = false, s = "\"q\" \\ \n \u{1F600}" }, nothing = json.null }
    local text = json.encode(doc)
    local mine, theirs = json.decode(text), cjson.decode(text)
    assert.same(theirs, mine)
    assert.equal(json.null, mine.nothing)
    assert.equal(cjson.null, mine.nothing) -- one null, whichever module built the document
    assert.equal(text, json.encode(mine))
  end)

  it("keeps integers whole and a repeated key's last value", function()
    assert.equal(9007199254740993, json.decode("[9007199254740993]")[1])
    assert.equal("integer", math.type(json.decode("[7]")[1]))
    assert.same({ a = 2 }, json.decode('{"a": 1, "a": 2}'))
  end)

  it("refuses what is not JSON, naming the byte, and tokens that are no JSON number", function()
    local function err(s)
      local ok, e = pcall(json.decode, s)
      assert.is_false(ok, s)
      return e
    end
    assert.matches("vp.json: at byte 3: expected a value but found the end of the file", err("[1,"))
    assert.matches("vp.json: at byte 3: expected ',' or ']' but found '2'", err("[1 2]"))
    assert.matches("'NaN' is not a JSON number", err('{"a": NaN}'))
    assert.matches("'0x10' is not a JSON number", err("[0x10]"))
  end)
end)

describe("vp.error", function()
  it("raises objects with a code, a message and the exit status for the code", function()
    local ok, e = pcall(E.raise, "EINPUT", "%s: no frames", "cap.vprof")
    assert.is_false(ok)
    assert.is_true(E.is(e))
    assert.equal("EINPUT", e.code)
    assert.equal("cap.vprof: no frames", e.message)
    assert.equal(2, e.exit)
    assert.equal("cap.vprof: no frames", tostring(e))
  end)

  it("maps codes to exit statuses in one place", function()
    assert.equal(2, E.exit_code("EUSAGE"))
    assert.equal(2, E.exit_code("ETRUNC"))
    assert.equal(3, E.exit_code("EGATE"))
    assert.equal(1, E.exit_code("ESOMETHING"))
    -- and back: the code a status a script chooses is raised with
    for _, status in ipairs({ 0, 1, 2, 3, 7 }) do
      local code = E.code_of(status)
      assert.equal(status == 7 and 1 or status, E.exit_code(code), code)
    end
    assert.same({ "EOK", "ESCRIPT", "EINPUT", "EGATE" }, { E.code_of(0), E.code_of(1), E.code_of(2), E.code_of(3) })
    assert.equal(5, E.new("EX", nil, 5).exit)
  end)

  it("tells its objects from other errors", function()
    assert.is_false(E.is("text"))
    assert.is_false(E.is({ code = "EINPUT" }))
    assert.equal("text", E.message("text"))
    assert.equal("m", E.message(E.new("EINPUT", "m")))
  end)
end)
