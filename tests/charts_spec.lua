-- The charts' data (vp.charts) and their drawing (vp.svg, plot.lua): what
-- a chart shows is read back from the SVG (its axis ticks, its paths) and
-- checked against the capture's own figures, computed here the plain way
-- from cap:frame(i) and the frame-time Series.
local h = require "helpers"
local charts = require "vp.charts"
local svg = require "vp.svg"

-- The x axis of a chart read back from its tick labels: a function from a
-- pixel column to a value (a straight line through the first and last tick).
local function x_axis(doc)
  local ticks, row = {}, nil
  for x, y, v in doc:gmatch('<text x="([%d.%-]+)" y="([%d.]+)" text%-anchor="middle">([%d.%-]+)</text>') do
    y = tonumber(y)
    if not row or y > row then row, ticks = y, {} end
    if y == row then ticks[#ticks + 1] = { x = tonumber(x), v = tonumber(v) } end
  end
  assert(#ticks >= 2, "fewer than two x ticks")
  local a, b = ticks[1], ticks[#ticks]
  return function(px) return a.v + (px - a.x) * (b.v - a.v) / (b.x - a.x) end
end

-- The marks of a histogram: {label = text, x = pixel column}.
local function marks_of(doc)
  local list = {}
  for x, text in doc:gmatch('<line class="mark" x1="([%d.]+)".-<text[^>]*>([^<]*)</text>') do
    list[#list + 1] = { x = tonumber(x), label = text }
  end
  return list
end

-- A capture with the given frame times (ms) in one node.
local function times_capture(path, list)
  local frames = {}
  for i, ms in ipairs(list) do frames[i] = { tick = 100 + i, [1] = math.floor(ms * 1000 / 4 + 0.5) * 4 } end
  return h.vprof(path, { nodes = { { id = 1, name = "Frame", group = "Game" } }, frames = frames })
end

-- Three groups over 300 frames, a node that starts at frame 100, a
-- Physics spike at frame 250:
--   Root / Frame (Game) / Render (World Rendering), Physics (Physics) / Solver (Physics), Late (Sound)
local function groups_capture(path)
  local frames = {}
  for i = 1, 300 do
    local render, phys, solver = 4000 + (i % 7) * 100, 2000 + (i % 5) * 40, 800 + (i % 3) * 8
    if i == 250 then solver = 30000 end
    local late = i >= 100 and 500 + (i % 4) * 12 or nil
    local f = { tick = 5000 + i, [1] = render + phys + solver + (late or 0) + 300, [2] = render, [3] = phys + solver,
      [4] = solver, [5] = late }
    if i == 100 then f.add = { { id = 5, parent = 1, name = "Late", group = "Sound" } } end
    frames[i] = f
  end
  return h.vprof(path, {
    nodes = {
      { id = 1, parent = 0, name = "Frame", group = "Game" },
      { id = 2, parent = 1, name = "Render", group = "World Rendering" },
      { id = 3, parent = 1, name = "Physics", group = "Physics" },
      { id = 4, parent = 3, name = "Solver", group = "Physics" },
    },
    frames = frames,
  })
end

-- Each frame's self time per group, from the frame's nodes.
local function group_self_by_frame(cap)
  local out = {}
  for i = 1, cap.frame_count do
    local fr, per = cap:frame(i), {}
    for node in fr:nodes() do
      local g = node.group
      if g then per[g.id] = (per[g.id] or 0) + fr:self_ms(node) end
    end
    out[i] = per
  end
  return out
end

describe("vp.charts and vp.svg", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  describe("the histogram's marks (issue 26, wrong answer 8)", function()
    local function check_marks(cap)
      local d = charts.distribution(cap)
      local doc = svg.histogram(d)
      local value_at = x_axis(doc)
      local px = (d.bins[#d.bins].hi - d.bins[1].lo) / 884 -- one pixel of the plot in ms
      local want = { ["p50"] = d.marks.p50, ["p95"] = d.marks.p95, ["p99"] = d.marks.p99,
        ["1 % low"] = d.marks.low_1pct_ms, ["0.1 % low"] = d.marks.low_01pct_ms }
      local seen, marks = 0, marks_of(doc)
      for _, m in ipairs(marks) do
        local name = m.label:match("^(p%d+)") or (m.label:match("^([%d.]+) ?%% low") or "?") .. " % low"
        assert.is_not_nil(want[name], "a mark labelled " .. m.label)
        seen = seen + 1
        local at = value_at(m.x)
        assert.is_true(math.abs(at - want[name]) <= 1.5 * px, string.format("%s is drawn at %.2f ms, its value is "
          .. "%.2f ms", name, at, want[name]))
        m.name = name
      end
      for _, m in ipairs(marks) do
        local name = m.name
        -- labelled in the unit of the page's text: ms, and the lows' FPS
        assert.is_truthy(m.label:find(require("vp.fmt").ms(want[name]) .. " ms", 1, true), m.label)
        if name:find("low") then
          -- the text's unit: the low FPS as hitches.lua words it
          assert.is_truthy(m.label:find(string.format("(%.1f fps)", 1000 / want[name]), 1, true), m.label)
        end
      end
      assert.are.equal(5, seen)
      return d
    end

    it("on the sample: the 1 % and 0.1 % lows at 20.3 and 48.5 ms, not at the axis's end", function()
      local cap = h.open_ok("examples/sample.vprof")
      local d = check_marks(cap)
      local hit = require("vp.hitches").analyze(cap, { explain = false })
      assert.are.equal(string.format("%.1f", hit.low_1pct_fps), string.format("%.1f", 1000 / d.marks.low_1pct_ms))
      cap:close()
    end)

    it("with a 70 ms frame: the 0.1 % low marked at its value beyond the p99.9", function()
      local list = {}
      for i = 1, 3000 do list[i] = 15 + (i % 7) * 0.2 end
      list[500], list[1500], list[2500] = 40, 40, 70
      local cap = h.open_ok(times_capture(dir .. "/tail.vprof", list))
      local d = check_marks(cap)
      assert.is_true(math.abs(d.marks.low_01pct_ms - 50) < 1e-9, tostring(d.marks.low_01pct_ms))
      assert.is_true(d.bins[#d.bins].hi >= 50 - 1e-9, "the axis stops before the 0.1 % low")
      cap:close()
    end)
  end)

  describe("the frame-time chart", function()
    it("zoomed into 101 frames it is one line through every frame (issue 26, wrong answer 9)", function()
      local cap = h.open_ok("examples/sample.vprof", { frames = { 3050, 3150 } })
      local d = charts.frametime(cap)
      local doc = svg.frametime(d)
      local path = doc:match('<path class="envelope" d="([^"]*)"')
      assert.is_not_nil(path)
      local _, moves = path:gsub("M", "")
      assert.are.equal(1, moves, "the envelope is " .. moves .. " pieces")
      -- the line passes through each frame: column c's point is frame 3049 + c at its time
      local y0, per = doc:match('data%-y%-zero="([%d.]+)" data%-px%-per%-unit="([%d.e%-]+)"')
      y0, per = tonumber(y0), tonumber(per)
      local ft, k = cap:frame_times(), 0
      for _, yy in path:gmatch("[ML]([%d.]+) ([%d.]+)") do
        k = k + 1
        if k > 101 then break end
        assert.is_true(math.abs((y0 - tonumber(yy)) / per - ft[3049 + k]) <= 0.06 / per + 1e-9, "frame " .. (3049 + k))
      end
      assert.are.equal(101, #d.columns)
      cap:close()
    end)

    it("draws the target lines: 16.7 and 33.3 ms by default, 1000 / FPS with --target-fps", function()
      local cap = h.open_ok("examples/sample.vprof")
      local d = charts.frametime(cap)
      assert.are.same({ 60, 30 }, { d.targets[1].fps, d.targets[2].fps })
      local doc = svg.frametime(d)
      local got = {}
      for ms in doc:gmatch('<line class="target"[^>]*data%-ms="([%d.]+)"') do got[#got + 1] = tonumber(ms) end
      assert.are.equal(2, #got)
      assert.is_true(math.abs(got[1] - 16.6667) < 1e-3 and math.abs(got[2] - 33.3333) < 1e-3)
      assert.is_truthy(doc:find("16.7 ms (60 fps)", 1, true))
      cap:close()
      local r = h.run("scripts/plot.lua", "examples/sample.vprof", "--chart", "frametime", "--target-fps", "144",
        "--target-fps", "90")
      assert.are.equal(0, r.code, r.stderr)
      assert.is_truthy(r.stdout:find('data-ms="6.94444"', 1, true), "no 144 fps line")
      assert.is_truthy(r.stdout:find("11.1 ms (90 fps)", 1, true))
      assert.is_falsy(r.stdout:find("(60 fps)", 1, true))
      r = h.run("scripts/plot.lua", "examples/sample.vprof", "--chart", "frametime", "--target-fps", "0")
      assert.are.equal(2, r.code)
    end)

    it("reaches a target above the slowest frame", function()
      local list = {}
      for i = 1, 200 do list[i] = 10 + (i % 3) end
      local cap = h.open_ok(times_capture(dir .. "/steady.vprof", list))
      local doc = svg.frametime(charts.frametime(cap))
      local y0, per = doc:match('data%-y%-zero="([%d.]+)" data%-px%-per%-unit="([%d.e%-]+)"')
      local top = (tonumber(y0) - 30) / tonumber(per) -- the value at the top of the box (y = 30)
      assert.is_true(top >= 33.4, "the axis ends at " .. top)
      cap:close()
    end)
  end)

  describe("the exceedance plot", function()
    it("gives each frame time's share of frames at least that slow, on a log scale down to one frame", function()
      local list = {}
      for i = 1, 2000 do list[i] = 10 + (i * 7919 % 61) / 10 end
      list[77], list[1999] = 90, 45
      local cap = h.open_ok(times_capture(dir .. "/exc.vprof", list))
      local d = charts.exceedance(cap)
      local ft = cap:frame_times():totable()
      assert.are.equal(2000, d.frames)
      for _, p in ipairs(d.points) do
        local n = 0
        for _, v in ipairs(ft) do if v >= p.ms then n = n + 1 end end
        assert.is_true(math.abs(p.pct - 100 * n / 2000) < 1e-9, p.ms .. " ms")
      end
      assert.are.equal(ft[77], d.points[#d.points].ms)
      assert.are.equal(100 / 2000, d.points[#d.points].pct)
      assert.are.equal(100, d.points[1].pct)
      local doc = svg.exceedance(d, { targets = charts.targets() })
      assert.is_truthy(doc:find('data-y-log="-2 2"', 1, true), "0.05 % needs the 0.01 % decade")
      assert.is_truthy(doc:find("0.01 %", 1, true))
      assert.is_truthy(doc:find("33.3 ms (30 fps)", 1, true))
      cap:close()
      local r = h.run("scripts/plot.lua", "examples/sample.vprof", "--chart", "exceedance")
      assert.are.equal(0, r.code, r.stderr)
      assert.is_truthy(r.stdout:find('<path class="exceedance"', 1, true))
    end)

    it("keeps every distinct time's point up to twice the width, then each stretch's first and last", function()
      local list = {}
      for i = 1, 3000 do list[i] = 5 + i * 0.004 end
      local cap = h.open_ok(times_capture(dir .. "/many.vprof", list))
      local d = charts.exceedance(cap, { width = 200 })
      assert.is_true(#d.points <= 400 and #d.points >= 200, #d.points .. " points")
      assert.are.equal(100, d.points[1].pct)
      assert.are.equal(100 / 3000, d.points[#d.points].pct)
      cap:close()
    end)
  end)

  describe("a node's and a group's chart over time", function()
    local cap, path
    setup(function()
      path = groups_capture(dir .. "/groups.vprof")
      cap = h.open_ok(path)
    end)
    teardown(function() cap:close() end)

    it("columns the frames as charts.span says, with each column's smallest and largest group self time", function()
      local by_frame = group_self_by_frame(cap)
      for _, width in ipairs({ 300, 97, 7 }) do
        local d = charts.group(cap, "Physics", { width = width })
        local phys = cap:group("Physics").id
        assert.are.equal(width, #d.columns)
        for c, col in ipairs(d.columns) do
          local a, b = charts.span(c, width, 300)
          assert.are.same({ a, b }, { col.first, col.last })
          local lo, hi = math.huge, -math.huge
          for i = a, b do
            local v = by_frame[i][phys] or 0
            lo, hi = math.min(lo, v), math.max(hi, v)
          end
          assert.is_true(math.abs(col.lo - lo) < 1e-9 and math.abs(col.hi - hi) < 1e-9, "column " .. c)
        end
        assert.are.equal(250, d.max_frame)
        assert.is_true(math.abs(d.max_ms - 32) < 1e-9, tostring(d.max_ms)) -- Physics 2 ms + Solver 30 ms
      end
      -- Sound has no node before frame 100: 0 there
      local s = charts.group(cap, "Sound", { width = 300 })
      assert.are.equal(0, s.columns[50].hi)
      assert.is_true(s.columns[150].lo > 0)
    end)

    it("a node by path or by the name only it has; a name two nodes share or none has is refused", function()
      local d = charts.node(cap, "Solver", { width = 100 })
      assert.are.equal("Root/Frame/Physics/Solver", d.name)
      local ser = cap:series(cap:node("Root/Frame/Physics/Solver"), "time_ms")
      assert.are.equal(ser:max(), d.max_ms)
      assert.are.equal(250, d.max_frame)
      for c, col in ipairs(d.columns) do
        local a, b = charts.span(c, 100, 300)
        local slice = ser:slice(a, b)
        assert.are.equal(slice:min(), col.lo, "column " .. c)
        assert.are.equal(slice:max(), col.hi, "column " .. c)
      end
      assert.are.equal(d.max_ms, charts.node(cap, "Root/Frame/Physics/Solver").max_ms)
      local r = h.run("scripts/plot.lua", path, "--chart", "node", "Nope")
      assert.are.equal(2, r.code)
      assert.is_truthy(r.stderr:find("no node 'Nope'", 1, true), r.stderr)
      r = h.run("scripts/plot.lua", path, "--chart", "group", "Physic")
      assert.are.equal(2, r.code)
      assert.is_truthy(r.stderr:find("no budget group 'Physic' (the groups: ", 1, true), r.stderr)
      r = h.run("scripts/plot.lua", path, "--chart", "node")
      assert.are.equal(2, r.code)
      r = h.run("scripts/plot.lua", path, "--chart", "group", "Physics", "--frames", "200:300")
      assert.are.equal(0, r.code, r.stderr)
      assert.is_truthy(r.stdout:find("Physics: group self time (101 frames", 1, true), r.stdout:sub(1, 400))
    end)

    it("vp.export.core.columns: per frame the group with the most self time and the tick", function()
      local by_frame = group_self_by_frame(cap)
      local c = require("vp.export.core").columns(cap, 7, { per_frame = true })
      assert.are.equal(300, #c.top)
      for i = 1, 300 do
        local best, id = 0, -1
        for g in cap:groups() do
          local v = by_frame[i][g.id] or 0
          if v > best then best, id = v, g.id end
        end
        assert.are.equal(id, c.top[i], "frame " .. i)
        assert.are.equal(cap:frame(i).tick, c.tick[i])
      end
      for k = 1, 7 do
        local a, b = charts.span(k, 7, 300)
        assert.are.equal(b - a + 1, c.frames[k])
      end
    end)
  end)

  describe("the budget chart's groups", function()
    it("are the ones --group names, in that order, with no 'other' band", function()
      local cap = h.open_ok("examples/sample.vprof")
      local d = charts.budget(cap, { groups = { "Sound", "Physics" } })
      assert.are.same({ "Sound", "Physics" }, { d.groups[1].name, d.groups[2].name })
      local with_nodes = 0
      for _ in pairs(cap:dist("groups")) do with_nodes = with_nodes + 1 end
      assert.are.equal(with_nodes - 2, d.others.count)
      local all = charts.budget(cap, { groups = "all" })
      assert.are.equal(with_nodes, #all.groups)
      assert.is_nil(all.others)
      for _, g in ipairs(all.groups) do assert.are_not.equal("other", g.name) end
      -- each group's column means against its per-frame self time
      local phys = cap:group_self_ms().Physics
      local col = d.columns[10]
      local want = phys:slice(col.first, col.last):mean()
      assert.is_true(math.abs(d.groups[2].values[10] - want) < 1e-9)
      local default = charts.budget(cap)
      assert.are.equal(8, #default.groups)
      assert.are.equal(with_nodes - 8, default.others.count)
      cap:close()
      local r = h.run("scripts/plot.lua", "examples/sample.vprof", "--chart", "budget", "--group", "Physics",
        "--group", "Streaming")
      assert.are.equal(0, r.code, r.stderr)
      assert.is_truthy(r.stdout:find(">Physics</text>", 1, true) and r.stdout:find(">Streaming</text>", 1, true))
      assert.is_falsy(r.stdout:find(">other</text>", 1, true))
      assert.is_truthy(r.stdout:find((with_nodes - 2) .. " more groups not drawn", 1, true), r.stdout:sub(1, 600))
    end)
  end)
end)
