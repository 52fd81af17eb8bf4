-- The vpscript host (program/) from the outside: options, the arg table,
-- script lookup, error reports and exit codes, closed pipes, Ctrl-C, and
-- where it finds its stdlib and scripts. Every test runs the built binary
-- ($VPSCRIPT_BIN under ASan).
local h = require "helpers"
local lfs = require "lfs"

local q = h.quote

local function sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, how, code = p:close()
  if how == "signal" then code = 128 + code end
  return out, code
end

local function repo_root()
  return (lfs.currentdir())
end

describe("vpscript host", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  describe("options", function()
    it("--version and -v print the version line and exit 0", function()
      for _, opt in ipairs({ "--version", "-v" }) do
        local r = h.run(opt)
        assert.are.equal(0, r.code)
        assert.matches("^vpscript %d+%.%d+%.%d+ %(Lua 5%.4%.%d+%)\n$", r.stdout)
        assert.are.equal("", r.stderr)
      end
    end)

    it("-v still runs what follows it, as lua does", function()
      local r = h.run("-v", "-e", "print('after')")
      assert.are.equal(0, r.code)
      assert.matches("^vpscript [^\n]+\nafter\n$", r.stdout)
    end)

    it("--help and -h print the full usage on stdout", function()
      for _, opt in ipairs({ "--help", "-h" }) do
        local r = h.run(opt)
        assert.are.equal(0, r.code)
        assert.are.equal("", r.stderr)
        assert.matches("^usage: vpscript %[options%] %[script %[args%]%]", r.stdout)
        for _, s in ipairs({ "-e stat", "-l mod", "-l g=mod", "-i", "--version", "--list", "-W", "-E",
                             "--  ", "-   ", "VPSCRIPT_PATH", "VPSCRIPT_HISTORY", "3 a gate failed",
                             "130 interrupted", "stdlib:", "scripts:" }) do
          assert.is_truthy(r.stdout:find(s, 1, true), "usage lacks " .. s)
        end
      end
    end)

    it("an unknown option is a usage error (exit 2) naming it", function()
      local r = h.run("-x", "-e", "print(1)")
      assert.are.equal(2, r.code)
      assert.are.equal("", r.stdout)
      assert.matches("^vpscript: unrecognized option '%-x'\n", r.stderr)
      r = h.run("--frobnicate")
      assert.are.equal(2, r.code)
      assert.matches("unrecognized option '%-%-frobnicate'", r.stderr)
      r = h.run("-ix")
      assert.are.equal(2, r.code)
    end)

    it("-e and -l without their argument are usage errors", function()
      for _, opt in ipairs({ "-e", "-l" }) do
        local r = h.run(opt)
        assert.are.equal(2, r.code)
        assert.matches("'" .. opt .. "' needs an argument", r.stderr, 1, true)
      end
    end)

    it("runs -e chunks in order, before the script", function()
      local script = h.write_file(dir .. "/order.lua", "print('script', x)\n")
      local r = h.run("-e", "x = 1", "-e", "x = x + 1; print('e', x)", script)
      assert.are.equal(0, r.code)
      assert.are.equal("e\t2\nscript\t2\n", r.stdout)
      r = h.run("-eprint(40 + 2)")
      assert.are.equal("42\n", r.stdout)
    end)

    it("-l mod and -l g=mod require a module into a global", function()
      lfs.mkdir(dir .. "/mods")
      h.write_file(dir .. "/mods/mymod.lua", "return { v = 42 }\n")
      h.write_file(dir .. "/mods/broken_mod.lua", "error('broken while loading')\n")
      local env = { env = { LUA_PATH = dir .. "/mods/?.lua;;" } }
      local r = h.run("-l", "mymod", "-e", "print(mymod.v)", env)
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal("42\n", r.stdout)
      r = h.run("-l", "m=mymod", "-e", "print(m.v, mymod)", env)
      assert.are.equal("42\tnil\n", r.stdout)
      -- unlike -e, -l alone still leaves standard input to run, as in lua
      r = h.run("-l", "m=mymod", { env = env.env, stdin = "print('stdin sees', m.v)" })
      assert.are.equal("stdin sees\t42\n", r.stdout)
      -- a module that is not there: usage error, the search list, no traceback
      r = h.run("-l", "no_such_module", "-e", "print('not reached')", env)
      assert.are.equal(2, r.code)
      assert.are.equal("", r.stdout)
      assert.matches("^vpscript: module 'no_such_module' not found:", r.stderr)
      assert.is_falsy(r.stderr:find("stack traceback", 1, true))
      -- a module that fails while loading: a script error
      r = h.run("-l", "broken_mod", env)
      assert.are.equal(1, r.code)
      assert.matches("broken while loading", r.stderr)
    end)

    it("-E ignores LUA_PATH", function()
      lfs.mkdir(dir .. "/mods2")
      h.write_file(dir .. "/mods2/only_here.lua", "return 1\n")
      local env = { env = { LUA_PATH = dir .. "/mods2/?.lua;;" } }
      assert.are.equal(0, h.run("-l", "only_here", env).code)
      assert.are.equal(2, h.run("-E", "-l", "only_here", env).code)
    end)

    it("-W turns warnings on", function()
      local r = h.run("-W", "-e", "warn('careful')")
      assert.are.equal(0, r.code)
      assert.matches("careful", r.stderr)
      r = h.run("-e", "warn('careful')")
      assert.are.equal("", r.stderr)
    end)
  end)

  describe("the arg table and script arguments", function()
    local dump = "local t = {} for i = -4, #arg do t[#t + 1] = i .. '=' .. tostring(arg[i]) end\n"
      .. "print(table.concat(t, ' '))\nprint(select('#', ...), ...)\n"

    it("is set as lua sets it: script at 0, args after, the interpreter before", function()
      local script = h.write_file(dir .. "/args.lua", dump)
      local r = h.run("-e", "y=1", script, "a", "b c", "-x")
      assert.are.equal(0, r.code, r.stderr)
      local lines = {}
      for l in r.stdout:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.are.equal("-4=nil -3=" .. h.bin() .. " -2=-e -1=y=1 0=" .. script .. " 1=a 2=b c 3=-x", lines[1])
      assert.are.equal("3\ta\tb c\t-x", lines[2])
    end)

    it("'--' ends the options", function()
      local script = h.write_file(dir .. "/-dash.lua", "print(arg[0], ...)\n")
      local r = h.run("--", script, "--version")
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal(script .. "\t--version\n", r.stdout)
    end)

    it("'-' runs standard input with the arguments that follow", function()
      local r = h.run("-", "p", "q", { stdin = "print(arg[0], arg[1], ...)\n" })
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal("-\tp\tp\tq\n", r.stdout)
    end)

    it("without arguments and without a terminal, runs standard input", function()
      local r = h.run({ stdin = "print('from stdin', #arg)\n" })
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal("from stdin\t0\n", r.stdout)
      assert.are.equal("", r.stderr)
    end)
  end)

  describe("script lookup", function()
    it("finds a script as given, then along VPSCRIPT_PATH, then among the shipped ones", function()
      local d1, d2 = dir .. "/p1", dir .. "/p2"
      lfs.mkdir(d1)
      lfs.mkdir(d2)
      h.write_file(d2 .. "/myq.lua", "print('myq in p2', arg[0])\n")
      h.write_file(d1 .. "/both.lua", "print('both in p1')\n")
      h.write_file(d2 .. "/both.lua", "print('both in p2')\n")
      local env = { env = { VPSCRIPT_PATH = d1 .. ":" .. d2 } }
      -- with and without .lua; arg[0] is the file that runs
      assert.are.equal("myq in p2\t" .. d2 .. "/myq.lua\n", h.run("myq", env).stdout)
      assert.are.equal("myq in p2\t" .. d2 .. "/myq.lua\n", h.run("myq.lua", env).stdout)
      -- earlier directories win
      assert.are.equal("both in p1\n", h.run("both", env).stdout)
      -- a path as given wins over VPSCRIPT_PATH
      assert.are.equal("both in p2\n", h.run(d2 .. "/both.lua", env).stdout)
      -- -E ignores VPSCRIPT_PATH
      assert.are.equal(2, h.run("-E", "myq", env).code)
    end)

    it("runs a shipped script by name, with or without .lua", function()
      local a = h.run("hitches", "--help")
      local b = h.run("hitches.lua", "--help")
      assert.are.equal(0, a.code, a.stderr)
      assert.matches("^usage: vpscript hitches", a.stdout)
      assert.are.equal(a.stdout, b.stdout)
    end)

    it("VPSCRIPT_PATH comes before the shipped scripts", function()
      local d = dir .. "/shadow"
      lfs.mkdir(d)
      h.write_file(d .. "/hitches.lua", "print('my own hitches')\n")
      local r = h.run("hitches", { env = { VPSCRIPT_PATH = d } })
      assert.are.equal("my own hitches\n", r.stdout)
    end)

    it("a script that cannot be found is a usage error that says where it looked", function()
      local d = dir .. "/empty"
      lfs.mkdir(d)
      local r = h.run("no_such_script", "x", { env = { VPSCRIPT_PATH = d } })
      assert.are.equal(2, r.code)
      assert.are.equal("", r.stdout)
      assert.matches("^vpscript: cannot find script 'no_such_script' %(tried no_such_script, ", r.stderr)
      for _, p in ipairs({ d .. "/no_such_script.lua", repo_root() .. "/scripts/no_such_script.lua" }) do
        assert.is_truthy(r.stderr:find(p, 1, true), "not in the tried list: " .. p)
      end
      assert.matches("vpscript %-%-list", r.stderr)
    end)

    it("a directory is not a script", function()
      local d = dir .. "/adir"
      lfs.mkdir(d)
      local r = h.run(d)
      assert.are.equal(2, r.code)
      assert.matches("cannot find script", r.stderr)
    end)

    it("a capture given where the script belongs gets a hint", function()
      local cap = h.vprof(dir .. "/hint.vprof", { frames = { { tick = 1 } } })
      local r = h.run(cap)
      assert.are.equal(2, r.code)
      assert.matches("is a vprof capture, not a script", r.stderr)
      assert.matches("vpscript %-i " .. cap:gsub("%p", "%%%0"), r.stderr)
    end)
  end)

  describe("--list", function()
    it("lists every shipped script with the description from its first line", function()
      local r = h.run("--list")
      assert.are.equal(0, r.code, r.stderr)
      local listed = {}
      for name, desc in r.stdout:gmatch("([%w_%-]+%.lua)%s+([^\n]*)\n") do listed[name] = desc end
      local count = 0
      for f in lfs.dir("scripts") do
        if f:match("%.lua$") then
          count = count + 1
          local first = h.read_file("scripts/" .. f):match("^[^\n]*")
          local name, desc = first:match("^%-%-%s*([%w_%-]+%.lua):%s*(.-)%s*$")
          assert.are.equal(f, name, "scripts/" .. f .. ": first line must read '-- " .. f .. ": ...'")
          assert.are.equal(desc, listed[f])
        end
      end
      assert.is_true(count > 0)
      local n = 0
      for _ in pairs(listed) do n = n + 1 end
      assert.are.equal(count, n)
    end)
  end)

  describe("errors and exit codes", function()
    it("a runtime error: exit 1, 'vpscript: ' message and a traceback on stderr", function()
      local script = h.write_file(dir .. "/boom.lua", "local function f()\n  error('boom')\nend\nf()\n")
      local r = h.run(script)
      assert.are.equal(1, r.code)
      assert.are.equal("", r.stdout)
      assert.matches("^vpscript: " .. script:gsub("%p", "%%%0") .. ":2: boom\nstack traceback:\n", r.stderr)
      assert.matches("in local 'f'", r.stderr)
    end)

    it("a syntax error in the script: exit 2", function()
      local script = h.write_file(dir .. "/syntax.lua", "x = = 1\n")
      local r = h.run(script)
      assert.are.equal(2, r.code)
      assert.matches("^vpscript: " .. script:gsub("%p", "%%%0") .. ":1: unexpected symbol near '='\n$",
        r.stderr)
    end)

    it("error objects that are not strings are described", function()
      local r = h.run("-e", "error({})")
      assert.are.equal(1, r.code)
      assert.matches("^vpscript: %(error object is a table value%)", r.stderr)
      r = h.run("-e", "error(setmetatable({}, {__tostring = function() return 'custom' end}))")
      assert.are.equal(1, r.code)
      assert.are.equal("vpscript: custom\n", r.stderr)
    end)

    it("cli.fail objects: their message without a traceback, their exit code", function()
      for _, code in ipairs({ 1, 2, 3 }) do
        local r = h.run("-e", "require('vp.cli').fail(" .. code .. ", 'gate %s failed', 'frame_ms.p99')")
        assert.are.equal(code, r.code)
        assert.are.equal("vpscript: gate frame_ms.p99 failed\n", r.stderr)
      end
      local r = h.run("-e", "io.write('partial') require('vp.cli').exit(0)")
      assert.are.equal(0, r.code)
      assert.are.equal("partial", r.stdout)
      assert.are.equal("", r.stderr)
      -- a plain table with the same fields works too (scripts need not use vp.cli)
      r = h.run("-e", "error({exit = 3, message = 'over budget'})")
      assert.are.equal(3, r.code)
      assert.are.equal("vpscript: over budget\n", r.stderr)
    end)

    it("os.exit keeps working and output written before it is flushed", function()
      local r = h.run("-e", "io.write('kept') os.exit(5)")
      assert.are.equal(5, r.code)
      assert.are.equal("kept", r.stdout)
      assert.are.equal(0, h.run("-e", "os.exit(true)").code)
      assert.are.equal(1, h.run("-e", "os.exit(false)").code)
      assert.are.equal(4, h.run("-e", "io.write('x') os.exit(4, true)").code)
    end)

    it("a failed write to stdout is reported and is not a success", function()
      local err = dir .. "/full.err"
      local _, code = sh(q(h.bin()) .. " -e " .. q("io.write('x')") .. " >/dev/full 2>" .. q(err))
      assert.are.equal(1, code)
      assert.are.equal("vpscript: error writing to standard output: No space left on device\n",
        h.read_file(err))
      _, code = sh(q(h.bin()) .. " -e " .. q("print('x')") .. " >/dev/full 2>" .. q(err))
      assert.are.equal(1, code)
      assert.matches("^vpscript: error writing to standard output", h.read_file(err))
    end)

    it("a gate failure from a script file: exit 3", function()
      local script = h.write_file(dir .. "/gate.lua",
        "local cli = require 'vp.cli'\nprint('checking')\ncli.fail(3, '1 of 2 rules failed')\n")
      local r = h.run(script)
      assert.are.equal(3, r.code)
      assert.are.equal("checking\n", r.stdout)
      assert.are.equal("vpscript: 1 of 2 rules failed\n", r.stderr)
    end)
  end)

  describe("output into a closed pipe", function()
    local function piped(code)
      local err, st = dir .. "/pipe.err", dir .. "/pipe.status"
      local cmd = string.format("{ timeout 60 %s -e %s 2>%s; echo $? >%s; } | head -c1 >/dev/null",
        q(h.bin()), q(code), q(err), q(st))
      sh(cmd)
      return h.read_file(err), tonumber(h.read_file(st):match("%d+"))
    end

    it("ends a printing loop quietly: no message, no crash, status 141", function()
      local err, status = piped("for i = 1, 1e7 do print(i, 'some text to fill the pipe') end")
      assert.are.equal("", err)
      assert.are.equal(141, status)
    end)

    it("ends even a script that would never stop writing", function()
      local err, status = piped("while true do io.write(string.rep('x', 100), '\\n') end")
      assert.are.equal("", err)
      assert.are.equal(141, status)
    end)

    it("does not end the script when some other pipe breaks", function()
      local r = h.run("-e", [[
        local f = io.popen("true", "w")
        os.execute("sleep 0.2")
        local ok = true
        for _ = 1, 200 do ok = f:write(string.rep("y", 1000)) and ok end
        f:close()
        print("still here")]])
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal("still here\n", r.stdout)
    end)
  end)

  describe("stop signals", function()
    -- tests/stop.py starts the program with the default signal
    -- dispositions, waits for its first line, sends the signal and reports
    -- the status (negative: killed by that signal), the seconds it took to
    -- end, what of its session outlived it, and stderr.
    local function stopped(sig, code)
      local out = sh(string.format("python3 tests/stop.py %s line -- %s -e %s", sig, q(h.bin()),
        q("print('started') io.stdout:flush() " .. code)))
      local status, secs, left, err = out:match("^(%-?%d+)\n([%d.]+)\n(%d+)\n(.*)$")
      assert.are.equal("0", left, out)
      return tonumber(status), tonumber(secs), err
    end

    it("Ctrl-C stops a long script: 'vpscript: interrupted', exit 130", function()
      local status, _, err = stopped("SIGINT", "while true do end")
      assert.are.equal(130, status)
      assert.are.equal("vpscript: interrupted\n", err)
    end)

    it("Ctrl-C stops a script looping inside a coroutine, however deep #slow", function()
      for _, code in ipairs({
        "coroutine.wrap(function() while true do end end)()",
        "local co = coroutine.create(function() while true do end end) print(coroutine.resume(co))",
        "local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end",
        "coroutine.wrap(function() coroutine.wrap(function() while true do end end)() end)()",
      }) do
        local status, secs, err = stopped("SIGINT", code)
        assert.are.equal(130, status, code)
        assert.are.equal("vpscript: interrupted\n", err, code)
        assert(secs < 1.5, code .. ": took " .. secs .. " s")
      end
    end)

    it("coroutines behave as before: values, errors with their position, status", function()
      local r = h.run("-e", [[
        local gen = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
        print(gen(1), gen(5))
        local co = coroutine.create(function() error("boom") end)
        print(coroutine.resume(co))
        print(coroutine.status(co), coroutine.resume(co))
        print(pcall(coroutine.wrap(function() error("inner") end)))
        print(pcall(coroutine.resume, 42))
        print(select('#', coroutine.resume(coroutine.create(function() return 1, 2, 3 end))))
        local w = coroutine.wrap(function() return end) w() print(pcall(w))]])
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal("2\t10\n"
        .. "false\t(command line):3: boom\n"
        .. "dead\tfalse\tcannot resume dead coroutine\n"
        .. "false\t(command line):6: inner\n"
        .. "false\tbad argument #1 to 'coroutine.resume' (thread expected, got number)\n"
        .. "4\n"
        .. "false\tcannot resume dead coroutine\n", r.stdout)
    end)

    it("SIGTERM and SIGHUP stop a script as Ctrl-C does: exit 143 and 129 #slow", function()
      local status, _, err = stopped("SIGTERM", "while true do end")
      assert.are.equal(143, status)
      assert.are.equal("vpscript: terminated (SIGTERM)\n", err)
      status, _, err = stopped("SIGHUP", "coroutine.wrap(function() while true do end end)()")
      assert.are.equal(129, status)
      assert.are.equal("vpscript: hangup (SIGHUP)\n", err)
    end)

    it("the script's cleanup runs: a to-be-closed variable and a pcall see the stop", function()
      local out = dir .. "/closed.txt"
      local status = stopped("SIGTERM", string.format([[
        local f <close> = setmetatable({}, {__close = function()
          local o = io.open(%q, "w") o:write("closed") o:close() end})
        while true do end]], out))
      assert.are.equal(143, status)
      assert.are.equal("closed", h.read_file(out))
    end)

    it("a script that cannot be stopped at an instruction ends after the grace time #slow", function()
      for _, code in ipairs({
        'string.rep("a", 40):match(string.rep("a*", 40) .. "b")', -- backtracks inside C
        "while true do pcall(function() while true do end end) end", -- catches every stop
      }) do
        local status, secs, err = stopped("SIGINT", code)
        assert.are.equal(-2, status, code) -- killed by SIGINT, as the shell sees it: 130
        assert(secs >= 1.5 and secs < 10, code .. ": took " .. secs .. " s")
        assert.are.equal("vpscript: the script did not stop: ended\n", err, code)
      end
      local status = stopped("SIGTERM", 'string.rep("a", 40):match(string.rep("a*", 40) .. "b")')
      assert.are.equal(-15, status)
    end)

    it("a signal ignored when vpscript starts stays ignored", function()
      -- (env --default-signal: whatever this run inherited, nohup's ignored SIGHUP too)
      local out, code = sh(string.format("env --default-signal=HUP %s -e %s 2>/dev/null", q(h.bin()),
        q("local p = io.popen('kill -HUP $PPID; echo sent') print(p:read('l')) p:close() print('still here')")))
      assert.are.equal(129, code, out) -- not ignored: stopped
      local cmd = string.format("trap '' HUP; %s -e %s", q(h.bin()),
        q("os.execute('kill -HUP ' .. io.open('/proc/self/stat'):read('a'):match('^%d+')) print('still here')"))
      out, code = sh(cmd)
      assert.are.equal(0, code)
      assert.are.equal("still here\n", out)
    end)
  end)

  describe("names that are not regular files", function()
    -- A FIFO with a writer attached (held open read-write for a while):
    -- a reader that opened it would block reading, or read forever.
    local function fifo_with_writer(name)
      local path = dir .. "/" .. name
      os.remove(path)
      h.mkfifo(path)
      os.execute(string.format("sh -c %s >/dev/null 2>&1 &", q("exec 3<>" .. q(path) .. "; sleep 3")))
      return path
    end

    it("are refused at once, on every path: detection, a forced reader, a baseline, a rules file", function()
      local json = fifo_with_writer("report.json")
      local rules = fifo_with_writer("rules.lua")
      local fifo = ": is a FIFO (named pipe), not a capture file"
      local cases = {
        { { "scripts/info.lua", json }, json .. fifo },
        { { "scripts/laige.lua", json, "--format", "laige-profile" }, json .. fifo },
        { { "scripts/info.lua", json, "--format", "laige-profile" }, json .. fifo },
        { { "scripts/compare.lua", "examples/sample.vprof", json }, json .. fifo },
        { { "scripts/check.lua", "examples/rules/vprof.lua", "examples/sample.vprof", "--baseline", json },
          json .. fifo },
        { { "scripts/check.lua", rules, "examples/sample.vprof" },
          rules .. ": is a FIFO (named pipe), not a rules file" },
        { { "scripts/info.lua", "/dev/zero" }, "/dev/zero: is a character device, not a capture file" },
      }
      for _, c in ipairs(cases) do
        local t = os.time()
        local r = h.run(table.unpack(c[1]))
        local what = table.concat(c[1], " ")
        assert.are.equal(2, r.code, what .. "\n" .. r.stderr)
        assert(r.stderr:find("vpscript: " .. c[2], 1, true), what .. "\n" .. r.stderr)
        assert(os.time() - t <= 2, what .. " took " .. (os.time() - t) .. " s")
      end
      local vp = require "vp"
      local f, msg, code = vp.detect(json)
      assert.is_nil(f)
      assert.are.equal("EIO", code, msg)
    end)
  end)

  describe("data directories", function()
    it("puts the stdlib first on package.path and keeps system modules loadable", function()
      local r = h.run("-e", "print(package.searchpath('vp.cli', package.path))")
      assert.are.equal(repo_root() .. "/stdlib/vp/cli.lua\n", r.stdout)
      r = h.run("-e", "print(type(require('cjson').encode), type(require('lfs').dir), "
        .. "type(require('luassert')))")
      assert.are.equal(0, r.code, r.stderr)
      assert.are.equal("function\tfunction\ttable\n", r.stdout)
    end)

    it("takes no code from the working directory; a user's modules come from the places the user names", function()
      -- A folder with a capture, a rules file and modules named like the
      -- ones the stdlib requires (cjson: nearly every script), each of
      -- which would leave its name in `ran`; and a C module, built here.
      local cwd = dir .. "/planted"
      lfs.mkdir(cwd)
      local ran = cwd .. "/ran"
      for _, m in ipairs({ "cjson", "lfs", "term", "mine" }) do
        h.write_file(cwd .. "/" .. m .. ".lua", string.format("io.open(%q, 'a'):write(%q) return {}", ran, m .. "\n"))
        lfs.mkdir(cwd .. "/" .. m .. "x")
        h.write_file(cwd .. "/" .. m .. "x/init.lua", string.format("io.open(%q, 'a'):write('init') return {}", ran))
      end
      h.write_file(cwd .. "/planted.c", string.format([[
#include <stdio.h>
int luaopen_planted(void *L);
int luaopen_planted(void *L) { FILE *f = fopen("%s", "a"); if (f) { fputs("planted\n", f); fclose(f); } return L != 0; }
]], ran))
      local _, cc = sh("cc -shared -fPIC -o " .. q(cwd .. "/planted.so") .. " " .. q(cwd .. "/planted.c") .. " 2>&1")
      assert.are.equal(0, cc)
      h.write_file(cwd .. "/rules.lua", "return { { metric = 'frame_ms.p99', max = 1000 } }")
      assert.is_true(os.execute("cp examples/sample.vprof " .. q(cwd .. "/cap.vprof")))
      local bin = h.bin():sub(1, 1) == "/" and h.bin() or repo_root() .. "/" .. h.bin()
      local function there(cmd)
        return sh("cd " .. q(cwd) .. " && " .. cmd .. " 2>&1")
      end
      local out, code = there(q(bin) .. " check.lua rules.lua cap.vprof --json")
      assert.are.equal(0, code, out)
      out, code = there(q(bin) .. " -e " .. q("for _, m in ipairs({'planted', 'mine', 'minex', 'termx'}) do "
        .. "print(m, (pcall(require, m))) end"))
      assert.are.equal("planted\tfalse\nmine\tfalse\nminex\tfalse\ntermx\tfalse\n", out)
      assert.are.equal(0, code)
      assert.is_nil(io.open(ran, "r"), "code from the working directory ran")
      -- neither path has an entry the working directory can answer
      out = there(q(bin) .. " -e " .. q("print(package.path) print(package.cpath)"))
      assert.are.equal(nil, out:match("%f[^;\n]%.") or out:match("%f[^;\n][^/;\n]"), out)
      -- what the user names is searched: LUA_PATH / LUA_CPATH, VPSCRIPT_PATH, the script's own folder
      local away = dir .. "/away"
      lfs.mkdir(away)
      h.write_file(away .. "/main.lua", "print(require('mine') ~= nil)")
      out = there("LUA_PATH='./?.lua;;' " .. q(bin) .. " -e " .. q("print(package.searchpath('mine', package.path))"))
      assert.are.equal("./mine.lua\n", out)
      out = there("LUA_CPATH='./?.so' " .. q(bin) .. " -e " .. q("print(package.searchpath('planted', package.cpath))"))
      assert.are.equal("./planted.so\n", out)
      out = there("VPSCRIPT_PATH=" .. q(cwd) .. " " .. q(bin) .. " -e "
        .. q("print(package.searchpath('mine', package.path))"))
      assert.are.equal(cwd .. "/mine.lua\n", out)
      out, code = there(q(bin) .. " ../away/main.lua")
      assert.are.equal(1, code, out)
      assert.matches("module 'mine' not found", out)
      h.write_file(away .. "/mine.lua", "return {}")
      out = there(q(bin) .. " ../away/main.lua")
      assert.are.equal("true\n", out)
      assert.is_nil(io.open(ran, "r"), "code from the working directory ran")
    end)

    it("preloads vp and sets it as a global", function()
      local r = h.run("-e", "print(vp == require('vp'), package.loaded.vp == vp, type(vp.open), vp.version)")
      assert.matches("^true\ttrue\tfunction\t%d+%.%d+%.%d+\n$", r.stdout)
    end)

    it("finds the stdlib and the scripts where make install puts them, next to an installed binary", function()
      local prefix = dir .. "/prefix"
      for _, d in ipairs({ prefix, prefix .. "/bin", prefix .. "/share", prefix .. "/share/lua",
                           prefix .. "/share/lua/5.4", prefix .. "/share/lua/5.4/vp", prefix .. "/share/vpscript",
                           prefix .. "/share/vpscript/scripts" }) do
        lfs.mkdir(d)
      end
      assert.is_true(os.execute("cp " .. q(h.bin()) .. " " .. q(prefix .. "/bin/vpscript")))
      h.write_file(prefix .. "/share/lua/5.4/vp/installed_marker.lua", "return 'installed'\n")
      h.write_file(prefix .. "/share/vpscript/scripts/only_installed.lua",
        "-- only_installed.lua: a script that exists only in the installed tree\nprint('ran', ...)\n")
      local bin = prefix .. "/bin/vpscript"
      local out = sh(q(bin) .. " -e " .. q("print((require 'vp.installed_marker'))") .. " 2>&1")
      assert.are.equal("installed\n", out)
      out = sh(q(bin) .. " --list 2>&1")
      assert.are.equal("only_installed.lua  a script that exists only in the installed tree\n", out)
      out = sh(q(bin) .. " only_installed x 2>&1")
      assert.are.equal("ran\tx\n", out)
    end)

    it("falls back to the compiled-in directories", function()
      local lone = dir .. "/lone"
      lfs.mkdir(lone)
      assert.is_true(os.execute("cp " .. q(h.bin()) .. " " .. q(lone .. "/vpscript")))
      local out = sh(q(lone .. "/vpscript") .. " --help")
      assert.matches("\nstdlib:  /[^\n]*/share/lua/5%.4\nscripts: /[^\n]*/share/vpscript/scripts\n", out)
    end)
  end)
end)
