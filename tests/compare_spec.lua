-- compare.lua through the binary, on captures built with the writers:
-- planted regressions (a slower group, a new hitch, a higher disagreement
-- rate, a new node) must be found and marked; planted noise (the same
-- distributions drawn again) must not be marked significant; totals are
-- normalised when frame counts differ; several runs a side decide by their
-- run values; intervals, effect sizes and the shape test in every form;
-- JSON, text, Markdown and CSV. (vp.infer's statistics: infer_spec.)
local h = require "helpers"
local fx = require "gate_fixtures"
local NULL = require("cjson").null
local vp = require "vp"
local E = require "vp.error"
local json = require "vp.json"
local compare = require "vp.compare"

local function by_metric(doc)
  local m = {}
  for i, r in ipairs(doc.metrics) do
    r.rank = i
    m[r.metric] = r
  end
  return m
end

describe("vp.compare", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("analyze", function()
    local a, b
    setup(function()
      a = fx.vprof(dir .. "/a.vprof", { seed = 1 })
      b = fx.vprof(dir .. "/b.vprof", { seed = 11, physics_us = 2600, extra = { "NewThing" } })
    end)

    it("pairs the metrics, tests them and returns plain data in the schema's shape", function()
      local ca, cb = assert(vp.open(a)), assert(vp.open(b))
      local r = compare.analyze(ca, cb, { nodes = 3 })
      h.assert_plain(r, "result")
      assert.same({ file = a, format = "vprof", frames = 1200, frame_range = { first = 1, last = 1200 }, runs = 1,
        files = { a } }, r.a)
      assert.equal(0.01, r.alpha)
      assert.equal(0.95, r.level)
      assert.equal("frames", r.evidence)
      local m = {}
      for _, row in ipairs(r.metrics) do m[row.metric] = row end
      local g = m["group.Physics.mean_ms"]
      assert.equal("worse", g.direction)
      assert.is_true(g.significant)
      assert.equal("frames", g.evidence)
      assert.equal("batch-means", g.method)
      -- the interval holds the change, in the metric's unit and in %
      assert.is_true(g.ci.change_lo < g.change and g.change < g.ci.change_hi)
      assert.is_true(math.abs(g.ci.pct_lo - 100 * g.ci.change_lo / g.a) < 1e-9)
      assert.equal(g.ci.pct_lo, g.ci.impact_lo) -- lower is better: the impact is the change
      assert.is_true(g.ci.pct_lo > 25 and g.ci.pct_hi < 35)
      -- each metric its own test; one shape test and one set of effect sizes per distribution
      local q = m["group.Physics.p99_ms"]
      assert.is_true(q.p_value ~= g.p_value)
      assert.same(g.shape, q.shape)
      assert.same(g.effect, q.effect)
      assert.is_true(g.shape.significant)
      assert.is_true(math.abs(g.effect.hl_shift - 0.6) < 0.05)
      assert.is_true(g.effect.cliffs_delta > 0.95)
      -- max: no interval, a note saying why, but the distribution's shape and effects
      local mx = m["group.Physics.max_ms"]
      assert.is_nil(mx.ci)
      assert.is_nil(mx.p_value)
      assert.matches("no interval", mx.note)
      assert.same(g.shape, mx.shape)
      assert.is_nil(m.hitches.p_value) -- a count of nothing on either side: no rate to test
      assert.matches("no events on either side", m.hitches.note)
      assert.equal("same", m.hitches.direction)
      assert.matches("Physics", r.metrics[1].metric)
      -- the new node is only in B, with its values in catalogue order; not compared
      local found
      for _, e in ipairs(r.only_in_b) do
        if e.name == "Root/CEngine::Frame/NewThing" then found = e end
      end
      assert.equal("node", found.kind)
      assert.equal("node.Root/CEngine::Frame/NewThing.mean_ms", found.values[1].metric)
      assert.is_true(math.abs(found.values[1].value - 0.4) < 0.02)
      assert.is_nil(m["node.Root/CEngine::Frame/NewThing.mean_ms"])
      -- with the only-in values as a map it is the documented document
      for _, k in ipairs({ "only_in_a", "only_in_b" }) do
        for _, e in ipairs(r[k]) do
          e.metrics = {}
          for _, x in ipairs(e.values) do e.metrics[x.metric] = x.value end
          e.values = nil
        end
      end
      assert.same({}, json.undeclared(r, compare.schema))
      -- at most 3 nodes got percentiles
      local p99 = 0
      for name in pairs(m) do
        if name:match("^node%..*%.p99_ms$") then p99 = p99 + 1 end
      end
      assert.equal(3, p99)
      ca:close()
      cb:close()
    end)

    it("--match keeps the metrics asked; bad parameters are EUSAGE errors (exit 2)", function()
      local ca, cb = assert(vp.open(a)), assert(vp.open(b))
      local r = compare.analyze(ca, cb, { match = { "^frame_ms%.p9" } })
      assert.equal(2, #r.metrics)
      assert.equal(0, #r.only_in_b)
      for _, bad in ipairs({ { alpha = 2 }, { nodes = -1 }, { match = { "[" } }, { shape = "x" },
        { evidence = "some" }, { level = 1 } }) do
        local ok, e = pcall(compare.analyze, ca, cb, bad)
        assert.is_false(ok)
        assert.is_true(E.is(e), tostring(e))
        assert.equal("EUSAGE", e.code)
        assert.equal(2, e.exit)
      end
      ca:close()
      cb:close()
    end)
  end)
end)

describe("compare.lua", function()
  local dir, a
  setup(function()
    dir = h.tmpdir()
    a = fx.vprof(dir .. "/a.vprof", { seed = 1 })
  end)
  teardown(h.cleanup)

  it("finds a slower group, marks it significant and worse, and sorts it first", function()
    local b = fx.vprof(dir .. "/slow.vprof", { seed = 11, physics_us = 2600 })
    local doc = h.run_json("scripts/compare.lua", a, b, "--json")
    local m = by_metric(doc)
    local g = m["group.Physics.mean_ms"]
    assert.equal("worse", g.direction)
    assert.is_true(g.significant)
    assert.is_true(g.p_adjusted < 1e-10)
    assert.is_true(g.change_pct > 25 and g.change_pct < 35, tostring(g.change_pct))
    assert.is_true(g.effect.prob_b_greater > 0.9)
    assert.is_true(g.ci.pct_lo > 20)
    assert.equal(g.change_pct, g.impact)
    -- the largest impact leads: a Physics metric (group or node), ~+30 %
    assert.matches("Physics", doc.metrics[1].metric)
    for i = 2, #doc.metrics do
      local x, y = doc.metrics[i - 1].impact, doc.metrics[i].impact
      if x ~= NULL and y ~= NULL and type(x) == "number" and type(y) == "number" then
        assert.is_true(math.abs(x) >= math.abs(y), "sorted by |impact|")
      end
    end
    -- the other groups did not move: none of them significant
    for _, r in ipairs(doc.metrics) do
      if r.metric:match("^group%.") and not r.metric:match("Physics") and not r.metric:match("share_pct") then
        assert.is_not_true(r.significant, r.metric)
      end
    end
    assert.is_true(m["frame_ms.mean"].significant)
    assert.equal("worse", m["low_1pct_fps"].direction)
    assert.is_true(doc.summary.significant_worse >= 5)
    assert.equal(0, doc.summary.significant_better)
    assert.equal("grid", doc.shape_test)
    assert.equal("holm", doc.correction)
    -- the summary adds up
    local s = doc.summary
    assert.equal(#doc.metrics, s.metrics)
    assert.equal(s.metrics, s.worse + s.better + s.changed + s.same)
  end)

  for _, seed in ipairs({ 2, 3, 4 }) do
    it("does not flag noise: the same distributions drawn again (seed " .. seed .. ")", function()
      local b = fx.vprof(dir .. "/noise" .. seed .. ".vprof", { seed = seed * 101 })
      local doc = h.run_json("scripts/compare.lua", a, b, "--json")
      assert.is_true(doc.tests >= 7)
      for _, r in ipairs(doc.metrics) do
        assert.is_not_true(r.significant, r.metric .. " p_adj " .. tostring(r.p_adjusted))
        if r.shape ~= NULL then assert.is_not_true(r.shape.significant, r.metric .. " shape") end
        -- nothing moves much either
        if r.metric:match("mean_ms$") and type(r.change_pct) == "number" then
          assert.is_true(math.abs(r.change_pct) < 3, r.metric)
        end
      end
      assert.equal(0, doc.summary.significant_worse)
      assert.equal(0, doc.summary.significant_better)
      assert.equal(0, #doc.only_in_a)
      assert.equal(0, #doc.only_in_b)
    end)
  end

  it("finds a new hitch: from 0 (change % and impact null) to the top of the list", function()
    local b = fx.vprof(dir .. "/hitch.vprof", { seed = 5, hitches = { 600 } })
    local doc = h.run_json("scripts/compare.lua", a, b, "--json")
    local m = by_metric(doc)
    assert.equal(0, m.hitches.a)
    assert.equal(1, m.hitches.b)
    assert.equal("worse", m.hitches.direction)
    assert.equal(NULL, m.hitches.change_pct)
    assert.equal(NULL, m.hitches.impact)
    assert.is_true(m.hitches.rank <= 2)
    -- a count: the rate test (one hitch against none is no evidence)
    assert.equal("rate", m.hitches.method)
    assert.is_true(m.hitches.p_value > 0.5)
    assert.is_false(m.hitches.significant)
    assert.equal("worse", m.stutter_pct.direction)
    assert.equal("worse", m["frame_ms.max"].direction)
  end)

  it("normalises totals per frame when the frame counts differ", function()
    local x = fx.vprof(dir .. "/h1.vprof", { seed = 6, frames = 600, hitches = { 300 } })
    local y = fx.vprof(dir .. "/h2.vprof", { seed = 7, frames = 1200, hitches = { 300, 900 } })
    local doc = h.run_json("scripts/compare.lua", x, y, "--json")
    local m = by_metric(doc)
    local r = m.hitches
    assert.is_true(r.normalised)
    assert.equal(1, r.a_raw)
    assert.equal(2, r.b_raw)
    assert.is_true(math.abs(r.a - 1 / 600) < 1e-15)
    assert.is_true(math.abs(r.b - 2 / 1200) < 1e-15)
    assert.equal("same", r.direction)
    assert.equal("count/frame", r.unit)
    assert.equal("frames", r.per)
    assert.equal(600, doc.a.frames)
    assert.equal(1200, doc.b.frames)
    assert.is_false(m["frame_ms.p99"].normalised)
  end)

  it("lists nodes and groups present in one capture only, with their values, and does not compare them", function()
    local b = fx.vprof(dir .. "/new.vprof", { seed = 8, extra = { "NewThing" }, group_name = "Other Custom" })
    local doc = h.run_json("scripts/compare.lua", a, b, "--json")
    local function find(list, kind, name)
      for _, e in ipairs(list) do
        if e.kind == kind and e.name == name then return e end
      end
    end
    local nb = find(doc.only_in_b, "node", "Root/CEngine::Frame/NewThing")
    assert.is_truthy(nb)
    assert.is_true(math.abs(nb.metrics["node.Root/CEngine::Frame/NewThing.mean_ms"] - 0.4) < 0.02)
    assert.is_truthy(find(doc.only_in_a, "group", "Custom"))
    assert.is_truthy(find(doc.only_in_b, "group", "Other Custom"))
    for _, r in ipairs(doc.metrics) do
      assert.is_falsy(r.metric:match("NewThing"), r.metric)
      assert.is_falsy(r.metric:match("^group%.Custom%."), r.metric)
    end
    -- the Game group gained the new node's 0.4 ms per frame
    assert.equal("worse", by_metric(doc)["group.Game.mean_ms"].direction)
    assert.is_true(by_metric(doc)["group.Game.mean_ms"].significant)
  end)

  it("finds a higher disagreement rate between two weapon traces, and not noise in it", function()
    local x = fx.dw(dir .. "/a.dw", { traces = 1000, disagree = 10 })
    local y = fx.dw(dir .. "/b.dw", { traces = 1000, disagree = 60 })
    local z = fx.dw(dir .. "/c.dw", { traces = 1000, disagree = 12 })
    local doc = h.run_json("scripts/compare.lua", x, y, "--json")
    local m = by_metric(doc)
    assert.equal(1, m["hitdiff.rate_pct"].a)
    assert.equal(6, m["hitdiff.rate_pct"].b)
    assert.equal("worse", m["hitdiff.rate_pct"].direction)
    assert.is_true(m["hitdiff.rate_pct"].significant)
    assert.equal("worse", m["hitdiff.position_mismatch"].direction)
    assert.equal("worse", m["hitdiff.agree"].direction) -- fewer agreeing traces: higher is better
    local quiet = h.run_json("scripts/compare.lua", x, z, "--json")
    for _, r in ipairs(quiet.metrics) do assert.is_not_true(r.significant, r.metric) end
  end)

  it("prints a readable table, Markdown for a review, and CSV", function()
    local b = fx.vprof(dir .. "/slow2.vprof", { seed = 12, physics_us = 2600 })
    -- the default text leads with the frame-level verdict and the significant changes (issue 26)
    local t = h.run("scripts/compare.lua", a, b)
    assert.equal(0, t.code, t.stderr)
    assert.matches("\n  verdict%s+B is worse: frame_ms%.mean %+%d+%.%d %%", t.stdout)
    assert.matches("\nframe time\n", t.stdout)
    assert.matches("\n  frame_ms%.mean%s+[%d.]+%s+[%d.]+%s+%+%d+%.%d %%[^\n]*worse %(significant%)%s+ms\n", t.stdout)
    assert.matches("\nchanges that matter %(%d+ significant%)\n", t.stdout)
    assert.matches("\n  group%.Physics%.mean_ms%s[^\n]*worse%s+ms\n", t.stdout)
    assert.is_nil(t.stdout:find("node.Root/CEngine::Frame/Physics.self_ms", 1, true)) -- a leaf: its mean_ms says it
    assert.is_nil(t.stdout:find("share_pct", 1, true))
    assert.matches("other metrics moved without significance: %-%-all lists every metric", t.stdout)
    assert.is_nil(t.stdout:find("regressions (", 1, true))
    -- --all lists every metric by section, as before
    t = h.run("scripts/compare.lua", a, b, "--all")
    assert.equal(0, t.code, t.stderr)
    assert.matches("regressions %(%d+%)", t.stdout)
    -- metric, A, B, change, change %, 95 % CI, p, *, HL shift, delta, shape p
    assert.matches("group%.Physics%.mean_ms%s+2%.%d+%s+2%.%d+%s+%+0%.%d+%s+%+[23]%d%.%d %%%s+%+[23]%d%.%d %.%. "
      .. "%+[23]%d%.%d %%%s+[%d.e-]+%s+%*%s+%+0%.%d+%s+%+[01]%.%d%d%s+[%d.e-]+ %*%s+ms", t.stdout)
    assert.matches("%d+ metrics: %d+ worse %(%d+ significant%), %d+ better %(%d+ significant%), %d+ changed, "
      .. "%d+ unchanged", t.stdout)
    assert.matches("shape%s+quantile grid, Holm%-adjusted over %d+ distributions: %d+ changed", t.stdout)
    local md = h.run("scripts/compare.lua", a, b, "--markdown", "--limit", "5")
    assert.equal(0, md.code, md.stderr)
    assert.truthy(md.stdout:find("| metric | A | B | change | change % | 95 % CI | p (adj.) | | HL shift | "
      .. "Cliff's d | shape p |", 1, true))
    assert.matches("|%-%-%-|%-%-:|", md.stdout)
    assert.matches("| `group%.Physics%.[%w_]+` | [%d.]+ | [%d.]+ | %+[%d.]+ | %+%d+%.%d %% | [^|]+ | [^|]+ | "
      .. "%*%*significant%*%* |", md.stdout)
    local csv = h.run("scripts/compare.lua", a, b, "--csv")
    assert.equal(0, csv.code, csv.stderr)
    assert.equal("metric,unit,polarity,a,b,change,change_pct,impact,direction,normalised,evidence,p_value,"
      .. "p_adjusted,significant,ci_pct_lo,ci_pct_hi,ci_change_lo,ci_change_hi,effect_hl_shift,"
      .. "effect_cliffs_delta,shape_p_adjusted", csv.stdout:match("^[^\n]+"))
    assert.matches("\ngroup%.Physics%.mean_ms,ms,lower,[%d.]+,[%d.]+,[%d.]+,[%d.]+,[%d.]+,worse,false,frames,"
      .. "[%de.-]+,[%de.-]+,true,2%d%.%d+,3%d%.%d+,", csv.stdout)
    local bad = h.run("scripts/compare.lua", a, b, "--markdown", "--json")
    assert.equal(2, bad.code)
  end)

  it("prints the same bytes every run, keys in the schema's order", function()
    local b = fx.vprof(dir .. "/again.vprof", { seed = 13, physics_us = 2400, extra = { "Again" } })
    local first = h.run("scripts/compare.lua", a, b, "--json")
    local second = h.run("scripts/compare.lua", a, b, "--json")
    assert.equal(0, first.code, first.stderr)
    assert.equal(first.stdout, second.stdout)
    local head = '^{"a":{"file":[^}]*"frame_range":{"first":1,"last":1200}[^}]*},"b":{[^}]*}[^}]*},'
      .. '"alpha":0%.01,"level":0%.95,"shape_test":"grid","correction":"holm","evidence":"%a+",'
      .. '"pairing":{"method":"%a+",.-},"tests":%d+,'
      .. '"shape_tests":%d+,"summary":{"metrics":%d+,"worse":%d+,"better":%d+,"changed":%d+,"same":%d+,'
      .. '"significant_worse":%d+,"significant_better":%d+,"shape_changes":%d+,"cannot_tell":%d+},"warnings":%[%],'
      .. '"metrics":%[{"metric":"[^"]+","unit":"ms","polarity":"lower","a":'
    assert.truthy(first.stdout:find(head), first.stdout:sub(1, 400))
    assert.truthy(first.stdout:find('"only_in_a":[],"only_in_b":[{"kind":"node","name":"Root/CEngine::Frame/Again",'
      .. '"metrics":{"node.Root/CEngine::Frame/Again.calls_per_frame":1,', 1, true), first.stdout:sub(-400))
    assert.same({}, json.undeclared(json.decode(first.stdout), compare.schema))
  end)

  it("--match restricts the metrics; a missing file exits 2 naming it", function()
    local doc = h.run_json("scripts/compare.lua", a, a, "--json", "--match", "^group%.Physics")
    assert.is_true(#doc.metrics > 0)
    for _, r in ipairs(doc.metrics) do
      assert.matches("^group%.Physics", r.metric)
      assert.equal("same", r.direction)
    end
    local r = h.run("scripts/compare.lua", a, dir .. "/missing.vprof")
    assert.equal(2, r.code)
    assert.matches("vpscript: " .. dir:gsub("%p", "%%%0") .. "/missing%.vprof", r.stderr)
  end)

  it("refuses captures of different formats, and a capture that cannot be measured, naming the files", function()
    local r = h.run("scripts/compare.lua", "examples/sample.vprof", "examples/sample.dw")
    assert.equal(2, r.code, r.stdout)
    assert.equal("", r.stdout)
    assert.matches("examples/sample%.vprof %(vprof%) and examples/sample%.dw %(dw%): captures of different "
      .. "formats cannot be compared", r.stderr)
    local frames = {}
    for i = 1, 40 do frames[i] = { [0] = { us = 0, calls = 1 }, [1] = { us = 0, calls = 1 } } end
    local zero = h.vprof(dir .. "/zero.vprof", { nodes = { { id = 1, name = "A" } }, frames = frames })
    for _, args in ipairs({ { a, zero }, { zero, a } }) do
      r = h.run("scripts/compare.lua", args[1], args[2], "--json")
      assert.equal(2, r.code, r.stdout)
      assert.matches(zero:gsub("%p", "%%%0") .. ": cannot be measured: it holds no timings: every node time is 0 "
        .. "in all 40 frames", r.stderr)
    end
    -- the module raises EINPUT; an empty capture is refused too
    local empty = h.vprof(dir .. "/empty.vprof", { nodes = { { id = 1, name = "A" } }, frames = {} })
    local ca, ce = assert(vp.open(a)), assert(vp.open(empty))
    local ok, e = pcall(compare.analyze, ca, ce)
    assert.is_false(ok)
    assert.is_true(E.is(e), tostring(e))
    assert.equal("EINPUT", e.code)
    assert.matches("empty%.vprof: cannot be measured: it holds 0 complete frames", e.message)
    ca:close()
    ce:close()
  end)

  it("one p-value format everywhere: 3 significant digits, '< 1e-300' below", function()
    local fmt = require "vp.fmt"
    assert.same({ "< 1e-300", "< 1e-300", "1e-300", "1.5e-239", "0.00187", "0.94", "1", "-" },
      { fmt.p_value(0), fmt.p_value(1.7e-314), fmt.p_value(1e-300), fmt.p_value(1.5e-239),
        fmt.p_value(0.0018713913), fmt.p_value(0.94012), fmt.p_value(1), fmt.p_value(nil) })
    -- a 30 % shift: tiny p-values, printed that way, never a subnormal
    local b = fx.vprof(dir .. "/slow3.vprof", { seed = 14, physics_us = 2600 })
    local t = h.run("scripts/compare.lua", a, b, "--all")
    assert.equal(0, t.code, t.stderr)
    assert.is_falsy(t.stdout:find("<1e-300", 1, true))
    assert.is_falsy(t.stdout:gsub("< 1e%-300", ""):find("e%-3%d%d"))
    -- no per-frame test that takes frames for independent draws is offered
    local bad = h.run("scripts/compare.lua", a, b, "--test", "mann-whitney")
    assert.equal(2, bad.code)
    assert.matches("%-%-test", bad.stderr)
  end)

  it("a change that prints as 0.0 % is unchanged, and the summary adds up", function()
    local b = fx.vprof(dir .. "/tiny.vprof", { seed = 1, sound_spike = 300 })
    local doc = h.run_json("scripts/compare.lua", a, b, "--json")
    local m = by_metric(doc)
    -- one Sound frame 1 ms longer: the frame mean moves by far less than 0.05 %
    assert.is_true(m["frame_ms.mean"].change > 0)
    assert.is_true(math.abs(m["frame_ms.mean"].change_pct) < 0.05)
    assert.equal("same", m["frame_ms.mean"].direction)
    assert.equal("worse", m["group.Sound.max_ms"].direction)
    local s = doc.summary
    assert.equal(s.metrics, s.worse + s.better + s.changed + s.same)
    for _, r in ipairs(doc.metrics) do
      if r.direction == "better" or r.direction == "worse" then
        assert.is_true(math.abs(r.change_pct or math.huge) >= 0.05, r.metric)
      end
    end
    local t = h.run("scripts/compare.lua", a, b, "--all")
    assert.is_falsy(t.stdout:match("improvements %(%d+%)\n[^\n]*\n[^\n]*\n[^\n]-%-0%.0 %%"))
  end)
end)

describe("vp.compare.render", function()
  it("lists a change only as an improvement or a regression when its median shift agrees (issue 26)", function()
    local dir = h.tmpdir()
    local A = assert(vp.open(fx.vprof(dir .. "/ra.vprof", { seed = 1 })))
    local B = assert(vp.open(fx.vprof(dir .. "/rb.vprof", { seed = 2 })))
    local r = require("vp.compare").analyze(A, B, {})
    local m
    for _, x in ipairs(r.metrics) do
      if x.metric == "group.Sound.mean_ms" then m = x end
    end
    m.direction, m.polarity = "better", "lower"
    m.effect = { hl_shift = 0.5, cliffs_delta = 0.1 } -- the median moved the worse way
    local path = dir .. "/out.txt"
    local out = io.stdout
    io.stdout = assert(io.open(path, "w")) -- luacheck: ignore 122
    local ok, err = pcall(require("vp.compare.render").emit, r, { all = true, limit = 0 })
    io.stdout:close()
    io.stdout = out -- luacheck: ignore 122
    assert(ok, err)
    local text = h.read_file(path)
    local improvements = text:match("\nimprovements %(%d+%)\n(.-)\n\n") or ""
    local mixed = text:match("\nmixed %(the mean and the median shift disagree%) %(%d+%)\n(.-)\n\n") or ""
    assert.is_nil(improvements:find("group.Sound.mean_ms", 1, true))
    assert.truthy(mixed:find("group.Sound.mean_ms", 1, true), text)
    A:close()
    B:close()
  end)
end)

describe("compare.lua with several runs a side", function()
  local dir, base_dir, new_dir, noise_dir
  setup(function()
    dir = h.tmpdir()
    base_dir, new_dir, noise_dir = dir .. "/base", dir .. "/new", dir .. "/noise"
    for _, d in ipairs({ base_dir, new_dir, noise_dir }) do os.execute("mkdir -p " .. h.quote(d)) end
    for i = 1, 5 do
      fx.vprof(base_dir .. "/run" .. i .. ".vprof", { seed = i, frames = 600 })
      fx.vprof(new_dir .. "/run" .. i .. ".vprof", { seed = 100 + i, frames = 600, physics_us = 2100 })
      fx.vprof(noise_dir .. "/run" .. i .. ".vprof", { seed = 200 + i, frames = 600 })
    end
  end)
  teardown(h.cleanup)

  it("a count of hitches with runs a side: the rate test over every run's hitches (issue 23)", function()
    -- 3 runs a side, 2 hitch frames in each run of A, 8 in each of B
    local ha, hb = dir .. "/hitch_a", dir .. "/hitch_b"
    os.execute("mkdir -p " .. h.quote(ha) .. " " .. h.quote(hb))
    for i = 1, 3 do
      fx.vprof(ha .. "/run" .. i .. ".vprof", { seed = 300 + i, frames = 600, hitches = { 150, 450 } })
      fx.vprof(hb .. "/run" .. i .. ".vprof", { seed = 400 + i, frames = 600,
        hitches = { 60, 120, 180, 240, 300, 360, 420, 480 } })
    end
    local counts = {}
    for _, d in ipairs({ ha, hb }) do
      for i = 1, 3 do
        local doc = h.run_json("scripts/hitches.lua", d .. "/run" .. i .. ".vprof", "--json")
        counts[#counts + 1] = #doc.hitches
      end
    end
    assert.same({ 2, 2, 2, 8, 8, 8 }, counts)
    local doc = h.run_json("scripts/compare.lua", ha, hb, "--runs", "--json", "--match", "^hitches$")
    local m = by_metric(doc).hitches
    assert.equal("runs", m.evidence)
    assert.equal("rate-runs", m.method)
    -- the same counts in every run: no overdispersion, so B's share of the 30
    -- hitches is binomial(30, 1/2) when the rates are equal; two-sided
    local function choose(n, k)
      local c = 1
      for j = 1, k do c = c * (n - k + j) / j end
      return c
    end
    local upper = 0
    for k = 24, 30 do upper = upper + choose(30, k) / 2 ^ 30 end
    assert.is_true(math.abs(m.p_value - 2 * upper) < 1e-9, m.p_value .. " against " .. 2 * upper)
    assert.is_true(m.significant)
  end)

  it("a directory a side: the runs are the units, Welch's t on their values decides", function()
    local doc = h.run_json("scripts/compare.lua", base_dir, new_dir, "--runs", "--json")
    assert.equal(5, doc.a.runs)
    assert.equal(5, #doc.b.files)
    assert.equal("runs", doc.evidence)
    assert.same({}, doc.warnings)
    local g = by_metric(doc)["group.Physics.mean_ms"]
    assert.equal("runs", g.evidence)
    assert.equal("welch-runs", g.method)
    assert.equal(5, #g.runs.a)
    assert.is_true(g.significant)
    assert.is_true(g.ci.pct_lo > 3 and g.ci.pct_hi < 7, g.ci.pct_lo .. " .. " .. g.ci.pct_hi)
    -- the value is the mean of the runs' values
    local sum = 0
    for _, v in ipairs(g.runs.b) do sum = sum + v end
    assert.is_true(math.abs(g.b - sum / 5) < 1e-9)
    -- the pooled per-frame view is reported beside
    assert.equal("batch-means", g.frames.method)
    assert.is_true(g.frames.p_value < 1e-6)
    -- a count has no distribution, but runs give it an interval
    local hitches = by_metric(doc).hitches
    assert.equal("runs", hitches.evidence)
    -- the same design drawn again: nothing significant
    local quiet = h.run_json("scripts/compare.lua", base_dir, noise_dir, "--runs", "--json")
    for _, r in ipairs(quiet.metrics) do assert.is_not_true(r.significant, r.metric) end
  end)

  it("--baseline files and --runs; fewer than 5 runs a side warn; one run a side falls back to frames #slow", function()
    local r = h.run("scripts/compare.lua", "--baseline", base_dir .. "/run1.vprof", "--baseline",
      base_dir .. "/run2.vprof", "--baseline", base_dir .. "/run3.vprof", new_dir .. "/run1.vprof",
      new_dir .. "/run2.vprof", new_dir .. "/run3.vprof", "--runs", "--json")
    assert.equal(0, r.code, r.stderr)
    local doc = require("cjson").decode(r.stdout)
    assert.equal(3, doc.a.runs)
    assert.equal(3, doc.b.runs)
    assert.matches("little power below 5 runs", doc.warnings[1])
    assert.matches("vpscript: warning: 3 runs against 3", r.stderr)
    -- A a directory of runs, one B capture: the per-frame values decide
    local one = h.run_json("scripts/compare.lua", base_dir, new_dir .. "/run4.vprof", "--json")
    assert.equal(5, one.a.runs)
    assert.equal(1, one.b.runs)
    assert.equal("frames", one.evidence)
    assert.matches("runs decide only with 2 or more a side", one.warnings[1])
    assert.equal("frames", by_metric(one)["group.Physics.mean_ms"].evidence)
    -- --evidence frames: the pooled per-frame view decides even with runs
    local fr = h.run_json("scripts/compare.lua", base_dir, new_dir, "--runs", "--evidence", "frames", "--json")
    assert.equal("frames", by_metric(fr)["group.Physics.mean_ms"].evidence)
    -- without --runs, each B capture is compared with the baseline's runs on its own
    local each = h.run("scripts/compare.lua", base_dir, new_dir .. "/run1.vprof", new_dir .. "/run2.vprof", "--json")
    assert.equal(0, each.code, each.stderr)
    local n = 0
    for line in each.stdout:gmatch("[^\n]+") do
      n = n + 1
      assert.equal(5, require("cjson").decode(line).a.runs)
    end
    assert.equal(2, n)
  end)

  it("text names the runs and the test that decided", function()
    local t = h.run("scripts/compare.lua", base_dir, new_dir, "--runs", "--limit", "3")
    assert.equal(0, t.code, t.stderr)
    assert.matches("A%s+5 runs: [^\n]*/base/run1%.vprof %.%. [^\n]*/base/run5%.vprof %(vprof, 600 frames a run%)",
      t.stdout)
    assert.matches("significance%s+Welch t on the 5 and 5 run values, two%-sided", t.stdout)
  end)
end)
