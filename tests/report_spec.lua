-- report.lua's data (vp.overview's interactive part, vp.hitches.by_cause)
-- and its packing (vp.html): checked against the capture API and against a
-- decoder written here from the packing's description. The page itself is
-- driven in Chromium by tests/consumers/report_live.test.mjs.
local h = require "helpers"
local hitches = require "vp.hitches"
local html = require "vp.html"
local overview = require "vp.overview"

-- vp.html.pack's format, read back: base64, then LEB128 varints (zigzag when signed).
local function unpack(s, signed)
  local abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  local bits, nbits, bytes = 0, 0, {}
  for ch in s:gmatch("[^=]") do
    bits = bits << 6 | (abc:find(ch, 1, true) - 1)
    nbits = nbits + 6
    if nbits >= 8 then
      nbits = nbits - 8
      bytes[#bytes + 1] = bits >> nbits & 255
    end
  end
  local out, v, shift = {}, 0, 0
  for _, b in ipairs(bytes) do
    v = v | (b & 127) << shift
    if b < 128 then
      out[#out + 1] = signed and (v % 2 == 1 and -(v + 1) // 2 or v // 2) or v
      v, shift = 0, 0
    else
      shift = shift + 7
    end
  end
  return out
end

-- 600 frames; Stream (Streaming) +30 ms at 100, 300 and 500, Rag (Physics)
-- +20 ms at 200; a node named so that it could end a <script> element.
local function capture(path)
  local frames = {}
  for i = 1, 600 do
    local stream, rag = 200, 300
    if i == 100 or i == 300 or i == 500 then stream = stream + 30000 end
    if i == 200 then rag = rag + 20000 end
    local other = 9000 + (i % 7) * 100
    frames[i] = { tick = 7000 + 2 * i, [1] = stream + rag + other + 1000, [2] = stream, [3] = rag + 500,
      [4] = { us = rag, calls = 3 }, [5] = other }
  end
  return h.vprof(path, {
    nodes = {
      { id = 1, parent = 0, name = "Frame", group = "Game" },
      { id = 2, parent = 1, name = "Stream", group = "Streaming" },
      { id = 3, parent = 1, name = "Physics", group = "Physics" },
      { id = 4, parent = 3, name = "Rag", group = "Physics" },
      { id = 5, parent = 1, name = "</script><b>x", group = "World Rendering" },
    },
    groups = { "Streaming" },
    frames = frames,
  })
end

describe("report.lua's data", function()
  local dir, path, cap
  setup(function()
    dir = h.tmpdir()
    path = capture(dir .. "/c.vprof")
    cap = h.open_ok(path)
  end)
  teardown(function()
    cap:close()
    h.cleanup()
  end)

  it("hitches.by_cause: each hitch under its first cause, the largest total excess first", function()
    local function cause(name, excess)
      return { node = name, path = "R/" .. name, group = "G" .. name, excess_ms = excess }
    end
    local list = {
      { frame = 10, frame_ms = 40, baseline_ms = 10, causes = { cause("A", 20) } },
      { frame = 20, frame_ms = 50, baseline_ms = 10, causes = { cause("B", 35), cause("A", 4) } },
      { frame = 30, frame_ms = 45, baseline_ms = 10, causes = { cause("A", 25) } },
      { frame = 40, frame_ms = 30, baseline_ms = 12, causes = {} },
    }
    local g = hitches.by_cause(list)
    assert.are.same({ "R/A", "R/B" }, { g[1].path, g[2].path })
    assert.are.same({ count = 2, excess_ms = 45, worst_frame = 30, worst_excess_ms = 25, frames = { 10, 30 } },
      { count = g[1].count, excess_ms = g[1].excess_ms, worst_frame = g[1].worst_frame,
        worst_excess_ms = g[1].worst_excess_ms, frames = g[1].frames })
    assert.is_nil(g[3].path)
    assert.are.equal(18, g[3].excess_ms) -- no cause: the frame's own excess
    assert.are.same({}, hitches.by_cause({}))
  end)

  it("keeps each hitch frame's call tree as the API gives it, with every node's excess over its baseline", function()
    local doc = overview.analyze(cap, { tree_frames = { 7 } })
    local ex = doc.explore
    local kinds = {}
    for _, t in ipairs(ex.trees) do kinds[#kinds + 1] = t.frame .. " " .. t.kind end
    -- frame 100 is the slowest and a hitch: kept once
    assert.are.same({ "7 chosen", "100 hitch", "200 hitch", "300 hitch", "500 hitch" }, kinds)
    local n = #ex.nodes.path
    for _, t in ipairs(ex.trees) do
      local fr = cap:frame(t.frame)
      local k = 0
      for node, ms, calls in fr:nodes() do
        k = k + 1
        assert.are.equal(node.path, ex.nodes.path[t.node[k]])
        assert.are.same({ ms, fr:self_ms(node), calls }, { t.time_ms[k], t.self_ms[k], t.calls[k] })
      end
      assert.are.equal(k, #t.node)
      if t.kind == "hitch" then
        local want = {}
        local causes = require("vp.hitches.core").causes(cap, t.frame, { window = 30, limit = n })
        for _, c in ipairs(causes) do want[c.node.path] = c.excess_ms end
        local got = {}
        for j, i in ipairs(t.excess.node) do got[ex.nodes.path[i]] = t.excess.excess_ms[j] end
        assert.are.same(want, got)
        assert.are.equal(doc.hitches[1].causes[1].path, "Root/Frame/Stream")
      end
    end
    -- the trees kept: the largest hitches first
    local few = overview.analyze(cap, { trees = 1 }).explore.trees
    assert.are.equal(1, #few)
    assert.is_true(few[1].frame == 100 or few[1].frame == 300 or few[1].frame == 500)
    -- within a bound on their rows (6 nodes a frame): the frames asked for, the slowest (frame 300, a
    -- hitch too), then the hitches by excess (300, 500, 100, 200)
    local bounded = overview.analyze(cap, { tree_frames = { 7 }, tree_rows = 20 }).explore
    local frames = {}
    for i, t in ipairs(bounded.trees) do frames[i] = t.frame .. " " .. t.kind end
    assert.are.same({ "7 chosen", "300 hitch", "500 hitch" }, frames)
    assert.are.equal(2, bounded.trees_left_out)
  end)

  it("every frame's time, tick and top group, the budget groups at a finer resolution", function()
    local ex = overview.analyze(cap, { width = 200 }).explore
    local ft = cap:frame_times()
    assert.are.equal(600, #ex.frames.ms)
    for i = 1, 600 do
      local fr = cap:frame(i)
      assert.are.equal(ft[i], ex.frames.ms[i])
      assert.are.equal(fr.tick, ex.frames.tick[i])
      local best, top = 0, 0
      local per = {}
      for node in fr:nodes() do
        if node.group then per[node.group.name] = (per[node.group.name] or 0) + fr:self_ms(node) end
      end
      for gi, g in ipairs(ex.groups) do
        if (per[g.name] or 0) > best then best, top = per[g.name], gi end
      end
      assert.are.equal(top, ex.frames.top[i], "frame " .. i)
    end
    -- 200 columns of 3 frames, each split into 3 buckets (the detail of 4 the frames allow)
    assert.are.equal(600, ex.budget.buckets)
    local phys
    for gi, g in ipairs(ex.groups) do if g.name == "Physics" then phys = gi end end
    local col = cap:group_self_ms().Physics
    for b = 1, 600 do assert.is_true(math.abs(ex.budget.sums[phys][b] - col[b]) < 1e-9, "bucket " .. b) end
  end)

  it("the capture's phases for the frame-time chart, as vp.phases finds them", function()
    local sample = h.open_ok("examples/sample.vprof")
    local got = overview.analyze(sample).explore.phases
    local want = require("vp.phases").analyze(sample).phases
    assert.is_true(#want > 1)
    assert.are.equal(#want, #got)
    for i, p in ipairs(want) do
      assert.are.same({ p.phase, p.first, p.last, p.typical_ms }, { got[i].phase, got[i].first, got[i].last,
        got[i].typical_ms })
    end
    sample:close()
  end)

  it("html.pack: varints in base64, zigzag when signed; a negative value unsigned is refused", function()
    local list = { 0, 1, 127, 128, 300, 16383, 16384, 2 ^ 40, 3575.0000000001 }
    assert.are.same({ 0, 1, 127, 128, 300, 16383, 16384, 1 << 40, 3575 }, unpack(html.pack(list)))
    assert.are.same({ 0, -1, 1, -64, 64, -100000 }, unpack(html.pack({ 0, -1, 1, -64, 64, -100000 }, true), true))
    assert.are.equal("", html.pack({}))
    assert.has_error(function() html.pack({ -1 }) end)
  end)

  it("the page's data: the columns packed as described, no name able to end its element", function()
    local doc = overview.analyze(cap)
    local live = html.live(doc)
    local units = unpack(live.frames.ms)
    local ft = cap:frame_times()
    for i = 1, 600 do assert.are.equal(ft[i], units[i] * live.frames.unit_ms) end
    local page = html.report(doc)
    assert.is_falsy(page:find("</script><b>", 1, true))
    assert.is_truthy(page:find("\\u003c/script>\\u003cb>x", 1, true))
    local data = page:match('<script type="application/json" id="vp%-data">(.-)</script>')
    assert.is_truthy(data and #data > 1000)
  end)

  describe("report.lua", function()
    it("refuses several captures without --runs, and a --tree outside the capture", function()
      local r = h.run("scripts/report.lua", path, path)
      assert.are.equal(2, r.code)
      assert.is_truthy(r.stderr:find("--runs", 1, true), r.stderr)
      r = h.run("scripts/report.lua", path, "--tree", "601")
      assert.are.equal(2, r.code)
      assert.is_truthy(r.stderr:find("the capture holds frames 1..600", 1, true), r.stderr)
      r = h.run("scripts/report.lua", path, "--frames", "101:200", "--tree", "150", "--json")
      assert.are.equal(0, r.code, r.stderr)
      assert.is_truthy(r.stdout:find('"frame":150,', 1, true))
    end)

    it("--per: each window of frame time with its figures, in the data and on the page (issue 26)", function()
      -- the windows worked out here from the frame times: a window ends with the
      -- frame at which the time summed reaches the next multiple of 1 s
      local ft = cap:frame_times():totable()
      local want, first, clock, edge = {}, 1, 0, 1000
      for i, v in ipairs(ft) do
        clock = clock + v
        if clock >= edge or i == #ft then
          local part = table.move(ft, first, i, 1, {})
          table.sort(part)
          want[#want + 1] = { first = first, last = i, p99 = part[math.ceil(0.99 * #part)], max = part[#part] }
          first = i + 1
          while edge <= clock do edge = edge + 1000 end
        end
      end
      assert.is_true(#want >= 5)
      local doc = h.run_json("scripts/report.lua", path, "--per", "1s", "--json")
      assert.are.equal(1000, doc.per_ms)
      assert.are.equal(#want, #doc.windows)
      local hitch_total = 0
      for i, w in ipairs(doc.windows) do
        assert.are.same({ want[i].first, want[i].last }, { w.first, w.last })
        assert.is_true(math.abs(want[i].p99 - w.p99_ms) < 1e-9 and math.abs(want[i].max - w.max_ms) < 1e-9)
        hitch_total = hitch_total + w.hitches
      end
      assert.are.equal(doc.hitch_count, hitch_total)
      local r = h.run("scripts/report.lua", path, "--per", "1s")
      assert.are.equal(0, r.code, r.stderr)
      local section = r.stdout:match('<section id="windows"><h2>Per 1 s of frame time</h2>(.-)</section>')
      assert.is_truthy(section, "the page has the windows' table")
      local _, rows = section:gsub("<tr>", "")
      assert.are.equal(#want + 1, rows) -- the head's row and one a window
      r = h.run("scripts/report.lua", path)
      assert.is_falsy(r.stdout:find('id="windows"', 1, true), "no table without --per")
      r = h.run("scripts/report.lua", path, "--per", "soon")
      assert.are.equal(2, r.code)
      assert.matches("%-%-per: bad value 'soon'", r.stderr)
    end)

    it("pages runs against runs: every run on the timeline, node totals by stretch of each side", function()
      local doc = h.run_json("scripts/report.lua", "examples/runs/new", "--runs", "--baseline", "examples/runs/base",
        "--json")
      local ex = doc.baseline.explore
      assert.are.equal(5, #ex.sides[1].runs)
      assert.are.equal(5, #ex.sides[2].runs)
      assert.are.equal("runs", (function()
        for _, s in ipairs(ex.settings) do if s.name == "evidence" then return s.value end end
      end)())
      -- each stretch holds a tenth of each of the five 3,000-frame runs
      for _, side in ipairs(ex.sides) do
        for _, st in ipairs(side.stretches) do assert.are.equal(1500, st.frames) end
      end
      local root = ex.tree.path[2]
      local want = 0
      for r = 1, 5 do
        local c = h.open_ok("examples/runs/base/run" .. r .. ".vprof")
        want = want + c:totals(c:node(root), 301, 600).time_ms
        c:close()
      end
      assert.is_true(math.abs(ex.sides[1].stretches[2].time_ms[2] - want) < 1e-6)
    end)
  end)
end)
