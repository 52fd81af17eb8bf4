-- A VProf capture that shrinks while it is open (issue 15, item 1): every
-- path that reads the file after vp.open fails with a clean error naming
-- the file and both sizes (ECHANGED), and a script ends with exit 2, never
-- with a signal (the reader reads through a window, it never maps the
-- file). Each case opens a fresh copy of examples/sample.vprof, cuts it to
-- 8 KiB from inside the script (as a CI machine cleaning its files would),
-- then touches it one way.
local h = require "helpers"
local vp = require "vp"
local E = require "vp.error"

local dir, sample_size

setup(function()
  dir = h.tmpdir()
  sample_size = #h.read_file("examples/sample.vprof")
end)
teardown(h.cleanup)

local n = 0
local function fresh_copy()
  n = n + 1
  local p = dir .. "/cut" .. n .. ".vprof"
  h.write_file(p, h.read_file("examples/sample.vprof"))
  return p
end

-- Each way of reading the capture after the open.
local TOUCH = {
  frames = function(cap)
    local sum = 0
    for fr in cap:frames() do
      for _, ms in fr:nodes() do sum = sum + ms end
    end
    return sum
  end,
  frame = function(cap) return cap:frame(2000):self_ms("Root/CEngine::Frame") end,
  series = function(cap) return cap:series("Root/CEngine::Frame", "time_ms") end,
  node_stats = function(cap) return cap:totals() end,
  node_stats_range = function(cap) return cap:totals(100, 200) end,
  node_stat = function(cap) return cap:totals("Root/CEngine::Frame") end,
  group_stats = function(cap) return cap:dist("groups") end,
  group_self_ms = function(cap) return cap:group_self_ms() end,
  causes = function(cap) return require("vp.hitches.core").causes(cap, 1200) end,
  hitches = function(cap) return require("vp.hitches").analyze(cap) end,
  budget = function(cap) return require("vp.budget").analyze(cap) end,
  top = function(cap) return require("vp.top").analyze(cap, { first = 10, last = 3000 }) end,
}
local NAMES = {}
for name in pairs(TOUCH) do NAMES[#NAMES + 1] = name end
table.sort(NAMES)

describe("a VProf capture truncated while open", function()
  for _, name in ipairs(NAMES) do
    it("fails cleanly on " .. name .. ", naming the file and both sizes", function()
      local p = fresh_copy()
      local cap = assert(vp.open(p))
      assert.equal(0, select(3, os.execute("truncate -s 8192 " .. h.quote(p))))
      local ok, err = pcall(TOUCH[name], cap)
      assert.is_false(ok, name .. " read a file that is no longer there")
      assert.is_true(E.is(err), name .. ": " .. tostring(err))
      assert.equal("ECHANGED", err.code)
      assert.equal(2, err.exit)
      assert.equal(p .. ": ", err.message:sub(1, #p + 2))
      assert.matches("the file was truncated while open: it had " .. sample_size .. " bytes, now 8192",
        err.message, 1, true)
      cap:close()
    end)
  end

  it("gives what the open pass kept without reading the file again", function()
    local p = fresh_copy()
    local cap = assert(vp.open(p))
    local before = cap:frame_times():totable()
    os.execute("truncate -s 8192 " .. h.quote(p))
    assert.same(before, cap:frame_times():totable())
    assert.equal(4000, #cap)
    assert.is_number(cap:frame(3999).tick)
    assert.is_true(#require("vp.hitches.core").detect(cap, { window = 30 }) > 0)
    cap:close()
  end)

  it("ends a script with exit 2 and the message, never a signal", function()
    local script = h.write_file(dir .. "/cut.lua", [[
      local cli = require "vp.cli"
      local path, what = arg[1], arg[2]
      local cap = cli.open(path)
      os.execute("truncate -s 8192 " .. path)
      if what == "hitches" then
        require("vp.hitches").analyze(cap)
      elseif what == "budget" then
        require("vp.budget").analyze(cap)
      else
        for fr in cap:frames() do fr:calls(cap.root) end
      end
      print("not reached")
    ]])
    for _, what in ipairs({ "hitches", "budget", "frames" }) do
      local p = fresh_copy()
      local r = h.run(script, p, what)
      assert.equal(2, r.code, what .. ": " .. r.stderr)
      assert.equal("", r.stdout)
      assert.equal("vpscript: " .. p .. ": ", r.stderr:sub(1, #p + 12))
      assert.matches("truncated while open: it had " .. sample_size .. " bytes, now 8192\n$", r.stderr)
      assert.is_nil(r.stderr:find("traceback", 1, true))
    end
  end)
end)
