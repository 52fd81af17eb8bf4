-- vp.doc, the one documentation table; tools/gen_docs.lua, which renders it
-- as docs/api.md and regenerates every generated part of README.md and
-- docs/; and the documentation's shape: a short README, every page indexed,
-- no link pointing nowhere.
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

  it("documents every method of every class the bindings and the writers make, and only those", function()
    local classes = {}
    for name, mt in pairs(debug.getregistry()) do classes[name] = mt end
    local write = require "vp.write"
    for _, f in ipairs(write.FORMATS) do require("vp.write." .. f) end
    for name, mt in pairs(write.classes) do classes[name] = mt end
    local seen = 0
    for name, mt in pairs(classes) do
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

  it("reads the notation the documentation modules are written in (doc.parse)", function()
    local list = doc.parse([[
class k: a title
  The class's paragraph,
  wrapped.
field f
  a field
operator # #k
  the length
  > print(#k)
method k:m(x [, y]) \
    -> ${WHAT}
  one line, ${ONE x}
  > local v = k:m(1)
  >
  >   print(v)
function k.new{a =} -> k
  a constructor
]], { WHAT = "number", ONE = function(s) return "given " .. s end })
    assert.are.same({ { class = "k", title = "a title", doc = "The class's paragraph, wrapped.", members = {
      { name = "f", kind = "field", doc = "a field" },
      { name = "#", kind = "operator", sig = "#k", doc = "the length", example = "print(#k)" },
      { name = "m", kind = "method", sig = "k:m(x [, y]) -> number", doc = "one line, given x",
        example = "local v = k:m(1)\n\n  print(v)" },
      { name = "new", kind = "function", sig = "k.new{a =} -> k", doc = "a constructor" } } } }, list)
    assert.are.same({}, doc.validate(list, "x"))
    local function err(text, vars)
      local ok, e = pcall(doc.parse, text, vars)
      assert.is_false(ok)
      return e
    end
    assert.are.equal("line 1: a field before the first class", err("field f\n  d\n"))
    assert.are.equal("line 2: a method's signature calls no name: k.m", err("class k: t\nmethod k.m\n"))
    assert.are.equal("line 3: a class has no example", err("class k: t\n  para\n  > code\n"))
    assert.are.equal("line 4: prose after the example", err("class k: t\nfield f\n  > code\n  prose\n"))
    assert.matches("expected class, function", err("class k: t\nfunctions k.f()\n"))
    assert.are.equal("${NOPE}: no such text", err("class k: ${NOPE}\n"))
  end)

  it("reads a member's arg (@ arg KIND [alone]), which only a function or method has", function()
    local list = doc.parse([[
class k: a title
method k:node(path) -> node
  a node
  > print(k:node("a/b"))
  @ arg path alone
method k:find(pattern) -> list
  @ arg pattern
  nodes a glob matches
]])
    assert.are.same({ name = "node", kind = "method", sig = "k:node(path) -> node", doc = "a node",
      example = 'print(k:node("a/b"))', arg = { kind = "path", alone = true } }, list[1].members[1])
    assert.are.same({ kind = "pattern" }, list[1].members[2].arg)
    assert.are.same({}, doc.validate(list, "x"))
    local function err(text)
      local ok, e = pcall(doc.parse, text)
      assert.is_false(ok)
      return e
    end
    assert.are.equal("line 3: expected '@ arg path|pattern|group [alone]'",
      err("class k: t\nmethod k:m(x)\n  @ arg file\n"))
    assert.are.equal("line 3: expected '@ arg path|pattern|group [alone]'",
      err("class k: t\nmethod k:m(x)\n  @ arg path twice\n"))
    assert.are.equal("line 3: only a function or method has an arg", err("class k: t\nfield f\n  @ arg path\n"))
    local function problems(m)
      return doc.validate({ { class = "k", title = "t", members = { m } } }, "x")
    end
    assert.matches("`arg` must be", problems({ name = "m", kind = "method", sig = "k:m()", doc = "d",
      arg = { kind = "file" } })[1])
    assert.matches("`arg` must be", problems({ name = "m", kind = "method", sig = "k:m()", doc = "d",
      arg = { kind = "path", alone = 1 } })[1])
    assert.matches("only a function or method", problems({ name = "f", kind = "field", doc = "d",
      arg = { kind = "path" } })[1])
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

-- Documentation files: README.md and every docs/*.md, as {path = text}.
local function doc_files()
  local lfs = require "lfs"
  local files = { ["README.md"] = h.read_file("README.md") }
  for f in lfs.dir("docs") do
    if f:match("%.md$") then files["docs/" .. f] = h.read_file("docs/" .. f) end
  end
  return files
end

-- The generated sections of a text: {kind ARGS, ...}.
local function sections(text)
  local list = {}
  for spec in text:gmatch("<!%-%- BEGIN GENERATED: ([^\n]-) %-%->") do list[#list + 1] = spec end
  return list
end

-- Text outside fenced code blocks (links inside code are not links).
local function prose(text)
  return (text:gsub("\n```.-\n```", "\n"))
end

-- The anchors GitHub gives a page's headings.
local function anchors(text)
  local set = {}
  for heading in ("\n" .. prose(text)):gmatch("\n#+ ([^\n]+)") do
    heading = heading:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&amp;", "&")
    set[heading:lower():gsub("[^%w%s_%-]", ""):gsub("%s", "-")] = true
  end
  return set
end

describe("the generated documentation", function()
  it("is as the code makes it today: README.md and every page of docs/ (tools/gen_docs.lua --check) #slow", function()
    local r = h.run("tools/gen_docs.lua", "--check")
    assert.are.equal(0, r.code, r.stderr)
  end)

  it("fails the check when a generated section is stale", function()
    local dir = h.tmpdir()
    local text = h.read_file("docs/metrics-table.md")
    local stale = text:gsub("| `frame_ms.p99` |", "| `frame_ms.p98` |", 1)
    assert.are_not.equal(text, stale)
    h.write_file(dir .. "/metrics-table.md", stale)
    local r = h.run("tools/gen_docs.lua", "--check", dir .. "/metrics-table.md")
    assert.are.equal(1, r.code)
    assert.matches("metrics%-table%.md is stale: run `make docs`", r.stderr)
    -- and the same text, regenerated, passes
    h.write_file(dir .. "/metrics-table.md", text)
    assert.are.equal(0, h.run("tools/gen_docs.lua", "--check", dir .. "/metrics-table.md").code)
    h.cleanup()
  end)

  it("keeps the API reference in docs/api.md and the metric table in docs/metrics-table.md only", function()
    local where = {}
    for path, text in pairs(doc_files()) do
      for _, spec in ipairs(sections(text)) do
        local kind = spec:match("^%S+")
        if kind == "api" or kind == "metrics" then
          where[kind] = where[kind] or {}
          table.insert(where[kind], path)
        end
      end
    end
    assert.are.same({ "docs/api.md" }, where.api)
    assert.are.same({ "docs/metrics-table.md" }, where.metrics)
    local api = h.read_file("docs/api.md")
    for _, c in ipairs(doc.classes()) do
      assert.truthy(api:find("\n### `" .. c.class .. "`: ", 1, true), c.class)
    end
  end)
end)

describe("README.md", function()
  local readme = h.read_file("README.md")

  it("is a short front door: the two set-up commands first, at most ~400 lines", function()
    local n = select(2, readme:gsub("\n", "\n"))
    assert.is_true(n <= 400, "README.md has " .. n .. " lines")
    local first = readme:match("```%w*\n(.-)\n```")
    assert.matches("^make run%s", first)
    assert.matches("\nmake test%s", first)
    assert.is_nil(first:find("\n.*\n.*\n"), "only the two commands come first")
  end)

  it("lists every shipped script, one line each", function()
    local list = readme:match("<!%-%- BEGIN GENERATED: run %-%-list %-%->\n```\n[^\n]*\n(.-)\n```")
    assert.is_not_nil(list)
    local lfs = require "lfs"
    local names = {}
    for f in lfs.dir("scripts") do
      if f:match("%.lua$") then names[#names + 1] = f end
    end
    table.sort(names)
    local listed = {}
    for line in (list .. "\n"):gmatch("(.-)\n") do listed[#listed + 1] = line:match("^(%S+)%s+%S") end
    assert.are.same(names, listed)
  end)

  it("has Lua examples that run on the sample capture", function()
    local n = 0
    for code in readme:gmatch("\n```lua\n(.-)\n```") do
      n = n + 1
      local r = h.run("-", "examples/sample.vprof", { stdin = code })
      assert.are.equal(0, r.code, code .. "\n" .. r.stderr)
      assert.are_not.equal("", r.stdout)
    end
    assert.is_true(n >= 1)
  end)
end)

describe("docs/", function()
  it("has every page listed in docs/index.md, with one line each", function()
    local index = h.read_file("docs/index.md")
    for path in pairs(doc_files()) do
      local page = path:match("^docs/(.+)$")
      if page then
        local lit = page:gsub("%p", "%%%0")
        local _, count = index:gsub("\n%- %[" .. lit .. "%]%(" .. lit .. "%)", "")
        assert.are.equal(1, count, page .. " is not listed once in docs/index.md")
      end
    end
  end)

  it("has no relative link, in README.md or docs/, to a file or heading that does not exist", function()
    local files = doc_files()
    local checked = 0
    for path, text in pairs(files) do
      local dir = path:match("^(.*)/") or "."
      for target in prose(text):gmatch("%]%(([^)%s]+)%)") do
        if not target:match("^%a+:") then
          local file, anchor = target:match("^([^#]*)#?(.*)$")
          local resolved = file == "" and path or (dir .. "/" .. file):gsub("^%./", "")
          while resolved:find("[^/]+/%.%./") do resolved = resolved:gsub("[^/]+/%.%./", "", 1) end
          local f = io.open(resolved, "r")
          assert.is_not_nil(f, path .. ": link to " .. target .. ": no such file")
          f:close()
          if anchor ~= "" then
            local ok = anchors(files[resolved] or h.read_file(resolved))[anchor]
            assert.is_true(ok == true, path .. ": link to " .. target .. ": no such heading")
          end
          checked = checked + 1
        end
      end
    end
    assert.is_true(checked >= 40)
  end)

  it("says how many scripts ship, and names each one in docs/scripts.md", function()
    local words = { "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen" }
    local text = h.read_file("docs/scripts.md")
    local lfs = require "lfs"
    local n = 0
    for f in lfs.dir("scripts") do
      if f:match("%.lua$") then
        n = n + 1
        assert.truthy(text:find("\n| `" .. f .. "` |", 1, true), f .. " has no row in docs/scripts.md")
      end
    end
    assert.matches("vpscript ships " .. words[n] .. " scripts", text)
  end)
end)
