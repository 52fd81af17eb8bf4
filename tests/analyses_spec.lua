-- The analysis modules behind the shipped scripts (vp.hitches, vp.budget,
-- vp.lag, vp.events, vp.movement): analyze(cap, params) returns exactly the
-- document the script prints with --json (same options), and their errors
-- are the scripts' errors.
local vp = require "vp"
local h = require "helpers"
local fx = require "gate_fixtures"
local cjson = require "cjson"
local cli = require "vp.cli"

-- A document as JSON gives it back (cli.array, cli.null and all).
local function as_json(doc)
  return cjson.decode(cli.encode_json(doc))
end

describe("analysis modules", function()
  local dir, ex
  setup(function()
    dir = h.tmpdir()
    ex = dir .. "/ex"
    os.execute("mkdir -p " .. h.quote(ex))
    assert.equal(0, h.run("examples/generate.lua", ex).code)
    fx.vprof(dir .. "/h.vprof", { seed = 3, frames = 400, hitches = { 100, 101, 300 } })
  end)
  teardown(h.cleanup)

  local function same_as_script(module, path, params, script, ...)
    local cap = assert(vp.open(path))
    local doc = require(module).analyze(cap, params)
    cap:close()
    local want = h.run_json(script, path, "--json", ...)
    assert.same(want, as_json(doc))
    return doc
  end

  it("vp.hitches.analyze is hitches.lua --json, default and with options", function()
    local doc = same_as_script("vp.hitches", dir .. "/h.vprof", nil, "scripts/hitches.lua")
    assert.equal(3, #doc.hitches)
    assert.is_true(#doc.hitches[1].causes > 0)
    doc = same_as_script("vp.hitches", dir .. "/h.vprof", { threshold_ms = 20, causes = 1, window = 5 },
      "scripts/hitches.lua", "--threshold-ms", "20", "--causes", "1", "--window", "5")
    assert.equal(20, doc.params.threshold_ms)
    assert.is_true(#doc.hitches[1].causes <= 1)
    same_as_script("vp.hitches", "examples/laige/budget_fail.txt", nil, "scripts/hitches.lua")
  end)

  it("vp.hitches.analyze on a capture without frame times fails as the script does", function()
    local cap = assert(vp.open(ex .. "/sample.dw"))
    local ok, err = pcall(require("vp.hitches").analyze, cap)
    cap:close()
    assert.is_false(ok)
    assert.is_true(cli.is_exit(err))
    assert.equal(2, err.exit)
    assert.equal(ex .. "/sample.dw: a dw capture has no per-frame times", err.message)
    local r = h.run("scripts/hitches.lua", ex .. "/sample.dw")
    assert.equal(2, r.code)
    assert.equal("vpscript: " .. err.message .. "\n", r.stderr)
  end)

  it("vp.budget.analyze is budget.lua --json", function()
    same_as_script("vp.budget", ex .. "/sample.vprof", nil, "scripts/budget.lua")
    local doc = same_as_script("vp.budget", ex .. "/sample.vprof", { fold_hidden = true }, "scripts/budget.lua",
      "--fold-hidden")
    assert.is_true(#doc.groups > 5)
  end)

  it("vp.lag.analyze and lag.measurement_doc are lag.lua --json", function()
    local doc = same_as_script("vp.lag", ex .. "/sample.dlag", { k = 2 }, "scripts/lag.lua", "--k", "2")
    assert.is_true(#doc.spikes > 0)
    local cap = assert(vp.open(ex .. "/sample.dlag"))
    local one = require("vp.lag").measurement_doc(cap, cap:measurement("Socket RTT"))
    cap:close()
    assert.same(h.run_json("scripts/lag.lua", ex .. "/sample.dlag", "--json", "--measurement", "Socket RTT"),
      as_json(one))
    assert.equal("Socket RTT", one.measurement.name)
  end)

  it("vp.events.analyze is events.lua --json", function()
    local doc = same_as_script("vp.events", ex .. "/sample.devt", nil, "scripts/events.lua")
    assert.is_true(doc.frame_pacing.frames > 1)
  end)

  it("vp.movement.analyze is movement.lua --json, default and with options", function()
    same_as_script("vp.movement", ex .. "/sample.dm", nil, "scripts/movement.lua")
    local doc = same_as_script("vp.movement", ex .. "/sample.dm", { min_correction = 0.1, time_scale = 2 },
      "scripts/movement.lua", "--min-correction", "0.1", "--time-scale", "2")
    assert.equal(2, doc.time_scale)
    local cap = assert(vp.open(ex .. "/sample.dm"))
    local ok, err = pcall(require("vp.movement").analyze, cap, { bit = 19 })
    cap:close()
    assert.is_false(ok)
    assert.equal(2, err.exit)
    assert.matches("no record has a group under bit 19 %(bits present: ", err.message)
  end)

  it("each module refuses a capture of another format", function()
    local cap = assert(vp.open(ex .. "/sample.dw"))
    for _, m in ipairs({ "vp.budget", "vp.lag", "vp.events", "vp.movement" }) do
      local ok, err = pcall(require(m).analyze, cap)
      assert.is_false(ok, m)
      assert.matches(m .. ": a %w+ capture is needed, not dw", tostring(err))
    end
    cap:close()
  end)
end)
