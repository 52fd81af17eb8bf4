-- vp.metrics: the catalogue's shape, name lookup (patterns with spaces,
-- slashes and dots in NAME), values on captures with hand-planted numbers
-- (VProf, weapon traces, lag traces, laige reports), per-frame
-- distributions, work done only for the names asked, the change helper,
-- and the metric table generated from the catalogue.
local vp = require "vp"
local h = require "helpers"
local fx = require "gate_fixtures"
local metrics = require "vp.metrics"

local function near(a, b, eps)
  assert(type(a) == "number", "expected a number, got " .. tostring(a))
  if math.abs(a - b) > (eps or 1e-9) then
    error(string.format("expected %.12g, got %.12g", b, a), 2)
  end
end

-- Runs body with the fields of t replaced by those of `fakes`, puts the
-- originals back whether body raised or not, then raises body's error.
local function patched(t, fakes, body)
  local real = {}
  for k, v in pairs(fakes) do real[k], t[k] = t[k], v end
  local ok, err = pcall(body)
  for k, v in pairs(real) do t[k] = v end
  assert(ok, err)
end

-- 10 frames. Frame > {Physics, Render}, Late added in frame 6.
--   Physics: 3 ms x 9, 12 ms in frame 10, 2 calls per frame
--   Render: 5 ms
--   Late: 2 ms, 4 calls, frames 6..10 (absent before)
-- frame time = Physics + Render + Late.
local function build_small(path)
  local frames = {}
  for i = 1, 10 do
    local phys = i == 10 and 12000 or 3000
    local late = i >= 6 and 2000 or 0
    local f = { tick = i, [1] = phys + 5000 + late, [2] = { us = phys, calls = 2 }, [3] = 5000 }
    if i >= 6 then f[4] = { us = late, calls = 4 } end
    if i == 6 then f.add = { { id = 4, parent = 1, name = "Late", group = "Late.Group/x y" } } end
    frames[i] = f
  end
  return h.vprof(path, {
    groups = { "Late.Group/x y" },
    nodes = {
      { id = 1, parent = 0, name = "Frame", group = "Game" },
      { id = 2, parent = 1, name = "Physics", group = "Physics" },
      { id = 3, parent = 1, name = "Render", group = "World Rendering" },
    },
    frames = frames,
  })
end

describe("vp.metrics", function()
  local dir
  setup(function() dir = h.tmpdir() end)

  -- The shipped examples generated into dir/<name>: that directory.
  local function examples_in(name)
    local outdir = dir .. "/" .. name
    os.execute("mkdir -p " .. h.quote(outdir))
    assert.equal(0, h.run("examples/generate.lua", outdir).code)
    return outdir
  end
  teardown(h.cleanup)

  describe("the catalogue", function()
    it("gives every metric a unit, a polarity, a definition and known formats; names are unique", function()
      local known = {}
      for _, f in ipairs(vp.formats()) do known[f.name] = true end
      local seen = {}
      local list = metrics.list()
      assert.is_true(#list > 50)
      for _, e in ipairs(list) do
        assert.is_nil(seen[e.name], "duplicate " .. e.name)
        seen[e.name] = true
        assert.is_true(type(e.unit) == "string" and e.unit ~= "", e.name)
        assert.is_truthy(({ lower = 1, higher = 1, none = 1, depends = 1 })[e.polarity], e.name)
        assert.is_true(type(e.doc) == "string" and #e.doc > 10, e.name)
        assert.is_true(#e.formats > 0, e.name)
        for _, f in ipairs(e.formats) do assert.is_true(known[f], e.name .. ": " .. f) end
        assert.equal(e.pattern, e.name:find("%u") ~= nil, e.name)
        if e.distribution then
          for _, f in ipairs(e.distribution_formats) do assert.is_true(known[f], e.name) end
        end
      end
      for _, want in ipairs({ "frame_ms.p50", "frame_ms.p95", "frame_ms.p99", "frame_ms.mean", "frame_ms.max",
        "hitches", "stutter_pct", "low_1pct_fps", "low_01pct_fps", "group.NAME.mean_ms", "group.NAME.p99_ms",
        "group.NAME.max_ms", "node.PATH.mean_ms", "node.PATH.p99_ms", "node.PATH.calls_per_frame",
        "hitdiff.rate_pct", "hitdiff.KIND", "lag.NAME.p95", "tick_ms.p99", "system.NAME.p99_ms",
        "budget.NAME.after", "overall" }) do
        assert.is_true(seen[want], want)
      end
    end)

    it("says which way is better", function()
      assert.equal("lower", metrics.polarity(metrics.lookup("frame_ms.p99")))
      assert.equal("higher", metrics.polarity(metrics.lookup("low_1pct_fps")))
      assert.equal("higher", metrics.polarity(metrics.lookup("overall")))
      assert.equal("none", metrics.polarity(metrics.lookup("frames")))
      local e, p = metrics.lookup("lag.Socket RTT.p95")
      assert.equal("lower", metrics.polarity(e, p))
      e, p = metrics.lookup("lag.Game Bytes Sent.p95")
      assert.equal("none", metrics.polarity(e, p))
    end)

    it("matches pattern names whose NAME has spaces, slashes and dots", function()
      local e, p = metrics.lookup("group.Particle/Effect_Rendering.p99_ms")
      assert.equal("group.NAME.p99_ms", e.name)
      assert.equal("Particle/Effect_Rendering", p)
      e, p = metrics.lookup("group.a.b c.mean_ms")
      assert.equal("group.NAME.mean_ms", e.name)
      assert.equal("a.b c", p)
      e, p = metrics.lookup("node.Root/CEngine::Frame/Physics.calls_per_frame")
      assert.equal("node.PATH.calls_per_frame", e.name)
      assert.equal("Root/CEngine::Frame/Physics", p)
      e, p = metrics.lookup("hitdiff.position_mismatch")
      assert.equal("hitdiff.KIND", e.name)
      assert.equal("position_mismatch", p)
      assert.equal("hitdiff.rate_pct", (metrics.lookup("hitdiff.rate_pct")).name)
      assert.equal("events.GROUP.TYPE.count", (metrics.lookup("events.frames.Frame.count")).name)
      assert.equal("group.X.share_pct", metrics.entry_name(metrics.lookup("group.NAME.share_pct"), "X"))
    end)

    it("rejects unknown names with a message", function()
      for _, bad in ipairs({ "frame_ms.p98x", "group..mean_ms", "hitdiff.bogus", "group.Physics", "node.x.y" }) do
        local e, msg = metrics.lookup(bad)
        assert.is_nil(e, bad)
        assert.equal("unknown metric '" .. bad .. "'", msg:match("^unknown metric '.-'"))
        assert.matches(" %(see docs/metrics%-table%.md or metrics%.list%(%)%)$", msg)
      end
      local e, msg = metrics.lookup("")
      assert.is_nil(e)
      assert.matches("non%-empty string", msg)
    end)
  end)

  describe("on a VProf capture with planted values", function()
    local cap
    setup(function() cap = assert(vp.open(build_small(dir .. "/small.vprof"))) end)
    teardown(function() cap:close() end)

    it("frame time statistics and low FPS", function()
      -- frame times: 8 x5, 10 x4 (frames 6..9), 19 (frame 10)
      local v = metrics.compute(cap, { "frames", "frame_ms.mean", "frame_ms.p50", "frame_ms.p99", "frame_ms.max",
        "low_1pct_fps", "low_01pct_fps" })
      assert.equal(10, v.frames)
      near(v["frame_ms.mean"], (5 * 8 + 4 * 10 + 19) / 10)
      near(v["frame_ms.p50"], 8)
      near(v["frame_ms.p99"], 19)
      near(v["frame_ms.max"], 19)
      near(v.low_1pct_fps, 1000 / 19)
      near(v.low_01pct_fps, 1000 / 19)
    end)

    it("group self time per frame, by name, including a custom group with dots, slashes and spaces", function()
      local v, problems = metrics.compute(cap, { "group.Physics.mean_ms", "group.Physics.p50_ms",
        "group.Physics.p99_ms", "group.Physics.max_ms", "group.Late.Group/x y.mean_ms",
        "group.World Rendering.share_pct", "group.Nothing.mean_ms" })
      near(v["group.Physics.mean_ms"], (9 * 3 + 12) / 10)
      near(v["group.Physics.p50_ms"], 3)
      near(v["group.Physics.p99_ms"], 12)
      near(v["group.Physics.max_ms"], 12)
      near(v["group.Late.Group/x y.mean_ms"], 1.0) -- 2 ms in 5 of 10 frames
      near(v["group.World Rendering.share_pct"], 100 * 50 / 99)
      assert.is_nil(v["group.Nothing.mean_ms"])
      assert.matches("no budget group named 'Nothing'", problems["group.Nothing.mean_ms"])
    end)

    it("node metrics per frame over all frames (0 where the node is absent), by full or relative path", function()
      local v = metrics.compute(cap, { "node.Root/Frame/Late.mean_ms", "node.Frame/Late.calls_per_frame",
        "node.Root/Frame/Physics.calls_per_frame", "node.Root/Frame/Physics.max_ms",
        "node.Root/Frame/Physics.p99_ms", "node.Root/Frame/Physics.p95_ms", "node.Root/Frame.self_ms" })
      near(v["node.Root/Frame/Late.mean_ms"], 1.0)
      near(v["node.Frame/Late.calls_per_frame"], 2.0) -- 4 calls in 5 of 10 frames
      near(v["node.Root/Frame/Physics.calls_per_frame"], 2)
      near(v["node.Root/Frame/Physics.max_ms"], 12)
      near(v["node.Root/Frame/Physics.p99_ms"], 12)
      near(v["node.Root/Frame/Physics.p95_ms"], 12) -- rank 10 of 10
      near(v["node.Root/Frame.self_ms"], 0)
      local _, problems = metrics.compute(cap, { "node.Root/Nope.mean_ms" })
      assert.matches("no node 'Root/Nope'", problems["node.Root/Nope.mean_ms"])
    end)

    it("per-frame distributions behind frame, group and node metrics", function()
      local s = assert(metrics.distribution(cap, "frame_ms.p99"))
      assert.same(cap:frame_times():totable(), s:totable())
      local g = assert(metrics.distribution(cap, "group.Physics.max_ms"))
      assert.same({ 3, 3, 3, 3, 3, 3, 3, 3, 3, 12 }, g:totable())
      local c = assert(metrics.distribution(cap, "node.Root/Frame/Late.calls_per_frame"))
      assert.same({ 0, 0, 0, 0, 0, 4, 4, 4, 4, 4 }, c:totable())
      local t = assert(metrics.distribution(cap, "node.Root/Frame/Late.p99_ms"))
      assert.same({ 0, 0, 0, 0, 0, 2, 2, 2, 2, 2 }, t:totable())
      local none, msg = metrics.distribution(cap, "hitches")
      assert.is_nil(none)
      assert.matches("no per%-frame distribution", msg)
      assert.equal(metrics.distribution_key("group.Physics.mean_ms"), metrics.distribution_key("group.Physics.p99_ms"))
      assert.are_not.equal(metrics.distribution_key("group.Physics.mean_ms"),
        metrics.distribution_key("group.Render.mean_ms"))
    end)

    it("refuses metrics of another format", function()
      local v, problems = metrics.compute(cap, { "hitdiff.rate_pct", "tick_ms.p99", "bogus.metric" })
      assert.is_nil(next(v))
      assert.matches("does not apply to vprof captures", problems["hitdiff.rate_pct"])
      assert.matches("does not apply to vprof captures", problems["tick_ms.p99"])
      assert.matches("unknown metric", problems["bogus.metric"])
    end)

    it("lists what the capture has, grouped by group and node (the root left out)", function()
      local names = {}
      for _, r in ipairs(metrics.available(cap)) do names[r.name] = r.entity or true end
      assert.equal("group:Physics", names["group.Physics.mean_ms"])
      assert.equal("node:Root/Frame/Late", names["node.Root/Frame/Late.p99_ms"])
      assert.is_true(names["frame_ms.p99"])
      assert.is_nil(names["node.Root.mean_ms"])
      assert.is_nil(names["group.Replay.mean_ms"]) -- no nodes
      local light = {}
      for _, r in ipairs(metrics.available(cap, { series_pass = false })) do light[r.name] = true end
      assert.is_nil(light["node.Root/Frame/Late.p99_ms"])
      assert.is_true(light["node.Root/Frame/Late.mean_ms"])
    end)
  end)

  it("hitches and stutter come from hitches.lua, run only when asked, once per capture", function()
    local path = fx.vprof(dir .. "/hitch.vprof", { seed = 3, frames = 300, hitches = { 100, 200 } })
    local cap = assert(vp.open(path))
    -- count the runs of the analysis itself (vp.hitches.analyze)
    local hitches = require "vp.hitches"
    local calls = 0
    local real = hitches.analyze
    local function counted(...)
      calls = calls + 1
      return real(...)
    end
    patched(hitches, { analyze = counted }, function()
      metrics.compute(cap, { "frame_ms.p99", "group.Physics.mean_ms", "node.Root/CEngine::Frame.mean_ms",
        "low_1pct_fps" })
      assert.equal(0, calls)
      local v = metrics.compute(cap, { "hitches", "stutter_pct" })
      assert.equal(1, calls) -- both from one run
      assert.equal(2, v.hitches)
      assert.equal(2, #metrics.script_document(cap, "hitches").hitches)
      assert.equal(2, metrics.value(cap, "hitches"))
      assert.equal(1, calls) -- once per capture
      local doc = h.run_json("scripts/hitches.lua", path, "--json")
      assert.equal(#doc.hitches, v.hitches)
      near(v.stutter_pct, doc.stutter_pct, 1e-12)
      -- by hand: the two hitch frames' share of the total frame time
      local ft = cap:frame_times()
      near(v.stutter_pct, 100 * (ft[100] + ft[200]) / ft:sum(), 1e-9)
    end)
    cap:close()
  end)

  it("reads analysis results alike whether an absent value is nil or JSON null", function()
    local C = require "vp.metrics.context"
    local null = require("cjson").null
    assert.is_nil(C.get({ a = null }, "a"))
    assert.is_nil(C.get({ a = 0 / 0 }, "a"))
    assert.is_nil(C.get({ a = { b = null } }, "a", "b", "c"))
    assert.is_nil(C.get({ a = null }, "a", "b"))
    assert.equal(3, C.get({ a = { b = 3 } }, "a", "b"))
    assert.same({}, C.get({ a = {} }, "a"))
    -- the same capture figures from a result with nil and one with null
    local hitches = require "vp.hitches"
    local path = fx.vprof(dir .. "/nullnil.vprof", { seed = 4, frames = 100 })
    local got = {}
    for _, absent in ipairs({ null, false }) do
      local function analyze() return { hitches = {}, stutter_pct = absent or nil, frame_ms = absent or nil } end
      patched(hitches, { analyze = analyze }, function()
        local cap = assert(vp.open(path))
        local v, problems = metrics.compute(cap, { "hitches", "stutter_pct" })
        got[#got + 1] = { v, problems }
        cap:close()
      end)
    end
    assert.same(got[1], got[2])
    assert.same({ hitches = 0 }, got[1][1])
    assert.equal("not measured in this capture", got[1][2].stutter_pct)
  end)

  it("node percentiles of several nodes come from one C pass, equal to one pass per node", function()
    local cap = assert(vp.open(fx.vprof(dir .. "/nodes.vprof", { seed = 5, frames = 200, extra = { "A", "B" } })))
    local methods = rawget(getmetatable(cap), "__methods")
    local real, real_all, passes = methods.series, vp.batches_all, 0
    local function counted(...)
      passes = passes + 1
      return real(...)
    end
    -- several captures' passes go through vp.batches_all: one request each
    local function counted_all(requests)
      passes = passes + #requests
      return real_all(requests)
    end
    patched(vp, { batches_all = counted_all }, function() patched(methods, { series = counted }, function()
      local names = {}
      for _, r in ipairs(metrics.available(cap)) do
        if r.name:match("^node%..*%.p9[59]_ms$") then names[#names + 1] = r.name end
      end
      assert.is_true(#names >= 14)
      names[#names + 1] = "node.Root/Nope.p99_ms"
      local v, problems = metrics.compute(cap, names)
      assert.equal(1, passes)
      assert.matches("no node 'Root/Nope'", problems["node.Root/Nope.p99_ms"])
      for _, name in ipairs(names) do
        local path, stat = name:match("^node%.(.+)%.p(%d+)_ms$")
        if path ~= "Root/Nope" then
          near(v[name], real(cap, path, "time_ms"):percentile(tonumber(stat)))
        end
      end
      -- the distribution behind them is the Series of that pass
      local s = assert(metrics.distribution(cap, "node.Root/CEngine::Frame/A.p99_ms"))
      assert.equal(1, passes)
      assert.same(real(cap, "Root/CEngine::Frame/A", "time_ms"):totable(), s:totable())
    end) end)
    cap:close()
  end)

  it("never starts a child process: script-backed metrics come from the analysis modules in-process #slow", function()
    local outdir = examples_in("nochild")
    local hitchy = fx.vprof(dir .. "/hitchy.vprof", { seed = 3, frames = 300, hitches = { 100, 200 } })
    local spawned = {}
    local function popen(cmd) spawned[#spawned + 1] = cmd; return nil, "no child processes here" end
    local function execute(cmd) spawned[#spawned + 1] = cmd; return nil, "exit", 1 end
    patched(io, { popen = popen }, function()
      patched(os, { execute = execute }, function()
        for _, path in ipairs({ hitchy, outdir .. "/sample.dw", outdir .. "/sample.devt", outdir .. "/sample.dm",
          outdir .. "/sample.dlag", "examples/laige/budget_fail.txt" }) do
          local cap = assert(vp.open(path))
          local names = {}
          for _, r in ipairs(metrics.available(cap)) do names[#names + 1] = r.name end
          local v = metrics.compute(cap, names)
          for _, want in ipairs(({
            vprof = { "hitches", "stutter_pct" }, dw = { "hitdiff.rate_pct" },
            devt = { "events.frame_interval.p95_ms", "events.mean_fps", "events.span_ms" },
            dm = { "movement.corrections", "movement.distance", "movement.air_pct" },
            ["laige-budget"] = { "hitches", "stutter_pct" },
          })[cap.format] or {}) do
            assert.is_number(v[want], path .. ": " .. want)
          end
          cap:close()
        end
      end)
    end)
    assert.same({}, spawned)
  end)

  it("event, movement, group and lag metrics are the scripts' figures #slow", function()
    local outdir = examples_in("same")
    local devt = assert(vp.open(outdir .. "/sample.devt"))
    local ev = h.run_json("scripts/events.lua", outdir .. "/sample.devt", "--json")
    local v = metrics.compute(devt, { "events.frame_interval.p95_ms", "events.low_1pct_fps", "events.span_ms",
      "events.frames.Frame.count" })
    -- (the JSON carries 14 significant digits)
    near(v["events.frame_interval.p95_ms"], ev.frame_pacing.interval_p95_ms, 1e-9)
    near(v["events.low_1pct_fps"], ev.frame_pacing.low_1pct_fps, 1e-9)
    near(v["events.span_ms"], ev.span_ms, 1e-9)
    assert.equal(h.find(ev.by_type, "type_name", "Frame").count, v["events.frames.Frame.count"])
    devt:close()

    local dm = assert(vp.open(outdir .. "/sample.dm"))
    local mv = h.run_json("scripts/movement.lua", outdir .. "/sample.dm", "--json")
    v = metrics.compute(dm, { "movement.corrections", "movement.correction_max", "movement.distance",
      "movement.speed_p95" })
    assert.equal(mv.corrections.count, v["movement.corrections"])
    near(v["movement.correction_max"], mv.corrections.max_size, 1e-9)
    near(v["movement.distance"], mv.distance, 1e-9)
    near(v["movement.speed_p95"], mv.speed_velocity.p95, 1e-9)
    dm:close()

    local vpf = assert(vp.open(outdir .. "/sample.vprof"))
    local bd = h.run_json("scripts/budget.lua", outdir .. "/sample.vprof", "--json")
    local checked = 0
    for _, g in ipairs(bd.groups) do
      local base = "group." .. g.group .. "."
      v = metrics.compute(vpf, { base .. "mean_ms", base .. "p50_ms", base .. "p99_ms", base .. "max_ms",
        base .. "share_pct" })
      if v[base .. "mean_ms"] then
        checked = checked + 1
        for _, k in ipairs({ "mean_ms", "p50_ms", "p99_ms", "max_ms", "share_pct" }) do
          near(v[base .. k], g[k], 1e-9)
        end
      end
    end
    assert.is_true(checked > 5)
    vpf:close()

    local dlag = assert(vp.open(outdir .. "/sample.dlag"))
    local lg = h.run_json("scripts/lag.lua", outdir .. "/sample.dlag", "--json")
    local row = h.find(lg.measurements, "name", "Socket RTT")
    v = metrics.compute(dlag, { "lag.Socket RTT.mean", "lag.Socket RTT.p50", "lag.Socket RTT.p95",
      "lag.Socket RTT.min", "lag.Socket RTT.max", "lag.Socket RTT.samples" })
    for _, k in ipairs({ "mean", "p50", "p95", "min", "max" }) do near(v["lag.Socket RTT." .. k], row[k], 1e-9) end
    assert.equal(row.samples, v["lag.Socket RTT.samples"])
    dlag:close()
  end)

  it("weapon trace disagreement by kind, and a per-trace distribution for the rate", function()
    local cap = assert(vp.open(fx.dw(dir .. "/t.dw", { traces = 40, disagree = 6 })))
    local v = metrics.compute(cap, { "hitdiff.rate_pct", "hitdiff.traces", "hitdiff.compared",
      "hitdiff.disagree", "hitdiff.agree", "hitdiff.position_mismatch", "hitdiff.no_server_data" })
    near(v["hitdiff.rate_pct"], 15)
    assert.equal(40, v["hitdiff.traces"])
    assert.equal(40, v["hitdiff.compared"])
    assert.equal(6, v["hitdiff.disagree"])
    assert.equal(34, v["hitdiff.agree"])
    assert.equal(6, v["hitdiff.position_mismatch"])
    assert.equal(0, v["hitdiff.no_server_data"])
    local s = assert(metrics.distribution(cap, "hitdiff.rate_pct"))
    assert.equal(40, #s)
    near(s:mean() * 100, 15)
    cap:close()
  end)

  it("lag measurements by name, statistics of their samples #slow", function()
    local outdir = examples_in("ex")
    local cap = assert(vp.open(outdir .. "/sample.dlag"))
    local checked = 0
    for m in cap:measurements() do
      local vals = m:values()
      if #vals > 0 and m.name == "Socket RTT" then
        local v = metrics.compute(cap, { "lag.Socket RTT.p95", "lag.Socket RTT.max", "lag.Socket RTT.samples" })
        near(v["lag.Socket RTT.p95"], vals:percentile(95))
        near(v["lag.Socket RTT.max"], vals:max())
        assert.equal(#vals, v["lag.Socket RTT.samples"])
        assert.same(vals:totable(), metrics.distribution(cap, "lag.Socket RTT.mean"):totable())
        checked = checked + 1
      end
    end
    assert.equal(1, checked)
    cap:close()
  end)

  it("laige reports: the same values from the JSON and the text profile, budget report values", function()
    local laige = require "vp.laige"
    local pj = assert(laige.open("examples/laige/profile.json", nil, "laige-profile"))
    local pt = assert(laige.open("examples/laige/profile.txt", nil, "laige-profile"))
    local names = {}
    for _, r in ipairs(metrics.available(pj)) do names[#names + 1] = r.name end
    assert.is_true(#names > 30)
    local vj, pj_problems = metrics.compute(pj, names)
    local vt = metrics.compute(pt, names)
    assert.same(vj, vt)
    assert.is_nil(next(pj_problems))
    assert.is_number(vj["tick_ms.p99"])
    local b = assert(laige.open("examples/laige/budget_fail.txt", nil, "laige-budget"))
    local v = metrics.compute(b, { "overall", "budget.sim_tick_p99.after", "budget.sim_tick_p99.pass",
      "system.Collision.p99_ms", "systems.over_budget", "frames", "frame_ms.p99" })
    assert.equal(0, v.overall)
    near(v["budget.sim_tick_p99.after"], 9.61538)
    assert.equal(0, v["budget.sim_tick_p99.pass"])
    near(v["system.Collision.p99_ms"], 1.42069)
    assert.equal(1, v["systems.over_budget"])
    assert.equal(120, v.frames)
    near(v["frame_ms.p99"], b:frame_times():percentile(99))
    local pass = assert(laige.open("examples/laige/budget_pass.txt", nil, "laige-budget"))
    assert.equal(1, metrics.value(pass, "overall"))
  end)

  it("delta: polarity, per-frame normalisation of totals, and a change from 0", function()
    local d = metrics.delta("frame_ms.p99", 10, 12)
    assert.equal("worse", d.direction)
    near(d.change_pct, 20)
    near(d.worse_pct, 20)
    d = metrics.delta("low_1pct_fps", 50, 40)
    assert.equal("worse", d.direction)
    near(d.worse_pct, 20)
    d = metrics.delta("hitches", 2, 4, 1000, 2000) -- the same rate per frame
    assert.is_true(d.normalised)
    assert.equal("same", d.direction)
    assert.equal(2, d.a_raw)
    assert.equal(4, d.b_raw)
    assert.equal("count/frame", d.unit)
    d = metrics.delta("hitches", 0, 1, 100, 100)
    assert.is_false(d.normalised)
    assert.is_nil(d.change_pct)
    assert.equal(math.huge, d.worse_pct)
    d = metrics.delta("frames", 100, 200)
    assert.equal("changed", d.direction)
    assert.equal(0, d.worse_pct)
    -- a change that prints as 0.0 % is no change, whichever way it goes
    d = metrics.delta("frame_ms.mean", 10, 10.004)
    near(d.change_pct, 0.04)
    assert.equal("same", d.direction)
    assert.equal("same", metrics.delta("frame_ms.mean", 10, 9.996).direction)
    assert.equal("better", metrics.delta("frame_ms.mean", 10, 9.99).direction)
    assert.equal("same", metrics.delta("frames", 1000, 1000.4).direction)
  end)

  it("statistic: what each metric with a distribution computes from it, for vp.infer", function()
    local want = {
      ["frame_ms.mean"] = { kind = "mean" }, ["frame_ms.p99"] = { kind = "quantile", p = 0.99 },
      ["frame_ms.max"] = { kind = "extreme" }, ["low_01pct_fps"] = { kind = "low_fps", pct = 0.1 },
      ["low_1pct_fps"] = { kind = "low_fps", pct = 1 }, ["group.A b.c.share_pct"] = { kind = "share" },
      ["group.Physics.p50_ms"] = { kind = "quantile", p = 0.5 },
      ["node.Root/X.calls_per_frame"] = { kind = "mean" }, ["node.Root/X.self_ms"] = { kind = "mean" },
      ["lag.Socket RTT.min"] = { kind = "extreme" },
      ["hitdiff.rate_pct"] = { kind = "mean", scale = 100, independent = true },
      ["hitdiff.position_mismatch"] = { kind = "count", independent = true },
    }
    for name, st in pairs(want) do assert.same(st, metrics.statistic(name), name) end
    assert.is_nil(metrics.statistic("hitches"))
    assert.is_nil(metrics.statistic("no.such"))
    -- every catalogue entry with a distribution says what it computes from it
    for _, e in ipairs(metrics.list()) do
      if e.distribution then
        local name = e.name:gsub("pX", "p90"):gsub("NAME", "X"):gsub("PATH", "Root/X"):gsub("KIND", "no_server_data")
        assert.is_table(metrics.statistic(name), e.name)
      end
    end
  end)

  it("any percentile, time over a budget, hitches per minute and frame pacing, as the Series give them (issue 26)",
    function()
      local cap = assert(vp.open("examples/sample.vprof"))
      local ft = cap:frame_times()
      local physics = cap:group_self_ms().Physics
      local render = "Root/CEngine::Frame/CL_Render"
      local function value(name) return assert(metrics.value(cap, name)) end
      assert.equal(ft:percentile(90), value("frame_ms.p90"))
      assert.equal(ft:percentile(99.9), value("frame_ms.p99.9"))
      assert.equal(physics:percentile(90), value("group.Physics.p90_ms"))
      assert.equal(physics:percentile(99.9), value("group.Physics.p99.9_ms"))
      assert.equal(cap:series(render, "time_ms"):percentile(90), value("node." .. render .. ".p90_ms"))
      assert.equal(cap:series(render, "self_ms"):percentile(99), value("node." .. render .. ".self_p99_ms"))
      assert.equal(cap:series(render, "self_ms"):percentile(50), value("node.CEngine::Frame/CL_Render.self_p50_ms"))
      near(value("frames_over_ms.16.7"), 100 * ft:count_above(16.7) / #ft)
      near(value("time_over_ms.33.3"), 100 * ft:filter(33.3):sum() / ft:sum(), 1e-12)
      local d = ft:diff()
      local jumps = {}
      for i = d.first, d.last do jumps[#jumps + 1] = math.abs(d[i]) end
      local js = vp.Series(jumps)
      near(value("jitter_ms.mean"), js:mean(), 1e-12)
      assert.equal(js:percentile(99), value("jitter_ms.p99"))
      assert.equal(js:max(), value("jitter_ms.max"))
      near(value("hitches_per_min"), 4 / (ft:sum() / 60000), 1e-12)
      -- what vp.infer computes from a percentile's distribution, and which one it shares
      assert.equal("quantile", metrics.statistic("frame_ms.p99.9").kind)
      near(metrics.statistic("frame_ms.p99.9").p, 0.999, 1e-12)
      assert.same({ kind = "quantile", p = 0.9 }, metrics.statistic("node.X.self_p90_ms"))
      assert.equal(metrics.distribution_key("group.Physics.mean_ms"), metrics.distribution_key("group.Physics.p90_ms"))
      assert.equal(metrics.distribution_key("node.X.self_ms"), metrics.distribution_key("node.X.self_p90_ms"))
      for _, bad in ipairs({ "frame_ms.p0", "frame_ms.p101", "group.Physics.p200_ms", "frames_over_ms.x" }) do
        assert.is_nil(metrics.lookup(bad), bad)
      end
      -- named, not listed: compare.lua's list stays what it was
      for _, m in ipairs(metrics.available(cap, { series_pass = false })) do
        assert.is_nil(m.name:find("pX", 1, true), m.name)
      end
      cap:close()
    end)

  it("docs/metrics-table.md carries the table the catalogue generates, every metric in it", function()
    local f = assert(io.open("docs/metrics-table.md", "rb"))
    local committed = f:read("a")
    f:close()
    local s = assert(committed:find("<!-- BEGIN GENERATED: metrics -->\n", 1, true))
    local e = assert(committed:find("<!-- END GENERATED -->", s, true))
    local table_text = committed:sub(s, e)
    local r = h.run("tools/gen_docs.lua", "--check", "docs/metrics-table.md")
    assert.equal(0, r.code, r.stderr)
    for _, m in ipairs(metrics.list()) do
      assert.truthy(table_text:find("| `" .. m.name .. "` |", 1, true), m.name)
    end
    assert.truthy(table_text:find("| `hitches` | count | lower | vprof, laige-budget |  | `frames` | ", 1, true))
    assert.truthy(table_text:find("| `frame_ms.p99` | ms | lower | vprof, laige-profile, laige-budget | "
      .. "yes (vprof, laige-budget) |  | ", 1, true))
  end)
end)

describe("vp.metrics on laige reports", function()
  teardown(h.cleanup)

  -- A system line of a budget report.
  local function system(id, name, p99)
    return string.format("laige-budget-report system id=%d name=%s budget_ms=1 runs=10 last_ms=%s "
      .. "measured_p99_ms=%s result=PASS warns=0 errors=0", id, name, p99, p99)
  end

  it("lists each system and budget once, by the byte order of its metrics' names, from the report's names", function()
    local path = h.write_file(h.tmpdir() .. "/names.txt", table.concat({
      "laige-budget-report version=1",
      "laige-budget-report frames: n=1 total=1",
      "laige-budget-report frame=1 ticks=1 tick_after=1 frame_ms=1 sim_allocs=0 overrun_warns=0 "
        .. "critical_errors=0 result=PASS",
      "budget=t.after result=PASS metric=mean unit=ms",
      "  after=1 before=0 target=3",
      "budget=t result=FAIL metric=mean unit=ms",
      "  after=4 before=0 target=3",
      system(1, "Sim.b", 0.5), system(2, "Sim", 0.6), system(3, "", 0.7), system(4, "Sim-b", 0.8),
      system(5, "Sim", 0.9),
      "laige-budget-report overall=FAIL",
    }, "\n") .. "\n")
    local cap = h.open_ok(path)
    local seen = { system = {}, budget = {} }
    for _, m in ipairs(metrics.available(cap)) do
      local kind, name = (m.entity or ""):match("^(%a+):(.*)$")
      local list = seen[kind]
      if list and list[#list] ~= name then list[#list + 1] = name end
    end
    -- "Sim-b.p99_ms" < "Sim.b.p99_ms" < "Sim.p99_ms": not the order of the bare names
    assert.same({ "#3", "Sim-b", "Sim.b", "Sim" }, seen.system)
    assert.same({ "t", "t.after" }, seen.budget)
    local values = metrics.compute(cap, { "system.Sim.p99_ms", "system.#3.p99_ms", "budget.t.after.after" })
    assert.same({ 0.6, 0.7, 1 }, { values["system.Sim.p99_ms"], values["system.#3.p99_ms"],
      values["budget.t.after.after"] })
    cap:close()
  end)
end)
