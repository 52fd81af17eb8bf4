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
        local fifo = h.mkfifo(dir .. "/pipe." .. fmt)
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

  describe("found by the fuzzers", function()
    it("lag.lua on measurements whose samples are NaN: statistics of the others, no spike rule without any",
      function()
        local nan = string.pack("<I4", 0xFFFFFFFF) -- a float NaN
        local function sample(v, t)
          return (type(v) == "string" and v or string.pack("<f", v)) .. string.pack("<I4I4", t, 0)
        end
        local bytes = string.pack("<I4I4", 7, 2)
          .. string.pack("<I4B", 2, 2) .. sample(nan, 1) .. sample(nan, 2)
          .. string.pack("<I4B", 3, 3) .. sample(nan, 1) .. sample(4, 2) .. sample(6, 3)
          .. "\0\0"
        local path = h.write_in(dir, "nan.dlag", bytes)
        local _, doc = M.ok({ "scripts/lag.lua", path, "--json" })
        local m1, m2 = doc.measurements[1], doc.measurements[2]
        assert.are.equal(2, m1.samples)
        assert.are.equal(require("cjson").null, m1.threshold)
        assert.are.equal(3, m2.samples)
        assert.are.equal(1, m2.mad) -- of 4 and 6
      end)
  end)

  describe("millions of records #slow #resource", function()
    -- doc.a.b for "a.b", the length of the list for "#a".
    local function field(doc, key)
      local len, path = key:match("^(#?)(.*)$")
      local v = doc
      for part in path:gmatch("[^.]+") do v = v[part] end
      return len == "#" and #v or v
    end

    -- case, size, script (--json), what its document must say; cpu: seconds
    -- of CPU at most. The "before" figures are from the code the issue was
    -- filed against.
    for _, c in ipairs({
      { "lag.lua on 400,000 empty measurements (before: 270 MB, 6 s)", "dlag_empty_measurements", 400000,
        "lag.lua", { measurement_count = 400000, ["#measurements"] = 1024,
          ["unlisted.measurements"] = 400000 - 1024 }, cpu = 5 },
      { "lag.lua lists 10,000 spikes and counts them all", "dlag_spiky_samples", 150000, "lag.lua",
        { spike_count = 15000, ["#spikes"] = 10000 } },
      { "info.lua on a .devt of 400,000 groups (before: a row per group)", "devt_many_groups", 400000,
        "info.lua", { ["summary.more_groups"] = 399992 } },
      { "events.lua on 150,000 groups of one event (before: a bucket table per group)",
        "devt_groups_one_event", 150000, "events.lua", { events = 150000, ["#by_type"] = 100,
          ["unlisted_types.types"] = 150000 - 100 }, cpu = 10 },
      { "events.lua on 1,000,000 events (before: 15x the file)", "devt_many_events", 1000000, "events.lua",
        { events = 1000000 } },
      { "movement.lua on 300,000 records of one group (before: 16x the file)", "dm_records_one_group", 300000,
        "movement.lua", { samples = 300000 }, cpu = 15 },
      { "hitdiff.lua on 200,000 client-only traces (before: 40x the file)", "dw_client_only", 200000,
        "hitdiff.lua", { disagree = 200000, ["#details"] = 1000, unlisted_details = 199000 } },
    }) do
      it(c[1] .. ": within the budget", function()
        local path = gen(c[2], c[3])
        local _, doc = M.ok({ "scripts/" .. c[4], path, "--json" }, path, { cpu = c.cpu })
        for key, want in pairs(c[5]) do assert.are.equal(want, field(doc, key), key) end
      end)
    end

    it("lag.lua's text and check.lua's lag rules on 400,000 measurements: within the budget", function()
      local path = gen("dlag_empty_measurements", 400000)
      M.ok({ "scripts/lag.lua", path }, path, { cpu = 5 })
      M.ok({ "scripts/check.lua", "examples/rules/dlag.lua", path }, path, { code = 3 }) -- no samples
    end)

    it("info.lua on a .devt of 400,000 groups prints one screen", function()
      local path = gen("devt_many_groups", 400000)
      local r = M.ok({ "scripts/info.lua", path }, path)
      local _, lines = r.stdout:gsub("\n", "")
      assert.is_true(lines <= 30, "info printed " .. lines .. " lines")
      assert.matches("more groups%s+399,992", r.stdout)
    end)

    -- Every script that reads these formats, on the cases above not covered.
    for _, c in ipairs({
      { "dw_empty_slots", 1000000, { "hitdiff.lua", "info.lua" } },
      { "dw_empty_traces", 1000000, { "hitdiff.lua", "info.lua" } },
      { "dm_empty_records", 1000000, { "movement.lua", "info.lua" } },
    }) do
      it(table.concat(c[3], " and ") .. " on " .. c[1] .. " (" .. c[2] .. "): within the budget", function()
        local path = gen(c[1], c[2])
        for _, script in ipairs(c[3]) do M.ok({ "scripts/" .. script, path }, path) end
      end)
    end
  end)
end)
