-- Every shipped analysis script, on the example captures, in its three
-- renderings (text, --json, --csv): the same input gives the same bytes
-- every run, and the JSON document has exactly the keys its module's schema
-- declares (json.undeclared finds nothing, and every declared key is there).
local h = require "helpers"
local json = require "vp.json"
local cjson = require "cjson"

-- {script, capture, extra args..., schema = the module's schema for it}
local RUNS = {
  { "hitches", "examples/sample.vprof", schema = require("vp.hitches").schema },
  { "hitches", "examples/laige/budget_fail.txt", schema = require("vp.hitches").schema },
  { "budget", "examples/sample.vprof", "--fold-hidden", schema = require("vp.budget").schema },
  { "top", "examples/sample.vprof", "--limit", "0", schema = require("vp.top").schema },
  { "tree", "examples/sample.vprof", schema = require("vp.tree").schema },
  { "tree", "examples/sample.vprof", "--by-name", "--min-pct", "1", schema = require("vp.tree").names_schema },
  { "node", "Physics_Step", "examples/sample.vprof", schema = require("vp.node").schema },
  { "node", "**/R_DrawWorld", "examples/sample.vprof", "--frames", "3000:3200", schema = require("vp.node").schema },
  { "info", "examples/sample.vprof", schema = require("vp.info").schema },
  { "info", "examples/laige/budget_fail.txt", schema = require("vp.info").schema },
  { "lag", "examples/sample.dlag", schema = require("vp.lag").schema },
  { "lag", "examples/sample.dlag", "--measurement", "Socket RTT", schema = require("vp.lag").measurement_schema },
  { "events", "examples/sample.devt", schema = require("vp.events").schema },
  { "movement", "examples/sample.dm", schema = require("vp.movement").schema },
  { "hitdiff", "examples/sample.dw", "--details", schema = require("vp.hitdiff").schema },
  { "laige", "examples/laige/profile.json", schema = require("vp.laige").profile_schema },
  { "laige", "examples/laige/budget_fail.txt", schema = require("vp.laige").budget_schema },
}

describe("shipped scripts' output", function()
  for _, run in ipairs(RUNS) do
    local args = { "scripts/" .. run[1] .. ".lua", table.unpack(run, 2) }
    local name = table.concat(args, " ", 1)

    it(name .. ": the same bytes on every run, text, --json and --csv", function()
      for _, mode in ipairs({ false, "--json", "--csv" }) do
        local words = { table.unpack(args) }
        if mode then words[#words + 1] = mode end
        local a, b = h.run(table.unpack(words)), h.run(table.unpack(words))
        assert.equal(0, a.code, a.stderr)
        assert.is_true(#a.stdout > 0)
        assert.equal(a.stdout, b.stdout, tostring(mode))
        assert.equal(a.code, b.code)
      end
    end)

    it(name .. ": the JSON has exactly the keys of the module's schema", function()
      local words = { table.unpack(args) }
      words[#words + 1] = "--json"
      local doc = h.run_json(table.unpack(words))
      assert.same({}, json.undeclared(doc, run.schema))
      assert.same({}, json.missing(doc, run.schema))
      assert.is_not.equal(cjson.null, doc.file)
    end)
  end
end)
