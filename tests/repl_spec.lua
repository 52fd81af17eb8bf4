-- The REPL: vp.repl's pieces (pretty printer, completion, help, tracebacks)
-- directly, then the whole thing driven through a pseudo-terminal the way a
-- person uses it (tests/pty/drive.py types, presses Tab and Ctrl-C, and
-- reads the screen).
local h = require "helpers"
local repl = require "vp.repl"
local cjson = require "cjson"
local lfs = require "lfs"
local vp = require "vp"

local q = h.quote

-- A small capture: Root > CEngine::Frame > Physics, five frames.
local function make_capture(path)
  local frames = {}
  for i = 1, 5 do frames[i] = { tick = 100 + i, [1] = 10000 + i * 1000, [2] = 4000 } end
  return h.vprof(path, {
    nodes = { { id = 1, parent = 0, name = "CEngine::Frame", group = "Game" },
              { id = 2, parent = 1, name = "Physics", group = "Physics" } },
    frames = frames,
  })
end

describe("vp.repl", function()
  describe("format", function()
    it("sorts keys, lists the sequence first, quotes strings", function()
      assert.are.equal('{ 10, 20, x = 1, y = "a\\nb" }', repl.format({ 10, 20, y = "a\nb", x = 1 }))
      assert.are.equal('{ [1.5] = true, ["a b"] = 2, z = 3 }', repl.format({ z = 3, ["a b"] = 2, [1.5] = true }))
      assert.are.equal('"tab\\tquote\\"back\\\\ctl\\001"', repl.format('tab\tquote"back\\ctl\1'))
      assert.are.equal("{}", repl.format({}))
      assert.are.equal("nil", repl.format(nil))
      assert.are.equal("3.0", repl.format(3.0))
      assert.are.equal("3", repl.format(3))
    end)

    it("limits depth and width and marks cycles", function()
      assert.are.equal("{ a = { b = { c = {...} } } }", repl.format({ a = { b = { c = { d = 1 } } } }))
      assert.are.equal("{ a = {...} }", repl.format({ a = { 1 } }, { depth = 1 }))
      local long = {}
      for i = 1, 60 do long[i] = i end
      local s = repl.format(long)
      assert.matches("%.%.%. %(10 more%)", s)
      assert.is_falsy(s:find("51", 1, true))
      local t = { name = "t" }
      t.self = t
      t.child = { parent = t }
      assert.are.equal('{ child = { parent = <cycle> }, name = "t", self = <cycle> }', repl.format(t))
    end)

    it("breaks long tables over indented lines", function()
      local t = {}
      for i = 1, 12 do t["key_number_" .. i] = i end
      local s = repl.format(t)
      -- numbers in names count: 1, 2, ..., 10, not 1, 10, 11
      assert.matches("^{\n  key_number_1 = 1,\n  key_number_2 = 2,\n", s)
      assert.matches("key_number_9 = 9,\n  key_number_10 = 10,", s)
      assert.matches("\n}$", s)
      local nested = repl.format({ inner = t })
      assert.matches("^{\n  inner = {\n    key_number_1 = 1,", nested)
    end)

    it("shows userdata through __tostring and functions by where they are defined", function()
      assert.matches("^<Series n=3 mean=2 ", repl.format(vp.Series { 1, 2, 3 }))
      assert.are.equal("<function: builtin>", repl.format(print))
      assert.matches("^<function [^:]*repl_spec.lua:%d+>$", repl.format(function() end))
      local obj = setmetatable({}, { __tostring = function() return "custom" end })
      assert.are.equal("{ obj = custom }", repl.format({ obj = obj }))
    end)
  end)

  describe("complete", function()
    local env = {
      print = print, pairs = pairs, vp = vp, series = vp.Series { 1 },
      tbl = { alpha = 1, alps = 2, beta = { gamma = 3 } },
      str = "text",
    }

    local function names(line)
      local start, list = repl.complete(line, env)
      return start, table.concat(list, " ")
    end

    it("completes globals and keywords", function()
      assert.are.same({ 1, "pairs print" }, { names("p") })
      assert.are.same({ 5, "return" }, { names("x = ret") })
      assert.are.same({ 9, "tbl" }, { names("if x == tb") })
    end)

    it("completes table fields along a chain", function()
      assert.are.same({ 5, "alpha alps" }, { names("tbl.al") })
      assert.are.same({ 10, "gamma" }, { names("tbl.beta.g") })
      assert.are.same({ 4, "Dist Series batches_all detect formats frames_of open open_all sha256 sha256_file "
        .. "version writer" },
        { names("vp.") })
      assert.are.same({ 9, "" }, { names("nosuch.x") })
    end)

    it("completes methods through the metatable's __methods, and string methods", function()
      local start, list = names("series:m")
      assert.are.equal(8, start)
      assert.are.equal("max mean median min", list)
      assert.are.same({ 5, "upper" }, { names("str:up") })
      -- `:` offers only callables; `.` offers fields too
      assert.are.same({ 5, "" }, { names("tbl:al") })
    end)

    it("offers nothing after a call, in a comment or in a number", function()
      assert.are.same({ 10, "" }, { names("print().x") })
      assert.are.same({ 9, "" }, { names("-- tbl.a") })
      assert.are.same({ 4, "" }, { names("1.5") })
    end)

    it("hides __ names unless asked for", function()
      local e = { t = setmetatable({}, { __index = { __secret = 1, visible = 2 } }) }
      assert.are.same({ "visible" }, select(2, repl.complete("t.", e)))
      assert.are.same({ "__secret" }, select(2, repl.complete("t.__", e)))
    end)

    it("completes file names inside a string and closes the string", function()
      local dir = h.tmpdir()
      h.write_file(dir .. "/alpha_capture.vprof", "x")
      lfs.mkdir(dir .. "/alpha_dir")
      h.write_file(dir .. "/.hidden", "x")
      local line = 'vp.open("' .. dir .. "/alp"
      local start, list = repl.complete(line, env)
      local _
      assert.are.equal(#line - 2, start)
      assert.are.same({ "alpha_capture.vprof", "alpha_dir/" }, list)
      _, list = repl.complete("vp.open('" .. dir .. "/alpha_c", env)
      assert.are.same({ "alpha_capture.vprof'" }, list)
      _, list = repl.complete('x = "' .. dir .. "/", env)
      assert.are.same({ "alpha_capture.vprof", "alpha_dir/" }, list)
      _, list = repl.complete('x = "' .. dir .. "/.h", env)
      assert.are.same({ '.hidden"' }, list)
      h.cleanup()
    end)

    it("completes capture methods and fields, and node fields from the doc table", function()
      local dir = h.tmpdir()
      local cap = assert(vp.open(make_capture(dir .. "/c.vprof")))
      local e = { cap = cap }
      -- `:` offers methods only: frame_count is a field
      local _, list = repl.complete("cap:fr", e)
      assert.are.same({ "frame", "frame_times", "frames" }, list)
      _, list = repl.complete("cap.fra", e)
      assert.are.same({ "frame", "frame_count", "frame_times", "frames" }, list)
      _, list = repl.complete("cap.root.na", e)
      assert.are.same({ "name" }, list)
      cap:close()
      h.cleanup()
    end)
  end)

  describe("natural order, cut hints and settings", function()
    it("orders keys as people count, group objects by their number", function()
      assert.is_true(repl.natural_less("group 2", "group 10"))
      assert.is_false(repl.natural_less("group 10", "group 2"))
      assert.is_true(repl.natural_less("a", "b"))
      assert.is_true(repl.natural_less("x9y", "x10a"))
      assert.is_true(repl.natural_less("x1", "x01")) -- equal numbers: fewer zeros first
      assert.is_true(repl.natural_less("ab", "abc"))
      assert.are.equal('{ ["group 1"] = 3, ["group 2"] = 2, ["group 10"] = 1 }',
        repl.format({ ["group 10"] = 1, ["group 2"] = 2, ["group 1"] = 3 }))
      local cap = assert(vp.open("examples/sample.vprof"))
      local s = repl.format(cap:group_self_ms(), { items = 100, width = 1000 })
      local ids = {}
      for id in s:gmatch("%[<group (%d+) ") do ids[#ids + 1] = tonumber(id) end
      assert.is_true(#ids >= 30)
      for i = 2, #ids do assert.is_true(ids[i - 1] < ids[i], s) end
      cap:close()
    end)

    it("says what was cut and which setting shows more; repl.depth and repl.items change it", function()
      local s, cut = repl.format({ a = { b = { c = { d = 1 } } } })
      assert.are.equal("{ a = { b = { c = {...} } } }", s)
      assert.are.same({ depth = true }, cut)
      assert.matches("^%-%- nested tables cut at depth 3 %({%.%.%.}%): repl%.depth = 5 shows more$",
        repl.cut_hint(cut))
      assert.is_nil(select(2, repl.format({ 1, { 2 } })))
      local long = {}
      for i = 1, 60 do long[i] = i end
      assert.are.same({ items = true }, select(2, repl.format(long)))
      assert.matches("repl%.items = 200 shows more", repl.cut_hint({ items = true }))
      repl.depth, repl.items = 5, 100
      local ok, err = pcall(function()
        assert.are.equal("{ a = { b = { c = { d = 1 } } } }", (repl.format({ a = { b = { c = { d = 1 } } } })))
        assert.is_nil(select(2, repl.format(long)))
        assert.are.equal("{ a = {...} }", (repl.format({ a = { 1 } }, { depth = 1 }))) -- opts still win
      end)
      repl.depth, repl.items = nil, nil
      assert(ok, err)
    end)
  end)

  describe("captures, nodes, frames and groups", function()
    local cap
    setup(function() cap = assert(vp.open("examples/sample.vprof")) end)
    teardown(function() cap:close() end)

    it("prints the capture with cap.group_count groups, as info does, and its frame times", function()
      local s = repl.describe(cap)
      local info = require("vp.info").analyze(cap)
      assert.are.equal(35, cap.group_count)
      assert.are.equal(cap.group_count, info.summary.groups)
      assert.matches("^<vprof sample%.vprof: 4,000 frames, 91 nodes, 35 groups %(33 with nodes%); "
        .. "frame 14%.63 ms mean, p99 17%.02, max 59%.27 @ 3,100>$", s)
      assert.are.equal(s, (repl.format(cap)))
    end)

    it("prints a node with its time, self time, calls, peak and group, as top.lua has them", function()
      local n = cap:node("Root/CEngine::Frame/_Host_RunFrame_Server/Physics_Step")
      local row
      for _, r in ipairs(require("vp.top").analyze(cap, { limit = 0 }).nodes) do
        if r.path == n.path then row = r end
      end
      local fmt = require "vp.fmt"
      assert.are.equal(string.format("<node %s (id %d): %s ms/frame, self %s, 1.00 calls/frame, peak %s @ frame %s, "
        .. "group Physics>", n.path, n.id, fmt.ms(row.ms_per_frame), fmt.ms(row.self_ms_per_frame), fmt.ms(row.peak_ms),
        fmt.int(row.peak_frame)), repl.describe(n))
    end)

    it("prints a frame against the median frame with its heaviest node, and a group with its self time", function()
      local s = repl.describe(cap:frame(3100))
      assert.matches("^<frame 3,100 tick 51,249: 59%.272 ms, %d+ nodes; 4%.%d%d x the median frame %(14%.%d+ ms%); "
        .. "most self time: Root/CEngine::Frame/CL_Render/R_DrawWorld/Shader_Compile 45%.00 ms>$", s)
      assert.matches("^<group 8 Physics %(flags 6%): self 2%.944 ms/frame mean, p99 4%.348, max 34%.04 @ frame 2,500>$",
        repl.describe(cap:group("Physics")))
      assert.matches(": no nodes>$", repl.describe(cap:group("Tools")))
    end)

    it("completes node paths and group names inside the string a method takes", function()
      local env = { cap = cap, fr = cap:frame(3), t = { c = cap } }
      local function names(line)
        local start, list = repl.complete(line, env)
        return start, table.concat(list, " ")
      end
      assert.are.same({ 11, "CEngine::Frame Root" }, { names('cap:node("') })
      assert.are.same({ 11, "Root/" }, { names('cap:node("Root') }) -- typed in full: go down
      assert.are.same({ 26, "CL_Render" }, { names('cap:node("CEngine::Frame/CL_R') })
      assert.are.same({ 48, 'Shader_Compile")' }, { names('cap:node("CEngine::Frame/CL_Render/R_DrawWorld/Sh') })
      assert.are.same({ 63, "Simulate Simulate#2" },
        { names("cap:series('CEngine::Frame/_Host_RunFrame_Server/Physics_Step/Sim") })
      assert.are.same({ 28, "S_Update" }, { names('fr:time_ms("CEngine::Frame/S_') })
      -- a method of one argument gets its call closed too (issue 26)
      assert.are.same({ 12, 'Physics")' }, { names('t.c:group("Phy') })
      assert.are.same({ 12, 'Particle/Effect_Rendering")' }, { names('cap:group("Part') })
      assert.are.same({ 50, 'Shader_Compile"' }, { names('cap:series("CEngine::Frame/CL_Render/R_DrawWorld/Sh') })
      assert.are.same({ 16, "" }, { names('cap:node("Nope/') })
      -- a name wherever the node is: find before any "/"
      assert.are.same({ 11, 'Simulate"' }, { names('cap:find("Sim') })
      assert.are.same({ 11, "R_DrawDetailProps R_DrawDisplacements R_DrawDynamicLights" },
        { names('cap:find("R_DrawD') })
      assert.are.same({ 26, "CL_Render" }, { names('cap:find("CEngine::Frame/CL_R') })
      -- anywhere else a string still completes file names
      assert.are.same({ 14, "examples/" }, { names('x = vp.open("exa') })
    end)

    it("completes the string of every method whose documentation names its arg, and only those", function()
      local doc = require "vp.doc"
      local env = { cap = cap, fr = cap:frame(3) }
      local var = { ["vp.vprof"] = "cap", ["vp.vprof.frame"] = "fr" }
      local want = {
        path = { 'CEngine::Frame/CL_R', "CL_Render" },
        pattern = { "Sim", "Simulate" },
        group = { "Phy", "Physics" },
      }
      local seen = {}
      for class, v in pairs(var) do
        for _, m in ipairs(doc.class(class).members) do
          if m.kind == "method" then
            local typed = m.arg and want[m.arg.kind][1] or "exa"
            local prefix = v .. ":" .. m.name .. '("'
            local start, list = repl.complete(prefix .. typed, env)
            if m.arg then
              seen[m.arg.kind] = true
              local close = m.arg.alone and ")" or ""
              -- a path's last level does not close the string: CL_Render has children
              local got = m.arg.kind == "path" and want.path[2] or (want[m.arg.kind][2] .. '"' .. close)
              assert.are.same({ got }, list, class .. ":" .. m.name)
            else
              -- a method the docs give no arg completes file names, as any other string
              assert.are.same({ "examples/" }, list, class .. ":" .. m.name)
            end
            -- the word completed starts after the quote, or after a path's last "/"
            assert.are.equal(#prefix + (typed:match("^.*/()") or 1), start, class .. ":" .. m.name)
          end
        end
      end
      assert.are.same({ path = true, pattern = true, group = true }, seen)
    end)
  end)

  describe("error_text", function()
    it("drops the interpreter's own frames and keeps a short traceback", function()
      assert.are.equal("repl:1: boom", repl.error_text(
        "repl:1: boom\nstack traceback:\n\t[C]: in function 'error'\n\trepl:1: in main chunk\n\t[C]: in ?"))
      local deep = "repl:1: deep\nstack traceback:\n\t[C]: in function 'error'\n"
      for i = 1, 10 do deep = deep .. "\trepl:1: in upvalue 'f" .. i .. "'\n" end
      deep = deep .. "\trepl:1: in main chunk\n\t[C]: in ?"
      local s = repl.error_text(deep)
      assert.matches("^repl:1: deep\nstack traceback:\n  repl:1: in upvalue 'f1'\n", s)
      assert.matches("%.%.%. %(5 more%)$", s)
      assert.is_falsy(s:find("[C]: in ?", 1, true))
      assert.are.equal("plain", repl.error_text("plain"))
    end)

    it("names a node's totals apart from its per-frame figures (issue 26)", function()
      local c = assert(vp.open("examples/sample.vprof"))
      local want = "-- calls, time_ms and self_ms are totals over the frames asked for (all 4,000 unless a range "
        .. "was given); the node's line shows them per frame"
      assert.are.equal(want, repl.totals_hint(c:totals(c:node("CEngine::Frame/Swap_Buffers"))))
      assert.are.equal(want, repl.totals_hint(c:totals()))
      assert.is_nil(repl.totals_hint({ time_ms = 1, self_ms = 1 }))
      assert.is_nil(repl.totals_hint(c:frame_times()))
      c:close()
    end)

    it("names what a lookup did not find, and the nearest names, under a nil or an error (issue 26)", function()
      local env = { cap = assert(vp.open("examples/sample.vprof")), cols = { Physics = 1, Sound = 2, [3] = 3 } }
      repl.env = env
      assert.are.equal("-- no key 'Physic' in cols (did you mean 'Physics'?)", repl.nil_hint("cols.Physic"))
      assert.are.equal("-- no key 'Physic' in cols (did you mean 'Physics'?)",
        repl.nil_hint('x = cols["Physic"]:mean()'))
      assert.are.equal("-- no budget group 'Physic' in cap (did you mean 'Physics'?)",
        repl.nil_hint('cap:group("Physic")'))
      assert.are.equal("-- no node 'CEngine::Frame/CL_Rendr' in cap (did you mean 'CEngine::Frame/CL_Render'?)",
        repl.nil_hint('cap:node("CEngine::Frame/CL_Rendr")'))
      assert.is_nil(repl.nil_hint("cols.Physics"))
      repl.source = "cols.Physic:mean()"
      assert.are.equal("repl:1: attempt to index a nil value (field 'Physic')\n"
        .. "-- no key 'Physic' in cols (did you mean 'Physics'?)",
        repl.error_text("repl:1: attempt to index a nil value (field 'Physic')"))
      repl.source = "c.frame_count"
      assert.matches("\n%-%- c is nil %(a call that failed%? vp%.open returns nil and the reason",
        repl.error_text("repl:1: attempt to index a nil value (global 'c')"))
      env.cap:close()
      repl.source, repl.env = nil, nil
    end)
  end)

  describe("help", function()
    it("describes a class, a member and an object", function()
      local s = repl.help_text(vp.Series { 1 })
      assert.matches("^vp%.Series: numeric column", s)
      assert.matches("\nmethods:\n", s)
      assert.matches("s:percentile%(p%) %-> number%s+nearest%-rank", s)
      s = repl.help_text("vp.Series.percentile")
      assert.matches("^s:percentile%(p%) %-> number    %[vp%.Series method%]", s)
      assert.matches("example:\n  local ft = cap:frame_times%(%)", s)
      s = repl.help_text(vp.open)
      assert.matches("^vp%.open%(path", s)
      s = repl.help_text(vp.Series { 1 }.mean)
      assert.matches("^s:mean%(%) %-> number", s)
      assert.matches("^vp: the vp module", repl.help_text(vp))
      assert.matches("^vp: the vp module", repl.help_text("vp"))
      assert.matches('^no documentation for "zzz"', repl.help_text("zzz"))
      assert.matches("^a table with 2 entries", repl.help_text({ a = 1, b = 2 }))
    end)

    it("lists the documented classes and open captures in help()", function()
      local s = repl.help_text()
      assert.matches("help%(obj%)", s)
      assert.matches("\n  vp%.Series%s+numeric column", s)
    end)
  end)
end)

-- The pseudo-terminal sessions ------------------------------------------------

describe("vpscript REPL on a terminal", function()
  local dir, cap_path, counter = nil, nil, 0

  setup(function()
    dir = h.tmpdir()
    cap_path = make_capture(dir .. "/sample.vprof")
  end)
  teardown(function() h.cleanup() end)

  -- Run one session; returns the driver's result (ok, error, transcript,
  -- screen, status) and fails the test when a step did not happen.
  local function session(args, steps, env)
    counter = counter + 1
    local steps_file = h.write_file(dir .. "/steps" .. counter .. ".json", cjson.encode(steps))
    env = env or {}
    env.VPSCRIPT_HISTORY = env.VPSCRIPT_HISTORY or (dir .. "/history" .. counter)
    local parts = {}
    for k, v in pairs(env) do parts[#parts + 1] = k .. "=" .. q(v) end
    parts[#parts + 1] = "python3 tests/pty/drive.py " .. q(steps_file) .. " -- " .. q(h.bin())
    for _, a in ipairs(args) do parts[#parts + 1] = q(a) end
    local p = assert(io.popen(table.concat(parts, " ") .. " 2>&1"))
    local out = p:read("a")
    p:close()
    local ok, r = pcall(cjson.decode, out)
    assert(ok, "pty driver failed: " .. out)
    if not r.ok then
      error(r.error .. "\n--- screen ---\n" .. table.concat(r.screen, "\n"), 2)
    end
    return r
  end

  local function screen_has(r, line)
    for _, l in ipairs(r.screen) do
      if l == line then return true end
    end
    return false
  end

  -- Input is typed once the prompt is drawn, as a person would: type-ahead
  -- reaches a terminal still in cooked mode, where Ctrl-D is not a key.
  local P, P2 = { "expect", "vp> " }, { "expect", "... " }
  local function typed(text) return { "send", text .. "\r" } end
  local BYE = { "send", "\4" }
  local WAIT = { "wait" }

  it("starts on a bare `vpscript` and exits with Ctrl-D", function()
    local r = session({}, { { "expect", "help() for help, Ctrl-D to exit" }, P, BYE, WAIT })
    assert.are.equal(0, r.status)
  end)

  it("opens the captures given, one line each, and goes on after one that fails", function()
    local missing = dir .. "/missing.vprof"
    local r = session({ "-i", cap_path, missing }, {
      { "expect", "cap1 = <vprof " }, { "expect", "(also cap)" },
      P, typed("cap.frame_count, cap == cap1, cap2"), { "expect", "5\ttrue\tnil" },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
    assert.is_truthy(r.transcript:find("vpscript: " .. missing .. ": ", 1, true))
    local one = session({ "-i", cap_path }, {
      { "expect", "cap = <vprof " }, P, typed("cap1"), { "expect", "nil" }, P, BYE, WAIT })
    assert.is_truthy(one.transcript:find("cap = " .. repl.describe(assert(vp.open(cap_path))), 1, true))
  end)

  it("completes methods, fields, globals and file names with Tab", function()
    local r = session({ "-i", cap_path }, {
      P,
      -- the common prefix first, then the list on the next Tab
      { "send", "cap:fr\t" }, { "expect_line", "vp> cap:frame" },
      { "send", "\t" }, { "expect", "frame_times" }, { "expect_line", "vp> cap:frame" },
      typed("_times()"), { "expect", "<Series n=5 " },
      P, { "send", "cap.root.na\t" }, { "expect_line", "vp> cap.root.name" },
      typed(""), { "expect", '"Root"' },
      P, { "send", "vp.op\t" }, { "expect_line", "vp> vp.open" }, { "send", "\21" },
      { "send", "vp.\t" }, { "expect", "formats" }, { "expect_line", "vp> vp." }, { "send", "\21" },
      { "send", "pri\t" }, { "expect_line", "vp> print" }, { "send", "\21" },
      { "send", 'x = vp.open("' .. dir .. "/sam\t" },
      { "expect_line", 'vp> x = vp.open("' .. dir .. '/sample.vprof"' },
      typed(")"), P, typed("x.format"), { "expect", '"vprof"' },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
    -- the listing shows the names, not whole expressions
    assert.is_true(screen_has(r, "frame        frame_times  frames"), table.concat(r.screen, "\n"))
  end)

  it("continues unfinished chunks on the next line and prints values", function()
    local r = session({}, {
      P, typed("function twice(v)"), P2, typed("return v * 2"), P2, typed("end"),
      P, typed("twice(21)"), { "expect", "42" },
      P, typed("{1,"), P2, typed("2}"), { "expect", "{ 1, 2 }" },
      P, typed("=vp.Series{1, 2, 3}"), { "expect", "<Series n=3 mean=2 " },
      -- Tab at the start of a continuation line indents instead of completing
      P, typed("function one()"), P2, { "send", "\treturn 1" }, { "expect_line", "...   return 1" },
      typed(""), P2, typed("end"), P, typed("one()"), { "expect", "1" },
      P, typed("{b = 1, a = {1, 2}}"), { "expect", "{ a = { 1, 2 }, b = 1 }" },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
    assert.is_true(screen_has(r, "... return v * 2"))
    assert.is_true(screen_has(r, "...   return 1"))
  end)

  it("interrupts a running statement with Ctrl-C and drops a pending chunk #slow", function()
    local r = session({}, {
      P, typed("while true do end"), { "sleep", 0.5 }, { "send", "\3" }, { "expect", "interrupted" },
      P, typed("1 + 1"), { "expect", "2" },
      P, typed("for i = 1, 3 do"), P2, { "send", "\3" },
      P, typed("print('after' .. 'wards')"), { "expect", "afterwards" },
      P, { "send", "\3" },
      P, typed("2 + 3"), { "expect", "5" },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
    local _, n = r.transcript:gsub("afterwards", "")
    assert.are.equal(1, n)
  end)

  it("prints errors with a short traceback and carries on", function()
    local r = session({}, {
      P, typed("error('boom')"), { "expect", "repl:1: boom" },
      P, typed("nosuch.field"), { "expect", "attempt to index a nil value (global 'nosuch')" },
      P, typed("local function g() error('deep') end g()"),
      { "expect", "repl:1: deep" }, { "expect", "stack traceback:" }, { "expect", "in local 'g'" },
      P, typed("x = = 1"), { "expect", "unexpected symbol near '='" },
      P, typed("require('vp.cli').fail(3, 'a gate failed')"), { "expect", "vpscript: a gate failed" },
      P, typed("6 * 7"), { "expect", "42" },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
    assert.is_falsy(r.transcript:find("[C]: in ?", 1, true))
  end)

  it("keeps history across sessions, bounded in size", function()
    local hist = dir .. "/shared_history"
    local lines = {}
    for i = 1, 1500 do lines[i] = "old_" .. i end
    h.write_file(hist, table.concat(lines, "\n") .. "\n")
    session({}, { P, typed("answer = 6 * 7"), P, BYE, WAIT }, { VPSCRIPT_HISTORY = hist })
    local kept = {}
    for l in h.read_file(hist):gmatch("[^\n]+") do kept[#kept + 1] = l end
    assert.are.equal(1000, #kept)
    assert.are.equal("answer = 6 * 7", kept[#kept])
    assert.are.equal("old_1500", kept[#kept - 1])
    local r = session({}, {
      P,
      { "send", "\27[A" }, { "expect_line", "vp> answer = 6 * 7" },
      { "send", "\27[A" }, { "expect_line", "vp> old_1500" },
      { "send", "\27[B" }, { "expect_line", "vp> answer = 6 * 7" }, typed(""),
      P, typed("answer"), { "expect", "42" },
      P, BYE, WAIT }, { VPSCRIPT_HISTORY = hist })
    assert.are.equal(0, r.status)
  end)

  it("uses ~/.vpscript_history when VPSCRIPT_HISTORY is not set", function()
    local home = dir .. "/home"
    lfs.mkdir(home)
    session({}, { P, typed("from_home = 1"), P, BYE, WAIT }, { HOME = home, VPSCRIPT_HISTORY = "" })
    assert.are.equal("from_home = 1\n", h.read_file(home .. "/.vpscript_history"))
  end)

  it("prints captures with their groups and timings, completes node paths, and cuts deep tables with a hint", function()
    local r = session({ "-i", "examples/sample.vprof" }, {
      { "expect", "cap = <vprof sample.vprof: 4,000 frames, 91 nodes, 35 groups (33 with nodes)" },
      P, typed("cap.group_count"), { "expect", "35" },
      P, typed("cap.root"), { "expect", "<node Root (id 0): " }, { "expect", "ms/frame, self " },
      P, { "send", 'n = cap:node("CEngine::Frame/_Host_RunFrame_Server/Phys\t' },
      { "expect_line", 'vp> n = cap:node("CEngine::Frame/_Host_RunFrame_Server/Physics_Step' },
      typed('")'), P, typed("n"), { "expect", "group Physics>" },
      P, { "send", 'g = cap:group("Phy\t' }, { "expect_line", 'vp> g = cap:group("Physics")' },
      typed(""), P, typed("g"), { "expect", "<group 8 Physics (flags 6): self 2.944 ms/frame mean" },
      P, typed("{a = {b = {c = {d = 1}}}}"), { "expect", "{ a = { b = { c = {...} } } }" },
      { "expect", "-- nested tables cut at depth 3 ({...}): repl.depth = 5 shows more" },
      P, typed("repl.depth = 5"),
      P, typed("{a = {b = {c = {d = 1}}}}"), { "expect", "{ a = { b = { c = { d = 1 } } } }" },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
    local _, hints = r.transcript:gsub("repl%.depth = 5 shows more", "")
    assert.are.equal(1, hints)
  end)

  it("shows help for objects and names", function()
    local r = session({ "-i", cap_path }, {
      P, typed("help(cap)"), { "expect", "vp.vprof: " }, { "expect", "methods:" }, { "expect", "frame_times" },
      P, typed("help('percentile')"), { "expect", "nearest-rank" },
      P, typed("help()"), { "expect", "open captures:" }, { "expect", "groups (" }, { "expect", "with nodes)" },
      { "expect", "documented classes:" },
      P, typed("cap:group_self_ms().Physic"),
      { "expect", "-- no key 'Physic' in cap:group_self_ms() (did you mean 'Physics'?)" },
      P, BYE, WAIT })
    assert.are.equal(0, r.status)
  end)
end)
