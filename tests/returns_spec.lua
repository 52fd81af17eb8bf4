-- Every return value is documented (docs/api.md, help()): in the
-- documentation table each value after the first that a signature names is
-- described in its member's line, and every documented function of the vp
-- module and of the stdlib modules, called here, returns exactly as many
-- values as its signature names (at most; and that many on some call). A
-- function that grows an undocumented return value, or one documented that
-- no longer comes, fails here.
local h = require "helpers"
local doc = require "vp.doc"
local vp = require "vp"

-- The return values a signature names: "f(x) -> a | nil, b, c" gives
-- {"a | nil", "b", "c"}. Commas inside (), {} and [] or quotes do not split;
-- "iterator of x, y" is one value (what the iterator yields).
local function returns(sig)
  local r = sig:match("%->%s*(.*)$")
  if not r then return {} end
  if r:match("^iterator") then return { r } end
  local out, depth, cur, q = {}, 0, {}, nil
  for c in r:gmatch(".") do
    if q then
      if c == q then q = nil end
    elseif c == '"' or c == "'" then
      q = c
    elseif c:match("[%({%[]") then
      depth = depth + 1
    elseif c:match("[%)}%]]") then
      depth = depth - 1
    elseif c == "," and depth == 0 then
      out[#out + 1] = table.concat(cur):match("^%s*(.-)%s*$")
      cur = {}
      c = nil
    end
    if c then cur[#cur + 1] = c end
  end
  out[#out + 1] = table.concat(cur):match("^%s*(.-)%s*$")
  return out
end

describe("the documentation of return values", function()
  it("reads the values a signature names", function()
    assert.are.same({ "kind | nil", "info" }, returns("hitdiff.classify(C, S [, t]) -> kind | nil, info"))
    assert.are.same({ "result", "{total_ms, hidden}" }, returns("budget.analyze(cap) -> result, {total_ms, hidden}"))
    assert.are.same({ "iterator of node, time_ms, calls" }, returns("fr:nodes() -> iterator of node, time_ms, calls"))
    assert.are.same({ "cap | nil", "message", "code" }, returns('vp.open(path [, opts]) -> cap | nil, message, code'))
    assert.are.same({ '"profile" | "budget" | nil' }, returns('laige.kind(x) -> "profile" | "budget" | nil'))
    assert.are.same({}, returns("junit.write(path, suite | {suite, ...})"))
  end)

  it("describes every value after the first by its name in the member's line", function()
    local missing = {}
    for _, c in ipairs(doc.classes()) do
      for _, m in ipairs(c.members) do
        local rs = m.sig and returns(m.sig) or {}
        for i = 2, #rs do
          local name = rs[i]:match("^([%a_][%w_]*)")
          -- a table literal ({total_ms}) names its own fields
          if name and not m.doc:find("%f[%w_]" .. name .. "%f[^%w_]") then
            missing[#missing + 1] = string.format("%s.%s: return value %d '%s'", c.class, m.name, i, rs[i])
          end
        end
      end
    end
    assert.are.same({}, missing)
  end)
end)

-- vp.history's calls, on a store of their own.
local function history_calls(P, cap, dir)
  local history, store = require "vp.history", require "vp.history.store"
  local db = store.open(dir .. "/history.db")
  local rec = history.measure(cap, history.metadata({ time = "2024-01-01" }, {}, cap.path), { match = { "^frames$" } })
  history.add(db, { rec })
  local s = history.series(db)[1]
  local pts = h.write_file(dir .. "/points.ndjson", require("vp.json").encode(rec, history.points_schema) .. "\n")
  return {
    metadata = { function() return P(history.metadata, {}, {}, cap.path) end },
    measure = { function() return P(history.measure, cap, rec.capture, { match = { "^frames$" } }) end },
    from_document = { function() return P(history.from_document, { frames = 1 }, "{}") end,
      function() return P(history.from_document, history.read_documents(pts)[1].doc, "x") end },
    read_documents = { function() return P(history.read_documents, pts) end },
    add = { function() return P(history.add, db, { rec }) end },
    series = { function() return P(history.series, db) end },
    points = { function() return P(history.points, db, s) end },
    detect = { function() return P(history.detect, s, history.points(db, s)) end },
    changes = { function() return P(history.changes, db) end },
    ack = { function()
      local id = db:rows("INSERT INTO vp_changes (series_id, before_capture, after_capture, state, found, updated) "
        .. "VALUES (?, 1, 1, 'new', 'x', 'x') RETURNING id", s.id)[1][1]
      return P(history.ack, db, id, "acknowledged")
    end },
    trend = { function() return P(history.trend, db) end },
    utc = { function() return P(history.utc, "2024-01-01") end, function() return P(history.utc, "soon") end },
  }
end

-- f(...) with io.stdout or io.stderr (`stream`) sent to /dev/null: what a
-- function prints is not the spec's; its return values, packed.
local function muted(stream, f, ...)
  local saved = io[stream]
  io[stream] = assert(io.open("/dev/null", "w")) -- luacheck: ignore 122
  local r = table.pack(pcall(f, ...))
  io[stream]:close()
  io[stream] = saved -- luacheck: ignore 122
  assert(r[1], r[2])
  return table.pack(table.unpack(r, 2, r.n))
end

-- A function documented to raise a vp.error and never return (cli.fail,
-- E.raise): called, it raises one; it returns no value (its signature names
-- none).
local function raises(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok and require("vp.error").is(e), "expected a vp.error, got " .. tostring(e))
  return table.pack()
end

-- vp.cli's, vp.error's and vp.output's calls.
local function cli_calls(P, dir)
  local cli, E, output = require "vp.cli", require "vp.error", require "vp.output"
  local spec = { name = "x.lua", options = { cli.FRAMES }, positional = { { "CAPTURE" } } }
  local opts = cli.parse({ "examples/sample.vprof" }, spec)
  local vprof, dm = "examples/sample.vprof", "examples/sample.dm"
  return {
    ["vp.cli"] = {
      parse = { function() return P(cli.parse, { "--frames", "1:10", vprof }, spec) end },
      help = { function() return P(cli.help, spec) end },
      options = { function() return P(cli.options, spec) end },
      open = { function() return P(cli.open, vprof, opts, nil, true) end },
      open_as = { function() return P(cli.open_as, dm, nil, "dm") end },
      open_runs = { function() return P(cli.open_runs, { vprof }, opts) end,
        function() return P(cli.open_runs, { vprof }, opts, nil, { vprof }) end },
      warn = { function() return muted("stderr", cli.warn, opts, "a %s", "warning") end },
      fail = { function() return raises(cli.fail, 2, "bad %s", "input") end },
      exit = { function() return raises(cli.exit, 0) end },
      is_exit = { function() return P(cli.is_exit, E.new("EINPUT")) end },
      run = { function() return P(cli.run, function(x) return x end, 1) end },
      json = { function() return muted("stdout", cli.json, { a = 1 }, "{a}") end },
      encode_json = { function() return P(cli.encode_json, { a = 1 }) end },
      decode_json = { function() return P(cli.decode_json, "[1]") end },
      array = { function() return P(cli.array, {}) end },
      error_json = { function() return P(cli.error_json, "a.vprof", "why", 2) end },
      write_output = { function() return P(cli.write_output, dir .. "/cli.out", "text") end,
        function() return muted("stdout", cli.write_output, nil, "") end },
      check_output = { function() return P(cli.check_output, dir .. "/cli.out") end,
        function() return P(cli.check_output, dir) end },
      check_order = { function() return P(cli.check_order, spec, "Physics", vprof) end },
      parse_range = { function() return P(cli.parse_range, "1:10") end,
        function() return P(cli.parse_range, "x") end },
      duration_ms = { function() return P(cli.duration_ms, "1m") end },
      range_of = { function() return P(cli.range_of, cli.open(vprof, opts, nil, true)) end },
      format_ids = { function() return P(cli.format_ids) end },
      reads = { function() return P(cli.reads, spec, "vprof") end },
      lfs = { function() return P(cli.lfs) end },
      terminal = { function() return P(cli.terminal, "stdout") end },
      progress = { function() return P(cli.progress, "x", 10) end },
      on_progress = { function() return P(cli.on_progress, "x") end },
    },
    ["vp.error"] = {
      new = { function() return P(E.new, "EINPUT", "why") end },
      raise = { function() return raises(E.raise, "EUSAGE", "bad %s", "x") end },
      is = { function() return P(E.is, {}) end },
      message = { function() return P(E.message, E.new("EIO", "why")) end },
      format = { function() return P(E.format, "%s", "a\nb") end },
      exit_code = { function() return P(E.exit_code, "EGATE") end },
      code_of = { function() return P(E.code_of, 3) end },
      check_format = { function() return P(E.check_format, { format = "dm" }, "dm", "x") end,
        function() return raises(E.check_format, { format = "dm" }, "vprof", "x") end },
      check_number = { function() return P(E.check_number, 1, "k", "x") end,
        function() return raises(E.check_number, -1, "k", "x") end },
      check_count = { function() return P(E.check_count, 1, "k", "x") end,
        function() return raises(E.check_count, 0.5, "k", "x") end },
    },
    ["vp.output"] = {
      check = { function() return P(output.check, dir .. "/o.txt") end, function() return P(output.check, dir) end },
      open = { function()
        local r = P(output.open, dir .. "/o.txt", "-o")
        r[1]:abort()
        return r
      end },
      write = { function() return P(output.write, dir .. "/o.txt", "text", "-o") end },
    },
  }
end

-- The calls of the modules that write what a script shows (vp.doc.pages).
local function pages_calls(P, cap, dir)
  local export, overview, html = require "vp.export", require "vp.overview", require "vp.html"
  local cmp, gate = require "vp.compare", require "vp.gate"
  local crender, grender, hrender = require "vp.compare.render", require "vp.gate.render", require "vp.history.render"
  local history, store = require "vp.history", require "vp.history.store"
  local lean = overview.analyze(cap, { explore = false, width = 50 })
  local r = cmp.analyze(cap, cap)
  local g = grender.document(gate.evaluate(gate.validate({ { metric = "frame_ms.p99", max = 20 } }), cap))
  local db = store.open(dir .. "/render.db")
  history.add(db, { history.measure(cap, history.metadata({ time = "2024-01-01" }, {}, cap.path),
    { match = { "^frames$" } }) })
  local changes, trend = history.changes(db), history.trend(db)
  changes.store, trend.store = db.name, db.name
  return {
    ["vp.export"] = {
      write = { function()
        local f = assert(io.open(dir .. "/export.csv", "w"))
        local out = P(export.write, cap, "csv", f)
        f:close()
        return out
      end },
      targets_of = { function() return P(export.targets_of, "dm") end },
      buffer = { function() return P(export.buffer, io.stdout) end },
    },
    ["vp.overview"] = { analyze = { function() return P(overview.analyze, cap, { width = 50 }) end } },
    ["vp.html"] = {
      report = { function() return P(html.report, lean) end },
      page = { function() return P(html.page, "t", "m", { { id = "a", title = "A", body = "" } }) end },
      table = { function() return P(html.table, { { key = "n", title = "n" } }, { { n = 1 } }) end },
      esc = { function() return P(html.esc, "a < b") end },
      pack = { function() return P(html.pack, { 0, 1, 300 }) end },
      live = { function() return P(html.live, overview.analyze(cap, { width = 50 })) end,
        function() return P(html.live, lean) end },
    },
    ["vp.compare.render"] = {
      document = { function() return P(crender.document, r) end },
      emit = { function() return muted("stdout", crender.emit, r, { limit = 10 }) end },
      phases_text = { function() return P(crender.phases_text, r.pairing.phases_a) end },
    },
    ["vp.hitches.render"] = {
      windows = { function()
        return P(require("vp.hitches.render").windows, require("vp.hitches").analyze(cap, { per_ms = 10000 }).windows)
      end },
    },
    ["vp.gate.render"] = {
      document = { function()
        return P(grender.document, gate.evaluate(gate.validate({ { metric = "frame_ms.p99", max = 20 } }), cap))
      end },
      emit = { function() return muted("stdout", grender.emit, g, {}, "rules.lua") end },
    },
    ["vp.history.render"] = {
      changes_model = { function() return P(hrender.changes_model, changes, history.schema) end },
      changes_rows = { function() return P(hrender.changes_rows, changes) end },
      junit = { function() return P(hrender.junit, changes) end },
      trend_model = { function() return P(hrender.trend_model, trend, history.trend_schema, 0) end },
      trend_svg = { function() return P(hrender.trend_svg, trend) end },
      trend_html = { function() return P(hrender.trend_html, trend) end },
      series_name = { function() return P(hrender.series_name, trend.series[1]) end },
      sparkline = { function() return P(hrender.sparkline, { 1, 3, 2 }) end },
    },
  }
end

describe("documented functions return what their signature names", function()
  local dir, caps = nil, {}
  setup(function()
    dir = h.tmpdir()
    for _, f in ipairs({ "vprof", "dw", "dlag", "devt", "dm" }) do
      caps[f] = assert(vp.open("examples/sample." .. f))
    end
    local laige = require "vp.laige"
    caps.profile = assert(laige.open("examples/laige/profile.json"))
    caps.budget = assert(laige.open("examples/laige/budget_fail.txt"))
  end)
  teardown(function()
    for _, c in pairs(caps) do c:close() end
    h.cleanup()
  end)

  -- class -> function name -> list of calls; each returns table.pack(f(...)).
  local function calls()
    local cap, ft = caps.vprof, caps.vprof:frame_times()
    local cmp, infer = require "vp.compare", require "vp.infer"
    local side = cmp.side(cap)
    local sample, tiny = infer.sample(ft), infer.sample({ 1 })
    local trace
    for t in caps.dw:traces() do
      if #t:hit_list("client") > 0 then
        trace = t
        break
      end
    end
    local m, tmp = require "vp.metrics", dir .. "/out"
    local function P(f, ...) return table.pack(f(...)) end
    local cli = cli_calls(P, dir)
    cli = { cli = cli["vp.cli"], error = cli["vp.error"], output = cli["vp.output"] }
    local pages = pages_calls(P, cap, dir)
    local suite = require("vp.junit").suite({ file = "a.vprof", results = {} })
    require("vp.junit").write(tmp .. ".1.xml", suite)
    return {
      ["vp"] = {
        open = { function() return P(vp.open, "examples/sample.vprof") end,
          function() return P(vp.open, dir .. "/missing.vprof") end },
        open_all = { function() return P(vp.open_all, { "examples/sample.vprof", dir .. "/missing.vprof" }) end },
        batches_all = { function()
          local c = vp.open("examples/runs/base/run1.vprof")
          return P(vp.batches_all, { { c, { c.root }, "time_ms", { batches = { 0, 1500, 3000 } } } })
        end },
        frames_of = { function() return P(vp.frames_of, { -10 }, 100) end,
          function() return P(vp.frames_of, { 200 }, 100) end },
        detect = { function() return P(vp.detect, "examples/sample.dm") end,
          function() return P(vp.detect, dir .. "/missing.vprof") end },
        formats = { function() return P(vp.formats) end },
        writer = { function() return P(vp.writer, "vprof", dir .. "/w.vprof") end },
        Series = { function() return P(vp.Series, { 1, 2 }) end },
        Dist = { function() return P(vp.Dist, { 1, 2 }) end,
          function() return P(vp.Dist, vp.Series { 0.004, 0.008 }, 0.004) end },
        sha256 = { function() return P(vp.sha256, "abc") end },
        sha256_file = { function() return P(vp.sha256_file, "examples/sample.dm") end,
          function() return P(vp.sha256_file, dir .. "/missing.vprof") end },
      },
      ["vp.changepoint"] = {
        detect = { function() return P(require("vp.changepoint").detect, { 1, 1, 1, 1, 2, 2, 2, 2 }) end },
        best_split = { function() return P(require("vp.changepoint").best_split, { 1, 1, 1, 2, 2, 2 }, 1, 6, 2) end },
      },
      ["vp.history"] = history_calls(P, cap, dir),
      ["vp.cli"] = cli.cli, ["vp.error"] = cli.error, ["vp.output"] = cli.output,
      ["vp.export"] = pages["vp.export"], ["vp.overview"] = pages["vp.overview"], ["vp.html"] = pages["vp.html"],
      ["vp.compare.render"] = pages["vp.compare.render"], ["vp.gate.render"] = pages["vp.gate.render"],
      ["vp.history.render"] = pages["vp.history.render"], ["vp.hitches.render"] = pages["vp.hitches.render"],
      ["vp.history.store"] = {
        open = { function() return P(require("vp.history.store").open, dir .. "/store.db") end },
        kind = { function() return P(require("vp.history.store").kind, "sqlite:x.db") end },
        safe_url = { function() return P(require("vp.history.store").safe_url, "postgresql://u:pw@h/db") end },
      },
      ["vp.hitches"] = { analyze = { function() return P(require("vp.hitches").analyze, cap) end } },
      ["vp.hitches.core"] = {
        detect = { function() return P(require("vp.hitches.core").detect, cap) end },
        causes = { function() return P(require("vp.hitches.core").causes, cap, 1200) end },
      },
      ["vp.budget"] = {
        analyze = { function() return P(require("vp.budget").analyze, cap) end },
        group_stats = { function() return P(require("vp.budget").group_stats, ft, ft:sum()) end },
      },
      ["vp.top"] = { analyze = { function() return P(require("vp.top").analyze, cap) end } },
      ["vp.info"] = {
        analyze = { function() return P(require("vp.info").analyze, cap) end },
        schema_for = { function()
          return P(require("vp.info").schema_for, select(2, require("vp.info").analyze(cap)))
        end },
        key = { function() return P(require("vp.info").key, "trailing bytes") end },
      },
      ["vp.hitdiff"] = {
        analyze = { function() return P(require("vp.hitdiff").analyze, caps.dw) end },
        classify = { function() return P(require("vp.hitdiff").classify, trace:hit_list("client"),
          trace:hit_list("server")) end, function() return P(require("vp.hitdiff").classify, {}, {}) end },
      },
      ["vp.lag"] = {
        analyze = { function() return P(require("vp.lag").analyze, caps.dlag) end },
        measurement_doc = { function() return P(require("vp.lag").measurement_doc, caps.dlag,
          caps.dlag:measurement("Socket RTT")) end },
        summary = { function() return P(require("vp.lag").summary, caps.dlag:measurement("Socket RTT"):values()) end },
      },
      ["vp.events"] = { analyze = { function() return P(require("vp.events").analyze, caps.devt) end } },
      ["vp.movement"] = { analyze = { function() return P(require("vp.movement").analyze, caps.dm) end } },
      ["vp.laige"] = {
        open = { function() return P(require("vp.laige").open, "examples/laige/profile.json") end,
          function() return P(require("vp.laige").open, dir .. "/missing.json") end },
        metrics = { function() return P(require("vp.laige").metrics, caps.profile) end },
        kind = { function() return P(require("vp.laige").kind, caps.budget) end },
        budget_pct = { function() return P(require("vp.laige").budget_pct, caps.budget.systems[1]) end },
        system_p99 = { function() return P(require("vp.laige").system_p99, caps.budget.systems[1]) end },
        system_over = { function() return P(require("vp.laige").system_over, caps.budget.systems[1]) end },
        over_budget = { function() return P(require("vp.laige").over_budget, caps.budget) end },
        analyze = { function() return P(require("vp.laige").analyze, caps.budget) end },
        schema_of = { function()
          return P(require("vp.laige").schema_of, require("vp.laige").analyze(caps.budget))
        end },
      },
      ["vp.metrics"] = {
        compute = { function() return P(m.compute, cap, { "frame_ms.p99", "no.such" }) end },
        value = { function() return P(m.value, cap, "low_1pct_fps") end,
          function() return P(m.value, cap, "no.such") end },
        distribution = { function() return P(m.distribution, cap, "frame_ms.p99") end,
          function() return P(m.distribution, cap, "no.such") end },
        list = { function() return P(m.list) end },
        lookup = { function() return P(m.lookup, "group.Physics.p99_ms") end,
          function() return P(m.lookup, "no.such") end },
        available = { function() return P(m.available, cap) end },
        delta = { function() return P(m.delta, "frame_ms.p99", 16, 18) end },
        polarity = { function() return P(m.polarity, m.lookup("frame_ms.p99")) end },
        finite = { function() return P(m.finite, 1 / 0) end },
        statistic = { function() return P(m.statistic, "frame_ms.p99") end },
        script_document = { function() return P(m.script_document, cap, "hitches") end,
          function() return P(m.script_document, cap, "no.such") end },
      },
      ["vp.compare"] = {
        analyze = { function() return P(require("vp.compare").analyze, cap, cap) end },
        side = { function() return P(require("vp.compare").side, cap) end },
        metric = { function() return P(cmp.metric, side, side, "frame_ms.mean", { 16.1 }, { 16.6 }) end,
          function() return P(cmp.metric, side, side, "no.such", { 1 }, { 2 }) end },
        distribution = { function() return P(cmp.distribution, side, side, "frame_ms.mean") end,
          function() return P(cmp.distribution, side, side, "hitches") end },
        significance = { function()
          return P(require("vp.compare").significance, { { a = { 1, 2, 3 }, b = { 4, 5, 6 } } })
        end },
      },
      ["vp.gate"] = {
        rules = { function() return P(require("vp.gate").rules, "examples/rules/vprof.lua") end },
        load = { function() return P(require("vp.gate").load, "examples/rules/vprof.lua") end },
        validate = { function() return P(require("vp.gate").validate, { { metric = "frame_ms.p99", max = 20 } }) end },
        evaluate = { function() return P(require("vp.gate").evaluate,
          require("vp.gate").validate({ { metric = "frame_ms.p99", max = 20 } }), cap) end },
      },
      ["vp.infer"] = {
        sample = { function() return P(infer.sample, ft) end },
        compare = { function() return P(infer.compare, { kind = "mean" }, sample, sample) end,
          function() return P(infer.compare, { kind = "mean" }, tiny, tiny) end },
        estimate = { function() return P(infer.estimate, { kind = "mean" }, sample) end,
          function() return P(infer.estimate, { kind = "mean" }, tiny) end },
        difference = { function()
          local e = infer.estimate({ kind = "mean" }, sample)
          return P(infer.difference, e, e)
        end },
        runs = { function() return P(infer.runs, { 16.1, 16.3, 16.0 }, { 16.9, 16.7, 17.0 }) end,
          function() return P(infer.runs, { 16.1 }, { 16.9 }) end },
        shape = { function() return P(infer.shape, sample, sample) end,
          function() return P(infer.shape, tiny, tiny) end },
        effects = { function() return P(infer.effects, sample, sample) end },
        batch_variance = { function() return P(infer.batch_variance, { 1, 2, 3, 4, 5 }) end },
        holm = { function() return P(infer.holm, { 0.01, 0.04 }) end },
      },
      ["vp.multi"] = {
        parse = { function() return P(require("vp.multi").parse, { "examples/sample.vprof" },
          { name = "x.lua", positional = { { "CAPTURE" } } }) end },
        expand = { function() return P(require("vp.multi").expand, { "examples/sample.vprof" }) end },
        shard = { function() return P(require("vp.multi").shard, { "a", "b", "c" }, "2/2") end },
      },
      ["vp.junit"] = {
        suite = { function() return P(require("vp.junit").suite, { file = "a.vprof", results = {} }) end },
        write = { function() return P(require("vp.junit").write, tmp .. ".2.xml", suite) end },
        merge = { function() return P(require("vp.junit").merge, { { file = "a.vprof", path = tmp .. ".1.xml" } },
          tmp .. ".all.xml") end },
        escape = { function() return P(require("vp.junit").escape, "a < b") end },
      },
      ["vp.tree"] = {
        analyze = { function() return P(require("vp.tree").analyze, cap) end },
        frame_range = { function() return P(require("vp.tree").frame_range, cap, {}, "x") end },
      },
      ["vp.node"] = {
        analyze = { function() return P(require("vp.node").analyze, cap, { node = "Physics_Step" }) end },
        resolve = { function() return P(require("vp.node").resolve, cap, "Physics_Step") end },
      },
      ["vp.anchors"] = {
        capframex = { function() return P(require("vp.anchors").capframex, ft) end },
        unreal = { function() return P(require("vp.anchors").unreal, ft) end },
        capframex_low = { function() return P(require("vp.anchors").capframex_low, ft, 1) end },
        capframex_window = { function() return P(require("vp.anchors").capframex_window, 16.7) end },
        r8_quantile = { function() return P(require("vp.anchors").r8_quantile, ft, 0.5) end },
        hitch_list = { function() return P(require("vp.anchors").hitch_list, "unreal", ft) end },
      },
      ["vp.stats"] = (function()
        local st = require "vp.stats"
        return {
          percentile = { function() return P(st.percentile, ft, 99) end,
            function() return P(st.percentile, {}, 50) end },
          percentiles = { function() return P(st.percentiles, ft, { 50, 99 }) end },
          median = { function() return P(st.median, { 1, 2 }) end },
          mean = { function() return P(st.mean, { 1, 2 }) end },
          stddev = { function() return P(st.stddev, { 1, 2 }) end },
          mad = { function() return P(st.mad, { 1, 2, 9 }) end },
          slowest_count = { function() return P(st.slowest_count, 4000, 1) end },
          low_fps = { function() return P(st.low_fps, ft, 1) end, function() return P(st.low_fps, {}, 1) end },
          summary = { function() return P(st.summary, ft) end },
          defined = { function() return P(st.defined, 0 / 0) end, function() return P(st.defined, 1) end },
        }
      end)(),
      ["vp.fmt"] = (function()
        local f = require "vp.fmt"
        return {
          int = { function() return P(f.int, 51249) end }, ms = { function() return P(f.ms, 1.5) end },
          fixed = { function() return P(f.fixed, 2.5, 2) end }, number = { function() return P(f.number, 16.7) end },
          pct = { function() return P(f.pct, 4.2) end }, p_value = { function() return P(f.p_value, 0.01) end },
          bytes = { function() return P(f.bytes, 1024) end }, duration = { function() return P(f.duration, 850) end },
          span = { function() return P(f.span, 60000) end },
          frames = { function() return P(f.frames, 201, 3000, 3200) end },
          truncate = { function() return P(f.truncate, "abcdef", 4) end },
          table = { function() return P(f.table, { { a = 1 } }, { { key = "a", title = "A" } }) end },
          kv = { function() return P(f.kv, { { "a", "1" } }) end },
        }
      end)(),
      ["vp.report"] = (function()
        local rp = require "vp.report"
        local model = { title = "t", sections = { { rows = { { n = 1 } }, columns = { { key = "n", title = "n" } } } } }
        return {
          emit = { function() return muted("stdout", rp.emit, {}, model) end },
          text = { function() return P(rp.text, model) end },
          width = { function() return P(rp.width, { wide = true }) end, function() return P(rp.width, {}) end },
          csv = { function() return P(rp.csv, { "n" }, { { n = 1 } }) end },
        }
      end)(),
      ["vp.charts"] = (function()
        local ch = require "vp.charts"
        return {
          frametime = { function() return P(ch.frametime, cap, { width = 50 }) end },
          node = { function() return P(ch.node, cap, "Root/CEngine::Frame", { width = 50 }) end },
          group = { function() return P(ch.group, cap, "Physics", { width = 50 }) end },
          distribution = { function() return P(ch.distribution, cap) end },
          exceedance = { function() return P(ch.exceedance, cap) end },
          budget = { function() return P(ch.budget, cap, { width = 50 }) end },
          sparkline = { function() return P(ch.sparkline, cap, 20) end },
          targets = { function() return P(ch.targets) end },
        }
      end)(),
      ["vp.svg"] = (function()
        local sv, ch = require "vp.svg", require "vp.charts"
        return {
          frametime = { function() return P(sv.frametime, ch.frametime(cap, { width = 50 })) end },
          series = { function() return P(sv.series, ch.group(cap, "Physics", { width = 50 })) end },
          histogram = { function() return P(sv.histogram, ch.distribution(cap)) end },
          exceedance = { function() return P(sv.exceedance, ch.exceedance(cap)) end },
          budget = { function() return P(sv.budget, ch.budget(cap, { width = 50 })) end },
          lines = { function() return P(sv.lines, { { name = "a", points = { { x = 1, y = 2 } } } }) end },
          bars = { function() return P(sv.bars, { { label = "a", parts = { { name = "x", value = 1 } } } }) end },
          sparkline = { function() return P(sv.sparkline, { 1, 2, 3 }) end },
        }
      end)(),
      ["vp.repl"] = {
        format = { function() return P(require("vp.repl").format, { a = { b = { c = { 1 } } } }) end },
        describe = { function() return P(require("vp.repl").describe, cap) end },
        show = { function() return muted("stdout", require("vp.repl").show, 42) end },
        cut_hint = { function() return P(require("vp.repl").cut_hint, { depth = true }) end },
        natural_less = { function() return P(require("vp.repl").natural_less, "a2", "a10") end },
        complete = { function() return P(require("vp.repl").complete, "pri", { print = print }) end },
        error_text = { function() return P(require("vp.repl").error_text, "x") end },
        totals_hint = { function() return P(require("vp.repl").totals_hint, {}) end },
        nil_hint = { function() return P(require("vp.repl").nil_hint, "t.k") end,
          function() return P(require("vp.repl").nil_hint, "nothing to look up") end },
        help_text = { function() return P(require("vp.repl").help_text, "Series") end },
      },
    }
  end

  it("for the vp module and every stdlib module with a documentation class", function()
    local table_ = calls()
    local wrong, uncalled = {}, {}
    for _, c in ipairs(doc.classes()) do
      for _, member in ipairs(c.members) do
        if member.kind == "function" then
          local list = table_[c.class] and table_[c.class][member.name]
          if not list then
            uncalled[#uncalled + 1] = c.class .. "." .. member.name
          else
            local most = 0
            for _, call in ipairs(list) do
              local r = call()
              most = math.max(most, r.n)
            end
            local want = #returns(member.sig)
            if most ~= want then
              wrong[#wrong + 1] = string.format("%s.%s: returns up to %d values, its signature names %d (%s)",
                c.class, member.name, most, want, member.sig)
            end
          end
        end
      end
    end
    assert.are.same({}, uncalled, "documented functions this spec does not call: add a call")
    assert.are.same({}, wrong)
  end)
end)
