-- vp.open_all: several captures read together (VProf ones on threads of
-- their own) give what vp.open gives each, in the order asked, with every
-- failure said by index; and the scripts that read two sides at once
-- (compare.lua, check.lua with a baseline) answer as before.
local h = require "helpers"
local vp = require "vp"
local budget, top = require "vp.budget", require "vp.top"

local SAMPLE, RUN1, RUN2 = "examples/sample.vprof", "examples/runs/base/run1.vprof", "examples/runs/new/run2.vprof"

-- A vp.infer.batched sample as plain numbers: its count, batches, sum and
-- two order statistics.
local function plain(b)
  local n, k, sum = b:info()
  return { n = n, k = k, sum = sum, p50 = b:percentile(50), p99 = b:percentile(99) }
end

-- What a capture says of itself, comparable across opens.
local function figures(cap)
  local a = cap:totals()
  for i = 1, #a do a[i].node = a[i].node.path end
  return { frames = cap.frame_count, nodes = cap.node_count, warnings = cap.warnings,
    budget = budget.analyze(cap), top = top.analyze(cap, { limit = 0 }), node_stats = a }
end

describe("vp.open_all", function()
  it("gives each path what vp.open gives it, in order, with the statistics asked for", function()
    local paths = { SAMPLE, RUN1, RUN2, "examples/sample.dm", SAMPLE, "examples/laige/profile.json", RUN2 }
    for _, opts in ipairs({ {}, { stats = true } }) do
      local caps, failures = vp.open_all(paths, opts)
      assert.equal(#paths, #caps)
      assert.is_nil(next(failures))
      for i, p in ipairs(paths) do
        local one = assert(vp.open(p, opts))
        assert.equal(one.format, caps[i].format)
        assert.equal(p, caps[i].path)
        if one.format == "vprof" then
          assert.same(figures(one), figures(caps[i]))
        else
          assert.equal(#one, #caps[i])
          assert.same(one:summary(), caps[i]:summary())
        end
        one:close()
        caps[i]:close()
      end
    end
  end)

  it("says why a path could not be opened, by its index, and opens the others", function()
    local dir = h.tmpdir()
    local cut = dir .. "/cut.vprof"
    local f = assert(io.open(SAMPLE, "rb"))
    local bytes = f:read("a")
    f:close()
    f = assert(io.open(cut, "wb"))
    f:write(bytes:sub(1, 9)) -- inside the header
    f:close()
    local caps, failures = vp.open_all({ RUN1, dir .. "/missing.vprof", cut, "examples/sample.dw" })
    assert.truthy(caps[1])
    assert.is_false(caps[2])
    assert.is_false(caps[3])
    assert.truthy(caps[4])
    local _, msg, code = vp.open(dir .. "/missing.vprof")
    assert.same({ message = msg, code = code }, failures[2])
    _, msg, code = vp.open(cut)
    assert.same({ message = msg, code = code }, failures[3])
    assert.is_nil(failures[1])
    assert.is_nil(failures[4])
  end)

  it("reports the bytes of all the files as one progress, and takes vp.open's options", function()
    local size = 0
    for _, p in ipairs({ SAMPLE, RUN1 }) do size = size + #assert(io.open(p, "rb")):read("a") end
    local last_done, last_total, calls = -1, nil, 0
    local caps = vp.open_all({ SAMPLE, RUN1 }, { progress = function(done, total)
      assert.is_true(done >= last_done and done <= total)
      last_done, last_total, calls = done, total, calls + 1
    end })
    assert.is_true(calls >= 1)
    assert.equal(size, last_total)
    assert.equal(size, last_done) -- the last call: everything read
    assert.equal(4000, caps[1].frame_count)
    -- a forced format, and vp.open's checks of the options
    local forced = vp.open_all({ SAMPLE, "examples/sample.dm" }, { format = "dm" })
    assert.equal("dm", forced[1].format) -- read as vp.open would read it
    assert.equal(#assert(vp.open(SAMPLE, { format = "dm" })), #forced[1])
    assert.equal(#assert(vp.open("examples/sample.dm")), #forced[2])
    assert.has_error(function() vp.open_all({ SAMPLE }, { escape_width = 5 }) end,
      "vp.open: escape_width must be 4 or 8")
    assert.has_error(function() vp.open_all({ SAMPLE }, { format = "nope" }) end)
    assert.has_error(function() vp.open_all({ SAMPLE, 7 }) end, "vp.open_all: path 2 must be a string")
    local none = vp.open_all({})
    assert.same({}, none)
  end)

  it("raises a progress function's error once every capture is read, and keeps nothing open", function()
    assert.has_error(function()
      vp.open_all({ SAMPLE, RUN1 }, { progress = function() error("stop here") end })
    end)
    collectgarbage()
  end)
end)

describe("vp.batches_all", function()
  local infer = require "vp.infer"

  it("gives what each cap:series call gives, the captures' passes at once", function()
    local a, b = assert(vp.open(RUN1)), assert(vp.open(SAMPLE))
    local a2, b2 = assert(vp.open(RUN1)), assert(vp.open(SAMPLE))
    local na, nb = { a.root, a:find("Physics")[1] }, { b.root, b:find("Physics")[1], b:find("Rendering*")[1] }
    local ca, cb = infer.cuts(#a, 20), infer.cuts(#b, 7)
    local got = vp.batches_all({
      { a, na, "time_ms", { batches = ca, groups = true } },
      { b, nb, "self_ms", { batches = cb } },
      { b, { nb[2] }, "calls", { batches = cb } }, -- a second request on one capture
    })
    assert.equal(3, #got)
    -- each node's batches on its own, from its summary
    local function each(cap, nodes, field, cuts)
      local l = {}
      for i, n in ipairs(nodes) do l[i] = cap:dist(n, field):batches(cuts) end
      return l
    end
    local want = {
      each(a2, { a2.root, a2:find("Physics")[1] }, "time_ms", ca),
      each(b2, { b2.root, b2:find("Physics")[1], b2:find("Rendering*")[1] }, "self_ms", cb),
      each(b2, { b2:find("Physics")[1] }, "calls", cb),
    }
    for r = 1, 3 do
      assert.equal(#want[r], #got[r])
      for i = 1, #want[r] do assert.same(plain(want[r][i]), plain(got[r][i])) end
    end
    -- the groups' batches were kept for the capture: its group summaries give them without a pass
    local g = a:group("Physics")
    local d = a:dist("groups")[g]
    assert.same(plain(a2:dist("groups")[a2:group("Physics")]:batches(ca)), plain(d:batches(ca)))
    assert.same({}, vp.batches_all({}))
  end)

  it("makes the batches of the groups listed, and a group left out gives its own on demand", function()
    local a, fresh = assert(vp.open(SAMPLE)), assert(vp.open(SAMPLE))
    local cuts = infer.cuts(#a, 9)
    local asked, other = a:group("Physics"), a:group("Shadow_Rendering")
    assert.truthy(asked and other)
    vp.batches_all({ { a, {}, "self_ms", { batches = cuts, groups = { asked } } } })
    local dists, want = a:dist("groups"), fresh:dist("groups")
    for _, name in ipairs({ "Physics", "Shadow_Rendering" }) do
      local got = dists[a:group(name)]:batches(cuts)
      assert.same(plain(want[fresh:group(name)]:batches(cuts)), plain(got))
      assert.equal(got, dists[a:group(name)]:batches(cuts)) -- kept, not made again
    end
    assert.has_error(function()
      vp.batches_all({ { a, {}, "self_ms", { batches = infer.cuts(#a, 4), groups = { fresh:group("Physics") } } } })
    end)
    -- the cuts cached: the group list is still read, and refused
    local ok, err = pcall(vp.batches_all,
      { { a, {}, "self_ms", { batches = cuts, groups = { fresh:group("Physics") } } } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("a group of another capture", 1, true))
  end)

  it("keeps the groups of two requests with different group lists on the same cuts", function()
    local a, fresh = assert(vp.open(SAMPLE)), assert(vp.open(SAMPLE))
    local cuts = infer.cuts(#a, 9)
    -- the groups the capture's cache holds for these cuts (its internals)
    local function held()
      local t, n = debug.getuservalue(a, 2).group_batches, 0
      for key in pairs(t) do n = n + (key ~= "key" and 1 or 0) end
      return n
    end
    vp.batches_all({ { a, {}, "self_ms", { batches = cuts, groups = { a:group("Physics") } } } })
    assert.equal(1, held())
    vp.batches_all({ { a, {}, "self_ms", { batches = cuts, groups = { a:group("Shadow_Rendering") } } } })
    assert.equal(2, held())
    vp.batches_all({ { a, {}, "self_ms", { batches = cuts, groups = { a:group("Physics") } } } })
    assert.equal(2, held())
    local dists, want = a:dist("groups"), fresh:dist("groups")
    for _, name in ipairs({ "Physics", "Shadow_Rendering" }) do
      assert.same(plain(want[fresh:group(name)]:batches(cuts)), plain(dists[a:group(name)]:batches(cuts)))
    end
    -- asking a group it holds measures nothing more: a comparison's tested
    -- groups never cost the batches of every other group
    assert.equal(2, held())
  end)

  it("keeps the groups' batches of many stretches (a key of 1,000 cuts)", function()
    local a, fresh = assert(vp.open(SAMPLE)), assert(vp.open(SAMPLE))
    local cuts = infer.cuts(#a, 1000)
    local requests = {}
    for i = 1, 8 do
      requests[i] = { a, { a.root }, "time_ms", { batches = cuts, groups = i == 1 or { a:group("Physics") } } }
    end
    vp.batches_all(requests)
    local got = a:dist("groups")[a:group("Physics")]:batches(cuts)
    assert.same(plain(fresh:dist("groups")[fresh:group("Physics")]:batches(cuts)), plain(got))
  end)

  it("raises what cap:series raises, naming the request's capture", function()
    local a, b = assert(vp.open(RUN1)), assert(vp.open(RUN2))
    local cuts = infer.cuts(#a, 4)
    assert.has_error(function()
      vp.batches_all({ { a, { a.root }, "time_ms", { batches = cuts } },
        { b, { a.root }, "time_ms", { batches = cuts } } }) -- a node of another capture
    end)
    assert.has_error(function() vp.batches_all({ { a, { a.root }, "nope", { batches = cuts } } }) end)
    assert.has_error(function() vp.batches_all({ { a, { a.root }, "time_ms", { batches = { 0, 5 } } } }) end)
    assert.has_error(function() vp.batches_all({ 5 }) end,
      "vp.batches_all: request 1 must be {cap, nodes, field, opts}")
  end)
end)

describe("the metrics' passes for several captures at once", function()
  local metrics = require "vp.metrics"
  local ctx = require("vp.metrics.context").of
  local infer = require "vp.infer"

  -- The passes run unprotected here (metrics.compute_all and
  -- metrics.prepare_tests fall back to one pass per metric when one fails,
  -- which would hide a broken prefetch behind right answers).
  it("make each capture's node and group batches, as one capture's own calls would", function()
    local a, b = assert(vp.open(RUN1)), assert(vp.open(RUN2))
    metrics.will_test(a)
    metrics.will_test(b)
    local paths = { "Root/CEngine::Frame/Physics", "Root/CEngine::Frame/Render" }
    local asked = {}
    for i, p in ipairs(paths) do asked[i] = { param = p, field = "time_ms" } end
    metrics.lookup("node.PATH.p95_ms").prefetch({ { ctx = ctx(a), asked = asked }, { ctx = ctx(b), asked = asked } })
    metrics.lookup("group.NAME.mean_ms").test_prefetch({ { ctx = ctx(a), asked = {} }, { ctx = ctx(b), asked = {} } })
    for _, cap in ipairs({ a, b }) do
      local fresh = assert(vp.open(cap.path))
      local cuts = infer.cuts(#fresh, infer.batch_count(#fresh))
      for _, p in ipairs(paths) do
        local want = fresh:dist(fresh:node(p), "time_ms"):batches(cuts)
        local got = metrics.distribution(cap, "node." .. p .. ".p95_ms"):batches(cuts)
        assert.same(plain(want), plain(got))
      end
      local want = fresh:dist("groups")[fresh:group("Physics")]:batches(cuts)
      local got = metrics.distribution(cap, "group.Physics.mean_ms"):batches(cuts)
      assert.same(plain(want), plain(got))
    end
    -- and the values metrics.compute_all gives are metrics.compute's
    local names = { "node." .. paths[1] .. ".p95_ms", "node." .. paths[2] .. ".p99_ms", "group.Physics.p99_ms" }
    local all = metrics.compute_all({ a, b }, names)
    assert.same(metrics.compute(assert(vp.open(RUN1)), names), all[1])
    assert.same(metrics.compute(assert(vp.open(RUN2)), names), all[2])
  end)
end)
