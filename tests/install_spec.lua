-- make install / make uninstall, against a staged tree (DESTDIR): the stdlib
-- and vp.so land where a stock lua5.4 finds them, so `require "vp"` there
-- opens every format (the laige reports are parsed by stdlib modules), and
-- the installed vpscript finds its stdlib and its scripts in the same tree.
local h = require "helpers"
local lfs = require "lfs"

local q = h.quote
local repo = lfs.currentdir()
local PREFIX = "/usr/local"

-- Run a shell command: {code =, out =} with stderr folded into out. make
-- runs without the MAKEFLAGS of a `make spec` around us (no jobserver).
local function sh(cmd)
  local p = assert(io.popen("(" .. cmd .. ") 2>&1", "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  return { code = code, out = out }
end

local function make(target, destdir)
  return sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C " .. q(repo)
    .. " " .. target .. " DESTDIR=" .. q(destdir) .. " PREFIX=" .. PREFIX)
end

-- Files under dir, relative to it, sorted.
local function files_under(dir)
  local r = sh("cd " .. q(dir) .. " && find . -type f | sed 's|^\\./||' | sort")
  local list = {}
  for line in r.out:gmatch("[^\n]+") do list[#list + 1] = line end
  return list
end

local function exists(path)
  return lfs.attributes(path, "mode") ~= nil
end

-- One sample of every format, as the examples ship them (make examples).
local SAMPLES = {
  { "sample.vprof", "vprof" },
  { "sample.devt", "devt" },
  { "sample.dlag", "dlag" },
  { "sample.dm", "dm" },
  { "sample.dw", "dw" },
  { "laige/profile.json", "laige-profile" },
  { "laige/profile.txt", "laige-profile" },
  { "laige/budget_fail.txt", "laige-budget" },
}

describe("make install", function()
  local dest, root, luadir, luacdir, scriptdir, bin, away

  setup(function()
    dest = h.tmpdir()
    away = h.tmpdir() -- a working directory with nothing of the build tree in it
    root = dest .. PREFIX
    luadir = root .. "/share/lua/5.4"
    luacdir = root .. "/lib/lua/5.4"
    scriptdir = root .. "/share/vpscript/scripts"
    bin = root .. "/bin/vpscript"
    local r = make("install", dest)
    assert.are.equal(0, r.code, r.out)
  end)

  teardown(function()
    h.cleanup()
  end)

  it("puts the program, vp.so, every stdlib module and every shipped script in place, and nothing else", function()
    local expect = { "bin/vpscript", "lib/lua/5.4/vp.so" }
    for _, f in ipairs(files_under(repo .. "/stdlib")) do
      -- the modules, and the report page's script beside vp/html.lua
      if f:match("%.lua$") or f:match("%.js$") then expect[#expect + 1] = "share/lua/5.4/" .. f end
    end
    for _, f in ipairs(files_under(repo .. "/scripts")) do
      if f:match("%.lua$") then expect[#expect + 1] = "share/vpscript/scripts/" .. f end
    end
    table.sort(expect)
    assert.is_true(#expect > 30)
    assert.are.same(expect, files_under(root))
    assert.are.equal(h.read_file(repo .. "/stdlib/vp/laige.lua"), h.read_file(luadir .. "/vp/laige.lua"))
    assert.truthy(lfs.attributes(bin, "permissions"):match("^rwx"))
  end)

  it("gives a stock lua5.4 a whole vp module: require \"vp\" opens one file of every format", function()
    local code = [[
      local vp = require "vp"
      print(package.searchpath("vp", package.cpath))
      print(package.searchpath("vp.laige", package.path))
      for i = 1, #arg do
        local cap, msg, code = vp.open(arg[i])
        if not cap then print("FAILED", arg[i], msg, code) else print(cap.format, cap.size) cap:close() end
      end
      print(#vp.formats())
    ]]
    h.write_file(away .. "/open_all.lua", code)
    local files = {}
    for i, s in ipairs(SAMPLES) do
      files[i] = q(repo .. "/examples/" .. s[1])
      assert.is_true(exists(repo .. "/examples/" .. s[1]), s[1] .. " is missing: run make examples")
    end
    local r = sh("cd " .. q(away) .. " && env -u LUA_PATH_5_4 -u LUA_CPATH_5_4 LUA_INIT= "
      .. "LUA_PATH=" .. q(luadir .. "/?.lua;" .. luadir .. "/?/init.lua;;")
      .. " LUA_CPATH=" .. q(luacdir .. "/?.so;;")
      .. " lua5.4 open_all.lua " .. table.concat(files, " "))
    assert.are.equal(0, r.code, r.out)
    local want = { luacdir .. "/vp.so", luadir .. "/vp/laige.lua" }
    for _, s in ipairs(SAMPLES) do
      want[#want + 1] = s[2] .. "\t" .. lfs.attributes(repo .. "/examples/" .. s[1], "size")
    end
    want[#want + 1] = "7"
    assert.are.equal(table.concat(want, "\n") .. "\n", r.out)
  end)

  it("makes a vpscript that finds its stdlib and its scripts in the installed tree", function()
    local env = "cd " .. q(away)
      .. " && env -u VPSCRIPT_PATH -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 "
    local r = sh(env .. q(bin) .. " --help")
    assert.are.equal(0, r.code, r.out)
    assert.matches("\nstdlib:  " .. luadir:gsub("%p", "%%%0") .. "\n", r.out)
    assert.matches("\nscripts: " .. scriptdir:gsub("%p", "%%%0") .. "\n", r.out)
    r = sh(env .. q(bin) .. " -e " .. q("print(package.searchpath('vp.cli', package.path))"))
    assert.are.equal(luadir .. "/vp/cli.lua\n", r.out)
    -- --list reads the installed scripts: the same list as the build tree's
    assert.are.equal(h.run("--list").stdout, sh(env .. q(bin) .. " --list").out)
    -- a shipped script by name, on a VProf capture and a laige report: the
    -- same text as from the build tree
    for _, args in ipairs({ { "hitches", repo .. "/examples/sample.vprof" },
                            { "laige", repo .. "/examples/laige/budget_fail.txt" },
                            { "report", repo .. "/examples/sample.vprof" } }) do
      local quoted = {}
      for i, a in ipairs(args) do quoted[i] = q(a) end
      r = sh(env .. q(bin) .. " " .. table.concat(quoted, " "))
      assert.are.equal(0, r.code, r.out)
      local built = h.run(table.unpack(args))
      assert.are.equal(0, built.code, built.stderr)
      assert.are.equal(built.stdout, r.out)
    end
  end)

  it("is undone by make uninstall, which leaves no file and no directory of its own behind", function()
    local r = make("uninstall", dest)
    assert.are.equal(0, r.code, r.out)
    assert.are.same({}, files_under(dest))
    assert.is_false(exists(root .. "/share/vpscript"))
    assert.is_false(exists(luadir .. "/vp"))
    -- the shared Lua directories stay: other packages use them
    assert.is_true(exists(luadir))
    assert.is_true(exists(luacdir))
  end)
end)
