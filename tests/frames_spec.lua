-- --frames A:B: the frames analysed are numbered as in the file, whichever
-- hitch rule finds them (the C rule on VProf, the Lua rules on positions in
-- the frame times: laige reports, capframex, unreal), and a frame outside
-- the range held raises like any index out of range.
local h = require "helpers"
local vp = require "vp"

local function first_hitch(...)
  local doc = h.run_json("scripts/hitches.lua", ...)
  return doc.hitches[1] and doc.hitches[1].frame, doc
end

describe("one numbering: a restricted capture's columns are indexed by its frame numbers (issue 26, 1)", function()
  it("where, argmax, top and s[i] name the frames cap:frame takes", function()
    local cap = h.open_ok("examples/sample.vprof", { frames = { 1001, 4000 } })
    local ft = cap:frame_times()
    assert.are.equal(1001, ft.first)
    assert.are.equal(4000, ft.last)
    assert.are.equal(3000, #ft)
    -- the README's where -> cap:frame pattern: the planted hitches, as the file numbers them
    assert.are.same({ 1200, 2500, 3100, 3700 }, ft:where(40))
    for _, i in ipairs(ft:where(40)) do assert.are.equal(cap:frame(i).frame_ms, ft[i]) end
    assert.are.equal(3100, ft:argmax())
    assert.are.equal(ft:max(), cap:frame(ft:argmax()).frame_ms)
    assert.are.same({ 3100, 2500 }, { ft:top(2)[1], ft:top(2)[2] })
    assert.is_nil(ft[1000])
    assert.are.equal(cap:frame(1001).frame_ms, ft[1001])
    -- operations that keep the order keep the numbering
    assert.are.equal(3100, ft:slice(3000, 3200):argmax())
    assert.are.equal(3000, ft:slice(3000, 3200).first)
    assert.are.equal(3100, (ft - ft:rolling(30, "median")):where(20)[3])
    assert.are.equal(1002, ft:diff().first)
    -- a node's column and a group's, the same numbers
    local node = cap:node("Root/CEngine::Frame/CL_Render/R_DrawWorld/Shader_Compile")
    assert.are.equal(3100, cap:series(node, "time_ms"):argmax())
    assert.are.equal(3100, cap:group_self_ms()["World Rendering"]:argmax())
    -- values that lost their place count from 1; columns of other frames do not add up
    assert.are.equal(1, ft:sort().first)
    assert.has_error(function() return ft + vp.Series(ft:totable()) end)
    assert.are.equal(7, vp.Series({ 1, 2 }, 7).first)
    assert.are.equal(2, vp.Series({ 1, 2 }, 7)[8])
    assert.matches("1001..4000", tostring(ft))
    cap:close()
  end)
end)

describe("--frames", function()
  it("hitches.lua numbers VProf hitches as the file does under every rule", function()
    for _, rule in ipairs({ "median", "capframex" }) do
      local frame, doc = first_hitch("examples/sample.vprof", "--frames", "1101:1300", "--rule", rule, "--json")
      assert.are.equal(1200, frame, rule)
      assert.are.same({ first = 1101, last = 1300 }, doc.frame_range)
      assert.are.equal(200, doc.frames)
    end
  end)

  it("hitches.lua numbers a laige budget report's hitches as the file does", function()
    local all = h.run_json("scripts/hitches.lua", "examples/laige/budget_fail.txt", "--json")
    local part = h.run_json("scripts/hitches.lua", "examples/laige/budget_fail.txt", "--frames", "40:", "--json")
    assert.is_true(#all.hitches > 0)
    -- the frames before the range feed the baselines: the range's first frames are judged as in the whole
    local want = {}
    for _, x in ipairs(all.hitches) do
      if x.frame >= 40 then want[#want + 1] = x end
    end
    assert.are.same(want, part.hitches)
  end)

  it("hitches.lua --frames A:B: the frames before the range feed the baseline window (issue 26)", function()
    local all = h.run_json("scripts/hitches.lua", "examples/sample.vprof", "--json")
    for _, range in ipairs({ { 3100, 3200 }, { 1195, 1210 }, { 2490, 4000 } }) do
      local part = h.run_json("scripts/hitches.lua", "examples/sample.vprof", "--frames", range[1] .. ":" .. range[2],
        "--json")
      local want = {}
      for _, x in ipairs(all.hitches) do
        if x.frame >= range[1] and x.frame <= range[2] then want[#want + 1] = x end
      end
      assert.is_true(#want > 0)
      assert.are.same(want, part.hitches) -- frame, baseline and causes as in the whole capture
      assert.are.same({ first = range[1], last = range[2] }, part.frame_range)
      assert.are.equal(range[2] - range[1] + 1, part.frames)
    end
    local part = h.run_json("scripts/hitches.lua", "examples/sample.vprof", "--frames", "3100:3200", "--json")
    assert.are.equal(59.272, part.frame_ms.max)
    assert.is_true(part.stutter_pct > 0)
  end)

  it("hitches.lua --per DURATION: each wall-clock window's figures, as the Series give them (issue 26)", function()
    local doc = h.run_json("scripts/hitches.lua", "examples/sample.vprof", "--per", "10s", "--json")
    local cap = h.open_ok("examples/sample.vprof")
    local ft = cap:frame_times()
    local want = ft:windows(10000)
    assert.are.equal(#want, #doc.windows)
    local hitches = 0
    for i, w in ipairs(doc.windows) do
      local part = ft:slice(want[i].first, want[i].last)
      assert.are.same({ want[i].first, want[i].last, #part }, { w.first, w.last, w.frames })
      assert.is_true(math.abs(part:percentile(99) - w.p99_ms) < 1e-9)
      assert.is_true(math.abs(part:max() - w.max_ms) < 1e-9)
      hitches = hitches + w.hitches
    end
    assert.are.equal(#doc.hitches, hitches)
    cap:close()
    -- without --per there are none; with --frames the windows start at the range
    local plain = h.run_json("scripts/hitches.lua", "examples/sample.vprof", "--json")
    assert.are.equal(require("cjson").null, plain.windows)
    doc = h.run_json("scripts/hitches.lua", "examples/sample.vprof", "--per", "1m", "--frames", "1001:3000", "--json")
    assert.are.equal(1001, doc.windows[1].first)
    assert.are.equal(3000, doc.windows[#doc.windows].last)
    local r = h.run("scripts/hitches.lua", "examples/sample.vprof", "--per", "soon")
    assert.are.equal(2, r.code)
    assert.matches("%-%-per: bad value 'soon': expected a duration such as 60s", r.stderr)
  end)

  it("hitches.lua says where to look: hitches by cause, causes lines within the width (issue 26)", function()
    local r = h.run("scripts/hitches.lua", "examples/sample.vprof", { env = { COLUMNS = "80" } })
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("hitches by cause", r.stdout)
    assert.matches("\n%s+1%s+45%.00%s+3,100%s+World Rendering%s+[^\n]*Shader_Compile\n", r.stdout)
    for line in r.stdout:gmatch("[^\n]+") do
      if line:match("^  node ") then assert.is_true(#line <= 80, line) end
    end
    assert.matches("\n  node +%+45%.00 ms  self 45%.00 ms  %[World Rendering%]  %.%.%.[^\n]*Shader_Compile\n", r.stdout)
  end)

  it("cap:frame and cap:frames take the file's numbers and raise outside the range held", function()
    local cap = h.open_ok("examples/sample.vprof", { frames = { 1101, 1300 } })
    assert.are.same({ 1101, 1300 }, { cap.first_frame, cap.last_frame })
    assert.are.equal(1101, cap:frame(1101).index)
    assert.are.equal(200, #cap)
    local n = 0
    for _ in cap:frames(1290) do n = n + 1 end
    assert.are.equal(11, n)
    assert.has_error(function() cap:frame(1100) end, "frame 1100 is out of range 1101..1300")
    assert.has_error(function() cap:frames(1, 5) end)
    cap:close()
  end)

  it("the frame times' summary sums as the Series does, over a range and restricted or not", function()
    local cap = h.open_ok("examples/sample.vprof")
    local ft, n = cap:frame_times(), cap.frame_count
    assert.are.equal(ft:sum(), cap:dist("frame_ms"):sum())
    assert.are.equal(ft:sum(), cap:dist("frame_ms", { first = 1, last = n }):sum())
    assert.are.equal(ft:slice(17, 1234):sum(), cap:dist("frame_ms", { first = 17, last = 1234 }):sum())
    assert.are.equal(ft[5], cap:dist("frame_ms", { first = 5, last = 5 }):sum())
    assert.are.equal(0, cap:dist("frame_ms", { first = 5, last = 4 }):sum()) -- the empty range
    assert.has_error(function() cap:dist("frame_ms", { first = 0, last = 3 }):sum() end)
    assert.has_error(function() cap:dist("frame_ms", { first = 3, last = n + 1 }):sum() end)
    cap:close()
    cap = h.open_ok("examples/sample.vprof", { frames = { 1101, 1300 } })
    assert.are.equal(ft:slice(1101, 1300):sum(), cap:dist("frame_ms"):sum())
    assert.are.equal(ft:slice(1150, 1160):sum(), cap:dist("frame_ms", { first = 1150, last = 1160 }):sum())
    assert.has_error(function() cap:dist("frame_ms", { first = 1, last = 10 }) end,
      "cap:dist: frames 1..10 are not within the capture's 1101..1300")
    cap:close()
  end)

  it("vp.top, vp.tree and vp.node take a restricted capture's frame numbers", function()
    local whole = h.open_ok("examples/sample.vprof")
    local part = h.open_ok("examples/sample.vprof", { frames = { 1101, 1300 } })
    local node_path = "Root/CEngine::Frame"
    for _, m in ipairs({ "vp.top", "vp.tree", "vp.node" }) do
      local A = require(m)
      local function run(cap, p)
        p.node = m == "vp.node" and node_path or nil
        p.file = "x"
        local doc = A.analyze(cap, p)
        -- The file's name, and vp.node's first frame in which the node
        -- exists, which for a restricted capture is among those it holds.
        doc.file, doc.first_seen = nil, nil
        return doc
      end
      local want = run(whole, { first = 1101, last = 1300 })
      assert.are.equal(1101, want.first_frame, m)
      assert.are.same(want, run(part, {}), m)
      assert.are.same(want, run(part, { first = 1101, last = 1300 }), m)
      assert.are.same(run(whole, { first = 1150, last = 1160 }), run(part, { first = 1150, last = 1160 }), m)
      local ok, err = pcall(run, part, { first = 1, last = 10 })
      assert.is_false(ok, m)
      assert.matches("must be a frame in 1101..1300", tostring(err), 1, true)
    end
    whole:close()
    part:close()
  end)
end)
