-- The messages a new user meets (issue 26's rough edges): a mistyped
-- script, option, metric, group or node path names the nearest names; a
-- file that is no capture points at --format on the command line; two
-- words in the wrong order are said to be swapped, with the right command.
local h = require "helpers"

local function fails(want, ...)
  local r = h.run(...)
  assert.are.equal(2, r.code, r.stderr)
  assert.are.equal("", r.stdout)
  assert.truthy(r.stderr:find(want, 1, true), r.stderr)
  return r
end

describe("did you mean", function()
  it("names the nearest shipped script, and none when nothing is near", function()
    fails("cannot find script 'hitchs' (did you mean 'hitches.lua'?)", "hitchs", "examples/sample.vprof")
    local r = fails("cannot find script 'zzzqqq' (tried", "zzzqqq", "examples/sample.vprof")
    assert.is_nil(r.stderr:find("did you mean", 1, true))
  end)

  it("names the nearest option of the script", function()
    fails("unknown option --windw (did you mean '--window'?) (try 'vpscript hitches.lua --help')",
      "scripts/hitches.lua", "examples/sample.vprof", "--windw", "3")
    fails("unknown option --jsn (did you mean '--json'?)", "scripts/budget.lua", "examples/sample.vprof", "--jsn")
  end)

  it("names the nearest node of node.lua's NODE, by name or by path", function()
    fails("no node matches 'Physics_Stp' (did you mean 'Physics_Step'?)", "scripts/node.lua", "Physics_Stp",
      "examples/sample.vprof")
    fails("no node matches 'Root/CEngine::Frame/CL_Rendr' (did you mean 'Root/CEngine::Frame/CL_Render'?)",
      "scripts/node.lua", "Root/CEngine::Frame/CL_Rendr", "examples/sample.vprof")
  end)

  it("names the nearest metric, group and node path of a rules file", function()
    local dir = h.tmpdir()
    local function rules(text)
      local path = dir .. "/rules.lua"
      h.write_file(path, "return { " .. text .. " }")
      return path
    end
    fails("unknown metric 'frame_ms.maen' (did you mean 'frame_ms.mean'?)", "scripts/check.lua",
      rules("{ metric = 'frame_ms.maen', max = 20 }"), "examples/sample.vprof")
    fails("no budget group 'Physic' (did you mean 'Physics'?)", "scripts/check.lua",
      rules("{ metric = 'group.Physic.mean_ms', max = 20 }"), "examples/sample.vprof")
    fails("no node 'Root/CEngine::Frame/CL_Rendr' (did you mean 'Root/CEngine::Frame/CL_Render'?)",
      "scripts/check.lua", rules("{ metric = 'node.Root/CEngine::Frame/CL_Rendr.mean_ms', max = 20 }"),
      "examples/sample.vprof")
  end)
end)

describe("a file that is not a capture", function()
  it("points at --format on the command line, with the format names", function()
    local r = fails("pass --format NAME to force one: vprof, devt, dlag", "scripts/hitches.lua", "README.md")
    assert.is_nil(r.stderr:find("{format", 1, true))
  end)
end)

describe("swapped arguments", function()
  it("node.lua CAPTURE NODE and check.lua CAPTURE RULES are explained, with the command in order", function()
    fails("examples/sample.vprof is a vprof capture and Physics_Step is not: node.lua takes NODE first, then "
      .. "CAPTURE (did you mean 'vpscript node.lua Physics_Step examples/sample.vprof'?)",
      "scripts/node.lua", "examples/sample.vprof", "Physics_Step")
    fails("check.lua takes RULES first, then CAPTURE (did you mean 'vpscript check.lua examples/rules/vprof.lua "
      .. "examples/sample.vprof'?)", "scripts/check.lua", "examples/sample.vprof", "examples/rules/vprof.lua")
    -- the right order still runs
    assert.are.equal(0, h.run("scripts/node.lua", "Physics_Step", "examples/sample.vprof").code)
  end)
end)

describe("--json", function()
  it("gives an input that cannot be read its error document, alone as among several (issue 26)", function()
    local dir = h.tmpdir()
    local bad = dir .. "/bad.vprof"
    h.write_file(bad, "VPROF junk")
    local r = h.run("scripts/hitches.lua", bad, "--json")
    assert.are.equal(2, r.code)
    local cjson = require "cjson"
    local one = cjson.decode(r.stdout)
    assert.are.equal(bad, one.file)
    assert.are.equal(2, one.exit)
    assert.matches("VProf version %d+ is not known", one.error)
    r = h.run("scripts/hitches.lua", bad, "examples/sample.vprof", "--json", "--causes", "0")
    local lines = {}
    for line in r.stdout:gmatch("[^\n]+") do lines[#lines + 1] = cjson.decode(line) end
    assert.are.equal(2, #lines)
    assert.are.same(one, lines[1]) -- the same document, once
    assert.are.equal("examples/sample.vprof", lines[2].file)
    -- a rules file that cannot be used is said once, before any capture
    local rules = dir .. "/broken.lua"
    h.write_file(rules, "return {")
    r = h.run("scripts/check.lua", rules, "examples/sample.vprof", "examples/regress/physics.vprof", "--json")
    assert.are.equal(2, r.code)
    assert.are.equal("", r.stdout)
    local _, said = r.stderr:gsub("broken%.lua:1:", "")
    assert.are.equal(1, said)
  end)
end)
