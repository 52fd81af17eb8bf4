-- The VProf reader's whole-capture statistics against plain Lua over the
-- same frames: group self-time summaries (exact value counts, so the
-- nearest-rank percentiles are a sort's, bit for bit) on random and
-- adversarial columns; the same figures whether the open pass computed them
-- ({stats = ...}) or a later pass did; hitch causes found in C on a capture
-- with hundreds of hitches (overlapping windows, nodes added late) against
-- the definition written out in Lua frame by frame; node orders against a
-- Lua sort; frame-time figures against the Series.
local h = require "helpers"
local vp = require "vp"
local stats = require "vp.stats"

local dir

local seed = 12345
local function rnd(k)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % k
end

-- nearest rank of a sorted list
local function rank_value(sorted, p)
  local n = #sorted
  local r = math.ceil(p * n / 100 - 1e-9)
  if r < 1 then r = 1 end
  if r > n then r = n end
  return sorted[r]
end

setup(function() dir = h.tmpdir() end)
teardown(h.cleanup)

describe("group self-time summaries", function()
  -- One node per group under Frame (self 0): each group's self time per
  -- frame is the planted column, in 4 us steps (exact in units).
  local N = 1001
  local COLUMNS = {
    Random = function() return 4 * rnd(9000) end,
    Equal = function() return 12000 end,
    Distinct = function(i) return 4 * (3 * N - 2 * i) end,
    Outlier = function(i) return i == 777 and 4 * 90000000 or 4000 + 4 * (i % 3) end, -- escaped once
    Zeros = function(i) return i == N and 8 or 0 end,
  }
  local NAMES = { "Random", "Equal", "Distinct", "Outlier", "Zeros" }
  local planted = {}
  local path

  setup(function()
    local nodes = { { id = 1, parent = 0, name = "Frame", group = "Game" } }
    for k, name in ipairs(NAMES) do
      nodes[#nodes + 1] = { id = 1 + k, parent = 1, name = name, group = name }
      planted[name] = {}
    end
    local frames = {}
    for i = 1, N do
      local f, total = { tick = i }, 0
      for k, name in ipairs(NAMES) do
        local us = COLUMNS[name](i)
        planted[name][i] = us // 4 * 0.004
        f[1 + k] = us
        total = total + us
      end
      f[1] = total
      frames[i] = f
    end
    path = h.vprof(dir .. "/columns.vprof", { groups = NAMES, nodes = nodes, frames = frames })
  end)

  it("give the percentiles of a sort, and the Series' figures, bit for bit", function()
    for _, opts in ipairs({ {}, { stats = true } }) do
      local cap = assert(vp.open(path, opts))
      local dists, cols = {}, {}
      for g, d in pairs(cap:dist("groups")) do dists[g.name] = d end
      for g, s in pairs(cap:group_self_ms()) do cols[g.name] = s end
      for _, name in ipairs(NAMES) do
        local d, s, want = dists[name], cols[name], planted[name]
        assert.equal(N, #d)
        assert.same(want, s:totable()) -- the column is the planted one
        local sorted = {}
        for i, v in ipairs(want) do sorted[i] = v end
        table.sort(sorted)
        for _, p in ipairs({ 0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100 }) do
          assert.equal(rank_value(sorted, p), d:percentile(p), name .. " p" .. p)
          assert.equal(s:percentile(p), d:percentile(p), name .. " p" .. p)
        end
        assert.equal(s:sum(), d:sum(), name)
        assert.equal(s:mean(), d:mean(), name)
        assert.equal(s:max(), d:max(), name)
        assert.equal(s:min(), d:min(), name)
        assert.equal(s:argmax(), d:argmax(), name)
        assert.equal(s:argmin(), d:argmin(), name)
        local counts, n = d:counts()
        assert.equal(N, n)
        local seen = 0
        for v, c in pairs(counts) do
          local k = 0
          for _, x in ipairs(want) do k = k + (x == v and 1 or 0) end
          assert.equal(k, c, name)
          seen = seen + c
        end
        assert.equal(N, seen)
        assert.is_true(math.abs(s:stddev() - d:stddev()) <= 1e-9 * (1 + s:stddev()))
        assert.same(s:totable(), d:totable())
      end
      cap:close()
    end
  end)

  it("budget.lua reports those figures (to the JSON's 14 digits)", function()
    local function near(want, got, what)
      assert(math.abs(want - got) <= 1e-12 * math.abs(want), string.format("%s: %.17g ~= %.17g", what, want, got))
    end
    local doc = h.run_json("scripts/budget.lua", "--json", path)
    for _, row in ipairs(doc.groups) do
      local want = planted[row.group]
      if want then
        local sorted = {}
        for i, v in ipairs(want) do sorted[i] = v end
        table.sort(sorted)
        near(rank_value(sorted, 50), row.p50_ms, row.group)
        near(rank_value(sorted, 95), row.p95_ms, row.group)
        near(rank_value(sorted, 99), row.p99_ms, row.group)
        near(sorted[N], row.max_ms, row.group)
      end
    end
  end)
end)

describe("statistics at open and on demand", function()
  it("are the same figures, and a capture opened without them computes them once", function()
    local p = "examples/sample.vprof"
    local lazy = assert(vp.open(p))
    local eager = assert(vp.open(p, { stats = true }))
    local budget, top = require "vp.budget", require "vp.top"
    for _, fold in ipairs({ false, true }) do
      assert.same(budget.analyze(eager, { fold_hidden = fold }), budget.analyze(lazy, { fold_hidden = fold }))
    end
    assert.same(top.analyze(eager, { limit = 0 }), top.analyze(lazy, { limit = 0 }))
    local a, b = eager:totals(), lazy:totals()
    for i = 1, #a do a[i].node, b[i].node = a[i].node.path, b[i].node.path end
    assert.same(a, b)
    -- only nodes asked for: groups come from a pass when needed
    local some = assert(vp.open(p, { stats = { nodes = true } }))
    assert.same(budget.analyze(eager), budget.analyze(some))
    assert.has_error(function() vp.open(p, { stats = 3 }) end)
    lazy:close()
    eager:close()
    some:close()
  end)
end)

describe("folded group summaries", function()
  it("equal the folded columns when hidden nodes appear mid-capture, summarised at open or later", function()
    -- Frames 1..150 have visible groups only; frame 151 adds a node of a
    -- hidden group under Physics, frame 201 one under a node of another
    -- hidden group.
    local frames = {}
    for i = 1, 300 do
      local f = { tick = i, [1] = 0, [2] = 4 * (1000 + rnd(300)), [3] = 4 * (500 + rnd(900)) }
      if i >= 151 then f[4] = 4 * (100 + rnd(500)) end
      if i >= 201 then f[5] = 4 * (50 + rnd(50)) end
      f[2] = f[2] + (f[4] or 0)
      f[3] = f[3] + (f[5] or 0)
      f[1] = f[2] + f[3]
      if i == 151 then f.add = { { id = 4, parent = 2, name = "Hidden", group = "Secret" } } end
      if i == 201 then f.add = { { id = 5, parent = 3, name = "Deep", group = "Secret" } } end
      frames[i] = f
    end
    local path = h.vprof(dir .. "/fold.vprof", {
      groups = { { "Secret", 0x8000 } },
      nodes = { { id = 1, parent = 0, name = "Frame", group = "Game" },
        { id = 2, parent = 1, name = "Physics", group = "Physics" },
        { id = 3, parent = 1, name = "Sound", group = "Sound" } },
      frames = frames,
    })
    for _, opts in ipairs({ {}, { stats = { fold_hidden = true } }, { stats = true } }) do
      local cap = assert(vp.open(path, opts))
      for _, fold in ipairs({ true, false }) do
        local cols = {}
        for g, col in pairs(cap:group_self_ms({ fold_hidden = fold })) do cols[g.name] = col end
        local seen = 0
        for g, d in pairs(cap:dist("groups", { fold_hidden = fold })) do
          local col = assert(cols[g.name], g.name)
          assert.same(col:totable(), d:totable())
          assert.equal(col:sum(), d:sum(), g.name)
          assert.equal(col:argmax(), d:argmax(), g.name)
          for _, p in ipairs({ 0, 50, 90, 99, 100 }) do assert.equal(col:percentile(p), d:percentile(p)) end
          seen = seen + 1
        end
        assert.equal(fold and 4 or 5, seen) -- the root's Unaccounted too; Secret has no folded time
      end
      cap:close()
    end
  end)
end)

describe("hitch causes", function()
  -- A tree of 12 nodes over 5 groups, two of them added late; noisy times;
  -- a spike every 3..9 frames in a random node (hundreds of hitches, their
  -- windows overlapping), some spikes in two nodes at once.
  local path
  local TREE = {
    { id = 1, parent = 0, name = "Frame", group = "Game" },
    { id = 2, parent = 1, name = "Render", group = "World Rendering" },
    { id = 3, parent = 2, name = "Shadows", group = "Shadow_Rendering" },
    { id = 4, parent = 2, name = "Models", group = "Other_Model_Rendering" },
    { id = 5, parent = 1, name = "Physics", group = "Physics" },
    { id = 6, parent = 5, name = "Broadphase", group = "Physics" },
    { id = 7, parent = 5, name = "Solve", group = "Physics" },
    { id = 8, parent = 1, name = "Sound", group = "Sound" },
    { id = 9, parent = 8, name = "Mix", group = "Sound" },
    { id = 10, parent = 1, name = "Misc", group = "Game" },
  }
  local LATE = { { id = 11, parent = 10, name = "Streaming", group = "FileSystem" },
    { id = 12, parent = 4, name = "Models", group = "Other_Model_Rendering" } } -- a namesake under Models

  setup(function()
    local parent = {}
    for _, n in ipairs(TREE) do parent[n.id] = n.parent end
    for _, n in ipairs(LATE) do parent[n.id] = n.parent end
    local frames, next_spike = {}, 5
    for i = 1, 1500 do
      local maxid = i >= 600 and 12 or 10
      local self = {}
      for id = 1, maxid do self[id] = 4 * (200 + rnd(400)) end
      if i == next_spike then
        self[1 + rnd(maxid)] = self[1 + rnd(maxid)] + 4 * (5000 + rnd(20000))
        if rnd(3) == 0 then self[2 + rnd(maxid - 1)] = 4 * (3000 + rnd(9000)) end
        next_spike = i + 3 + rnd(7)
      end
      local incl = {}
      for id = maxid, 1, -1 do
        incl[id] = (incl[id] or 0) + self[id]
        local p = parent[id]
        if p ~= 0 then incl[p] = (incl[p] or 0) + incl[id] end
      end
      local f = { tick = i }
      for id = 1, maxid do f[id] = incl[id] end
      if i == 600 then f.add = LATE end
      frames[i] = f
    end
    path = h.vprof(dir .. "/causes.vprof", { nodes = TREE, frames = frames })
  end)

  -- The definitions (hitches.DEFINITIONS), frame by frame in Lua.
  local function reference(cap, window, limit, threshold)
    local ft = cap:frame_times():totable()
    local gcols = cap:group_self_ms()
    local out = {}
    local function median_of(first, last, value)
      local vals = {}
      for j = first, last do vals[#vals + 1] = value(j) end
      return stats.median(vals) or 0
    end
    local function by_excess(a, b)
      if a.excess_ms ~= b.excess_ms then return a.excess_ms > b.excess_ms end
      return (a.path or a.group) < (b.path or b.group)
    end
    for i = 1, #ft do
      local first, last = math.max(1, i - window), i - 1
      local base = first <= last and median_of(first, last, function(j) return ft[j] end) or nil
      local hit
      if threshold then
        hit = ft[i] > threshold
      else
        hit = i > 1 and ft[i] >= 2.5 * base and ft[i] - base >= 5
      end
      if hit and limit == 0 then
        out[#out + 1] = { frame = i, frame_ms = ft[i], baseline_ms = base, causes = {}, groups = {} }
      elseif hit then
        local fr = cap:frame(i)
        local causes = {}
        for node in fr:nodes() do
          local s = fr:self_ms(node)
          if s > 0 then
            local e = s - median_of(first, last, function(j) return cap:frame(j):self_ms(node) end)
            if e > 1e-9 then causes[#causes + 1] = { path = node.path, self_ms = s, excess_ms = e } end
          end
        end
        table.sort(causes, by_excess)
        local groups = {}
        for g, col in pairs(gcols) do
          local s = col[i]
          if s > 0 then
            local e = s - median_of(first, last, function(j) return col[j] end)
            if e > 1e-9 then groups[#groups + 1] = { group = g.name, excess_ms = e } end
          end
        end
        table.sort(groups, by_excess)
        for k = #causes, limit + 1, -1 do causes[k] = nil end
        for k = #groups, limit + 1, -1 do groups[k] = nil end
        out[#out + 1] = { frame = i, frame_ms = ft[i], baseline_ms = base, causes = causes, groups = groups }
      end
    end
    return out
  end

  local function strip(doc)
    local out = {}
    for k, hh in ipairs(doc.hitches) do
      local causes, groups = {}, {}
      for i, c in ipairs(hh.causes) do causes[i] = { path = c.path, self_ms = c.self_ms, excess_ms = c.excess_ms } end
      for i, g in ipairs(hh.groups) do groups[i] = { group = g.group, excess_ms = g.excess_ms } end
      out[k] = { frame = hh.frame, frame_ms = hh.frame_ms, baseline_ms = hh.baseline_ms, causes = causes,
        groups = groups }
    end
    return out
  end

  it("are those of the plain definition over the same frames, on hundreds of hitches #slow", function()
    local cap = assert(vp.open(path))
    local hitches = require "vp.hitches"
    for _, case in ipairs({ { 30, 5 }, { 7, 3 }, { 1, 1 }, { 200, 8 } }) do
      local doc = hitches.analyze(cap, { window = case[1], causes = case[2] })
      assert.is_true(#doc.hitches >= 100, "window " .. case[1] .. ": " .. #doc.hitches .. " hitches")
      assert.same(reference(cap, case[1], case[2]), strip(doc), "window " .. case[1])
    end
    -- the absolute rule flags frame 1 too (no baseline, causes against 0)
    local doc = hitches.analyze(cap, { threshold_ms = 12, causes = 4 })
    assert.is_true(#doc.hitches >= 100)
    assert.same(reference(cap, 30, 4, 12), strip(doc))
    -- explain = false (what the metrics ask): the same hitches and stutter, no causes looked for
    local full, bare = hitches.analyze(cap), hitches.analyze(cap, { explain = false })
    assert.equal(full.stutter_pct, bare.stutter_pct)
    assert.equal(#full.hitches, #bare.hitches)
    for i, hh in ipairs(bare.hitches) do
      assert.equal(full.hitches[i].frame, hh.frame)
      assert.equal(full.hitches[i].baseline_ms, hh.baseline_ms)
      assert.same({}, hh.causes)
      assert.same({}, hh.groups)
    end
    assert.has_error(function() hitches.analyze(cap, { explain = "no" }) end)
    cap:close()
  end)

  it("find the baselines of many hitches over long windows with a sliding median #slow", function()
    -- So many frames to test over so long a window that copying each window
    -- would cost more than one sliding pass: the reader slides a median.
    local cap = assert(vp.open(path))
    local hitches = require "vp.hitches"
    local doc = hitches.analyze(cap, { threshold_ms = 0, window = 400, causes = 0 })
    assert.equal(1500, #doc.hitches)
    assert.same(reference(cap, 400, 0, 0), strip(doc))
    for _, w in ipairs({ 300, 700 }) do
      doc = hitches.analyze(cap, { window = w, factor = 1.1, min_excess_ms = 0, causes = 0 })
      assert.is_true(#doc.hitches * w > 64 * 1500 + 4096, w .. ": " .. #doc.hitches) -- slides
      local ft = cap:frame_times():totable()
      local mine = {}
      for i = 2, #ft do
        local vals = {}
        for j = math.max(1, i - w), i - 1 do vals[#vals + 1] = ft[j] end
        local b = stats.median(vals)
        if ft[i] >= 1.1 * b and ft[i] - b >= 0 then
          mine[#mine + 1] = { frame = i, frame_ms = ft[i], baseline_ms = b, causes = {}, groups = {} }
        end
      end
      assert.same(mine, strip(doc), "window " .. w)
    end
    cap:close()
  end)

  -- A node's totals over every frame, from its own per-frame series.
  local function node_reference(cap, node)
    local t = cap:series(node, "time_ms"):totable()
    local s = cap:series(node, "self_ms"):totable()
    local c = cap:series(node, "calls"):totable()
    local want = { time_ms = 0, self_ms = 0, calls = 0, peak_ms = 0, peak_self_ms = 0 }
    for i = 1, #t do
      want.time_ms, want.self_ms, want.calls = want.time_ms + t[i], want.self_ms + s[i], want.calls + c[i]
      if t[i] > want.peak_ms then want.peak_ms, want.peak_frame = t[i], i end
      if s[i] > want.peak_self_ms then want.peak_self_ms = s[i] end
    end
    return want
  end

  local function assert_totals(want, r)
    local what = r.node.path
    assert.is_true(math.abs(want.time_ms - r.time_ms) <= 1e-9 * want.time_ms, what)
    assert.is_true(math.abs(want.self_ms - r.self_ms) <= 1e-9 * want.self_ms, what)
    assert.equal(want.calls, r.calls, what)
    assert.equal(want.peak_ms, r.peak_ms, what)
    assert.equal(want.peak_self_ms, r.peak_self_ms, what)
    if want.peak_frame then assert.equal(want.peak_frame, r.peak_frame, what) end
  end

  it("give node totals and peaks that are the frames' own, where leaves gain children mid-capture", function()
    -- Misc and Models are leaves until frame 600 and inner nodes after: a
    -- leaf's self totals come from its time totals, an inner node's from
    -- its self times. The same whether the open computed the node totals
    -- alone ({nodes = true}: only the inner nodes' self times), with every
    -- statistic, or a later pass did.
    for _, opts in ipairs({ { stats = { nodes = true } }, { stats = true }, {} }) do
      local cap = assert(vp.open(path, opts))
      local rows = cap:totals()
      assert.equal(cap.node_count, #rows)
      for _, r in ipairs(rows) do assert_totals(node_reference(cap, r.node), r) end
      cap:close()
    end
  end)

  it("give the same node totals when the open pass totals only the nodes of some names", function()
    -- Both nodes named Models (one added at frame 600 under the other,
    -- which turns inner then), Streaming (added at 600) and Misc (inner
    -- from 600), with and without the group statistics; then a node of
    -- another name, whose totals take one more pass; then all of them.
    for _, stats_opt in ipairs({ { nodes = { "Models", "Streaming", "Misc", "absent" } },
      { groups = true, nodes = { "Misc", "Models", "Streaming" } } }) do
      local cap = assert(vp.open(path, { stats = stats_opt }))
      local named = {}
      for node in cap:nodes() do
        if node.name == "Models" or node.name == "Streaming" or node.name == "Misc" then named[#named + 1] = node end
      end
      assert.equal(4, #named)
      for _, node in ipairs(named) do assert_totals(node_reference(cap, node), cap:totals(node)) end
      local solve = cap:node("Frame/Physics/Solve")
      assert_totals(node_reference(cap, solve), cap:totals(solve))
      local rows = cap:totals()
      assert.equal(cap.node_count, #rows)
      for _, r in ipairs(rows) do assert_totals(node_reference(cap, r.node), r) end
      cap:close()
    end
    assert.has_error(function() vp.open(path, { stats = { nodes = { "Models", 3 } } }) end,
      "vp.open: stats.nodes must be true or a list of node names")
  end)

  it("cost the window frames only: many hitches add little to none", function()
    local cap = assert(vp.open(path))
    local list = require("vp.hitches.core").detect(cap, { window = 30 })
    local t0 = os.clock()
    for _, hh in ipairs(list) do require("vp.hitches.core").causes(cap, hh.frame) end
    local per_hitch = (os.clock() - t0) / #list
    assert.is_true(per_hitch < 0.002, string.format("%.2f ms per hitch", per_hitch * 1000))
    cap:close()
  end)
end)

describe("node orders and frame-time figures", function()
  it("sort like top.lua's rows sorted in Lua, ties by path", function()
    local cap = assert(vp.open("examples/sample.vprof"))
    local function key_of(key, r, nframes)
      local per_frame = r.time_ms / nframes
      if key == "time" then return r.time_ms end
      if key == "self" then return r.self_ms end
      if key == "per_call" then return r.calls > 0 and r.time_ms / r.calls or nil end
      if key == "peak" then return r.peak_ms end
      return per_frame > 0 and r.peak_ms / per_frame or nil
    end
    for _, range in ipairs({ { 1, #cap }, { 100, 140 }, { 3000, 3000 } }) do
      local nframes = range[2] - range[1] + 1
      local all = cap:totals(range[1], range[2])
      for _, key in ipairs({ "time", "self", "per_call", "peak", "peak_over_avg" }) do
        local rows = {}
        for _, r in ipairs(all) do
          if r.node.parent and r.frames > 0 then
            rows[#rows + 1] = { path = r.node.path, v = key_of(key, r, nframes) }
          end
        end
        table.sort(rows, function(a, b)
          if a.v ~= b.v then
            if a.v == nil then return false end
            if b.v == nil then return true end
            return a.v > b.v
          end
          return a.path < b.path
        end)
        local got, count = cap:totals(range[1], range[2], { sort = key, limit = 0 })
        assert.equal(#rows, count)
        for i, r in ipairs(rows) do assert.equal(r.path, got[i].node.path, key .. " row " .. i) end
        local top5 = cap:totals(range[1], range[2], { sort = key, limit = 5 })
        assert.equal(5, #top5)
        assert.equal(rows[5].path, top5[5].node.path)
      end
    end
    cap:close()
  end)

  it("equal the Series' and vp.stats' answers", function()
    local cap = assert(vp.open("examples/sample.vprof"))
    local d, s = cap:dist("frame_ms"), cap:frame_times()
    for _, p in ipairs({ 0, 1, 50, 95, 99, 99.9, 100 }) do assert.equal(s:percentile(p), d:percentile(p)) end
    assert.equal(s:sum(), d:sum())
    assert.equal(s:mean(), d:mean())
    assert.equal(s:max(), d:max())
    assert.equal(s:argmax(), d:argmax())
    for _, pct in ipairs({ 1, 0.1, 10, 50, 100 }) do
      local k = stats.slowest_count(#s, pct)
      assert.equal(stats.low_fps(s, pct), 1000 / (cap:dist("frame_ms"):top_sum(k) / k))
    end
    assert.has_error(function() cap:dist("frame_ms"):top_sum(0) end)
    assert.has_error(function() cap:dist("frame_ms"):top_sum(#cap + 1) end)
    cap:close()
  end)
end)
