-- vp.multi and the scripts that use it: directories walked and filtered by
-- extension (and .json/.txt by content), NDJSON with --json, a bad file
-- reported without stopping the others, exit codes (2 when a file failed,
-- 3 when only gates failed), --jobs N giving exactly the serial output,
-- merged JUnit, and the one-file case left as it was.
local h = require "helpers"
local fx = require "gate_fixtures"
local cjson = require "cjson"
local multi = require "vp.multi"
local cli = require "vp.cli"

local function lines(s)
  local out = {}
  for l in s:gmatch("[^\n]+") do out[#out + 1] = l end
  return out
end

describe("vp.multi", function()
  local dir, tree, base, rules_pass, rules_gate
  setup(function()
    dir = h.tmpdir()
    tree = dir .. "/tree"
    os.execute("mkdir -p " .. h.quote(tree .. "/sub/deeper") .. " " .. h.quote(tree .. "/.hidden"))
    base = fx.vprof(dir .. "/base.vprof", { seed = 1, frames = 400 })
    fx.vprof(tree .. "/b.vprof", { seed = 2, frames = 400 })
    fx.vprof(tree .. "/a.vprof", { seed = 3, frames = 400, hitches = { 200 } })
    fx.vprof(tree .. "/sub/c.vprof", { seed = 4, frames = 400, physics_us = 2600 })
    fx.vprof(tree .. "/sub/deeper/d.VPROF", { seed = 5, frames = 400 })
    fx.vprof(tree .. "/.hidden/e.vprof", { seed = 6, frames = 400 })
    fx.dw(tree .. "/sub/t.dw", { traces = 20, disagree = 1 })
    h.write_file(tree .. "/sub/broken.vprof", "this is not a capture")
    h.write_file(tree .. "/notes.txt", "just some notes\n")
    h.write_file(tree .. "/data.json", '{"a": 1}\n')
    h.write_file(tree .. "/README", "no extension\n")
    h.write_file(tree .. "/.dot.vprof", "hidden\n")
    h.write_file(tree .. "/sub/profile.txt", h.read_file("examples/laige/profile.txt"))
    h.write_file(tree .. "/sub/report.json", h.read_file("examples/laige/profile.json"))
    rules_pass = fx.rules(dir, "pass.lua", "return { { metric = 'frame_ms.p99', max = 100, format = 'vprof' } }")
    rules_gate = fx.rules(dir, "gate.lua", "return { { metric = 'hitches', max = 0, format = 'vprof' } }")
  end)
  teardown(h.cleanup)

  it("walks directories: sorted, recursive, hidden entries and unknown files left out, text reports by content",
    function()
      local files = multi.expand({ tree })
      local rel = {}
      for i, f in ipairs(files) do rel[i] = f:sub(#tree + 2) end
      assert.same({ "a.vprof", "b.vprof", "sub/broken.vprof", "sub/c.vprof", "sub/deeper/d.VPROF",
        "sub/profile.txt", "sub/report.json", "sub/t.dw" }, rel)
      -- files named explicitly are taken as given, in the given order
      local given = multi.expand({ tree .. "/notes.txt", tree .. "/a.vprof", dir .. "/nope.vprof" })
      assert.same({ tree .. "/notes.txt", tree .. "/a.vprof", dir .. "/nope.vprof" }, given)
    end)

  it("gives each file's run this run's own words, the file words replaced by -- FILE", function()
    local spec = {
      name = "x.lua",
      options = {
        { "--factor", type = "number", default = 2.5 },
        { "--frames", type = "range" },
        { "--flag", type = "flag" },
        { "--name" },
        { "--junit", merge = function() end },
        { "--jobs", type = "integer", default = 1 },
      },
      positional = { { "RULES" }, { "CAPTURE", rest = true } },
    }
    local argv = { "--factor", "0.10", "r.lua", "--frames=3:9", "a.vprof", "--flag", "--name", "--odd value",
      "--junit", "out.xml", "dir/", "--json", "--jobs", "4" }
    local _, _, at = cli.parse(argv, spec)
    local words = multi.child_argv(argv, at, 2, "dir/x.vprof", { junit = "/tmp/p/1.junit" })
    assert.same({ "--factor", "0.10", "r.lua", "--frames=3:9", "--flag", "--name", "--odd value", "--junit",
      "/tmp/p/1.junit", "--json", "--jobs", "4", "--", "dir/x.vprof" }, words)
    local again, pos = cli.parse(words, spec)
    assert.same({ "r.lua", "dir/x.vprof" }, pos)
    assert.equal(0.1, again.factor)
    assert.same({ 3, 9 }, { again.frames.first, again.frames.last })
    assert.equal("--odd value", again.name)
    assert.equal("/tmp/p/1.junit", again.junit)
    -- after a "--" of the run's own the file comes last; --opt=value is replaced in place
    argv = { "--junit=o.xml", "--", "r.lua", "-odd.vprof", "b.vprof" }
    _, _, at = cli.parse(argv, spec)
    words = multi.child_argv(argv, at, 2, "-odd.vprof", { junit = "/p" })
    assert.same({ "--junit=/p", "--", "r.lua", "-odd.vprof" }, words)
    assert.same({ "r.lua", "-odd.vprof" }, select(2, cli.parse(words, spec)))
  end)

  describe("through the scripts", function()
    it("--json prints one line per file (NDJSON), a bad file as an error line, and exits 2", function()
      local r = h.run("scripts/check.lua", rules_pass, tree, "--json")
      assert.equal(2, r.code)
      local out = lines(r.stdout)
      assert.equal(8, #out)
      local docs = {}
      for i, l in ipairs(out) do docs[i] = cjson.decode(l) end
      assert.equal(tree .. "/a.vprof", docs[1].file)
      assert.equal("pass", docs[1].status)
      assert.equal(tree .. "/sub/broken.vprof", docs[3].file)
      assert.equal(2, docs[3].exit)
      assert.matches("^" .. (tree .. "/sub/broken.vprof"):gsub("%p", "%%%0") .. ": at byte %d+: ", docs[3].error)
      assert.equal("skip", docs[8].results[1].status) -- the .dw: a vprof-only rule
      assert.equal("laige-profile", docs[6].format)
      -- the others were all checked
      for i, d in ipairs(docs) do
        if i ~= 3 then assert.is_nil(d.error, d.file) end
      end
      assert.matches("vpscript: " .. (tree .. "/sub/broken.vprof"):gsub("%p", "%%%0") .. ": at byte", r.stderr)
      assert.matches("vpscript: 1 of 8 files failed\n$", r.stderr)
    end)

    it("exits 3 when no file failed but a gate did", function()
      local r = h.run("scripts/check.lua", rules_gate, tree .. "/a.vprof", tree .. "/b.vprof", "--json")
      assert.equal(3, r.code, r.stderr)
      local out = lines(r.stdout)
      assert.equal(2, #out)
      assert.equal("fail", cjson.decode(out[1]).status)
      assert.equal("pass", cjson.decode(out[2]).status)
      assert.matches("vpscript: 1 of 2 files failed the gate\n$", r.stderr)
      local ok = h.run("scripts/check.lua", rules_gate, tree .. "/b.vprof", tree .. "/sub/c.vprof")
      assert.equal(0, ok.code, ok.stderr)
    end)

    it("--jobs N prints exactly what a serial run prints (stdout, stderr, exit code) #slow", function()
      for _, args in ipairs({
        { "scripts/check.lua", rules_pass, tree, "--json" },
        { "scripts/hitches.lua", tree },
        { "scripts/info.lua", tree, "--csv" },
        { "scripts/compare.lua", base, tree .. "/a.vprof", tree .. "/b.vprof", tree .. "/sub/c.vprof", "--json" },
      }) do
        local serial = h.run(table.unpack(args))
        local copy = { table.unpack(args) }
        copy[#copy + 1] = "--jobs"
        copy[#copy + 1] = "4"
        local parallel = h.run(table.unpack(copy))
        assert.equal(serial.code, parallel.code, args[1])
        if args[#args] == "--json" then
          -- key order in a JSON object differs from one process to the next
          -- (Lua's string hashes are seeded per process): compare documents
          local a, b = lines(serial.stdout), lines(parallel.stdout)
          assert.equal(#a, #b, args[1])
          for i = 1, #a do assert.same(cjson.decode(a[i]), cjson.decode(b[i]), args[1]) end
        else
          assert.equal(serial.stdout, parallel.stdout, args[1])
        end
        assert.equal(serial.stderr, parallel.stderr, args[1])
        assert.is_true(#serial.stdout > 100, args[1])
      end
    end)

    it("text output names each file; CSV gets a file column and one header", function()
      local r = h.run("scripts/hitches.lua", tree .. "/a.vprof", tree .. "/b.vprof")
      assert.equal(0, r.code, r.stderr)
      assert.matches("^==> " .. (tree .. "/a.vprof"):gsub("%p", "%%%0") .. " <==\nhitches: ", r.stdout)
      assert.matches("\n\n==> " .. (tree .. "/b.vprof"):gsub("%p", "%%%0") .. " <==\nhitches: ", r.stdout)
      local csv = h.run("scripts/budget.lua", tree .. "/a.vprof", tree .. "/b.vprof", "--csv")
      assert.equal(0, csv.code, csv.stderr)
      local l = lines(csv.stdout)
      assert.matches("^file,group,", l[1])
      local heads = 0
      for _, x in ipairs(l) do
        if x:match("^file,") then heads = heads + 1 end
      end
      assert.equal(1, heads)
      assert.matches("^" .. (tree .. "/b.vprof"):gsub("%p", "%%%0") .. ",", l[#l])
    end)

    it("--csv: each record gets one file column, a record whose quoted field holds a newline too", function()
      local d = h.tmpdir()
      local a, nl = d .. "/a.vprof", d .. "/new\nline.vprof"
      h.write_file(a, h.read_file(tree .. "/a.vprof"))
      h.write_file(nl, h.read_file(tree .. "/b.vprof"))
      local r = h.run("scripts/info.lua", a, nl, "--csv")
      assert.equal(0, r.code, r.stderr)
      -- read back by a CSV reader nobody here wrote (Python's): each record's width and first field
      local csv = h.write_file(d .. "/all.csv", r.stdout)
      local p = io.popen("python3 -c " .. h.quote("import csv, json, sys\n"
        .. "print(json.dumps([[len(x), x[0]] for x in csv.reader(open(sys.argv[1], newline=''))]))")
        .. " " .. h.quote(csv))
      local records = cjson.decode(p:read("a"))
      p:close()
      assert.same({ 3, "file" }, records[1])
      local per = { [a] = 0, [nl] = 0 }
      for i = 2, #records do
        assert.equal(3, records[i][1], "record " .. i)
        per[records[i][2]] = per[records[i][2]] + 1
      end
      assert.is_true(per[a] > 10)
      assert.equal(per[a], per[nl])
    end)

    it("each of several captures is compared with the same baseline", function()
      local r = h.run("scripts/compare.lua", base, tree .. "/a.vprof", tree .. "/sub/c.vprof", "--json")
      assert.equal(0, r.code, r.stderr)
      local out = lines(r.stdout)
      assert.equal(2, #out)
      local first, second = cjson.decode(out[1]), cjson.decode(out[2])
      assert.equal(base, first.a.file)
      assert.equal(tree .. "/a.vprof", first.b.file)
      assert.equal(tree .. "/sub/c.vprof", second.b.file)
      local found
      for _, m in ipairs(second.metrics) do
        if m.metric == "group.Physics.mean_ms" then found = m end
      end
      assert.is_true(found.significant)
    end)

    it("--junit over several captures merges one suite per capture; a failed capture is an error case", function()
      local out = dir .. "/all.xml"
      local r = h.run("scripts/check.lua", rules_gate, tree .. "/a.vprof", tree .. "/sub/broken.vprof",
        tree .. "/b.vprof", "--junit", out, "--jobs", "2")
      assert.equal(2, r.code)
      local xml = h.read_file(out)
      local lxp = require "lxp"
      local suites, errors, failures = {}, 0, 0
      local p = lxp.new({
        StartElement = function(_, tag, attr)
          if tag == "testsuite" then suites[#suites + 1] = attr.name end
          if tag == "error" then errors = errors + 1 end
          if tag == "failure" then failures = failures + 1 end
        end,
      })
      assert(p:parse(xml))
      assert(p:parse())
      p:close()
      assert.same({ tree .. "/a.vprof", tree .. "/sub/broken.vprof", tree .. "/b.vprof" }, suites)
      assert.equal(1, errors)
      assert.equal(1, failures)
      assert.matches('<testsuites name="vpscript check" tests="3" failures="1" errors="1" skipped="0">', xml)
    end)

    it("a reader that goes away stops every job and leaves no temporary files #slow", function()
      local many = dir .. "/many"
      local tmp = dir .. "/tmp"
      os.execute("mkdir -p " .. h.quote(many) .. " " .. h.quote(tmp))
      local src = h.read_file(tree .. "/b.vprof")
      for i = 1, 24 do h.write_file(string.format("%s/c%02d.vprof", many, i), src) end
      local cmd = string.format("TMPDIR=%s %s scripts/info.lua %s --jobs 3 2>%s | head -n 2 >/dev/null; sleep 1",
        h.quote(tmp), h.quote(h.bin()), h.quote(many), h.quote(dir .. "/pipe.err"))
      os.execute(cmd)
      local p = io.popen("ls -A " .. h.quote(tmp))
      local left = p:read("a")
      p:close()
      assert.equal("", left)
      assert.equal("", h.read_file(dir .. "/pipe.err"))
    end)

    describe("events, hitdiff, lag, laige and movement take several files", function()
      local ex
      setup(function()
        ex = dir .. "/ex"
        os.execute("mkdir -p " .. h.quote(ex))
        assert.equal(0, h.run("examples/generate.lua", ex).code)
        for _, f in ipairs({ "sample.devt", "sample.dlag", "sample.dm" }) do
          h.write_file(ex .. "/copy_" .. f, h.read_file(ex .. "/" .. f))
        end
      end)

      -- Runs `script options... files... --json`: one NDJSON line per file,
      -- each the document a run on that file alone prints.
      local function each_file(script, options, files, want_code)
        local words = { script }
        for _, o in ipairs(options) do words[#words + 1] = o end
        for _, f in ipairs(files) do words[#words + 1] = f end
        words[#words + 1] = "--json"
        local r = h.run(table.unpack(words))
        assert.equal(want_code or 0, r.code, r.stderr)
        local out = lines(r.stdout)
        assert.equal(#files, #out, script)
        local docs = {}
        for i, l in ipairs(out) do
          docs[i] = cjson.decode(l)
          assert.equal(files[i], docs[i].file, script)
          if not docs[i].error then
            local one = { script }
            for _, o in ipairs(options) do one[#one + 1] = o end
            one[#one + 1] = files[i]
            one[#one + 1] = "--json"
            assert.same(h.run_json(table.unpack(one)), docs[i], script .. " " .. files[i])
          end
        end
        return docs, r
      end

      it("events.lua", function()
        local docs = each_file("scripts/events.lua", {}, { ex .. "/sample.devt", ex .. "/copy_sample.devt" })
        assert.equal("devt", docs[2].format)
        assert.is_true(docs[1].events > 100)
        assert.equal(docs[1].events, docs[2].events)
      end)

      it("hitdiff.lua, with its options passed on", function()
        local docs = each_file("scripts/hitdiff.lua", { "--tolerance", "0.25" },
          { ex .. "/sample.dw", tree .. "/sub/t.dw" })
        assert.equal(0.25, docs[1].tolerance)
        assert.equal(0.25, docs[2].tolerance)
        assert.equal(20, docs[2].traces)
        assert.equal(1, docs[2].disagree)
      end)

      it("lag.lua, --measurement with a space in the name included", function()
        local docs = each_file("scripts/lag.lua", { "--measurement", "Socket RTT", "--k", "2" },
          { ex .. "/sample.dlag", ex .. "/copy_sample.dlag" })
        for _, d in ipairs(docs) do
          assert.equal("Socket RTT", d.measurement.name)
          assert.equal(2, d.k)
          assert.is_true(#d.samples > 0)
        end
        docs = each_file("scripts/lag.lua", {}, { ex .. "/sample.dlag", ex .. "/copy_sample.dlag" })
        assert.is_true(#docs[1].measurements > 10)
      end)

      it("laige.lua, a profile and a budget report", function()
        local docs = each_file("scripts/laige.lua", {}, { "examples/laige/budget_fail.txt",
          "examples/laige/profile.json" })
        assert.equal("laige-budget", docs[1].format)
        assert.equal("laige-profile", docs[2].format)
      end)

      it("movement.lua, and a bad file among them is an error line with exit 2", function()
        local bad = tree .. "/sub/broken.vprof"
        local docs, r = each_file("scripts/movement.lua", { "--min-correction", "0.1" },
          { ex .. "/sample.dm", bad, ex .. "/copy_sample.dm" }, 2)
        assert.equal(0.1, docs[1].corrections.min_correction)
        assert.equal(docs[1].corrections.count, docs[3].corrections.count)
        assert.equal(2, docs[2].exit)
        -- named explicitly, a file of another format is an error (a directory would skip it)
        assert.equal(bad .. ": a vprof capture: movement.lua reads dm (--format NAME forces a reader)", docs[2].error)
        assert.matches("vpscript: 1 of 3 files failed\n$", r.stderr)
      end)
    end)

    describe("a directory means the captures the script reads", function()
      it("hitches on a folder of every example takes its 3 captures and says in one line what it skipped", function()
        -- A copy of the shipped examples, one of each, so the walk's input is fixed.
        local ex = h.tmpdir() .. "/ex"
        os.execute("mkdir -p " .. h.quote(ex .. "/laige"))
        for _, f in ipairs({ "sample.vprof", "sample.devt", "sample.dlag", "sample.dm", "sample.dw",
          "laige/profile.json", "laige/profile.txt", "laige/budget_pass.txt", "laige/budget_fail.txt" }) do
          os.execute("cp " .. h.quote("examples/" .. f) .. " " .. h.quote(ex .. "/" .. f))
        end
        local r = h.run("scripts/hitches.lua", ex .. "/", "--json")
        assert.equal(0, r.code, r.stderr)
        local files = {}
        for i, l in ipairs(lines(r.stdout)) do files[i] = cjson.decode(l).file end
        assert.same({ ex .. "/laige/budget_fail.txt", ex .. "/laige/budget_pass.txt", ex .. "/sample.vprof" },
          files)
        assert.equal("vpscript: " .. ex .. "/: skipped 6 of 9 captures: hitches.lua does not read devt (1), "
          .. "dlag (1), dm (1), dw (1), laige-profile (2)\n", r.stderr)
      end)

      it("a walk with nothing the script reads is an error that says what it skipped", function()
        local r = h.run("scripts/hitdiff.lua", tree .. "/sub/deeper")
        assert.equal(2, r.code)
        assert.equal("vpscript: no capture files that hitdiff.lua reads in " .. tree .. "/sub/deeper (skipped 1 of 1 "
          .. "capture: hitdiff.lua does not read vprof (1))\n", r.stderr)
      end)

      it("a script that reads every format takes every capture; a file named explicitly is still an error", function()
        local files, skipped = multi.expand({ tree }, nil, { name = "x.lua" })
        assert.equal(8, #files)
        assert.equal(0, skipped.count)
        files, skipped = multi.expand({ tree }, nil, { name = "x.lua", formats = { "dw", "laige-profile" } })
        local rel = {}
        for i, f in ipairs(files) do rel[i] = f:sub(#tree + 2) end
        assert.same({ "sub/profile.txt", "sub/report.json", "sub/t.dw" }, rel)
        assert.same({ vprof = 5 }, skipped.formats)
        local r = h.run("scripts/hitdiff.lua", tree .. "/a.vprof", tree .. "/sub/t.dw", "--json")
        assert.equal(2, r.code)
        local docs = lines(r.stdout)
        assert.equal(tree .. "/a.vprof: a vprof capture: hitdiff.lua reads dw (--format NAME forces a reader)",
          cjson.decode(docs[1]).error)
        assert.is_nil(cjson.decode(docs[2]).error)
      end)

      it("--format NAME keeps that format's files and those it cannot tell with its extension", function()
        local d = h.tmpdir()
        h.write_file(d .. "/detected.json", h.read_file("examples/laige/profile.json"))
        -- no "counters": detection cannot tell it, the forced reader can read it
        h.write_file(d .. "/forced.json", '{"version": 1, "systems": []}\n')
        h.write_file(d .. "/other.txt", h.read_file("examples/laige/budget_pass.txt"))
        local files = multi.expand({ d }, nil, nil, "laige-profile")
        assert.same({ d .. "/detected.json", d .. "/forced.json" }, files)
        local r = h.run("scripts/info.lua", d, "--format", "laige-profile", "--json")
        assert.equal(0, r.code, r.stderr)
        assert.equal(2, #lines(r.stdout))
        assert.equal("laige-profile", cjson.decode(lines(r.stdout)[2]).format)
      end)

      it("an unreadable directory is reported and skipped; the walk goes on (--strict: exit 2)", function()
        local d = h.tmpdir()
        os.execute("mkdir -p " .. h.quote(d .. "/ok") .. " " .. h.quote(d .. "/locked"))
        h.write_file(d .. "/ok/a.vprof", h.read_file(tree .. "/a.vprof"))
        h.write_file(d .. "/locked/b.vprof", h.read_file(tree .. "/b.vprof"))
        h.write_file(d .. "/z.vprof", h.read_file(tree .. "/b.vprof"))
        os.execute("chmod 755 " .. h.quote(d) .. " && chmod 0 " .. h.quote(d .. "/locked"))
        -- root reads any directory: the walk runs as nobody then
        local p = io.popen("id -u")
        local uid = p:read("l")
        p:close()
        local prefix = uid == "0" and "setpriv --reuid=65534 --regid=65534 --clear-groups " or ""
        local function walk(...)
          local words = { prefix .. h.quote(h.bin()), "scripts/info.lua", h.quote(d), ... }
          local errf = os.tmpname()
          local pipe = io.popen(table.concat(words, " ") .. " 2>" .. errf)
          local out = pipe:read("a")
          local _, _, code = pipe:close()
          local err = h.read_file(errf)
          os.remove(errf)
          return code, out, err
        end
        local code, out, err = walk("--json")
        os.execute("chmod 755 " .. h.quote(d .. "/locked"))
        assert.equal(0, code, err)
        local docs = lines(out)
        assert.equal(2, #docs)
        assert.equal(d .. "/ok/a.vprof", cjson.decode(docs[1]).file)
        assert.equal(d .. "/z.vprof", cjson.decode(docs[2]).file)
        assert.equal("vpscript: warning: " .. d .. "/locked: cannot list the directory (Permission denied): skipped\n",
          err)
        os.execute("chmod 0 " .. h.quote(d .. "/locked"))
        code, out, err = walk("--json", "--strict")
        os.execute("chmod 755 " .. h.quote(d .. "/locked"))
        assert.equal(2, code)
        assert.equal("", out)
        assert.equal("vpscript: " .. d .. "/locked: cannot list the directory (Permission denied): skipped (--strict: "
          .. "a warning is an error)\n", err)
      end)
    end)

    it("--junit to a directory that does not exist fails at once, before any capture is read", function()
      local r = h.run("scripts/check.lua", rules_pass, tree .. "/a.vprof", tree .. "/b.vprof", "--junit",
        "/nonexistent/dir/x.xml")
      assert.equal(2, r.code)
      assert.equal("", r.stdout)
      assert.equal("vpscript: --junit /nonexistent/dir/x.xml: cannot be written: No such file or directory\n", r.stderr)
      r = h.run("scripts/check.lua", rules_pass, tree .. "/a.vprof", "--junit", dir)
      assert.equal(2, r.code)
      assert.equal("vpscript: --junit " .. dir .. ": is a directory\n", r.stderr)
      -- a file that can be written is not left behind by the check
      local fresh = dir .. "/fresh.xml"
      r = h.run("scripts/check.lua", "--junit", fresh, "/nonexistent-rules.lua", tree .. "/a.vprof")
      assert.equal(2, r.code)
      assert.is_nil(io.open(fresh, "r"))
    end)

    it("NDJSON stays valid UTF-8 JSON whatever the file names: bytes that are not UTF-8, a newline", function()
      local d = h.tmpdir()
      local odd, nl = d .. "/bad\255\254name.vprof", d .. "/new\nline.vprof"
      h.write_file(odd, "not a capture")
      h.write_file(nl, "not a capture either")
      fx.vprof(d .. "/good\255.vprof", { seed = 2, frames = 50 })
      local r = h.run("scripts/info.lua", d, "--json")
      assert.equal(2, r.code)
      local docs = lines(r.stdout)
      assert.equal(3, #docs)
      for _, l in ipairs(docs) do
        assert(utf8.len(l), "not UTF-8: " .. l)
        cjson.decode(l)
      end
      local by = {}
      for _, l in ipairs(docs) do
        local doc = cjson.decode(l)
        by[doc.file] = doc
      end
      local odd_name = d .. "/bad\u{FFFD}\u{FFFD}name.vprof"
      assert.is_table(by[odd_name])
      -- the message names the file with visible escapes (vp.fmt.visible), the file field exactly
      local visible = require("vp.fmt").visible
      assert.matches("^" .. visible(odd):gsub("%p", "%%%0") .. ": ", by[odd_name].error)
      -- the newline is the file's, kept whole in file, shown as \n in error
      assert.is_table(by[nl])
      assert.matches("^" .. visible(nl):gsub("%p", "%%%0") .. ": ", by[nl].error)
      assert.equal(2, by[nl].exit)
      assert.is_nil(by[d .. "/good\u{FFFD}.vprof"].error)
    end)

    it("the same input gives the same bytes: NDJSON, CSV, JUnit #slow", function()
      local function twice(...)
        local a, b = h.run(...), h.run(...)
        assert.equal(a.stdout, b.stdout)
        assert.equal(a.stderr, b.stderr)
        return a
      end
      assert.is_true(#twice("scripts/info.lua", "examples/", "--json").stdout > 1000)
      assert.is_true(#twice("scripts/check.lua", "examples/rules/vprof.lua", "examples/", "--json").stdout > 1000)
      assert.is_true(#twice("scripts/hitches.lua", "examples/", "--csv").stdout > 500)
      assert.is_true(#twice("scripts/laige.lua", "examples/laige", "--json").stdout > 1000)
      local x1, x2 = dir .. "/one.xml", dir .. "/two.xml"
      local a = h.run("scripts/check.lua", "examples/rules/vprof.lua", "examples/", "--junit", x1, "--jobs", "2")
      local b = h.run("scripts/check.lua", "examples/rules/vprof.lua", "examples/", "--junit", x2)
      assert.equal(a.code, b.code)
      assert.equal(h.read_file(x1), h.read_file(x2))
      assert.is_true(#h.read_file(x1) > 1000)
    end)

    it("SIGTERM during --jobs stops every worker, removes the temporary files and exits 143 #slow", function()
      local d = h.tmpdir()
      os.execute("mkdir -p " .. h.quote(d .. "/pids") .. " " .. h.quote(d .. "/tmp"))
      local script = h.write_file(d .. "/slow.lua", [[
local multi = require "vp.multi"
multi.parse(arg, { name = "slow.lua", positional = { { "CAPTURE", help = "x" } } })
local pid = io.open("/proc/self/stat"):read("a"):match("^%d+")
io.open(os.getenv("PIDS_DIR") .. "/" .. pid, "w"):close()
while true do end
]])
      for _, n in ipairs({ "a", "b", "c" }) do h.write_file(d .. "/" .. n .. ".vprof", "x") end
      -- every worker written down in pids/ has ended (a zombie has too)
      local function alive()
        local list = {}
        for pid in require("lfs").dir(d .. "/pids") do
          local f = pid:match("^%d+$") and io.open("/proc/" .. pid .. "/stat")
          local stat = f and f:read("a")
          if f then f:close() end
          if stat and not stat:match("^%d+ %b() Z") then
            list[#list + 1] = pid
            os.execute("kill -9 " .. pid)
          end
        end
        return list
      end
      for _, sig in ipairs({ { "SIGTERM", 143, "terminated (SIGTERM)" }, { "SIGHUP", 129, "hangup (SIGHUP)" } }) do
        os.execute("rm -f " .. h.quote(d .. "/pids") .. "/*")
        local p = io.popen(string.format("python3 tests/stop.py %s files:%s:2 PIDS_DIR=%s TMPDIR=%s -- %s %s --jobs 2 "
          .. "%s %s %s", sig[1], h.quote(d .. "/pids"), h.quote(d .. "/pids"), h.quote(d .. "/tmp"), h.quote(h.bin()),
          h.quote(script), h.quote(d .. "/a.vprof"), h.quote(d .. "/b.vprof"), h.quote(d .. "/c.vprof")))
        local out = p:read("a")
        p:close()
        local status, _, outlived, err = out:match("^(%-?%d+)\n([%d.]+)\n(%d+)\n(.*)$")
        assert.equal(sig[2], tonumber(status), out)
        assert.equal("vpscript: " .. sig[3] .. "\n", err)
        assert.equal("0", outlived, "processes that outlived vpscript")
        assert.same({}, alive())
        local left = {}
        for name in require("lfs").dir(d .. "/tmp") do
          if name ~= "." and name ~= ".." then left[#left + 1] = name end
        end
        assert.same({}, left)
      end
    end)

    it("one file behaves as before: a single document, the script's own exit code", function()
      local r = h.run("scripts/hitches.lua", tree .. "/a.vprof", "--json")
      assert.equal(0, r.code)
      assert.equal(1, #lines(r.stdout))
      -- an input that cannot be read: its error document, as among several (issue 26)
      local bad = h.run("scripts/hitches.lua", tree .. "/sub/broken.vprof", "--json")
      assert.equal(2, bad.code)
      local doc = require("cjson").decode(bad.stdout)
      assert.same({ tree .. "/sub/broken.vprof", 2 }, { doc.file, doc.exit })
      local empty = h.tmpdir()
      local none = h.run("scripts/info.lua", empty)
      assert.equal(2, none.code)
      assert.matches("no capture files in", none.stderr)
    end)
  end)
end)
