-- The analysis modules behind the shipped scripts (vp.hitches, vp.budget,
-- vp.top, vp.info, vp.lag, vp.events, vp.movement, vp.hitdiff, vp.laige):
-- analyze(cap, params) returns plain data (nil for absent, no NaN or
-- infinity, no JSON markers), the script prints exactly
-- json.encode(result, module.schema) with --json (same options), and their
-- errors are vp.error objects that the scripts end with.
local vp = require "vp"
local h = require "helpers"
local fx = require "gate_fixtures"
local json = require "vp.json"

-- What in v is not plain data: a list of "path: why".
local function not_plain(v, path, out)
  out = out or {}
  path = path or "result"
  local t = type(v)
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then out[#out + 1] = path .. ": " .. tostring(v) end
  elseif t == "table" then
    if getmetatable(v) ~= nil then out[#out + 1] = path .. ": a table with a metatable" end
    for k, x in pairs(v) do
      if type(k) ~= "string" and math.type(k) ~= "integer" then
        out[#out + 1] = path .. ": a key of type " .. type(k)
      end
      not_plain(x, path .. "." .. tostring(k), out)
    end
  elseif t ~= "string" and t ~= "boolean" then
    out[#out + 1] = path .. ": a " .. t .. (v == json.null and " (json.null)" or "")
  end
  return out
end

-- The result is plain data, its schema declares every key, and the script
-- prints exactly json.encode(result, schema).
local function check(result, schema, script_stdout)
  assert.same({}, not_plain(result))
  assert.same({}, json.undeclared(result, schema))
  assert.equal(script_stdout, json.encode(result, schema) .. "\n")
end

local function script_json(script, path, ...)
  local r = h.run(script, path, "--json", ...)
  assert.equal(0, r.code, r.stderr)
  return r.stdout
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

  -- analyze(path, params), checked against `script --json ...`.
  local function same_as_script(name, path, params, script, ...)
    local m = require(name)
    local cap = assert(vp.open(path))
    local doc = m.analyze(cap, params)
    cap:close()
    check(doc, m.schema, script_json(script, path, ...))
    return doc
  end

  it("vp.hitches: plain data that hitches.lua prints, default and with options", function()
    local doc = same_as_script("vp.hitches", dir .. "/h.vprof", nil, "scripts/hitches.lua")
    assert.equal(3, #doc.hitches)
    assert.is_true(#doc.hitches[1].causes > 0)
    assert.is_nil(doc.params.threshold_ms)
    doc = same_as_script("vp.hitches", dir .. "/h.vprof", { threshold_ms = 20, causes = 1, window = 5 },
      "scripts/hitches.lua", "--threshold-ms", "20", "--causes", "1", "--window", "5")
    assert.equal(20, doc.params.threshold_ms)
    assert.is_true(#doc.hitches[1].causes <= 1)
    same_as_script("vp.hitches", "examples/laige/budget_fail.txt", nil, "scripts/hitches.lua")
    same_as_script("vp.hitches", ex .. "/sample.vprof", nil, "scripts/hitches.lua")
  end)

  it("vp.hitches reports progress through params.on_progress and draws nothing", function()
    local cap = assert(vp.open(dir .. "/h.vprof"))
    local calls = {}
    local doc = require("vp.hitches").analyze(cap, {
      on_progress = function(done, total) calls[#calls + 1] = { done, total } end,
    })
    cap:close()
    assert.same({ { 1, 3 }, { 2, 3 }, { 3, 3 } }, calls)
    assert.equal(3, #doc.hitches)
  end)

  it("vp.hitches on a capture without frame times fails as the script does", function()
    local cap = assert(vp.open(ex .. "/sample.dw"))
    local err = h.raised(require("vp.hitches").analyze, cap)
    cap:close()
    assert.equal("EINPUT", err.code)
    assert.equal(2, err.exit)
    assert.equal(ex .. "/sample.dw: a dw capture has no per-frame times", err.message)
    -- the script refuses it before the analysis runs: hitches.lua does not read dw
    local r = h.run("scripts/hitches.lua", ex .. "/sample.dw")
    assert.equal(2, r.code)
    assert.equal("vpscript: " .. ex .. "/sample.dw: a dw capture: hitches.lua reads vprof, laige-budget "
      .. "(--format NAME forces a reader)\n", r.stderr)
  end)

  it("vp.budget: plain data that budget.lua prints", function()
    same_as_script("vp.budget", ex .. "/sample.vprof", nil, "scripts/budget.lua")
    local doc = same_as_script("vp.budget", ex .. "/sample.vprof", { fold_hidden = true }, "scripts/budget.lua",
      "--fold-hidden")
    assert.is_true(#doc.groups > 5)
  end)

  it("vp.top: plain data that top.lua prints, with a range, a sort and a limit", function()
    local doc = same_as_script("vp.top", ex .. "/sample.vprof", nil, "scripts/top.lua")
    assert.equal(25, #doc.nodes)
    doc = same_as_script("vp.top", ex .. "/sample.vprof", { sort = "peakavg", limit = 0, first = 10, last = 20 },
      "scripts/top.lua", "--sort", "peakavg", "--limit", "0", "--frames", "10:20")
    assert.equal(11, doc.frames)
    assert.equal(10, doc.first_frame)
    local cap = assert(vp.open(ex .. "/sample.vprof"))
    assert.equal("EUSAGE", h.raised(require("vp.top").analyze, cap, { first = 5000 }).code)
    assert.equal("EUSAGE", h.raised(require("vp.top").analyze, cap, { sort = "nope" }).code)
    cap:close()
  end)

  it("vp.info: plain data that info.lua prints, for every format", function()
    local info = require "vp.info"
    for _, f in ipairs({ "sample.vprof", "sample.devt", "sample.dlag", "sample.dm", "sample.dw" }) do
      local cap = assert(vp.open(ex .. "/" .. f))
      local doc, rows = info.analyze(cap)
      cap:close()
      assert.is_true(#rows > 0, f)
      assert.equal(rows[1].value, doc.summary[rows[1].name])
      assert.same({}, not_plain(doc))
      assert.same({}, json.undeclared(doc, info.schema))
      assert.equal(script_json("scripts/info.lua", ex .. "/" .. f), json.encode(doc, info.schema_for(rows)) .. "\n")
    end
    -- a summary row without a value is written as null, not left out
    local doc = { file = "f", format = "x", size = 1, summary = { a = 1 }, warnings = {} }
    assert.equal("trailing_bytes", info.key("trailing bytes"))
    assert.equal("tick_p50_ms", info.key(" Tick p50 (ms) "))
    assert.equal('{"file":"f","format":"x","size":1,"summary":{"b":null,"a":1},"warnings":[]}',
      json.encode(doc, info.schema_for({ { name = "b" }, { name = "a", value = 1 } })))
  end)

  it("info --json: one key style and numbers as numbers, for every format", function()
    local files = { "sample.vprof", "sample.devt", "sample.dlag", "sample.dm", "sample.dw" }
    for i, f in ipairs(files) do files[i] = ex .. "/" .. f end
    for _, f in ipairs({ "profile.json", "profile.txt", "budget_pass.txt", "budget_fail.txt" }) do
      files[#files + 1] = "examples/laige/" .. f
    end
    for _, f in ipairs(files) do
      local doc = h.run_json("scripts/info.lua", f, "--json")
      local n = 0
      for k, v in pairs(doc.summary) do
        n = n + 1
        assert.matches("^[a-z][a-z0-9_]*$", k, f)
        assert.is_nil(k:find("__", 1, true), f .. ": " .. k)
        if type(v) == "string" then
          -- a number, a range or a duration is never a string
          assert.is_nil(tonumber(v), f .. ": " .. k .. " = " .. v)
          assert.is_nil(v:find("%d%s*%.%.%s*%-?%d"), f .. ": " .. k .. " = " .. v)
          assert.is_nil(v:find("%d%s*ms"), f .. ": " .. k .. " = " .. v)
          assert.is_nil(v:find("%d %(", 1), f .. ": " .. k .. " = " .. v)
        end
      end
      assert.is_true(n >= 8, f)
    end
    local vprof = h.run_json("scripts/info.lua", ex .. "/sample.vprof", "--json").summary
    assert.are.equal(48213, vprof.first_tick)
    assert.are.equal(52112, vprof.last_tick)
    assert.are.equal(4, vprof.escape_width)
    assert.is_false(vprof.escapes_seen)
    local laige = h.run_json("scripts/info.lua", "examples/laige/profile.json", "--json").summary
    assert.are.equal(3.21298, laige.tick_p50_ms)
    assert.are.equal(4.72886, laige.frame_p99_ms)
    assert.are.equal(0, h.run_json("scripts/info.lua", ex .. "/sample.dm", "--json").summary.trailing_bytes)
    -- the text keeps reading as it did: "_" reads as a space, "_ms" as a duration
    local text = h.run("scripts/info.lua", "examples/laige/profile.json").stdout
    assert.matches("\n  tick p50 +3%.213 ms\n", text)
    assert.matches("\n  systems over budget +1\n", text)
  end)

  it("vp.lag: plain data that lag.lua prints, and lag.measurement_doc", function()
    local doc = same_as_script("vp.lag", ex .. "/sample.dlag", { k = 2 }, "scripts/lag.lua", "--k", "2")
    assert.is_true(#doc.spikes > 0)
    local lag = require "vp.lag"
    local cap = assert(vp.open(ex .. "/sample.dlag"))
    local one = lag.measurement_doc(cap, cap:measurement("Socket RTT"))
    cap:close()
    check(one, lag.measurement_schema, script_json("scripts/lag.lua", ex .. "/sample.dlag", "--measurement",
      "Socket RTT"))
    assert.equal("Socket RTT", one.measurement.name)
  end)

  it("vp.events: plain data that events.lua prints", function()
    local doc = same_as_script("vp.events", ex .. "/sample.devt", nil, "scripts/events.lua")
    assert.is_true(doc.frame_pacing.frames > 1)
  end)

  it("vp.movement: plain data that movement.lua prints, default and with options", function()
    same_as_script("vp.movement", ex .. "/sample.dm", nil, "scripts/movement.lua")
    local doc = same_as_script("vp.movement", ex .. "/sample.dm", { min_correction = 0.1, time_scale = 2 },
      "scripts/movement.lua", "--min-correction", "0.1", "--time-scale", "2")
    assert.equal(2, doc.time_scale)
    local cap = assert(vp.open(ex .. "/sample.dm"))
    local err = h.raised(require("vp.movement").analyze, cap, { bit = 19 })
    assert.equal("EUSAGE", err.code)
    assert.equal(2, err.exit)
    assert.matches("no record has a group under bit 19 %(bits present: ", err.message)
    assert.equal("EUSAGE", h.raised(require("vp.movement").analyze, cap, { time_scale = 0 }).code)
    cap:close()
  end)

  it("vp.hitdiff: plain data that hitdiff.lua prints", function()
    local doc = same_as_script("vp.hitdiff", ex .. "/sample.dw", nil, "scripts/hitdiff.lua")
    assert.equal("dw", doc.format)
    assert.is_true(doc.disagree > 0)
    doc = same_as_script("vp.hitdiff", ex .. "/sample.dw", { tolerance = 2 }, "scripts/hitdiff.lua",
      "--tolerance", "2")
    assert.equal(2, doc.tolerance)
  end)

  it("vp.laige: plain data that laige.lua prints, for both report kinds and every sort", function()
    local laige = require "vp.laige"
    for _, f in ipairs({ "profile.json", "profile.txt", "budget_fail.txt", "budget_pass.txt" }) do
      local path = "examples/laige/" .. f
      for _, sort in ipairs(laige.SORTS) do
        local cap = assert(laige.open(path))
        local doc = laige.analyze(cap, { sort = sort })
        cap:close()
        check(doc, laige.schema_of(doc), script_json("scripts/laige.lua", path, "--sort", sort))
      end
    end
    local cap = assert(laige.open("examples/laige/budget_fail.txt"))
    local doc = laige.analyze(cap)
    assert.is_true(doc.gate.failed)
    assert.equal("overall=FAIL", doc.gate.reasons[1])
    assert.equal("EUSAGE", h.raised(laige.analyze, cap, { sort = "nope" }).code)
    cap:close()
    local dm = assert(vp.open(ex .. "/sample.dm"))
    assert.equal("EINPUT", h.raised(laige.analyze, dm).code)
    dm:close()
  end)

  it("each module refuses a capture of another format with EINPUT", function()
    local cap = assert(vp.open(ex .. "/sample.dm"))
    for _, m in ipairs({ "vp.budget", "vp.top", "vp.lag", "vp.events", "vp.hitdiff" }) do
      local err = h.raised(require(m).analyze, cap)
      assert.equal("EINPUT", err.code, m)
      assert.matches(m .. ": a %w+ capture is needed, not dm", tostring(err))
    end
    cap:close()
    cap = assert(vp.open(ex .. "/sample.dw"))
    local err = h.raised(require("vp.movement").analyze, cap)
    assert.equal("vp.movement: a dm capture is needed, not dw", err.message)
    cap:close()
  end)

  it("no analysis module requires the output modules, prints or exits", function()
    for _, name in ipairs({ "hitches", "budget", "top", "info", "lag", "events", "movement", "hitdiff",
      "stats", "laige", "laige/read", "laige/text", "laige/json", "laige/model", "laige/metrics",
      "laige/analysis" }) do
      local src = h.read_file("stdlib/vp/" .. name .. ".lua"):gsub("%-%-[^\n]*", "") -- code, not comments
      for _, bad in ipairs({ 'require "vp.cli"', 'require "vp.report"', 'require "vp.fmt"',
        'require "vp.json"', "print(", "io.write", "io.stdout", "io.stderr", "os.exit" }) do
        assert.is_nil(src:find(bad, 1, true), name .. ".lua uses " .. bad)
      end
    end
  end)
end)
