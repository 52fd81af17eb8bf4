-- What running needs and what only the tests need (tools/deps.sh, the one
-- place that lists them): make run installs the first and never reaches
-- for npm, and the shipped scripts run with nothing of the second.
local h = require "helpers"

-- The packages of a tier, as tools/deps.sh lists them.
local function tier(name)
  local p = assert(io.popen("sh tools/deps.sh " .. name .. " --list"))
  local set, list = {}, {}
  for pkg in p:lines() do
    set[pkg] = true
    list[#list + 1] = pkg
  end
  assert(p:close())
  return set, list
end

-- What only the tests, make lint, the fuzzers and make consumers use.
local TEST_ONLY = { "chromium", "nodejs", "npm", "clang", "libclang-rt-dev", "lua-busted", "lua-check", "lua-expat",
  "lua-cjson", "python3", "time" }

describe("tools/deps.sh", function()
  it("lists for running no package only the tests use, and everything running needs for the tests too", function()
    local run, run_list = tier("run")
    local test = tier("test")
    for _, pkg in ipairs(TEST_ONLY) do
      assert.is_nil(run[pkg], pkg .. " is installed for running")
    end
    for _, pkg in ipairs({ "gcc", "make", "liblua5.4-dev", "libreadline-dev", "lua-filesystem" }) do
      assert.is_true(run[pkg], pkg .. " is missing for running")
    end
    for _, pkg in ipairs(run_list) do assert.is_true(test[pkg], pkg .. " is missing for the tests") end
    assert.is_true(test["lua-busted"] and test.chromium and test["lua-cjson"])
  end)

  it("is what make run and make test start with, and make run never runs npm", function()
    local p = assert(io.popen("make -n run 2>&1"))
    local run = p:read("a")
    p:close()
    assert.truthy(run:find("tools/deps.sh run", 1, true), run)
    assert.is_nil(run:find("npm", 1, true), run)
    assert.is_nil(run:find("deps.sh test", 1, true), run)
    p = assert(io.popen("make -n test 2>&1"))
    local test = p:read("a")
    p:close()
    assert.truthy(test:find("tools/deps.sh test", 1, true), test)
  end)
end)

describe("running with only what make run installs", function()
  local dir, env
  setup(function()
    dir = h.tmpdir()
    -- Lua's modules limited to lua-filesystem, the one running needs: the
    -- test tier's (lua-cjson, busted, lpeg, expat, ...) out of reach.
    local lfs_so = assert(package.searchpath("lfs", package.cpath))
    assert(os.execute("ln -s " .. h.quote(lfs_so) .. " " .. h.quote(dir .. "/lfs.so")))
    env = { LUA_CPATH_5_4 = dir .. "/?.so", LUA_PATH_5_4 = dir .. "/?.lua" }
  end)
  teardown(h.cleanup)

  it("leaves lua-cjson out of reach in this setup", function()
    local r = h.run("-e", "print(pcall(require, 'cjson'))", { env = env })
    assert.matches("^false", r.stdout)
  end)

  it("the shipped scripts print what they print with every module in reach", function()
    for _, words in ipairs({
      { "scripts/hitches.lua", "examples/sample.vprof", "--json" },
      { "scripts/budget.lua", "examples/sample.vprof", "--csv" },
      { "scripts/compare.lua", "examples/runs/base/run1.vprof", "examples/runs/new/run1.vprof", "--json" },
      { "scripts/check.lua", "examples/rules/vprof.lua", "examples/sample.vprof" },
      { "scripts/hitdiff.lua", "examples", "--json" },
      { "scripts/laige.lua", "examples/laige/profile.json" },
    }) do
      local with = h.run(table.unpack(words))
      local args = { table.unpack(words) }
      args[#args + 1] = { env = env }
      local without = h.run(table.unpack(args))
      assert.are.equal(with.stderr, without.stderr, words[1])
      assert.are.equal(with.code, without.code, words[1])
      assert.are.equal(with.stdout, without.stdout, words[1])
      assert.is_true(with.code == 0 or with.code == 3, words[1] .. ": " .. with.stderr)
    end
  end)
end)
