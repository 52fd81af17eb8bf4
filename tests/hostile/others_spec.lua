-- Hostile inputs and a hostile environment, the cases of issue 15 that
-- other parts of the program fix: VProf (deep chains, paths, a capture
-- truncated while open, a FIFO opened as VProf), the laige readers (long
-- lines, big profiles, JSON numbers), the host (rules sandbox, signals,
-- output paths, file names, the directory walk).
--
-- Every body failed on the code the issue was filed against. Ctrl-C in a
-- coroutine is tests/host_spec.lua's (a background job of a shell ignores
-- SIGINT, so it is sent through tests/stop.py there).
local h = require "helpers"
local cases = require "hostile.cases"
local M = require "hostile.measure"

local dir
local function gen(name, n) return cases.write(dir, name, { n = n }) end

describe("hostile inputs for VProf, laige and the host (issue 15)", function()
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  describe("VProf", function()
    it("top.lua on a 20,000-deep node chain: within the budget and 30 s of CPU #slow #resource", function()
      local path = gen("vprof_deep_chain", 20000)
      M.ok({ "scripts/top.lua", path, "--json" }, path, { cpu = 30 })
    end)

    it("check.lua with a node.* rule on a 20,000-deep chain: within the budget and 30 s of CPU #slow #resource",
      function()
        local path = gen("vprof_deep_chain", 20000)
        local rules = h.write_file(dir .. "/deep_rules.lua",
          'return { { metric = "node.d1.mean_ms", max = 1000, optional = true } }')
        M.ok({ "scripts/check.lua", rules, path }, path, { cpu = 30 })
      end)

    it("compare.lua on two 20,000-deep chains: within the budget and 60 s of CPU #slow #resource", function()
      local path = gen("vprof_deep_chain", 20000)
      M.ok({ "scripts/compare.lua", "--json", path, path }, path, { cpu = 60 })
    end)

    it("budget.lua --fold-hidden on a 100,000-deep hidden chain: at most twice the time without #slow #resource",
      function()
        local path = gen("vprof_hidden_chain", 100000)
        local plain = M.ok({ "scripts/budget.lua", path, "--json" })
        M.ok({ "scripts/budget.lua", path, "--json", "--fold-hidden" }, nil, { cpu = 2 * plain.cpu + 1 })
      end)

    it("cap:node(path) finds a node deeper than 256 levels", function()
      local path = gen("vprof_deep_chain", 300)
      local cap = h.open_ok(path)
      for node in cap:nodes() do
        assert.is_not_nil(cap:node(node.path), "depth " .. node.depth)
      end
      cap:close()
    end)

    it("a .vprof truncated while open: exit 2 naming the file, never SIGBUS", function()
      local path = h.write_file(dir .. "/shrinks.vprof", h.read_file("examples/sample.vprof"))
      local script = h.write_file(dir .. "/touch_vprof.lua", table.concat({
        'local vp = require "vp"',
        "local cap = assert(vp.open(arg[1]))",
        'assert(os.execute("truncate -s 8192 " .. arg[1]))',
        "local n = 0",
        "for fr in cap:frames() do for _, ms in fr:nodes() do n = n + ms end end",
        "print(n)",
      }, "\n"))
      local r = h.run(script, path)
      assert.are.equal(2, r.code, r.stderr)
      assert.matches("truncated while open", r.stderr)
    end)

    it("a FIFO opened as VProf is refused at once", function()
      local fifo = h.mkfifo(dir .. "/pipe.vprof")
      local script = h.write_file(dir .. "/fifo_vprof.lua",
        'print(require("vp").open(arg[1], {format = "vprof"}))')
      local r = M.run({ script, fifo }, { timeout = 20 })
      assert.are.equal(0, r.code, r.stderr)
      assert.matches("FIFO", r.stdout)
    end)
  end)

  describe("laige", function()
    -- Read or refused (a malformed line is exit 2), but quickly.
    for _, c in ipairs({
      { "laige.lua on a line with 100 KB of spaces before its end: within 5 s of CPU", "laige_trailing_spaces",
        100000 },
      { "laige.lua on a 2 MB line of bare words: within 5 s of CPU", "laige_bare_words", 1000000 },
    }) do
      it(c[1] .. " #slow #resource", function()
        local r = M.run({ "scripts/laige.lua", gen(c[2], c[3]) }, { timeout = 60 })
        assert.are_not.equal(124, r.code)
        M.within_cpu(r, 5)
      end)
    end

    it("laige.lua on a 15 MB text profile: within the budget #slow #resource", function()
      local path = gen("laige_many_systems", 100000)
      M.ok({ "scripts/laige.lua", path, "--json" }, path)
    end)

    it("laige JSON numbers NaN, Infinity, 0x10 and 1e999 and a duplicate key are not taken silently",
      function()
        local path = gen("laige_json_numbers")
        local r = M.run({ "scripts/laige.lua", path, "--json" })
        -- Rejected (exit 2) or read with a warning per value, as the text reader does.
        if r.code == 0 then
          for _, what in ipairs({ "NaN", "Infinity", "0x10", "1e999", "duplicate" }) do
            assert.matches(what, r.stderr, 1, true)
          end
        else
          assert.are.equal(2, r.code, r.stderr)
        end
      end)
  end)

  describe("the host", function()
    local capture
    setup(function() capture = h.write_file(dir .. "/c.dm", h.read_file("examples/sample.dm")) end)

    local function rules_run(body)
      local rules = h.write_file(dir .. "/hostile_rules.lua", body)
      return M.run({ "scripts/check.lua", rules, capture }, { timeout = 60 })
    end

    it("a rules file looping inside pcall is stopped: exit 2 #slow", function()
      local r = rules_run("while true do pcall(function() while true do end end) end")
      assert.are.equal(2, r.code, r.stderr)
    end)

    it("a rules file with a backtracking pattern is stopped: exit 2 #slow", function()
      local r = rules_run('return { string.rep("a", 40):match(string.rep("a*", 40) .. "b") }')
      assert.are.equal(2, r.code, r.stderr)
    end)

    it("a rules file allocating without end is stopped: exit 2 #slow", function()
      local r = rules_run("local t = {} while true do t[#t + 1] = string.rep('x', 1 << 20) .. #t end")
      assert.are.equal(2, r.code, r.stderr)
    end)

    it("SIGTERM during --jobs: exit 143, no temporary directory or worker left #slow", function()
      -- Workers that run for seconds: movement.lua over 300,000 records.
      local big = gen("dm_records_one_group", 300000)
      -- The workers' temporary files go under a TMPDIR of this test's own,
      -- so nothing else on the machine changes what is counted. The signal
      -- comes once both workers run (tests/stop.py waits for them, however
      -- loaded the machine), not after a fixed time.
      local tmp = dir .. "/jobs-tmp"
      assert(os.execute("mkdir -p " .. h.quote(tmp)))
      local p = io.popen(string.format("python3 tests/stop.py SIGTERM children:2 TMPDIR=%s -- %s scripts/movement.lua "
        .. "--jobs 2 %s %s %s", h.quote(tmp), h.quote(h.bin()), big, big, big))
      local out = p:read("a")
      p:close()
      local code, _, left, err = out:match("^(%-?%d+)\n([%d.]+)\n(%d+)\n(.*)$")
      assert.are.equal("143", code, out)
      assert.are.equal("vpscript: terminated (SIGTERM)\n", err)
      assert.are.equal("0", left, "workers that outlived vpscript")
      local q = io.popen("ls -A " .. h.quote(tmp))
      assert.are.equal("", q:read("a"))
      q:close()
    end)

    it("--json with several files whose names are not UTF-8: every line is valid JSON", function()
      local a = h.write_file(dir .. "/caf\233.dm", h.read_file("examples/sample.dm"))
      local b = h.write_file(dir .. "/line\nbreak.dm", "not a capture")
      local r = M.run({ "scripts/info.lua", "--json", a, b })
      local cjson = require "cjson"
      for line in r.stdout:gmatch("[^\n]+") do
        assert.is_true(pcall(cjson.decode, line), "not JSON: " .. line)
        assert.is_true(utf8.len(line) ~= nil, "not UTF-8: " .. line)
      end
    end)

    it("--junit into a directory that does not exist: exit 2 before any work", function()
      local r = M.run({ "scripts/check.lua", "examples/rules/dm.lua", capture, capture,
        "--junit", "/nonexistent/dir/x.xml" })
      assert.are.equal(2, r.code, r.stderr)
      assert.not_matches("traceback", r.stderr)
    end)

    it("a FIFO named on the command line is refused at once (JSON too, a writer attached)", function()
      local fifo = h.mkfifo(dir .. "/pipe.json")
      local p = io.popen(string.format("(sleep 30 > %s &) ; %s scripts/info.lua %s; echo $?",
        h.quote(fifo), h.quote(h.bin()), h.quote(fifo)))
      local out = p:read("a")
      p:close()
      assert.are.equal("2", out:match("(%d+)%s*$"))
    end)
  end)
end)
