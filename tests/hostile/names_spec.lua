-- Names that inject or collide, and long names that cost (issue 27): a
-- node, group or file name is data, so it never adds a line, a cell, a
-- heading or an element to what a script prints, never picks another
-- node, and costs time linear in its length. Every capture is built here.
local h = require "helpers"
local M = require "hostile.measure"
local cases = require "hostile.cases"

local HOSTILE = cases.HOSTILE_NAMES

local named = cases.named_vprof

local dir

-- Each line of text: valid UTF-8 with no control byte or C1 control, and
-- none that a CI runner takes for a command.
local function assert_inert(text, what)
  local n = 0
  for l in text:gmatch("([^\n]*)\n?") do
    n = n + 1
    assert.is_truthy(utf8.len(l), what .. ": invalid UTF-8 on line " .. n)
    assert.is_nil(l:find("[%z\1-\31\127]"), what .. ": a control byte on line " .. n .. ": " .. l)
    assert.is_nil(l:find("\194[\128-\159]"), what .. ": a C1 control on line " .. n)
    assert.is_nil(l:find("^%s*::"), what .. ": a workflow command on line " .. n .. ": " .. l)
  end
end

-- An RFC 4180 reader (the renderers harness's).
local csv_records = require "fuzz.csvread"

-- What a spreadsheet shows of a field vpscript wrote for `name`.
local function shown(name)
  if name:find("^[=+%-@\t\r]") then return "'" .. name end
  return name
end

describe("hostile names (issue 27)", function()
  local hostile
  setup(function()
    dir = h.tmpdir()
    hostile = named(dir .. "/hostile.vprof", HOSTILE)
  end)
  teardown(function() h.cleanup() end)

  for _, script in ipairs({ "top", "tree", "budget", "hitches", "info" }) do
    it(script .. ".lua's text shows every hostile name inert", function()
      local r = h.run("scripts/" .. script .. ".lua", hostile, "--wide")
      assert.are.equal(0, r.code, r.stderr)
      assert_inert(r.stdout, script)
    end)
  end

  it("top.lua's text holds one row per node whatever the names", function()
    local r = h.run("scripts/top.lua", hostile, "--wide", "--limit", "0")
    local rows = 0
    for _ in r.stdout:gmatch("\n%s+[%d.]+%s+[%d.]+%s") do rows = rows + 1 end
    assert.are.equal(#HOSTILE + 1, rows) -- A and each name
    assert.matches("osc\\x1b]0;pwned\\x07title", r.stdout)
    assert.matches("forged\\n::error::ALL GATES PASSED", r.stdout)
  end)

  it("top.lua --csv: one record per node of as many fields as the header; formulas start with '", function()
    local r = h.run("scripts/top.lua", hostile, "--csv", "--limit", "0")
    assert.are.equal(0, r.code, r.stderr)
    local recs = csv_records(r.stdout)
    assert.are.equal(#HOSTILE + 2, #recs) -- the header, A and each name
    local col
    for i, k in ipairs(recs[1]) do if k == "path" then col = i end end
    assert.is_not_nil(col)
    local seen = {}
    for i = 2, #recs do
      assert.are.equal(#recs[1], #recs[i], "record " .. i)
      seen[recs[i][col]] = true
    end
    local cap = h.open_ok(hostile)
    for node in cap:nodes() do
      if node.depth > 0 then assert.is_true(seen[node.path] or false, "no field for " .. node.path) end
    end
    cap:close()
    -- the fields themselves, through the one CSV encoder
    local fields = csv_records(require("vp.report").csv({ "name" }, (function()
      local rows = {}
      for i, name in ipairs(HOSTILE) do rows[i] = { name = name } end
      return rows
    end)()))
    assert.are.equal(#HOSTILE + 1, #fields)
    for i, name in ipairs(HOSTILE) do assert.are.equal(shown(name), fields[i + 1][1]) end
  end)

  it("a formula at the start of a CSV field is neutralised; numbers stay numbers", function()
    local report = require "vp.report"
    local out = report.csv({ "name", "value" }, { { name = "=1+2", value = -1.5 }, { name = "-x", value = -2 },
      { name = "@a", value = 0 }, { name = "a=b", value = 3 } })
    assert.are.equal("name,value\n\"'=1+2\",-1.5\n\"'-x\",-2\n\"'@a\",0\na=b,3\n", out)
  end)

  it("export --to csv of a VProf capture: a group named as a formula is a neutralised header field", function()
    local path = h.vprof(dir .. "/formula_group.vprof", { groups = { "=cmd|' /C calc'!A0" },
      nodes = { { id = 1, parent = 0, name = "N", group = "=cmd|' /C calc'!A0" } },
      frames = { { tick = 1, [1] = 1000 }, { tick = 2, [1] = 2000 } } })
    local r = h.run("scripts/export.lua", path, "--to", "csv")
    assert.are.equal(0, r.code, r.stderr)
    local head = csv_records(r.stdout)[1]
    local found = false
    for _, f in ipairs(head) do found = found or f == "'=cmd|' /C calc'!A0" end
    assert.is_true(found, r.stdout:sub(1, 300))
  end)

  it("compare.lua --markdown: names are code spans; no name adds a heading, a row, a cell, HTML or a link", function()
    local plain = {}
    for i = 1, #HOSTILE do plain[i] = "name" .. i end
    local function shape(a, b)
      local r = h.run("scripts/compare.lua", a, b, "--markdown", "--limit", "0")
      assert.are.equal(0, r.code, r.stderr)
      assert_inert(r.stdout, "markdown")
      local headings, rows, items, cells = 0, 0, 0, {}
      for l in r.stdout:gmatch("[^\n]+") do
        if l:find("^#") then headings = headings + 1 end
        if l:find("^|") then
          rows = rows + 1
          local _, n = l:gsub("\\|", ""):gsub("|", "")
          cells[n] = true
        end
        if l:find("^%- ") then items = items + 1 end
        -- outside code spans, nothing but our own text
        local outside = l:gsub("(`+).-%1", "")
        assert.is_nil(outside:find("<[%a/!?]") or outside:find("[%[%]]"), "markup outside a code span: " .. l)
      end
      return { headings = headings, rows = rows, items = items, cells = cells }
    end
    local p_base, p_slow = named(dir .. "/p.vprof", plain), named(dir .. "/p_slow.vprof", plain, 2)
    local h_slow = named(dir .. "/h_slow.vprof", HOSTILE, 2)
    -- the same tables whatever the names: regressions of every node
    assert.are.same(shape(p_base, p_slow), shape(hostile, h_slow))
    -- only-in lists: an item per node and per group of each side, no more
    local only = shape(p_base, hostile)
    assert.are.equal(4 * #HOSTILE, only.items)
  end)

  it("a file name, its warnings and the .dlag traceroute host are shown inert", function()
    local evil = dir .. "/evil\27]0;t\7\n::error::x.dm"
    h.write_file(evil, h.read_file("examples/sample.dm"):sub(1, 1000)) -- truncated: a warning names the file
    local r = h.run("scripts/movement.lua", evil)
    assert.are.equal(0, r.code, r.stderr)
    assert_inert(r.stdout, "stdout")
    assert_inert(r.stderr, "stderr")
    local vp = require "vp"
    local w = vp.writer("dlag", dir .. "/host.dlag")
    w:measurement({ { value = 35.5, time = 1000, unknown = 0 } })
    w:graph_states({})
    w:traceroute_host("gw\27[2J\n::error::forged")
    w:close()
    r = h.run("scripts/lag.lua", dir .. "/host.dlag")
    assert.are.equal(0, r.code, r.stderr)
    assert_inert(r.stdout, "lag")
    assert.matches("gw\\x1b[2J\\n::error::forged", r.stdout, 1, true)
  end)

  -- An XML parser nobody here wrote (expat) reads the document whole.
  local function well_formed(text, what)
    local lxp = require "lxp"
    local p = lxp.new({})
    local ok, err = p:parse(text)
    if ok then ok, err = p:parse() end
    p:close()
    assert.is_truthy(ok, what .. ": not well-formed XML: " .. tostring(err))
  end

  for _, chart in ipairs({ "budget", "frametime", "histogram" }) do
    it("plot.lua --chart " .. chart .. " with control bytes and invalid UTF-8 in names: well-formed SVG", function()
      local r = h.run("scripts/plot.lua", hostile, "--chart", chart)
      assert.are.equal(0, r.code, r.stderr)
      well_formed(r.stdout, chart)
    end)
  end

  it("plot.lua --chart compare of files with hostile names: well-formed SVG", function()
    local evil = h.write_file(dir .. "/evil\1\255<&>.vprof", h.read_file(hostile))
    local r = h.run("scripts/plot.lua", evil, "--chart", "compare", "--baseline", hostile)
    assert.are.equal(0, r.code, r.stderr)
    well_formed(r.stdout, "compare")
  end)

  for _, v in ipairs({ "nan", "inf", "1e308", "-1e308" }) do
    it("a laige frame_ms of " .. v .. ": report.lua and plot.lua --chart histogram draw, well-formed", function()
      local text = h.read_file("examples/laige/budget_pass.txt"):gsub("frame_ms=4.20321", "frame_ms=" .. v)
      local path = h.write_file(dir .. "/frame_" .. v .. ".txt", text)
      for _, chart in ipairs({ "histogram", "frametime" }) do
        local r = h.run("scripts/plot.lua", path, "--chart", chart)
        assert.are.equal(0, r.code, r.stderr)
        well_formed(r.stdout, chart)
        assert.not_matches("nan", r.stdout:gsub("<title>.-</title>", ""))
      end
      local r = h.run("scripts/report.lua", path)
      assert.are.equal(0, r.code, r.stderr)
    end)
  end

  it("the column cut never splits a UTF-8 sequence", function()
    local fmt = require "vp.fmt"
    local s = string.rep("\u{e9}", 50) .. string.rep("\u{2026}", 50)
    for width = 1, 60 do
      local cut = fmt.truncate(s, width)
      assert.is_truthy(utf8.len(cut), "width " .. width)
      assert.is_true(#cut <= width, "width " .. width)
    end
    local r = h.run("scripts/top.lua", named(dir .. "/utf8.vprof", { string.rep("\u{e9}", 300) }), "--limit", "0",
      { env = { COLUMNS = "101" } })
    assert.are.equal(0, r.code, r.stderr)
    assert.is_truthy(utf8.len(r.stdout))
    assert.matches("%.%.%.", r.stdout)
  end)

  describe("ambiguous names", function()
    -- Two nodes named X, one literally named X#2, a name with a slash beside
    -- the path it imitates, a backslash and an elision marker; two groups
    -- named Dup and one named Dup#2.
    local path
    setup(function()
      local vp = require "vp"
      path = dir .. "/ambiguous.vprof"
      local w = vp.writer("vprof", path)
      w:default_groups()
      local dup1, dup2, dup3 = w:group("Dup"), w:group("Dup"), w:group("Dup#2")
      local a = w:node(w.root_id, "A", 1)
      local t = { [a] = 1000 }
      local us = { 12, 20, 32, 40, 52, 60 } -- whole 4 us units
      for i, name in ipairs({ "X", "X", "X#2", "a/b", "back\\slash", "\u{2026}[id=5]" }) do
        t[w:node(a, name, i == 1 and dup1 or i == 2 and dup2 or dup3)] = us[i]
      end
      local sub = w:node(a, "a", 1)
      t[sub], t[w:node(sub, "b", 1)] = 80, 72
      for i = 1, 3 do w:frame(i, t) end
      w:close()
    end)

    it("every node has a path of its own, and cap:node finds that node by it", function()
      local cap = h.open_ok(path)
      local seen = {}
      for node in cap:nodes() do
        assert.is_nil(seen[node.path], "two nodes share " .. node.path)
        seen[node.path] = true
        assert.are.equal(node, cap:node(node.path))
      end
      assert.are.equal("X#2", cap:node("Root/A/X\\#2").name)
      assert.are.equal("X", cap:node("Root/A/X#2").name)
      assert.are.equal("a/b", cap:node("Root/A/a\\/b").name)
      assert.are.equal("b", cap:node("Root/A/a/b").name)
      assert.are.equal("back\\slash", cap:node("Root/A/back\\\\slash").name)
      assert.are.equal("\u{2026}[id=5]", cap:node("Root/A/\\\u{2026}[id=5]").name)
      cap:close()
    end)

    it("node.lua picks the node its path names, whatever the names around it", function()
      for p, ms in pairs({ ["Root/A/X"] = 0.012, ["Root/A/X#2"] = 0.02, ["Root/A/X\\#2"] = 0.032,
        ["Root/A/a\\/b"] = 0.04, ["Root/A/a/b"] = 0.072 }) do
        local doc = h.run_json("scripts/node.lua", p, path, "--json")
        assert.are.equal(p, doc.path)
        assert.is_true(math.abs(doc.time.mean_ms - ms) < 1e-9, p .. ": " .. tostring(doc.time.mean_ms))
      end
    end)

    it("groups named twice are told apart everywhere: the capture, budget.lua, the Chrome counters, rules", function()
      local cap = h.open_ok(path)
      local names = {}
      for g in cap:groups() do
        assert.is_nil(names[g.name], "two groups named " .. g.name)
        names[g.name] = g.id
      end
      assert.is_truthy(names["Dup#3"])
      local warned = false
      for _, w in ipairs(cap.warnings) do warned = warned or w:find("called 'Dup#3'", 1, true) ~= nil end
      assert.is_true(warned)
      cap:close()
      local doc = h.run_json("scripts/budget.lua", path, "--json")
      local listed = {}
      for _, g in ipairs(doc.groups) do
        assert.is_nil(listed[g.group], g.group)
        listed[g.group] = g.mean_ms
      end
      assert.are.equal(0.012, listed["Dup"])
      assert.are.equal(0.02, listed["Dup#3"])
      local r = h.run("scripts/export.lua", path, "--to", "chrome")
      assert.are.equal(0, r.code, r.stderr)
      for args in r.stdout:gmatch('"name":"group self ms".-"args":(%b{})') do
        local keys = {}
        for k in args:gmatch('"([^"]+)":') do
          assert.is_nil(keys[k], "a duplicate counter key " .. k)
          keys[k] = true
        end
      end
      local rules = h.write_file(dir .. "/dup_rules.lua",
        'return { { metric = "group.Dup#3.mean_ms", max = 0.015 }, { metric = "group.Dup.mean_ms", max = 0.015 } }')
      local gate = h.run("scripts/check.lua", rules, path, "--json")
      local res = require("cjson").decode(gate.stdout).results
      assert.are.equal("fail", res[1].status)
      assert.are.equal("pass", res[2].status)
    end)
  end)

  it("an error naming a hostile path is one inert line", function()
    local r = h.run("scripts/node.lua", hostile, "Root/A/nothing\27]0;x\7\n::error::y")
    assert.are.equal(2, r.code)
    assert_inert(r.stderr, "stderr")
    local _, lines = r.stderr:gsub("\n", "")
    assert.are.equal(1, lines, r.stderr)
  end)

  it("compare.lua lists a node with a 40 KB name found on one side only in linear time", function()
    -- before: an unanchored match per "only in" row, 5.9 s at 16 KB, 4x per doubling
    local a = named(dir .. "/long_a.vprof", { string.rep("x", 40000) })
    local b = named(dir .. "/long_b.vprof", {})
    local r = M.run({ "scripts/compare.lua", a, b }, { timeout = 120 })
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("only in A %(2%)", r.stdout) -- the node and its group
    M.within_cpu(r, 2)
  end)
end)
