-- Specs for the Lua standard library: vp.cli, vp.stats, vp.fmt, vp.report.
local vp = require "vp"
local cli = require "vp.cli"
local stats = require "vp.stats"
local fmt = require "vp.fmt"
local report = require "vp.report"
local helpers = require "helpers"

local function range(a, b)
  local t = {}
  for i = a, b do t[#t + 1] = i end
  return t
end

local function shuffled(t)
  -- deterministic permutation (LCG) so failures reproduce
  local out, seed = { table.unpack(t) }, 12345
  for i = #out, 2, -1 do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local j = seed % i + 1
    out[i], out[j] = out[j], out[i]
  end
  return out
end

-- Runs f and returns the error object it raised (fails when it did not raise).
local function raised(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return e
end

local SPEC = {
  name = "t.lua",
  summary = "a test script",
  description = "Definitions:\n  hitch = a slow frame",
  options = {
    { "--factor", type = "number", default = 2.5, help = "hitch factor" },
    { "--window", type = "integer", default = 30, min = 1, help = "frames" },
    { "--min-excess-ms", type = "number", default = 5, help = "ms" },
    { "--sort", choices = { "time", "self" }, default = "time", help = "order" },
    { "--frames", type = "range", help = "frame range" },
    { "--tag", multi = true, help = "repeatable" },
    { "--fold-hidden", type = "flag", help = "fold" },
  },
  positional = { { "CAPTURE", help = "capture file" } },
}

describe("vp.cli.parse", function()
  it("applies defaults and returns positional arguments", function()
    local o, p = cli.parse({ "a.vprof" }, SPEC)
    assert.equal(2.5, o.factor)
    assert.equal(30, o.window)
    assert.equal(5, o.min_excess_ms)
    assert.equal("time", o.sort)
    assert.is_false(o.fold_hidden)
    assert.is_false(o.json)
    assert.is_false(o.csv)
    assert.same({}, o.tag)
    assert.same({ "a.vprof" }, p)
  end)

  it("accepts --name=value and --name value, flags and repeated options", function()
    local o, p = cli.parse({ "--factor=3", "--window", "10", "x.vprof", "--json",
      "--min-excess-ms", "-1.5", "--tag", "a", "--tag=b", "--fold-hidden" }, SPEC)
    assert.equal(3, o.factor)
    assert.equal(10, o.window)
    assert.equal(math.type(10), math.type(o.window))
    assert.equal(-1.5, o.min_excess_ms)
    assert.is_true(o.json)
    assert.is_true(o.fold_hidden)
    assert.same({ "a", "b" }, o.tag)
    assert.same({ "x.vprof" }, p)
  end)

  it("treats everything after -- and a lone - as positional", function()
    local _, p = cli.parse({ "--", "--json" }, SPEC)
    assert.same({ "--json" }, p)
    _, p = cli.parse({ "-" }, SPEC)
    assert.same({ "-" }, p)
  end)

  it("fails with exit 2 and a --help hint on an unknown option", function()
    local e = raised(cli.parse, { "--nope", "a" }, SPEC)
    assert.is_true(cli.is_exit(e))
    assert.equal(2, e.exit)
    assert.equal("unknown option --nope (try 'vpscript t.lua --help')", e.message)
    assert.equal(e.message, tostring(e))
  end)

  it("fails with exit 2 on bad values", function()
    local cases = {
      { { "--factor", "abc", "a" }, "option --factor: bad value 'abc': expected a number" },
      { { "--window", "2.5", "a" }, "option --window: bad value '2.5': expected an integer" },
      { { "--window", "0", "a" }, "option --window: bad value '0': must be at least 1" },
      { { "--sort", "peak", "a" }, "option --sort: bad value 'peak': expected one of time, self" },
      { { "--frames", "9:3", "a" }, "option --frames: bad value '9:3': the range is empty (I > J)" },
      { { "--factor", "nan", "a" }, "option --factor: bad value 'nan': expected a number" },
      { { "a", "--factor" }, "option --factor needs a value (X)" },
      { { "--json=yes", "a" }, "option --json takes no value" },
      { { "--json", "--csv", "a" }, "--json and --csv exclude each other" },
      { {}, "missing argument CAPTURE" },
      { { "a", "b" }, "unexpected argument 'b'" },
    }
    for _, c in ipairs(cases) do
      local e = raised(cli.parse, c[1], SPEC)
      assert.equal(2, e.exit)
      assert.equal(c[2] .. " (try 'vpscript t.lua --help')", e.message)
    end
  end)

  it("parses frame ranges", function()
    assert.same({ first = 3, last = 9, text = "3:9" }, (cli.parse({ "--frames", "3:9", "a" }, SPEC)).frames)
    assert.same({ first = 3, text = "3:" }, (cli.parse({ "--frames", "3:", "a" }, SPEC)).frames)
    assert.same({ last = 9, text = ":9" }, (cli.parse({ "--frames=:9", "a" }, SPEC)).frames)
    assert.same({ first = 4, last = 4, text = "4" }, (cli.parse({ "--frames", "4", "a" }, SPEC)).frames)
    -- the one rule of every format's --frames (vp.open's frames): negative from the end, clamped
    assert.same({ 1, 100 }, { vp.frames_of({}, 100) })
    assert.same({ 3, 100 }, { vp.frames_of({ first = 3 }, 100) })
    assert.same({ 3, 100 }, { vp.frames_of({ first = 3, last = 500 }, 100) })
    assert.same({ 41, 100 }, { vp.frames_of(cli.parse_range("-60:"), 100) })
    assert.same({ 2, 99 }, { vp.frames_of({ 2, -2 }, 100) })
    assert.same({}, { vp.frames_of(cli.parse_range("101:"), 100) })
    assert.has_error(function() vp.frames_of({ 0, 5 }, 100) end)
  end)

  it("--help prints every option, default and the description, then exits 0", function()
    local h = cli.help(SPEC)
    assert.truthy(h:find("usage: vpscript t.lua [options] CAPTURE", 1, true))
    assert.truthy(h:find("hitch = a slow frame", 1, true))
    assert.truthy(h:find("--factor X", 1, true))
    assert.truthy(h:find("(default 2.5)", 1, true))
    assert.truthy(h:find("--sort time|self", 1, true))
    for _, common in ipairs({ "--json", "--csv", "-h, --help" }) do
      assert.truthy(h:find(common, 1, true), common)
    end
    -- parse("--help") writes the help to stdout and raises {exit = 0}
    local real = io.stdout
    local tmp = io.tmpfile()
    io.stdout = tmp -- luacheck: ignore
    local ok, e = pcall(cli.parse, { "--help" }, SPEC)
    io.stdout = real -- luacheck: ignore
    tmp:seek("set")
    local printed = tmp:read("a")
    tmp:close()
    assert.is_false(ok)
    assert.equal(0, e.exit)
    assert.is_nil(e.message)
    assert.equal(h, printed)
  end)
end)

describe("vp.cli.fail", function()
  it("raises an exit object with a formatted message", function()
    local e = raised(cli.fail, 3, "gate %s failed: %d > %d", "p99", 20, 10)
    assert.equal(3, e.exit)
    assert.equal("gate p99 failed: 20 > 10", e.message)
    assert.equal("gate p99 failed: 20 > 10", tostring(e))
    assert.is_true(cli.is_exit(e))
    assert.is_false(cli.is_exit("plain string"))
  end)

  it("cli.open fails with exit 2 and the reader's message for a missing file", function()
    local e = raised(cli.open, "/nonexistent/dir/x.vprof")
    assert.equal(2, e.exit)
    assert.truthy(e.message:find("/nonexistent/dir/x.vprof", 1, true))
  end)

  it("cli.run returns an analysis's results, passes a vp.error on, and any other error as it is (a bug)",
    function()
      assert.same({ 1, nil, 3 }, { cli.run(function(a, b, c) return a, b, c end, 1, nil, 3) })
      local E = require "vp.error"
      local e = raised(cli.run, function() E.raise("EUSAGE", "bad %s", "k") end)
      assert.equal("EUSAGE", e.code)
      assert.equal("bad k", e.message)
      e = raised(cli.run, function() error("attempt to index a nil value", 0) end)
      assert.is_false(cli.is_exit(e))
      assert.equal("attempt to index a nil value", e)
    end)

  it("a bug inside an analysis a script runs ends with exit 1 and its traceback (issue 26)", function()
    local dir = helpers.tmpdir()
    local script = dir .. "/buggy.lua"
    helpers.write_file(script, table.concat({
      'local cli = require "vp.cli"',
      'local function analyze_frames(t) return t.missing.field end',
      'print(cli.run(analyze_frames, {}))',
    }, "\n"))
    local r = helpers.run(script)
    assert.equal(1, r.code, r.stderr)
    assert.matches("attempt to index a nil value", r.stderr)
    assert.matches("stack traceback", r.stderr)
    assert.matches("buggy.lua:2: in function", r.stderr)
    -- a data error the bindings raise stays an input error: exit 2, no traceback
    local cut = dir .. "/cut.vprof"
    helpers.write_file(cut, helpers.read_file("examples/sample.vprof"))
    helpers.write_file(script, table.concat({
      'local cli = require "vp.cli"',
      'local cap = assert(vp.open(arg[1]))',
      'io.open(arg[1], "w"):close()',
      'cli.run(function() return cap:frame(3000):nodes()() end)',
    }, "\n"))
    r = helpers.run(script, cut)
    assert.equal(2, r.code, r.stderr)
    assert.is_nil(r.stderr:find("stack traceback", 1, true))
  end)

  it("cli.on_progress makes a progress callback (drawing only on a terminal)", function()
    local cb = cli.on_progress("test")
    for i = 1, 3 do cb(i, 3) end
    cb(1, 2)
  end)

  it("draws the progress line on a terminal, once per percent, and takes it away when done", function()
    local h = require "helpers"
    local dir = h.tmpdir()
    local script = h.write_file(dir .. "/progress.lua", [[
local cli = require "vp.cli"
local update, done = cli.progress("sorting", 4)
for i = 1, 4 do update(i) update(i) end
done()
io.stderr:write("after\n")
]])
    local steps = h.write_file(dir .. "/steps.json", '[["expect", "after"], ["wait"]]')
    local p = assert(io.popen("python3 tests/pty/drive.py " .. h.quote(steps) .. " -- " .. h.quote(h.bin()) .. " "
      .. h.quote(script) .. " 2>&1"))
    local r = require("cjson").decode(p:read("a"))
    p:close()
    assert.is_true(r.ok, r.error)
    local _, drawn = r.transcript:gsub("sorting: ", "")
    assert.are.equal(4, drawn, r.transcript) -- 25, 50, 75, 100: each once
    assert.truthy(r.transcript:find("sorting: 100 %", 1, true), r.transcript)
    assert.are.equal("after", r.screen[1]) -- the line was taken away
    h.cleanup()
  end)
end)

describe("vp.cli.json", function()
  it("writes NaN and infinities as null, marked empty lists as []", function()
    local s = cli.encode_json({ a = 0 / 0, b = math.huge, c = cli.array(), d = { 1, 2 } })
    local d = cli.decode_json(s)
    assert.equal(cli.null, d.a)
    assert.equal(cli.null, d.b)
    assert.truthy(s:find('"c":[]', 1, true))
    assert.same({ 1, 2 }, d.d)
  end)

  it("writes slashes unescaped and round-trips backslashes", function()
    local s = cli.encode_json({ p = "a/b\\/c\\" })
    assert.equal('{"p":"a/b\\\\/c\\\\"}', s)
    assert.equal("a/b\\/c\\", cli.decode_json(s).p)
  end)

  it("writes a vp.Series as a list of numbers", function()
    local s = cli.encode_json({ s = vp.Series({ 1.5, 2, 3 }) })
    assert.same({ s = { 1.5, 2, 3 } }, cli.decode_json(s))
  end)

  it("keeps integers as integers and 14 significant digits", function()
    assert.equal('[3,0.3,1234567890123]', cli.encode_json({ 3, 0.1 + 0.2, 1234567890123 }))
  end)
end)

describe("vp.stats percentile (nearest rank)", function()
  local one_to_100 = shuffled(range(1, 100))

  it("p95 of 1..100 is 95, p99 is 99, p50 is 50", function()
    assert.equal(95, stats.percentile(one_to_100, 95))
    assert.equal(99, stats.percentile(one_to_100, 99))
    assert.equal(50, stats.percentile(one_to_100, 50))
    assert.equal(100, stats.percentile(one_to_100, 100))
  end)

  it("p0 is the minimum, p100 the maximum", function()
    assert.equal(1, stats.percentile(one_to_100, 0))
    assert.equal(7, stats.percentile({ 9, 7, 8 }, 0))
    assert.equal(9, stats.percentile({ 9, 7, 8 }, 100))
  end)

  it("uses rank ceil(p/100*n) on small lists", function()
    local t = { 40, 10, 30, 20 } -- sorted 10 20 30 40
    assert.equal(10, stats.percentile(t, 25)) -- rank 1
    assert.equal(20, stats.percentile(t, 26)) -- rank ceil(1.04) = 2
    assert.equal(20, stats.percentile(t, 50)) -- rank 2 (nearest rank, no interpolation)
    assert.equal(30, stats.percentile(t, 75))
    assert.equal(40, stats.percentile(t, 99))
    assert.equal(5, stats.percentile({ 5 }, 99.9))
  end)

  it("agrees with vp.Series:percentile for every p", function()
    local data = {}
    local seed = 7
    for i = 1, 997 do
      seed = (seed * 1103515245 + 12345) % 2147483648
      data[i] = (seed % 100000) / 7
    end
    local s = vp.Series(data)
    for p = 0, 100, 0.5 do
      assert.equal(s:percentile(p), stats.percentile(data, p), "p=" .. p)
    end
    assert.equal(s:percentile(95), stats.percentile(s, 95))
  end)

  it("drops NaN from a list, as the one C implementation sees only numbers", function()
    local nan = 0 / 0
    assert.equal(3, stats.percentile({ 3, nan, 1, 2 }, 100))
    assert.equal(1, stats.percentile({ nan, 1 }, 50))
    assert.is_nil(stats.percentile({ nan }, 50))
    assert.same({ [50] = 2, [100] = 3 }, stats.percentiles({ nan, 3, 2, 1 }, { 50, 100 }))
    assert.same({}, stats.percentiles({}, { 50 }))
  end)

  it("returns nil on empty input and rejects p outside 0..100", function()
    assert.is_nil(stats.percentile({}, 50))
    assert.has_error(function() stats.percentile({ 1 }, 101) end)
    assert.has_error(function() stats.percentile({ 1 }, -1) end)
  end)
end)

describe("vp.stats", function()
  it("defined: a finite number, else nil (an undefined statistic)", function()
    assert.equal(2.5, stats.defined(2.5))
    assert.equal(0, stats.defined(0))
    assert.is_nil(stats.defined(0 / 0))
    assert.is_nil(stats.defined(math.huge))
    assert.is_nil(stats.defined(-math.huge))
    assert.is_nil(stats.defined(nil))
    assert.is_nil(stats.defined("1"))
  end)

  it("mean, median, min, max, argmax", function()
    assert.equal(2.5, stats.mean({ 1, 2, 3, 4 }))
    assert.equal(2.5, stats.median({ 4, 1, 3, 2 }))
    assert.equal(3, stats.median({ 5, 1, 3 }))
    assert.equal(1, stats.min({ 4, 1, 3 }))
    assert.equal(4, stats.max({ 4, 1, 3 }))
    assert.same({ 2, 9 }, { stats.argmax({ 1, 9, 9, 3 }) })
    assert.is_nil(stats.mean({}))
    assert.is_nil(stats.median({}))
  end)

  it("stddev is the population standard deviation", function()
    assert.equal(2, stats.stddev({ 2, 4, 4, 4, 5, 5, 7, 9 }))
    assert.equal(0, stats.stddev({ 3 }))
    assert.equal(2, stats.stddev(vp.Series({ 2, 4, 4, 4, 5, 5, 7, 9 })))
  end)

  it("mad is the median absolute deviation", function()
    -- median 2; deviations 1 1 0 0 2 4 7 -> median 1
    assert.equal(1, stats.mad({ 1, 1, 2, 2, 4, 6, 9 }))
  end)

  it("accepts a vp.Series", function()
    local s = vp.Series({ 3, 1, 2 })
    assert.equal(2, stats.mean(s))
    assert.equal(2, stats.median(s))
    assert.equal(3, stats.max(s))
    assert.same({ 1, 3 }, { stats.argmax(s) })
  end)

  it("low_fps: 1000 / mean of the slowest floor(n*pct/100) frames, at least one", function()
    local t = {}
    for i = 1, 1000 do t[i] = 10 end
    t[17], t[500], t[900] = 40, 60, 20 -- slowest 10: 60 40 20 and seven 10s
    local fps, k = stats.low_fps(t, 1)
    assert.equal(10, k)
    assert.equal(1000 / ((60 + 40 + 20 + 70) / 10), fps)
    fps, k = stats.low_fps(t, 0.1) -- one frame
    assert.equal(1, k)
    assert.equal(1000 / 60, fps)
    fps, k = stats.low_fps({ 25, 50 }, 1) -- fewer than 100 frames: the slowest one
    assert.equal(1, k)
    assert.equal(20, fps)
    assert.is_nil(stats.low_fps({}, 1))
    assert.is_nil(stats.low_fps({ 0, 0 }, 1)) -- undefined (1000 / 0): nil, never infinity
  end)
end)

describe("vp.fmt", function()
  it("formats numbers with thousands separators", function()
    assert.equal("12,345", fmt.int(12345))
    assert.equal("123,456", fmt.int(123456))
    assert.equal("-1,234,567", fmt.int(-1234567))
    assert.equal("999", fmt.int(999))
    assert.equal("0", fmt.int(0))
    assert.equal("1,234.50", fmt.fixed(1234.5, 2))
    assert.equal("0.00", fmt.fixed(-0.001, 2))
    assert.equal("-", fmt.int(nil))
    assert.equal("-", fmt.fixed(0 / 0, 1))
  end)

  it("formats milliseconds with sensible decimals", function()
    assert.equal("1.235", fmt.ms(1.2346))
    assert.equal("12.35", fmt.ms(12.3456))
    assert.equal("123.5", fmt.ms(123.45))
    assert.equal("12,345.7", fmt.ms(12345.67))
    assert.equal("0.000", fmt.ms(0))
  end)

  it("formats bytes in binary units", function()
    assert.equal("512 B", fmt.bytes(512))
    assert.equal("1.5 KiB", fmt.bytes(1536))
    assert.equal("1 MiB", fmt.bytes(1048576))
    assert.equal("12.3 MiB", fmt.bytes(12.3 * 1048576))
    assert.equal("1 GiB", fmt.bytes(1073741824))
    assert.equal("1,023 B", fmt.bytes(1023))
  end)

  it("formats percentages, durations and plain values", function()
    assert.equal("12.3 %", fmt.pct(12.345))
    assert.equal("850.0 ms", fmt.duration(850))
    assert.equal("12.3 s", fmt.duration(12345))
    assert.equal("4 min 05 s", fmt.duration(245000))
    assert.equal("2 h 03 min", fmt.duration(2 * 3600000 + 3 * 60000))
    assert.equal("yes", fmt.value(true))
    assert.equal("1,234", fmt.value(1234))
    assert.equal("0.125", fmt.value(0.125))
    assert.equal("2.5", fmt.value(2.5))
    assert.equal("-", fmt.value(nil))
  end)

  it("aligns table columns: numbers right, text left, under a header and rule", function()
    local s = fmt.table({
      { name = "Physics", ms = 12.5, n = 3 },
      { name = "Game", ms = 1.25, n = 1234 },
    }, {
      { key = "name", title = "group" },
      { key = "ms", title = "mean ms", format = fmt.ms },
      { key = "n", title = "n" },
    })
    assert.equal(table.concat({
      "group    mean ms      n",
      "-------  -------  -----",
      "Physics    12.50      3",
      "Game       1.250  1,234",
    }, "\n") .. "\n", s)
  end)

  it("shrinks the widest text column to max_width, keeping the end", function()
    local s = fmt.table({ { p = "Root/CEngine::Frame/Physics/Simulate", v = 1 } },
      { { key = "p", title = "path" }, { key = "v", title = "v" } }, { max_width = 20 })
    for line in s:gmatch("[^\n]+") do assert.is_true(#line <= 20, line) end
    assert.truthy(s:find("\n...ysics/Simulate  1\n", 1, true))
  end)

  it("kv aligns names", function()
    assert.equal("a     1\nlong  yes\n", fmt.kv({ { "a", 1 }, { "long", true } }))
  end)
end)

describe("vp.report", function()
  local columns = { { key = "name", title = "name" }, { key = "v", title = "value", format = fmt.ms } }
  local rows = { { name = "a,b", v = 0.1 + 0.2 }, { name = 'say "hi"', v = 0 / 0 }, { name = "c", v = 3 } }

  it("csv: column keys as header, raw values (14 digits), RFC 4180 quoting", function()
    assert.equal('name,v\n"a,b",0.3\n"say ""hi""",\nc,3\n', report.csv(columns, rows))
    assert.equal("1234567.125", report.csv_field(1234567.125))
    assert.equal("12345678901234567", report.csv_field(12345678901234567))
  end)

  it("text: title, header and aligned sections", function()
    local s = report.text({ title = "t", header = { { "frames", 3 } },
      sections = { { title = "rows", columns = columns, rows = rows }, { title = "none", columns = columns,
        rows = {}, empty = "nothing here" } } })
    assert.truthy(s:find("^t\n"))
    assert.truthy(s:find("  frames  3\n", 1, true))
    assert.truthy(s:find("  c         3.000\n", 1, true))
    assert.truthy(s:find("none\n  nothing here\n", 1, true))
  end)

  -- What report.emit writes on stdout for opts.
  local function emitted(opts, model)
    local real, tmp = io.stdout, io.tmpfile()
    io.stdout = tmp -- luacheck: ignore
    local ok, err = pcall(report.emit, opts, model)
    io.stdout = real -- luacheck: ignore
    assert(ok, tostring(err))
    tmp:seek("set")
    local out = tmp:read("a")
    tmp:close()
    return out
  end

  it("emit: the JSON in the schema's key order, nil as null, [] for an empty list", function()
    local model = { json = { z = 1, list = {}, a = nil, extra = 2 }, schema = "{z, a, list: []}",
      columns = columns, sections = { { columns = columns, rows = { { name = "n", v = math.huge } } } } }
    assert.equal('{"z":1,"a":null,"list":[],"extra":2}\n', emitted({ json = true }, model))
    -- absent and infinite values: "-" in text, an empty CSV field
    assert.truthy(emitted({}, model):find("\n  n         -\n", 1, true))
    assert.equal("name,v\nn,\n", emitted({ csv = true }, model))
  end)
end)

describe("the options every script takes: --format, --strict, --wide", function()
  local h = require "helpers"
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  it("--format names a known format the script reads; it is given to every cli.open", function()
    local spec = { name = "f.lua", formats = { "vprof", "laige-budget" }, positional = { { "CAPTURE" } } }
    local e = raised(cli.parse, { "--format", "nope", "x" }, spec)
    assert.equal(2, e.exit)
    assert.matches("^option %-%-format: unknown format 'nope' %(formats: vprof, devt, ", e.message)
    e = raised(cli.parse, { "--format", "dw", "x" }, spec)
    assert.equal("option --format: f.lua does not read dw captures (it reads vprof, laige-budget)", e.message)
    assert.equal("laige-budget", (cli.parse({ "--format=laige-budget", "x" }, spec)).format)
    -- a laige JSON profile without "counters" is told by no detector, but read when forced
    local path = h.write_file(dir .. "/run.json", '{"version": 1, "systems": []}\n')
    local r = h.run("scripts/info.lua", path)
    assert.equal(2, r.code)
    for _, script in ipairs({ "scripts/info.lua", "scripts/laige.lua" }) do
      r = h.run(script, path, "--format", "laige-profile", "--json")
      assert.equal(0, r.code, r.stderr)
      assert.equal("laige-profile", require("cjson").decode(r.stdout).format)
    end
    r = h.run("scripts/hitches.lua", "examples/sample.dw")
    assert.equal(2, r.code)
    assert.equal("vpscript: examples/sample.dw: a dw capture: hitches.lua reads vprof, laige-budget (--format NAME "
      .. "forces a reader)\n", r.stderr)
  end)

  it("--strict turns any warning into exit 2, for CI", function()
    local text = h.read_file("examples/laige/profile.txt"):gsub("laige%-profile world:[^\n]*\n", "")
    local path = h.write_file(dir .. "/noworld.txt", text)
    local r = h.run("scripts/laige.lua", path)
    assert.equal(0, r.code)
    assert.equal("vpscript: warning: " .. path .. ": no world line\n", r.stderr)
    for _, script in ipairs({ "scripts/laige.lua", "scripts/info.lua", "scripts/check.lua" }) do
      local args = { script, path, "--strict" }
      if script == "scripts/check.lua" then args = { script, "examples/rules/laige.lua", path, "--strict" } end
      r = h.run(table.unpack(args))
      assert.equal(2, r.code, script)
      assert.equal("", r.stdout, script)
      assert.equal("vpscript: " .. path .. ": no world line (--strict: a warning is an error)\n", r.stderr, script)
    end
  end)

  it("cli.open, cli.open_as, cli.open_runs and cli.warn read the opts they are given, never the last parse", function()
    -- what a call writes on stdout and stderr, and the error it raised (nil when none)
    local function run(f, ...)
      local out, err = io.tmpfile(), io.tmpfile()
      local real_out, real_err = io.stdout, io.stderr
      io.stdout, io.stderr = out, err -- luacheck: ignore
      local ok, e = pcall(f, ...)
      io.stdout, io.stderr = real_out, real_err -- luacheck: ignore
      out:seek("set")
      err:seek("set")
      local printed = { stdout = out:read("a"), stderr = err:read("a") }
      out:close()
      err:close()
      if ok then e = nil end
      return e, printed
    end
    local missing = dir .. "/missing.vprof"
    local a = cli.parse({ "--strict", "--json", "x" }, { name = "a.lua", formats = { "dw" }, positional = { { "C" } } })
    local b = cli.parse({ "x" }, { name = "b.lua", positional = { { "C" } } })
    local c = cli.parse({ "--format", "dw", "x" }, { name = "c.lua", positional = { { "C" } } })
    assert.equal("b.lua", b._spec.name)
    -- a's spec (its formats, its name) and --strict, though b and c were parsed after it
    local e = run(cli.open, "examples/sample.vprof", a)
    assert.equal("examples/sample.vprof: a vprof capture: a.lua reads dw (--format NAME forces a reader)", e.message)
    e = run(cli.open_as, "examples/sample.dw", a, "vprof")
    assert.equal("examples/sample.dw: a.lua reads VProf captures; this is a dw capture", e.message)
    e = run(cli.warn, a, "odd %s", "thing")
    assert.equal("odd thing (--strict: a warning is an error)", e.message)
    -- a's --json writes the input's document; b's does not
    local printed
    e, printed = run(cli.open, missing, a)
    assert.equal(2, e.exit)
    assert.equal(missing, require("cjson").decode(printed.stdout).file)
    e, printed = run(cli.open, missing, b)
    assert.equal(2, e.exit)
    assert.equal("", printed.stdout)
    -- b: every format, no --strict, no --format
    e, printed = run(cli.warn, b, "odd %s", "thing")
    assert.is_nil(e)
    assert.equal("vpscript: warning: odd thing\n", printed.stderr)
    assert.equal("vprof", cli.open("examples/sample.vprof", b).format)
    assert.equal("dw", cli.open_as("examples/sample.dw", b, "dw").format)
    -- c's --format is c's alone
    e = run(cli.open, "examples/sample.vprof", c)
    assert.equal(2, e.exit)
    assert.equal("vprof", cli.open_runs({ "examples/sample.vprof" }, b)[1].format)
    e = run(cli.open_runs, { "examples/sample.vprof" }, c)
    assert.equal(2, e.exit)
    -- no parse at all: the defaults
    e, printed = run(cli.warn, nil, "plain")
    assert.is_nil(e)
    assert.equal("vpscript: warning: plain\n", printed.stderr)
    assert.equal("dw", cli.open("examples/sample.dw").format)
    e, printed = run(cli.open, missing)
    assert.equal(2, e.exit)
    assert.equal("", printed.stdout)
    -- vp.open's options in the place of the parsed opts are a bug, said at once
    e = run(cli.open, "examples/sample.vprof", { frames = { first = 1, last = 2 } })
    assert.is_false(cli.is_exit(e))
    assert.matches("cli.open: opts must be what cli.parse returned", e)
    e = run(cli.warn, "odd %s", "thing")
    assert.matches("cli.warn: opts must be what cli.parse returned", e)
  end)

  it("text tables fit COLUMNS or the terminal; --wide and a pipe never cut", function()
    local function longest(out)
      local n = 0
      for l in out:gmatch("[^\n]+") do n = math.max(n, #l) end
      return n
    end
    local full = h.run("scripts/top.lua", "examples/sample.vprof")
    assert.equal(0, full.code, full.stderr)
    local width = longest(full.stdout)
    assert(width > 150, "the node paths are long: " .. width)
    assert.is_nil(full.stdout:find("...", 1, true)) -- no path cut
    assert.equal(width, longest(h.run("scripts/top.lua", "examples/sample.vprof", { env = { COLUMNS = "250" } })
      .stdout))
    local cut = h.run("scripts/top.lua", "examples/sample.vprof", { env = { COLUMNS = "120" } }).stdout
    assert.equal(120, longest(cut))
    assert.truthy(cut:find("  ...", 1, true)) -- paths cut at the front
    assert.equal(width, longest(h.run("scripts/top.lua", "examples/sample.vprof", "--wide",
      { env = { COLUMNS = "120" } }).stdout))
    -- a terminal 130 wide, and no COLUMNS
    local py = [[
import fcntl, os, pty, struct, subprocess, sys, termios
m, s = pty.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 130, 0, 0))
env = dict(os.environ)
env.pop("COLUMNS", None)
p = subprocess.Popen(sys.argv[1:], stdout=s, stderr=subprocess.DEVNULL, env=env)
os.close(s)
out = b""
while True:
    try:
        chunk = os.read(m, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
p.wait()
sys.stdout.write(out.decode().replace("\r\n", "\n"))
]]
    local p = io.popen(string.format("python3 -c %s %s scripts/top.lua examples/sample.vprof", h.quote(py),
      h.quote(h.bin())))
    local tty = p:read("a")
    p:close()
    assert.equal(130, longest(tty))
  end)

end)

describe("vp.near", function()
  local near = require "vp.near"

  it("counts edits: insertions, removals, changes and swaps of neighbours", function()
    assert.same({ 3, 1, 3, 0, 1, 1 }, { near.distance("kitten", "sitting"), near.distance("ab", "ba"),
      near.distance("", "abc"), near.distance("abc", "abc"), near.distance("xaby", "xbay"),
      near.distance("Root/A/R_DrawWorld", "Root/A/R_DrawWrld") })
    assert.is_nil(near.distance("abcdef", "uvwxyz", 2))
  end)

  it("names the nearest candidates only, nearest first, whatever their order", function()
    assert.same({ "hitches.lua" }, near.names("hitchs", { "top.lua", "hitdiff.lua", "hitches.lua" }))
    assert.same({ "World Rendering" }, near.names("World Rendring", { "Physics", "World Rendering", "Sound" }))
    assert.same({ "Physics", "Physics_Step" }, near.names("physic", { "Physics_Step", "Sound", "Physics" }))
    assert.same({ "--window" }, near.names("--windw", { "--json", "--wide", "--window", "--factor" }))
    assert.same({ "frame_ms.p95", "frame_ms.p99" }, near.names("frame_ms.p98",
      { "frame_ms.mean", "frame_ms.p99", "frame_ms.p95" }))
    assert.same({}, near.names("zzzz", { "Physics" }))
    assert.equal(" (did you mean 'ab1' or 'ab2'?)", near.hint("ab3", { "ab2", "ab1", "bbbbb" }))
    assert.same({}, near.names("-x", { "-h" }))
    assert.equal("", near.hint("zzzz", { "Physics" }))
  end)
end)

describe("vp.host.sleep", function()
  it("sleeps at least that long, within bounds", function()
    -- A lower bound only (a loaded machine may sleep longer), in whole
    -- seconds of os.time: 1000 ms asleep moves it on by at least 1, wherever
    -- in its second the sleep began. No GNU time, no wall-time ceiling.
    local t0 = os.time()
    require("vp.host").sleep(1000)
    local slept = os.time() - t0
    assert.is_true(slept >= 1, tostring(slept))
    require("vp.host").sleep(0)
    assert.has_error(function() require("vp.host").sleep(-1) end)
    assert.has_error(function() require("vp.host").sleep(3600001) end)
  end)
end)
