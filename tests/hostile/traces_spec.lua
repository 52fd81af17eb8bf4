-- Hostile inputs for the debug-trace readers (issue 15, items 1, 5 and 7):
-- files that shrink while open, FIFOs, and crafted files of millions of
-- records (tests/hostile/cases.lua, generated here, never committed), run
-- through the shipped scripts with the resource target checked: peak RSS
-- at most 64 MB + 10 x the file, CPU time bounded, output one screen for
-- info.lua. Each case failed before its fix (SIGBUS, a hang, or memory
-- hundreds of times the file); the sizes are the smallest that showed it.
local vp = require "vp"
local h = require "helpers"
local cases = require "hostile.cases"
local M = require "hostile.measure"

local dir

local function gen(name, n)
  return cases.write(dir, name, { n = n })
end

local function copy(src, name)
  return h.write_file(dir .. "/" .. name, h.read_file(src))
end

describe("hostile trace inputs", function()
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  describe("a capture truncated to 8 KiB while open", function()
    -- What a script does: open, something else truncates the file, then the
    -- script touches records. Before: SIGBUS (exit 135) on the first page
    -- past the new end. Now: an error naming the file and both sizes.
    local TOUCH = {
      devt = "for g in cap:groups() do for ev in g:events() do n = n + ev.time1 end end",
      dlag = "for m in cap:measurements() do for s in m:samples() do n = n + s.time end end",
      dm = "for r in cap:records() do for _, g in ipairs(r:group_list()) do n = n + g.position.x end end",
      dw = "for t in cap:traces() do for hit in t:hits() do n = n + hit.time end end",
    }
    for _, fmt in ipairs({ "devt", "dlag", "dm", "dw" }) do
      it(fmt .. ": a script ends with exit 2 and a message naming the file, never a signal", function()
        local path = copy("examples/sample." .. fmt, "shrinks." .. fmt)
        local script = h.write_file(dir .. "/touch_" .. fmt .. ".lua", table.concat({
          'local vp = require "vp"',
          "local cap = assert(vp.open(arg[1]))",
          'assert(os.execute("truncate -s 8192 " .. arg[1]))',
          "local n = 0",
          TOUCH[fmt],
          "print(n)",
        }, "\n"))
        local r = h.run(script, path)
        assert.are.equal(2, r.code, r.stderr)
        assert.matches(path, r.stderr, 1, true)
        assert.matches("the file was truncated while open: it had %d+ bytes, now 8192", r.stderr)
        assert.not_matches("traceback", r.stderr)
      end)

      it(fmt .. ": in a script the error is a vp.error with code ECHANGED", function()
        local path = copy("examples/sample." .. fmt, "shrinks_obj." .. fmt)
        local cap = h.open_ok(path)
        assert(os.execute("truncate -s 8192 " .. h.quote(path)))
        local ok, err = pcall(load("local cap = ...; local n = 0; " .. TOUCH[fmt]), cap)
        assert.is_false(ok)
        assert.is_true(require("vp.error").is(err), tostring(err))
        assert.are.equal("ECHANGED", err.code)
        assert.are.equal(2, err.exit)
        cap:close()
      end)
    end

    it("dm: the fields read at open stay readable, the records do not", function()
      local path = copy("examples/sample.dm", "fields.dm")
      local cap = h.open_ok(path)
      local records = cap.record_count
      assert(os.execute("truncate -s 8192 " .. h.quote(path)))
      assert.are.equal(records, #cap)
      assert.has_error(function() return cap:record(records).time end)
      cap:close()
    end)
  end)

  describe("a name that is not a regular file", function()
    for _, fmt in ipairs({ "devt", "dlag", "dm", "dw" }) do
      it(fmt .. ": a FIFO is refused at once (before: open blocked for ever)", function()
        local fifo = dir .. "/pipe." .. fmt
        assert(os.execute("mkfifo " .. h.quote(fifo)))
        local r = M.run({ "scripts/info.lua", fifo }, { timeout = 20 })
        assert.are.equal(2, r.code, r.stderr)
        assert.matches("FIFO", r.stderr)
        -- and through the reader itself, the format forced
        local cap, msg = vp.open(fifo, { format = fmt })
        assert.is_nil(cap)
        assert.matches("FIFO", msg)
      end)
    end

    it("a character device is refused at once", function()
      local cap, msg = vp.open("/dev/zero", { format = "dm" })
      assert.is_nil(cap)
      assert.matches("character device", msg)
    end)
  end)

  describe("millions of records", function()
    it("lag.lua on 400,000 empty measurements: within the budget (before: 270 MB, 6 s)", function()
      local path = gen("dlag_empty_measurements", 400000)
      for _, json in ipairs({ false, true }) do
        local r = M.run({ "scripts/lag.lua", path, json and "--json" or nil })
        assert.are.equal(0, r.code, r.stderr)
        M.within_budget(r, path)
        M.within_cpu(r, 5)
        if json then
          local doc = require("cjson").decode(r.stdout)
          assert.are.equal(400000, doc.measurement_count)
          assert.are.equal(1024, #doc.measurements)
          assert.are.equal(400000 - 1024, doc.unlisted.measurements)
        end
      end
    end)

    it("lag.lua lists 10,000 spikes and counts them all", function()
      local path = gen("dlag_spiky_samples", 150000)
      local r = M.run({ "scripts/lag.lua", path, "--json" })
      assert.are.equal(0, r.code, r.stderr)
      local doc = require("cjson").decode(r.stdout)
      assert.are.equal(15000, doc.spike_count)
      assert.are.equal(10000, #doc.spikes)
      M.within_budget(r, path)
    end)

    it("check.lua with lag rules on 400,000 measurements: within the budget (before: 100 MB+)", function()
      local path = gen("dlag_empty_measurements", 400000)
      local r = M.run({ "scripts/check.lua", "examples/rules/dlag.lua", path })
      assert.are.equal(3, r.code, r.stderr) -- the rules fail: no samples
      M.within_budget(r, path)
    end)

    it("info.lua on a .devt of 400,000 groups: one screen, within the budget (before: a line per group)",
      function()
        local path = gen("devt_many_groups", 400000)
        local r = M.run({ "scripts/info.lua", path })
        assert.are.equal(0, r.code, r.stderr)
        local _, lines = r.stdout:gsub("\n", "")
        assert.is_true(lines <= 30, "info printed " .. lines .. " lines")
        assert.matches("more groups%s+399,992", r.stdout)
        M.within_budget(r, path)
        local doc = require("cjson").decode(M.run({ "scripts/info.lua", path, "--json" }).stdout)
        assert.are.equal(399992, doc.summary.more_groups)
      end)

    it("events.lua on 150,000 groups of one event: within the budget (before: a bucket table per group)",
      function()
        local path = gen("devt_groups_one_event", 150000)
        local r = M.run({ "scripts/events.lua", path, "--json" })
        assert.are.equal(0, r.code, r.stderr)
        local doc = require("cjson").decode(r.stdout)
        assert.are.equal(150000, doc.events)
        assert.are.equal(100, #doc.by_type)
        assert.are.equal(150000 - 100, doc.unlisted_types.types)
        M.within_budget(r, path)
        M.within_cpu(r, 10)
      end)

    it("events.lua on 1,000,000 events: within the budget (before: 15x the file)", function()
      local path = gen("devt_many_events", 1000000)
      local r = M.run({ "scripts/events.lua", path, "--json" })
      assert.are.equal(0, r.code, r.stderr)
      local doc = require("cjson").decode(r.stdout)
      assert.are.equal(1000000, doc.events)
      M.within_budget(r, path)
    end)

    it("movement.lua on 300,000 records of one group: within the budget (before: 16x the file)", function()
      local path = gen("dm_records_one_group", 300000)
      local r = M.run({ "scripts/movement.lua", path, "--json" })
      assert.are.equal(0, r.code, r.stderr)
      local doc = require("cjson").decode(r.stdout)
      assert.are.equal(300000, doc.samples)
      M.within_budget(r, path)
      M.within_cpu(r, 15)
    end)

    it("hitdiff.lua on 200,000 client-only traces: within the budget (before: 40x the file)", function()
      local path = gen("dw_client_only", 200000)
      local r = M.run({ "scripts/hitdiff.lua", path, "--json" })
      assert.are.equal(0, r.code, r.stderr)
      local doc = require("cjson").decode(r.stdout)
      assert.are.equal(200000, doc.disagree)
      assert.are.equal(1000, #doc.details)
      assert.are.equal(199000, doc.unlisted_details)
      M.within_budget(r, path)
    end)

    it("hitdiff.lua and info.lua on 1,000,000 empty slots and traces: within the budget", function()
      for _, name in ipairs({ "dw_empty_slots", "dw_empty_traces" }) do
        local path = gen(name, 1000000)
        for _, script in ipairs({ "scripts/hitdiff.lua", "scripts/info.lua" }) do
          local r = M.run({ script, path })
          assert.are.equal(0, r.code, r.stderr)
          M.within_budget(r, path)
        end
      end
    end)

    it("movement.lua and info.lua on 1,000,000 empty records: within the budget", function()
      local path = gen("dm_empty_records", 1000000)
      for _, script in ipairs({ "scripts/movement.lua", "scripts/info.lua" }) do
        local r = M.run({ script, path })
        assert.are.equal(0, r.code, r.stderr)
        M.within_budget(r, path)
      end
    end)
  end)
end)
