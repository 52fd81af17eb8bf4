-- compare.lua through the binary, on captures built with the writers:
-- planted regressions (a slower group, a new hitch, a higher disagreement
-- rate, a new node) must be found and marked; planted noise (the same
-- distributions drawn again) must not be marked significant; totals are
-- normalised when frame counts differ; JSON, text, Markdown and CSV.
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

-- Every value of a result is plain data: no JSON null, NaN, infinity or userdata.
local function assert_plain(v, path)
  local t = type(v)
  if t == "number" then
    assert(v == v and v ~= math.huge and v ~= -math.huge, path .. ": " .. tostring(v))
  elseif t == "table" then
    assert(getmetatable(v) == nil, path .. ": a table with a metatable")
    for k, x in pairs(v) do assert_plain(x, path .. "." .. tostring(k)) end
  else
    assert(t == "string" or t == "boolean", path .. ": a " .. t)
  end
end

describe("vp.compare", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("significance", function()
    -- mtcars' mpg by transmission (automatic, manual): the example of R's
    -- wilcox.test(mpg ~ am, data = mtcars), which prints "W = 42, p-value =
    -- 0.001871" (normal approximation with the tie correction and the
    -- continuity correction; 7 pairs of tied values)
    local auto = { 21.4, 18.7, 18.1, 14.3, 24.4, 22.8, 19.2, 17.8, 16.4, 17.3, 15.2, 10.4, 10.4, 14.7, 21.5,
      15.5, 15.2, 13.3, 19.2 }
    local manual = { 21.0, 21.0, 22.8, 32.4, 30.4, 33.9, 27.3, 26.0, 30.4, 15.8, 19.7, 15.0, 21.4 }

    it("a tie-heavy Mann-Whitney U test gives the textbook value", function()
      local t = assert(require("vp.mwu").test(auto, manual))
      assert.equal(42, t.u_a) -- R's W
      assert.equal(42, t.ties) -- 7 ties of two: 7 x (2^3 - 2)
      assert.is_true(math.abs(t.p - 0.001871) < 5e-7, tostring(t.p))
      local tests, m = compare.significance({ { a = auto, b = vp.Series(manual) } })
      assert.equal(1, m)
      assert.equal(t.p, tests[1].p)
      assert.equal(t.p, tests[1].p_adjusted) -- a family of one
      assert.is_true(tests[1].significant)
      assert.equal(205 / (19 * 13), tests[1].prob_b_greater)
    end)

    it("Holm-adjusts one family; all-tied pairs are left out of it, empty ones untested", function()
      local p1 = 0.0018713913331786 -- the pair above
      local p2 = 0.0744618314 -- {1, 2, 3} vs {3, 4, 5, 6} (see mwu_spec)
      local family = {
        { a = auto, b = manual },
        { a = { 1, 2, 3 }, b = { 3, 4, 5, 6 } },
        { a = { 5, 5, 5 }, b = { 5, 5 } }, -- every value tied: nothing to test
        { a = {}, b = { 1 } }, -- an empty sample
        { a = { 1, 2, 3, 4 }, b = { 4, 3, 2, 1 } }, -- p = 1
      }
      local tests, m = compare.significance(family, 0.01)
      assert.equal(3, m)
      -- by hand, ascending: 3 x p1, max(3 p1, 2 x p2), max(.., 1 x 1)
      assert.is_true(math.abs(tests[1].p_adjusted - 3 * p1) < 1e-12)
      assert.is_true(math.abs(tests[2].p_adjusted - 2 * p2) < 1e-9)
      assert.equal(1, tests[5].p_adjusted)
      assert.same({ p = 1, p_adjusted = 1, prob_b_greater = 0.5, significant = false }, tests[3])
      assert.is_nil(tests[4])
      assert.same({ true, false, false, false }, { tests[1].significant, tests[2].significant,
        tests[3].significant, tests[5].significant })
      -- p1 alone is below 0.005, but not once adjusted for the family of three
      assert.is_true(p1 < 0.005)
      assert.is_false(compare.significance(family, 0.005)[1].significant)
    end)
  end)

  describe("analyze", function()
    local a, b
    setup(function()
      a = fx.vprof(dir .. "/a.vprof", { seed = 1 })
      b = fx.vprof(dir .. "/b.vprof", { seed = 11, physics_us = 2600, extra = { "NewThing" } })
    end)

    it("pairs the metrics, tests them and returns plain data in the schema's shape", function()
      local ca, cb = assert(vp.open(a)), assert(vp.open(b))
      local r = compare.analyze(ca, cb, { nodes = 3 })
      assert_plain(r, "result")
      assert.same({ file = a, format = "vprof", frames = 1200 }, r.a)
      assert.equal(0.01, r.alpha)
      local m = {}
      for _, row in ipairs(r.metrics) do m[row.metric] = row end
      local g = m["group.Physics.mean_ms"]
      assert.equal("worse", g.direction)
      assert.is_true(g.significant)
      assert.equal(g.p_adjusted, m["group.Physics.p99_ms"].p_adjusted) -- one test per distribution
      assert.is_nil(m.hitches.p_value) -- a count: no distribution
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
      for _, bad in ipairs({ { alpha = 2 }, { nodes = -1 }, { match = { "[" } } }) do
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
    assert.is_true(g.prob_b_greater > 0.9)
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
    assert.equal("mann-whitney-u", doc.test)
    assert.equal("holm", doc.correction)
  end)

  for _, seed in ipairs({ 2, 3, 4 }) do
    it("does not flag noise: the same distributions drawn again (seed " .. seed .. ")", function()
      local b = fx.vprof(dir .. "/noise" .. seed .. ".vprof", { seed = seed * 101 })
      local doc = h.run_json("scripts/compare.lua", a, b, "--json")
      assert.is_true(doc.tests >= 7)
      for _, r in ipairs(doc.metrics) do
        assert.is_not_true(r.significant, r.metric .. " p_adj " .. tostring(r.p_adjusted))
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
    assert.equal(NULL, m.hitches.p_value) -- a count: no distribution
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
    local t = h.run("scripts/compare.lua", a, b)
    assert.equal(0, t.code, t.stderr)
    assert.matches("regressions %(%d+%)", t.stdout)
    assert.matches("group%.Physics%.mean_ms%s+2%.%d+%s+2%.%d+%s+%+0%.%d+%s+%+[23]%d%.%d %%%s+%S+%s+%*", t.stdout)
    local md = h.run("scripts/compare.lua", a, b, "--markdown", "--limit", "5")
    assert.equal(0, md.code, md.stderr)
    assert.truthy(md.stdout:find("| metric | A | B | change | change % | p (adj.) | |", 1, true))
    assert.matches("|%-%-%-|%-%-:|", md.stdout)
    assert.matches("| `group%.Physics%.[%w_]+` | [%d.]+ | [%d.]+ | %+[%d.]+ | %+%d+%.%d %% | [^|]+ | "
      .. "%*%*significant%*%* |", md.stdout)
    local csv = h.run("scripts/compare.lua", a, b, "--csv")
    assert.equal(0, csv.code, csv.stderr)
    assert.equal("metric,unit,polarity,a,b,change,change_pct,impact,direction,normalised,p_value,p_adjusted,"
      .. "significant,prob_b_greater", csv.stdout:match("^[^\n]+"))
    local bad = h.run("scripts/compare.lua", a, b, "--markdown", "--json")
    assert.equal(2, bad.code)
  end)

  it("prints the same bytes every run, keys in the schema's order", function()
    local b = fx.vprof(dir .. "/again.vprof", { seed = 13, physics_us = 2400, extra = { "Again" } })
    local first = h.run("scripts/compare.lua", a, b, "--json")
    local second = h.run("scripts/compare.lua", a, b, "--json")
    assert.equal(0, first.code, first.stderr)
    assert.equal(first.stdout, second.stdout)
    local head = '^{"a":{"file":[^}]*},"b":{[^}]*},"alpha":0%.01,"test":"mann%-whitney%-u","correction":"holm",'
      .. '"tests":%d+,"summary":{"metrics":%d+,"worse":%d+,"better":%d+,"changed":%d+,"same":%d+,'
      .. '"significant_worse":%d+,"significant_better":%d+},"metrics":%[{"metric":"[^"]+","unit":"ms",'
      .. '"polarity":"lower","a":'
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
end)
