-- vp.doc, the one documentation table, and tools/gen_readme.lua which
-- renders it as the README's API reference.
local h = require "helpers"
local doc = require "vp.doc"
local vp = require "vp"

describe("vp.doc", function()
  it("loads every documentation module without a problem", function()
    assert.are.same({}, doc.problems())
    assert.are.equal("vp", doc.modules()[1])
    assert.is_true(#doc.classes() >= 2)
  end)

  it("names every documentation module in the list used when the directory cannot be listed", function()
    local lfs = require "lfs"
    local files, known = {}, {}
    for f in lfs.dir(doc.dir()) do
      local n = f:match("^([%w_]+)%.lua$")
      if n then files[#files + 1] = n end
    end
    for i, n in ipairs(doc.KNOWN) do known[i] = n end
    table.sort(files)
    table.sort(known)
    assert.is_true(#files >= 10)
    assert.same(files, known)
  end)

  it("documents every function of the vp module, and nothing it lacks", function()
    local c = assert(doc.class("vp"))
    for k, v in pairs(vp) do
      assert.is_truthy(c.index[k], "vp." .. k .. " is not documented")
      if type(v) == "function" then assert.are.equal("function", c.index[k].kind) end
    end
    for _, m in ipairs(c.members) do
      assert.is_not_nil(vp[m.name], "vp." .. m.name .. " is documented but does not exist")
    end
  end)

  it("documents every method of every class the bindings register, and only those", function()
    -- Writer classes are registered on first use: make one of each, so the
    -- check does not depend on which specs ran before this one.
    local dir = h.tmpdir()
    for _, f in ipairs(vp.formats()) do
      local ok, w = pcall(vp.writer, f.name, dir .. "/doc." .. f.name)
      if ok then w:close() end
    end
    local seen = 0
    for name, mt in pairs(debug.getregistry()) do
      local methods = type(name) == "string" and type(mt) == "table" and rawget(mt, "__methods")
      if type(methods) == "table" then
        seen = seen + 1
        local c = doc.class(name)
        assert.is_not_nil(c, "class " .. name .. " has no documentation")
        assert.are.equal(name, c.class)
        for k in pairs(methods) do
          assert.is_truthy(c.index[k], name .. ":" .. k .. " is not documented")
        end
        for _, m in ipairs(c.members) do
          if m.kind == "method" then
            assert.is_not_nil(methods[m.name], name .. ":" .. m.name .. " is documented but does not exist")
          end
        end
      end
    end
    assert.is_true(seen >= 14)
    h.cleanup()
  end)

  it("documents vp.Series completely, operators included", function()
    local c = assert(doc.class("vp.Series"))
    for _, name in ipairs({ "#", "[i]", "sum", "mean", "min", "max", "argmax", "argmin", "stddev",
                            "percentile", "totable", "slice" }) do
      assert.is_truthy(c.index[name], name)
    end
    assert.matches("nearest%-rank", c.index.percentile.doc)
    assert.matches("ceil%(p/100%*n%)", c.index.percentile.doc)
    assert.matches("population", c.index.stddev.doc)
  end)

  it("finds classes and members by name", function()
    assert.are.equal("vp.Series", doc.class("Series").class)
    assert.are.equal("vp.Series", doc.class("VP.SERIES").class)
    assert.is_nil(doc.class("nothing"))
    local hits = doc.find("vp.open")
    assert.are.equal(1, #hits)
    assert.are.equal("open", hits[1].member.name)
    hits = doc.find("Series:percentile")
    assert.are.equal("percentile", hits[1].member.name)
    hits = doc.find("percentile")
    assert.is_true(#hits >= 1)
    for _, hit in ipairs(hits) do assert.are.equal("percentile", hit.member.name) end
    assert.are.same({}, doc.find("no_such_member_anywhere"))
    assert.are.equal("vp", doc.of(vp).class)
    assert.are.equal("vp.Series", doc.of(vp.Series { 1 }).class)
    assert.is_nil(doc.of({}))
    assert.is_nil(doc.of(42))
  end)

  it("rejects documentation that breaks the schema", function()
    local function problems(list) return doc.validate(list, "x") end
    assert.are.same({}, problems({ { class = "k", title = "t", members = {
      { name = "m", kind = "method", sig = "k:m()", doc = "one line" },
      { name = "f", kind = "field", doc = "a field" },
      { name = "#", kind = "operator", sig = "#k", doc = "length" } } } }))
    assert.are.equal(1, #problems({}))
    assert.are.equal(1, #problems({ { title = "t", members = {} } }))
    assert.are.equal(1, #problems({ { class = "k", members = {} } }))
    assert.matches("kind", problems({ { class = "k", title = "t", members = {
      { name = "m", kind = "meth", sig = "s", doc = "d" } } } })[1])
    assert.matches("one non%-empty line", problems({ { class = "k", title = "t", members = {
      { name = "m", kind = "method", sig = "s", doc = "two\nlines" } } } })[1])
    assert.matches("needs `sig`", problems({ { class = "k", title = "t", members = {
      { name = "m", kind = "method", doc = "d" } } } })[1])
    assert.matches("identifier", problems({ { class = "k", title = "t", members = {
      { name = "not valid", kind = "field", doc = "d" } } } })[1])
  end)

  it("renders every class and every member as Markdown", function()
    local md = doc.markdown()
    for _, c in ipairs(doc.classes()) do
      assert.is_truthy(md:find("\n### `" .. c.class .. "`: ", 1, true), "no section for " .. c.class)
      for _, m in ipairs(c.members) do
        local sig = m.sig or m.name
        assert.is_truthy(md:find(sig, 1, true), c.class .. ": no " .. sig)
        if m.example then
          local first = m.example:match("^[^\n]*")
          assert.is_truthy(md:find("  " .. first, 1, true), c.class .. "." .. m.name .. ": example missing")
        end
      end
    end
    -- prose is escaped, code is not
    local one = doc.markdown({ { class = "k", title = "a <b>", members = {
      { name = "m", kind = "method", sig = "k:m() -> <x>", doc = "returns <x>, see `a<b>`" } } } })
    assert.is_truthy(one:find("### `k`: a &lt;b&gt;", 1, true))
    assert.is_truthy(one:find("- `k:m() -> <x>`: returns &lt;x&gt;, see `a<b>`", 1, true))
  end)
end)

describe("README.md", function()
  it("carries the generated parts as the code makes them today", function()
    -- tools/gen_readme.lua rebuilds the API reference (doc.markdown), the
    -- metric table and the script samples; --check fails when any is stale.
    local r = h.run("tools/gen_readme.lua", "--check")
    assert.are.equal(0, r.code, r.stderr)
  end)
end)
