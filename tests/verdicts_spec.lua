-- The shipped CI gate catches the obvious (issue 23): captures of the
-- sample's own design (examples/gen/vprof.lua with another noise seed) are
-- checked against the sample as the CI example does it
-- (examples/ci/vpscript-gate.yml: examples/rules/vprof_regress.lua, a
-- folder of captures, --baseline, --jobs 2, --junit). Physics 1.5x slower
-- fails, the whole frame 3 % slower fails, another run of the same build
-- passes; compare.lua reports the Physics change significant. Before the
-- paired comparison, the first two passed (their one-capture intervals were
-- +-70 % and +-33 %).
local h = require "helpers"

describe("the shipped regression gate on runs of the sample's design", function()
  local dir, base
  local RULES = "examples/rules/vprof_regress.lua"

  -- A run of the design into its own folder (the CI example checks a folder).
  local function run_of(name, seed, physics, scale)
    local folder = dir .. "/" .. name
    local r = h.run("examples/gen/vprof.lua", folder, name .. ".vprof", tostring(seed), tostring(physics or 1),
      tostring(scale or 1))
    assert.equal(0, r.code, r.stderr)
    return folder, folder .. "/" .. name .. ".vprof"
  end

  -- check.lua as the CI example runs it; the exit status and the JUnit file.
  local function gate(folder)
    local xml = folder .. "/gate-regressions.xml"
    local r = h.run("scripts/check.lua", RULES, folder, "--baseline", base, "--jobs", "2", "--junit", xml)
    return r, h.read_file(xml)
  end

  setup(function()
    dir = h.tmpdir()
    local r = h.run("examples/gen/vprof.lua", dir, "base.vprof")
    assert.equal(0, r.code, r.stderr)
    base = dir .. "/base.vprof"
    -- the default run is the sample itself, byte for byte
    assert.equal(h.read_file("examples/sample.vprof"), h.read_file(base))
  end)
  teardown(function() h.cleanup() end)

  it("passes another run of the same build", function()
    local folder = run_of("again", 12345)
    local r, xml = gate(folder)
    assert.equal(0, r.code, r.stdout .. r.stderr)
    assert.matches("PASS: 7 passed, 0 failed", r.stdout)
    assert.matches("the captures line up", r.stdout)
    assert.is_nil(xml:find("<failure", 1, true))
  end)

  it("fails Physics 1.5x slower, naming the group's rule", function()
    local folder = run_of("physics", 12345, 1.5)
    local r, xml = gate(folder)
    assert.equal(3, r.code, r.stdout .. r.stderr)
    assert.matches("FAIL rule 5: group%.Physics%.mean_ms", r.stdout)
    assert.truthy(xml:find("<failure", 1, true))
    local doc = h.run_json("scripts/compare.lua", base, folder .. "/physics.vprof", "--json", "--match",
      "^group%.Physics%.mean_ms$")
    local m = doc.metrics[1]
    assert.equal("aligned", m.evidence)
    assert.is_true(m.significant)
    assert.is_true(m.ci.pct_lo > 45 and m.ci.pct_hi < 55)
  end)

  it("fails a frame 3 % slower overall", function()
    local folder = run_of("slower", 12345, 1, 1.03)
    local r = gate(folder)
    assert.equal(3, r.code, r.stdout .. r.stderr)
    assert.matches("FAIL rule 1: frame_ms%.p50", r.stdout)
    assert.matches("FAIL rule 2: frame_ms%.mean", r.stdout)
  end)

  it("scopes a rule to a phase or to frames, on both sides", function()
    local _, capture = run_of("scoped", 12345, 1.5)
    local rules = h.write_file(dir .. "/scoped.lua", [[return {
      { metric = "frame_ms.p99", max = 20, phase = 3 },
      { metric = "group.Physics.mean_ms", max_regress_pct = 10, significant = true, phase = 3 },
      { metric = "frame_ms.mean", max = 14, frames = "1:799" },
      { metric = "frame_ms.mean", max = 99, phase = 9 },
      { metric = "frame_ms.mean", max = 99, phase = 9, optional = true },
    }]])
    local r = h.run("scripts/check.lua", rules, capture, "--baseline", base, "--json")
    assert.equal(3, r.code, r.stderr)
    local doc = require("cjson").decode(r.stdout)
    local res = doc.results
    -- the phases the capture is scoped by, as check.lua prints them
    assert.same({ 2000, 2700 }, { doc.phases[3].first, doc.phases[3].last })
    assert.same({ 3, 2000, 2700 }, { res[1].scope.phase, res[1].scope.first, res[1].scope.last })
    assert.equal("pass", res[1].status)
    assert.equal("fail", res[2].status) -- 1.5x in the fight as everywhere
    assert.is_true(res[2].baseline > 4 and res[2].value > 6) -- the phase's own figures, not the capture's
    assert.same({ 1, 799 }, { res[3].scope.first, res[3].scope.last })
    assert.equal("fail", res[3].status)
    assert.equal("fail", res[4].status)
    assert.matches("has 4 phases, no phase 9", res[4].message)
    assert.equal("skip", res[5].status)
    local bad = h.run("scripts/check.lua", h.write_file(dir .. "/bad.lua",
      "return { { metric = 'frame_ms.mean', max = 1, phase = 1, frames = '1:9' } }"), capture)
    assert.equal(2, bad.code)
    assert.matches("a phase or to frames, not both", bad.stderr)
  end)

  it("is blind with the independent method on the same pair, as before", function()
    local _, capture = run_of("physics2", 12345, 1.5)
    local r = h.run("scripts/check.lua", RULES, capture, "--baseline", base, "--pairing", "independent", "--json")
    assert.equal(0, r.code, r.stderr)
    assert.matches('"evidence":"frames"', r.stdout)
    assert.matches("passed for want of significance: cannot tell from one capture a side", r.stderr)
  end)
end)
