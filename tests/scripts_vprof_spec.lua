-- Specs for the shipped VProf analyses (hitches.lua, budget.lua, top.lua,
-- info.lua): each script runs through the vpscript binary on captures built
-- here with the VProf writer, and its --json document is checked against
-- values planted in those captures.
local h = require "helpers"
local cjson = require "cjson"

local NULL = cjson.null

-- Capture A: 200 frames of exactly 10 ms, except three planted hitches.
--   Root
--   `- Frame (Game)                 inclusive = frame time, self 0
--      |- Render (World Rendering)  6 ms (frames 1..49), 4 ms from frame 50; 2 calls
--      |- Physics (Physics)         3 ms; 4 calls
--      |- Sound (Sound)             1 ms
--      `- Late (MyGroup)            added in frame 50: 2 ms
-- Hitches: frame 40: Physics 33 ms (frame 40 ms)
--          frame 80: Physics 23 ms + Sound 11 ms (frame 40 ms)
--          frame 120: Physics 43 ms (frame 50 ms)
-- Ticks: 1000 + i // 2 (ticks repeat: frames are numbered by position).
local function build_a(path)
  local frames = {}
  for i = 1, 200 do
    local render = i < 50 and 6000 or 4000
    local phys, sound = 3000, 1000
    if i == 40 then phys = 33000 end
    if i == 80 then phys, sound = 23000, 11000 end
    if i == 120 then phys = 43000 end
    local late = i >= 50 and 2000 or 0
    local f = {
      tick = 1000 + i // 2,
      [1] = render + phys + sound + late,
      [2] = { us = render, calls = 2 },
      [3] = { us = phys, calls = 4 },
      [4] = sound,
    }
    if i >= 50 then f[5] = late end
    if i == 50 then f.add = { { id = 5, parent = 1, name = "Late", group = "MyGroup" } } end
    frames[i] = f
  end
  return h.vprof(path, {
    groups = { "MyGroup" },
    nodes = {
      { id = 1, parent = 0, name = "Frame", group = "Game" },
      { id = 2, parent = 1, name = "Render", group = "World Rendering" },
      { id = 3, parent = 1, name = "Physics", group = "Physics" },
      { id = 4, parent = 1, name = "Sound", group = "Sound" },
    },
    frames = frames,
  })
end

-- A capture whose frame times are the given list (ms), all in one node.
local function build_times(path, list)
  local frames = {}
  for i, ms in ipairs(list) do frames[i] = { tick = i, [1] = ms * 1000 } end
  return h.vprof(path, { nodes = { { id = 1, name = "Frame", group = "Game" } }, frames = frames })
end

local function near(expected, actual, what)
  assert(type(actual) == "number",
    string.format("%s: expected a number near %s, got %s", what or "value", tostring(expected), tostring(actual)))
  assert(math.abs(expected - actual) <= 1e-9 * math.max(1, math.abs(expected)),
    string.format("%s: expected %.12g, got %.12g", what or "value", expected, actual))
end

local function paths(list, field)
  local out = {}
  for i, r in ipairs(list) do out[i] = r[field or "path"] end
  return out
end

local dir, cap_a

setup(function()
  dir = h.tmpdir()
  cap_a = build_a(dir .. "/a.vprof")
end)

teardown(function()
  h.cleanup()
end)

describe("hitches.lua", function()
  it("reports frame time statistics, low FPS and stutter exactly", function()
    local d = h.run_json("scripts/hitches.lua", "--json", cap_a)
    assert.equal(cap_a, d.file)
    assert.equal("vprof", d.format)
    assert.equal(200, d.frames)
    near(10.5, d.frame_ms.mean, "mean")
    near(10, d.frame_ms.p50, "p50")
    near(10, d.frame_ms.p95, "p95") -- rank 190 of 197 x 10, 40, 40, 50
    near(40, d.frame_ms.p99, "p99") -- rank 198
    near(50, d.frame_ms.max, "max")
    near(1000 / 45, d.low_1pct_fps, "1 % low") -- slowest 2 frames: 50, 40
    near(20, d.low_01pct_fps, "0.1 % low")     -- slowest 1 frame: 50
    near(100 * 130 / 2100, d.stutter_pct, "stutter")
    assert.same({ factor = 2.5, window = 30, min_excess_ms = 5, threshold_ms = NULL }, d.params)
  end)

  it("finds exactly the planted hitches with baselines, ticks and causes", function()
    local d = h.run_json("scripts/hitches.lua", "--json", cap_a)
    assert.same({ 40, 80, 120 }, paths(d.hitches, "frame"))
    local h40, h80, h120 = d.hitches[1], d.hitches[2], d.hitches[3]
    assert.equal(1020, h40.tick)
    assert.equal(1040, h80.tick)
    assert.equal(1060, h120.tick)
    near(40, h40.frame_ms)
    near(10, h40.baseline_ms)
    near(50, h120.frame_ms)
    near(10, h120.baseline_ms) -- the window 90..119 holds no hitch
    -- frame 40: Physics alone
    assert.equal(1, #h40.causes)
    local c = h40.causes[1]
    assert.equal("Physics", c.node)
    assert.equal("Root/Frame/Physics", c.path)
    assert.equal("Physics", c.group)
    near(33, c.self_ms)
    near(30, c.excess_ms)
    assert.equal(1, #h40.groups)
    assert.equal("Physics", h40.groups[1].group)
    near(30, h40.groups[1].excess_ms)
    -- frame 80: two causes, by excess
    assert.same({ "Root/Frame/Physics", "Root/Frame/Sound" }, paths(h80.causes))
    near(20, h80.causes[1].excess_ms)
    near(23, h80.causes[1].self_ms)
    near(10, h80.causes[2].excess_ms)
    near(11, h80.causes[2].self_ms)
    assert.equal("Sound", h80.causes[2].group)
    assert.same({ "Physics", "Sound" }, paths(h80.groups, "group"))
    near(20, h80.groups[1].excess_ms)
    near(10, h80.groups[2].excess_ms)
    near(40, h120.causes[1].excess_ms)
  end)

  it("--causes N limits causes and groups per hitch", function()
    local d = h.run_json("scripts/hitches.lua", "--json", "--causes", "1", cap_a)
    assert.same({ "Root/Frame/Physics" }, paths(d.hitches[2].causes))
    assert.same({ "Physics" }, paths(d.hitches[2].groups, "group"))
    d = h.run_json("scripts/hitches.lua", "--json", "--causes=0", cap_a)
    assert.same({}, d.hitches[2].causes)
    assert.same({}, d.hitches[2].groups)
  end)

  it("--factor and --min-excess-ms tighten the relative rule", function()
    local d = h.run_json("scripts/hitches.lua", "--json", "--factor", "5", cap_a)
    assert.same({ 120 }, paths(d.hitches, "frame")) -- 40 < 5 x 10 <= 50
    assert.equal(5, d.params.factor)
    d = h.run_json("scripts/hitches.lua", "--json", "--min-excess-ms=35", cap_a)
    assert.same({ 120 }, paths(d.hitches, "frame")) -- excess 30, 30, 40
    near(100 * 50 / 2100, d.stutter_pct, "stutter")
  end)

  it("--threshold-ms switches to the engine's rule frame_ms > X (strictly)", function()
    local d = h.run_json("scripts/hitches.lua", "--json", "--threshold-ms", "40", cap_a)
    assert.same({ 120 }, paths(d.hitches, "frame"))
    assert.equal(40, d.params.threshold_ms)
    d = h.run_json("scripts/hitches.lua", "--json", "--threshold-ms", "39.9", cap_a)
    assert.same({ 40, 80, 120 }, paths(d.hitches, "frame"))
  end)

  it("treats the first frames as documented: frame 1 never, then a shorter window", function()
    local p = build_times(dir .. "/first.vprof", { 50, 10, 40, 10, 10, 10 })
    local d = h.run_json("scripts/hitches.lua", "--json", p)
    -- frame 1 (50 ms) has no baseline; frame 3's window is frames 1..2
    -- (median 30): 40 < 2.5 x 30, not a hitch
    assert.same({}, d.hitches)
    p = build_times(dir .. "/second.vprof", { 10, 40, 10, 10 })
    d = h.run_json("scripts/hitches.lua", "--json", p)
    assert.same({ 2 }, paths(d.hitches, "frame"))
    near(10, d.hitches[1].baseline_ms)
    -- the absolute rule can flag frame 1, which has no baseline (null) and
    -- whose causes are measured against 0
    p = build_times(dir .. "/third.vprof", { 50, 10, 10 })
    d = h.run_json("scripts/hitches.lua", "--json", "--threshold-ms", "20", p)
    assert.same({ 1 }, paths(d.hitches, "frame"))
    assert.equal(NULL, d.hitches[1].baseline_ms)
    assert.equal("Root/Frame", d.hitches[1].causes[1].path)
    near(50, d.hitches[1].causes[1].excess_ms)
  end)

  -- The definition, written plainly (h.hitch_definition): the prefilter
  -- and the sliding median must both give exactly its frames.
  local function reference_hitches(list, factor, window, min_excess)
    return paths(h.hitch_definition(list, { factor = factor, window = window, min_excess_ms = min_excess }), "frame")
  end

  it("matches the plain definition on noisy and on alternating frame times", function()
    local seed = 4242
    local function rnd(k)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % k
    end
    local noisy, alternating = {}, {}
    for i = 1, 1500 do
      -- 4 us steps so the writer stores the values exactly
      noisy[i] = (2500 + rnd(1500)) * 0.004 -- 10..16 ms
      if rnd(40) == 0 then noisy[i] = noisy[i] * (1.5 + rnd(4)) end
      alternating[i] = i % 2 == 0 and 2 or 20 -- every other frame passes the cheap prefilter
    end
    alternating[700], alternating[701] = 100, 60
    for _, case in ipairs({ { "noisy", noisy }, { "alternating", alternating } }) do
      local p = build_times(dir .. "/" .. case[1] .. ".vprof", case[2])
      local d = h.run_json("scripts/hitches.lua", "--json", p)
      local want = reference_hitches(case[2], 2.5, 30, 5)
      assert.is_true(#want > 0, case[1])
      assert.same(want, paths(d.hitches, "frame"), case[1])
      d = h.run_json("scripts/hitches.lua", "--json", "--window", "7", "--factor", "1.5", "--min-excess-ms", "1", p)
      assert.same(reference_hitches(case[2], 1.5, 7, 1), paths(d.hitches, "frame"), case[1])
    end
  end)

  it("works on any capture with frame times: a laige budget report", function()
    -- 40 frames of 5 ms, frame 35 at 20 ms; the report's frame= number is
    -- what the laige model calls the tick
    local lines = {
      "laige-budget-report version=1",
      "laige-budget-report context: workload=t build= machine= warmup=0",
      "laige-budget-report frames: n=40 total=40",
    }
    for i = 1, 40 do
      lines[#lines + 1] = string.format("laige-budget-report frame=%d ticks=1 tick_after=%d frame_ms=%d "
        .. "sim_allocs=0 overrun_warns=0 critical_errors=0 result=PASS", 100 + i, 100 + i, i == 35 and 20 or 5)
    end
    lines[#lines + 1] = "laige-budget-report over_budget: none"
    lines[#lines + 1] = "laige-budget-report overall=PASS"
    local p = h.write_file(dir .. "/budget_report.txt", table.concat(lines, "\n") .. "\n")
    local d = h.run_json("scripts/hitches.lua", "--json", p)
    assert.equal("laige-budget", d.format)
    assert.equal(40, d.frames)
    near(5.375, d.frame_ms.mean)
    near(20, d.frame_ms.p99) -- rank 40 of 40
    near(5, d.frame_ms.p95)  -- rank 38
    near(50, d.low_1pct_fps)
    near(100 * 20 / 215, d.stutter_pct)
    assert.equal(1, #d.hitches)
    local hh = d.hitches[1]
    assert.equal(35, hh.frame)
    assert.equal(135, hh.tick)
    near(5, hh.baseline_ms)
    assert.same({}, hh.causes) -- node and group causes need a VProf capture
    assert.same({}, hh.groups)
  end)

  it("handles a capture without frames", function()
    local p = h.vprof(dir .. "/empty.vprof", { nodes = {}, frames = {} })
    local d = h.run_json("scripts/hitches.lua", "--json", p)
    assert.equal(0, d.frames)
    assert.equal(NULL, d.frame_ms)
    assert.equal(NULL, d.low_1pct_fps)
    assert.same({}, d.hitches)
    assert.equal(0, d.stutter_pct)
    -- the root exists in no frame: node.lua answers with nothing measured
    local n = h.run_json("scripts/node.lua", "--json", "Root", p)
    assert.equal(0, n.frames)
    assert.equal(NULL, n.first_seen.frame)
    assert.equal(0, n.present_frames)
  end)

  it("prints a readable table and CSV", function()
    local r = h.run("scripts/hitches.lua", cap_a)
    assert.equal(0, r.code, r.stderr)
    assert.truthy(r.stdout:find("hitch frames (3)", 1, true))
    assert.truthy(r.stdout:find("Root/Frame/Physics", 1, true))
    assert.truthy(r.stdout:find("1 % low", 1, true))
    r = h.run("scripts/hitches.lua", "--csv", cap_a)
    assert.equal(0, r.code, r.stderr)
    local lines = {}
    for l in r.stdout:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal(4, #lines)
    assert.equal("frame,tick,frame_ms,baseline_ms,excess_ms,top_group,top_group_excess_ms,"
      .. "top_cause_path,top_cause_excess_ms", lines[1])
    assert.equal("40,1020,40,10,30,Physics,30,Root/Frame/Physics,30", lines[2])
  end)

  it("--help states the definitions and exits 0", function()
    local r = h.run("scripts/hitches.lua", "--help")
    assert.equal(0, r.code)
    for _, word in ipairs({ "nearest rank", "1 % low FPS", "stutter %", "baseline", "--threshold-ms",
      "self time", "frame 1 is never", "(default 2.5)", "(default 30)", "(default 5)" }) do
      assert.truthy(r.stdout:find(word, 1, true), word)
    end
  end)
end)

describe("budget.lua", function()
  it("reports group self time per frame exactly, sorted by mean", function()
    local d = h.run_json("scripts/budget.lua", "--json", cap_a)
    assert.equal(cap_a, d.file)
    assert.equal(200, d.frames)
    assert.same({ "World Rendering", "Physics", "MyGroup", "Sound", "Game" }, paths(d.groups, "group"))
    local wr, ph, my, so, game = table.unpack(d.groups)
    assert.equal(1, wr.id)
    assert.equal(1, wr.flags)
    near(4.49, wr.mean_ms)
    near(4, wr.p50_ms)
    near(6, wr.p95_ms)
    near(6, wr.p99_ms)
    near(6, wr.max_ms)
    assert.equal(1, wr.max_frame)
    near(100 * 898 / 2100, wr.share_pct)

    assert.equal(8, ph.id)
    assert.equal(6, ph.flags)
    near(3.45, ph.mean_ms)
    near(3, ph.p50_ms)
    near(3, ph.p95_ms)
    near(23, ph.p99_ms) -- rank 198 of 197 x 3, 23, 33, 43
    near(43, ph.max_ms)
    assert.equal(120, ph.max_frame)
    near(100 * 690 / 2100, ph.share_pct)

    assert.equal(31, my.id) -- first group after the 31 defaults
    near(1.51, my.mean_ms)
    near(2, my.p50_ms)
    assert.equal(50, my.max_frame)
    near(100 * 302 / 2100, my.share_pct)

    near(1.05, so.mean_ms)
    near(1, so.p99_ms)
    near(11, so.max_ms)
    assert.equal(80, so.max_frame)
    near(10, so.share_pct)

    near(0, game.mean_ms)
    near(0, game.share_pct)
  end)

  it("lists only groups with nodes and folds hidden groups on request", function()
    -- Frame (Game) 10 ms > Phys (Physics) 5 ms > Hid (HiddenG) 2 ms > Hid2 (HiddenG) 1 ms
    local frames = {}
    for i = 1, 10 do frames[i] = { tick = i, [1] = 10000, [2] = 5000, [3] = 2000, [4] = 1000 } end
    local p = h.vprof(dir .. "/hidden.vprof", {
      groups = { { "HiddenG", 0x8000 | 4 } },
      nodes = {
        { id = 1, name = "Frame", group = "Game" },
        { id = 2, parent = 1, name = "Phys", group = "Physics" },
        { id = 3, parent = 2, name = "Hid", group = "HiddenG" },
        { id = 4, parent = 3, name = "Hid2", group = "HiddenG" },
      },
      frames = frames,
    })
    local d = h.run_json("scripts/budget.lua", "--json", p)
    assert.same({ "Game", "Physics", "HiddenG" }, paths(d.groups, "group"))
    near(5, d.groups[1].mean_ms)
    near(3, d.groups[2].mean_ms)
    near(2, d.groups[3].mean_ms)
    assert.equal(0x8004, d.groups[3].flags)
    d = h.run_json("scripts/budget.lua", "--json", "--fold-hidden", p)
    assert.same({ "Game", "Physics" }, paths(d.groups, "group"))
    near(5, d.groups[1].mean_ms)
    near(5, d.groups[2].mean_ms)
    near(50, d.groups[2].share_pct)
  end)

  it("prints a table and --help with the definitions", function()
    local r = h.run("scripts/budget.lua", cap_a)
    assert.equal(0, r.code, r.stderr)
    assert.truthy(r.stdout:find("World Rendering", 1, true))
    assert.truthy(r.stdout:find("shares sum to 100.0 %", 1, true))
    r = h.run("scripts/budget.lua", "-h")
    assert.equal(0, r.code)
    assert.truthy(r.stdout:find("share %", 1, true))
    assert.truthy(r.stdout:find("--fold-hidden", 1, true))
  end)
end)

describe("top.lua", function()
  local function top(...)
    return h.run_json("scripts/top.lua", "--json", ...)
  end

  it("computes per-path rows exactly (whole capture, sorted by time)", function()
    local d = top(cap_a)
    assert.equal(200, d.frames)
    assert.equal(1, d.first_frame)
    assert.equal(200, d.last_frame)
    near(2100, d.total_ms)
    assert.equal("time", d.sort)
    assert.same({ "Root/Frame", "Root/Frame/Render", "Root/Frame/Physics", "Root/Frame/Late",
      "Root/Frame/Sound" }, paths(d.nodes))
    local fr, re, ph, la = d.nodes[1], d.nodes[2], d.nodes[3], d.nodes[4]
    assert.equal("Frame", fr.name)
    assert.equal("Game", fr.group)
    near(1, fr.calls_per_frame)
    near(10.5, fr.ms_per_frame)
    near(10.5, fr.ms_per_call)
    near(0, fr.self_ms_per_frame)
    near(100, fr.pct_of_frame)
    near(50, fr.peak_ms)
    assert.equal(120, fr.peak_frame)
    near(50 / 10.5, fr.peak_over_avg)

    near(2, re.calls_per_frame)
    assert.equal(400, re.calls)
    near(4.49, re.ms_per_frame)
    near(898 / 400, re.ms_per_call)
    near(4.49, re.self_ms_per_frame)
    near(6, re.peak_ms)
    assert.equal(1, re.peak_frame) -- first of the tied peaks

    near(4, ph.calls_per_frame)
    near(690 / 800, ph.ms_per_call)
    near(43, ph.peak_ms)
    assert.equal(120, ph.peak_frame)

    assert.equal(151, la.frames) -- exists from frame 50
    near(151 / 200, la.calls_per_frame)
    near(2, la.ms_per_call)
    assert.equal(50, la.peak_frame)
  end)

  it("sorts by self, avg, peak and peakavg", function()
    assert.same({ "Root/Frame/Render", "Root/Frame/Physics", "Root/Frame/Late", "Root/Frame/Sound",
      "Root/Frame" }, paths(top("--sort", "self", cap_a).nodes))
    assert.same({ "Root/Frame", "Root/Frame/Render", "Root/Frame/Late", "Root/Frame/Sound",
      "Root/Frame/Physics" }, paths(top("--sort=avg", cap_a).nodes))
    assert.same({ "Root/Frame", "Root/Frame/Physics", "Root/Frame/Sound", "Root/Frame/Render",
      "Root/Frame/Late" }, paths(top("--sort", "peak", cap_a).nodes))
    assert.same({ "Root/Frame/Physics", "Root/Frame/Sound", "Root/Frame", "Root/Frame/Render",
      "Root/Frame/Late" }, paths(top("--sort", "peakavg", cap_a).nodes))
  end)

  it("--limit and --frames", function()
    local d = top("--limit", "2", cap_a)
    assert.same({ "Root/Frame", "Root/Frame/Render" }, paths(d.nodes))
    d = top("--frames", "50:59", cap_a)
    assert.equal(10, d.frames)
    assert.equal(50, d.first_frame)
    assert.equal(59, d.last_frame)
    near(100, d.total_ms)
    local la = h.find(d.nodes, "path", "Root/Frame/Late")
    assert.equal(10, la.frames)
    near(1, la.calls_per_frame)
    near(20, la.pct_of_frame)
    local re = h.find(d.nodes, "path", "Root/Frame/Render")
    near(4, re.peak_ms)
    assert.equal(50, re.peak_frame)
    d = top("--frames", "150:", cap_a)
    assert.equal(51, d.frames)
    local r = h.run("scripts/top.lua", "--frames", "201:300", cap_a)
    assert.equal(2, r.code)
    assert.truthy(r.stderr:find("out of range", 1, true), r.stderr)
  end)

  it("keeps same-named siblings apart, by path", function()
    local frames = {}
    for i = 1, 4 do frames[i] = { tick = i, [1] = 8000, [2] = 3000, [3] = 5000 } end
    local p = h.vprof(dir .. "/twins.vprof", {
      nodes = {
        { id = 1, name = "Frame", group = "Game" },
        { id = 2, parent = 1, name = "Tick", group = "Game" },
        { id = 3, parent = 1, name = "Tick", group = "Physics" },
      },
      frames = frames,
    })
    local d = top("--sort", "time", p)
    local a, b = h.find(d.nodes, "path", "Root/Frame/Tick"), h.find(d.nodes, "path", "Root/Frame/Tick#2")
    assert.is_table(a)
    assert.is_table(b)
    local got = { a.ms_per_frame, b.ms_per_frame }
    table.sort(got)
    near(3, got[1])
    near(5, got[2])
    assert.are_not.equal(a.group, b.group)
  end)
end)

describe("info.lua", function()
  it("summarises a capture generically", function()
    local d = h.run_json("scripts/info.lua", "--json", cap_a)
    assert.equal(cap_a, d.file)
    assert.equal("vprof", d.format)
    assert.equal(#h.read_file(cap_a), d.size)
    assert.equal(200, d.summary.frames)
    assert.same({}, d.warnings)
    local r = h.run("scripts/info.lua", cap_a)
    assert.equal(0, r.code, r.stderr)
    assert.truthy(r.stdout:find("format", 1, true))
    assert.truthy(r.stdout:find("vprof", 1, true))
    assert.truthy(r.stdout:find("frames", 1, true))
  end)

  it("lists the reader's warnings for a truncated capture", function()
    local data = h.read_file(cap_a)
    local p = h.write_file(dir .. "/cut.vprof", data:sub(1, #data - 3))
    local d = h.run_json("scripts/info.lua", "--json", p)
    assert.is_true(#d.warnings >= 1)
    assert.equal(199, d.summary.frames)
    -- the analyses print the warning on stderr and keep going
    local r = h.run("scripts/hitches.lua", "--json", p)
    assert.equal(0, r.code, r.stderr)
    assert.truthy(r.stderr:find("vpscript: warning: ", 1, true), r.stderr)
    assert.equal(199, cjson.decode(r.stdout).frames)
  end)
end)

describe("bad input", function()
  for _, script in ipairs({ "hitches.lua", "budget.lua", "top.lua", "info.lua" }) do
    it(script .. " exits 2 naming a missing file", function()
      local r = h.run("scripts/" .. script, "--json", dir .. "/missing.vprof")
      assert.equal(2, r.code)
      -- --json: the input's error document (issue 26)
      assert.equal(dir .. "/missing.vprof", cjson.decode(r.stdout).file)
      assert.truthy(r.stderr:find("^vpscript: [^\n]*missing%.vprof"), r.stderr)
    end)

    it(script .. " exits 2 naming the byte offset in a malformed file", function()
      -- header (version 1, root 0), then token 9 where StartFrame must be
      local p = h.write_file(dir .. "/bad.vprof", string.pack("<i4i4", 1, 0) .. "\9\0\0\0\0")
      local r = h.run("scripts/" .. script, p)
      assert.equal(2, r.code)
      assert.truthy(r.stderr:find("^vpscript: [^\n]*bad%.vprof[^\n]*byte 8"), r.stderr)
    end)

    it(script .. " exits 2 on an unknown option", function()
      local r = h.run("scripts/" .. script, "--bogus", cap_a)
      assert.equal(2, r.code)
      assert.truthy(r.stderr:find("unknown option --bogus", 1, true), r.stderr)
    end)
  end
end)
