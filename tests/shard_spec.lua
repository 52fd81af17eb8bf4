-- --shard I/N (vp.multi): every script that takes many files runs a
-- deterministic part of the expanded list; the parts of one N cover the
-- list once, whatever the script (one that runs children, check.lua and
-- compare.lua, which expand their own lists).
local h = require "helpers"
local multi = require "vp.multi"

local function files_of(stdout)
  local l = {}
  for f in stdout:gmatch("==> (.-) <==") do l[#l + 1] = f end
  return l
end

describe("--shard I/N", function()
  it("multi.shard: part I of N takes every N-th file from the I-th, and the parts cover the list once", function()
    local list = {}
    for i = 1, 11 do list[i] = "f" .. i end
    local seen = {}
    for i = 1, 4 do
      for _, f in ipairs(multi.shard(list, i .. "/4")) do
        assert.is_nil(seen[f], f)
        seen[f] = i
      end
    end
    for k, f in ipairs(list) do assert.equal((k - 1) % 4 + 1, seen[f]) end
    assert.same({ "f2", "f5", "f8", "f11" }, multi.shard(list, "2/3"))
    assert.equal(list, multi.shard(list, nil))
    for _, bad in ipairs({ "0/2", "3/2", "2", "a/b", "1/0" }) do
      assert.equal(2, h.raised(multi.shard, list, bad).exit, bad)
    end
  end)

  it("a script over a directory runs only its part, and the parts of 2 add up to the whole run", function()
    local all = files_of(h.run("scripts/info.lua", "examples/runs/base", "examples/runs/new").stdout)
    assert.equal(10, #all)
    local got = {}
    for i = 1, 3 do
      local r = h.run("scripts/info.lua", "examples/runs/base", "examples/runs/new", "--shard", i .. "/3")
      assert.equal(0, r.code, r.stderr)
      for _, f in ipairs(files_of(r.stdout)) do got[#got + 1] = f end
    end
    table.sort(got)
    local want = table.move(all, 1, #all, 1, {})
    table.sort(want)
    assert.same(want, got)
    -- a part of one file runs it in-process, as a single file would
    local one = h.run("scripts/info.lua", "examples/sample.vprof", "examples/runs/base/run1.vprof", "--shard", "1/2")
    assert.equal(0, one.code)
    assert.is_nil(one.stdout:find("==>", 1, true))
    assert.truthy(one.stdout:find("examples/sample.vprof", 1, true))
  end)

  it("an empty part exits 0 and says so; a bad spec is a usage error", function()
    local r = h.run("scripts/hitches.lua", "examples/sample.vprof", "--shard", "2/2", "--json")
    assert.equal(0, r.code)
    assert.equal("", r.stdout)
    assert.truthy(r.stderr:find("--shard 2/2: no file in this part (1 in all)", 1, true))
    local bad = h.run("scripts/hitches.lua", "examples/sample.vprof", "--shard", "3/2")
    assert.equal(2, bad.code)
    assert.truthy(bad.stderr:find("expected I/N", 1, true))
  end)

  it("check.lua and compare.lua shard the captures they run one by one", function()
    local c = h.run("scripts/check.lua", "examples/rules/vprof.lua", "examples/runs/new", "--shard", "2/2", "--json")
    local files = {}
    for line in c.stdout:gmatch("[^\n]+") do files[#files + 1] = require("cjson").decode(line).file end
    assert.same({ "examples/runs/new/run2.vprof", "examples/runs/new/run4.vprof" }, files)
    local m = h.run("scripts/compare.lua", "examples/runs/base/run1.vprof", "examples/runs/new", "--shard", "1/5",
      "--json")
    assert.equal("examples/runs/new/run1.vprof", require("cjson").decode(m.stdout).b.file)
    local runs = h.run("scripts/check.lua", "examples/rules/vprof.lua", "examples/runs/new", "--runs", "--shard", "1/2")
    assert.equal(2, runs.code)
  end)
end)
