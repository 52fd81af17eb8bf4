-- The query views: cap:find (nodes by glob or Lua pattern), vp.tree and
-- tree.lua (the call tree and the totals by name), vp.node and node.lua
-- (one node's drill-down), on a capture built with the writer whose every
-- figure is known (the three renderings of the shipped sample, and the JSON
-- against the schema, are tests/outputs_spec.lua's).
local h = require "helpers"
local vp = require "vp"
local find = require "glob_oracle"
local tree = require "vp.tree"
local node = require "vp.node"

local function near(want, got, eps)
  assert.is_true(got ~= nil and math.abs(want - got) <= (eps or 1e-9), string.format("want %s, got %s",
    tostring(want), tostring(got)))
end

-- Root > Frame > {Render, Physics > Solve, AI > Solve, Late (from frame 3)}.
-- Frame i: Frame 10 ms (15 in frame 4), Render 4, Physics 3 (8 in frame 4)
-- with its Solve 2 (7), AI 2 with its Solve 1.5, Late 0.5.
local function build(path)
  local frames = {}
  for i = 1, 5 do
    local spike = i == 4
    frames[i] = { tick = 1000 + i, [1] = spike and 15000 or 10000, [2] = 4000, [3] = spike and 8000 or 3000,
      [5] = spike and 7000 or 2000, [4] = 2000, [6] = 1500 }
    if i >= 3 then frames[i][7] = { us = 500, calls = 2 } end
  end
  frames[3].add = { { id = 7, parent = 1, name = "Late", group = "Game" } }
  return h.vprof(path, {
    nodes = {
      { id = 1, parent = 0, name = "Frame", group = "Game" },
      { id = 2, parent = 1, name = "Render", group = "World Rendering" },
      { id = 3, parent = 1, name = "Physics", group = "Physics" },
      { id = 4, parent = 1, name = "AI", group = "NPCs" },
      { id = 5, parent = 3, name = "Solve", group = "Physics" },
      { id = 6, parent = 4, name = "Solve", group = "NPCs" },
    },
    frames = frames,
  })
end

local function paths(list)
  local out = {}
  for i, n in ipairs(list) do out[i] = n.path end
  return out
end

local raises = h.raises

local dir, path, cap
setup(function()
  dir = h.tmpdir()
  path = build(dir .. "/q.vprof")
  cap = assert(vp.open(path))
end)
teardown(function()
  cap:close()
  h.cleanup()
end)

-- cap:find (C; exact = true, the name lookup), held to the definition in Lua
-- (tests/glob_oracle.lua).
describe("cap:find", function()
  it("turns globs into anchored Lua patterns", function()
    assert.are.equal("^a%.b[^/]-c[^/][^x-z]%*$", find.glob_pattern("a.b*c?[!x-z]\\*"))
    assert.are.equal("^.-/Solve$", find.glob_pattern("**/Solve"))
    raises("EUSAGE", "not closed", find.glob_pattern, "[abc")
    -- a "]" first in a class belongs to it, after "!" too; "-" first or last is itself
    assert.are.equal("^[%]]$", find.glob_pattern("[]]"))
    assert.are.equal("^[^%]]$", find.glob_pattern("[!]]"))
    assert.are.equal("^[%-a]$", find.glob_pattern("[-a]"))
    raises("EUSAGE", "not closed", find.glob_pattern, "[!]")
  end)

  it("matches names, or paths when the pattern has a '/', in pre-order", function()
    -- pre-order is the engine's: a node's newest child first
    assert.same({ "Root/Frame/AI/Solve", "Root/Frame/Physics/Solve" }, paths(cap:find("Solve")))
    assert.same({ "Root/Frame/AI/Solve", "Root/Frame/Physics/Solve" }, paths(cap:find("Solve", { exact = true })))
    assert.same({ "Root/Frame/AI/Solve", "Root/Frame/Physics", "Root/Frame/Physics/Solve" },
      paths(cap:find("[PS]*")))
    assert.same({ "Root/Frame/AI/Solve" }, paths(cap:find("**/AI/*")))
    -- relative to the root, as cap:node takes paths
    assert.same({ "Root/Frame/Render" }, paths(cap:find("Frame/R*")))
    assert.same({}, paths(cap:find("Render/x")))
    assert.same({}, paths(cap:find("Solv", { exact = true })))
    assert.same({ "Root/Frame/Physics" }, paths(cap:find("^Ph", { lua = true })))
    assert.same({ "Root/Frame/Physics/Solve" }, paths(cap:find("Physics/", { lua = true })))
    assert.same({ "Root/Frame/AI", "Root/Frame/AI/Solve" }, paths(cap:find("AI", { lua = true, on = "path" })))
    raises("EUSAGE", "not a valid Lua pattern", cap.find, cap, "%", { lua = true })
    raises("EUSAGE", "non%-empty string", cap.find, cap, "")
    raises("EUSAGE", "non%-empty string", cap.find, cap, 42)
    raises("EUSAGE", "not closed", cap.find, cap, "[abc")
    raises("EUSAGE", "opts.on must be", cap.find, cap, "x", { on = "both" })
    raises("EUSAGE", "not a valid Lua pattern", cap.find, cap, "%", { lua = true })
  end)

  it("finds a same-named sibling by its path component", function()
    local p = h.vprof(dir .. "/twins.vprof", {
      nodes = { { id = 1, name = "Tick", group = "Game" }, { id = 2, name = "Tick", group = "Game" } },
      frames = { { tick = 1, [1] = 1000, [2] = 2000 } },
    })
    local c = assert(vp.open(p))
    assert.same({ "Root/Tick#2", "Root/Tick" }, paths(c:find("Tick")))
    assert.same({ "Root/Tick#2" }, paths(c:find("Tick#2")))
    assert.same({ "Root/Tick#2" }, paths(c:find("*#2")))
    assert.same({ "Root/Tick#2" }, paths(c:find("#2$", { lua = true })))
    assert.same({ "Root/Tick#2", "Root/Tick" }, paths(c:find("Tick", { exact = true })))
    c:close()
  end)

  -- The Lua definition (find.compile over cap:nodes()) is the reference the
  -- C matcher is held to, on many globs over names with every special
  -- character a glob or a Lua pattern has.
  it("gives what the Lua definition gives, for many globs", function()
    local names = { "Frame", "R_DrawWorld", "a.b", "C++::Think", "[x]", "*star", "50%", "a-b", "a]b",
      "x^y", "Tick", "Tick", "back\\slash", "tab\tname", "\xC3\xA9t\xC3\xA9" }
    local nodes, parent = {}, 0
    for i, nm in ipairs(names) do
      nodes[i] = { id = i, parent = parent, name = nm, group = "Game" }
      if i % 3 == 0 then parent = i end
    end
    local frame = { tick = 1 }
    for i = 1, #names do frame[i] = 100 * i end
    local c = assert(vp.open(h.vprof(dir .. "/names.vprof", { nodes = nodes, frames = { frame } })))
    local function reference(glob)
      local m, out, prefix = find.compile(glob), {}, nil
      for n in c:nodes() do
        if n.parent == nil then prefix = n.path .. "/" end
        local rel = n.parent and n.path:sub(#prefix + 1) or nil
        if m(n.name, n.path, rel) then out[#out + 1] = n.path end
      end
      return out
    end
    local pieces = { "*", "**", "*", "**", "?", "Tick", "Frame", "*World", "Root/", "a", "b", "T", "[a-c]",
      "[!a-c]", "[]x]", "[-a]", "\\*", "\\[",
      ".", "%", "+", "-", "]", "^", "/", "::", "#2", "x", "[%]", "[\xC3]", "\\\\" }
    local seed = 20240611
    local function rand(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n + 1
    end
    local tried, matched = 0, 0
    local all = {}
    for n in c:nodes() do
      all[#all + 1] = n.name
      all[#all + 1] = n.path
    end
    -- a real name or path with some of its characters made wild
    local function mutate(text)
      local out, i = {}, 1
      while i <= #text do
        local ch, r = text:sub(i, i), rand(12)
        if r == 1 and ch ~= "/" then
          out[#out + 1] = "?"
        elseif r == 2 then
          out[#out + 1] = rand(2) == 1 and "*" or "**"
          i = i + rand(3) - 1
        elseif r == 3 and ch ~= "]" and ch ~= "!" then
          out[#out + 1] = "[" .. ch .. "z]"
        else
          out[#out + 1] = ch:match("[%*%?%[\\]") and ("\\" .. ch) or ch
        end
        i = i + 1
      end
      return table.concat(out)
    end
    for k = 1, 3000 do
      local parts = {}
      for j = 1, rand(4) do parts[j] = pieces[rand(#pieces)] end
      local glob = k % 2 == 0 and mutate(all[rand(#all)]) or table.concat(parts)
      local ok, want = pcall(reference, glob)
      if ok then
        tried = tried + 1
        assert.same(want, paths(c:find(glob)), glob)
        if #want > 0 then matched = matched + 1 end
      else
        raises("EUSAGE", "not closed", c.find, c, glob)
      end
    end
    assert.is_true(tried > 2000)
    assert.is_true(matched > 1000, matched)
    c:close()
  end)
end)

describe("tables keyed by group", function()
  it("answer by the group's name too, and pairs still gives the groups", function()
    local cols, dists = cap:group_self_ms(), cap:dist("groups")
    local physics = cap:group("Physics")
    assert.are.equal(cols[physics], cols.Physics)
    assert.same({ 3, 3, 3, 8, 3 }, cols.Physics:totable())
    assert.are.equal(dists[physics], dists["Physics"])
    near(4, dists.Physics:mean())
    near(4, cap:dist("groups", { fold_hidden = true }).Physics:mean())
    assert.same({ 4, 4, 4, 4, 4 }, cap:group_self_ms()["World Rendering"]:totable())
    -- a group without nodes, an unknown name, other keys: nil
    assert.is_not_nil(cap:group("Sound"))
    assert.is_nil(cols.Sound)
    assert.is_nil(cols.Nope)
    assert.is_nil(cols[1])
    for k in pairs(cols) do assert.are.equal("vp.vprof.group", getmetatable(k).__name) end
  end)
end)

describe("vp.tree", function()
  it("gives every node's inclusive, self, calls and share per frame, siblings largest first", function()
    local d = tree.analyze(cap, { min_pct = 0 })
    assert.are.equal(5, d.frames)
    near(55, d.total_ms)
    near(11, d.ms_per_frame)
    -- Render and Physics tie at 4 ms/frame: the engine's order (newest first) breaks it
    assert.same({ "Root/Frame", "Root/Frame/Physics", "Root/Frame/Physics/Solve", "Root/Frame/Render",
      "Root/Frame/AI", "Root/Frame/AI/Solve", "Root/Frame/Late" }, paths(d.nodes))
    local fr, ph, so, re, ai, _, la = table.unpack(d.nodes)
    assert.are.same({ 1, 2, 3, 2, 2, 3, 2 }, { fr.depth, ph.depth, so.depth, re.depth, ai.depth, d.nodes[6].depth,
      la.depth })
    near(11, fr.ms_per_frame)
    near(0.7, fr.self_ms_per_frame) -- 1, 1, then 0.5 once Late takes its share
    near(100, fr.pct_of_frame)
    near(4, re.ms_per_frame)
    near(100 * 20 / 55, re.pct_of_frame)
    near(4, ph.ms_per_frame)
    near(1, ph.self_ms_per_frame)
    near(8, ph.peak_ms)
    assert.are.equal(4, ph.peak_frame)
    near(3, so.ms_per_frame)
    near(0.5, ai.self_ms_per_frame)
    near(0.3, la.ms_per_frame)
    near(1.2, la.calls_per_frame) -- 2 calls in 3 of the 5 frames
    assert.are.equal(3, la.frames)
    assert.are.equal("Physics", ph.group)
    assert.are.equal(0, fr.collapsed)
  end)

  it("folds nodes below min_pct, and levels below depth, into their parent's line", function()
    local d = tree.analyze(cap, { min_pct = 10 })
    assert.same({ "Root/Frame", "Root/Frame/Physics", "Root/Frame/Physics/Solve", "Root/Frame/Render",
      "Root/Frame/AI", "Root/Frame/AI/Solve" }, paths(d.nodes))
    assert.are.equal(1, d.nodes[1].collapsed) -- Late: 2.7 % of the frame
    near(0.3, d.nodes[1].collapsed_ms_per_frame)
    d = tree.analyze(cap, { min_pct = 15 })
    local ai = h.find(d.nodes, "path", "Root/Frame/AI")
    assert.are.equal(1, ai.collapsed)
    near(1.5, ai.collapsed_ms_per_frame)
    -- folded for depth is said apart from folded for share (issue 26)
    d = tree.analyze(cap, { min_pct = 0, depth = 1 })
    assert.same({ "Root/Frame" }, paths(d.nodes))
    assert.are.equal(0, d.nodes[1].collapsed)
    assert.are.equal(4, d.nodes[1].deeper)
    near(4 + 4 + 2 + 0.3, d.nodes[1].deeper_ms_per_frame)
    assert.are.equal("Root/Frame/Physics", d.nodes[1].deeper_largest.path)
    near(4, d.nodes[1].deeper_largest.ms_per_frame)
    near(100 * 20 / 55, d.nodes[1].deeper_largest.pct_of_frame)
    d = tree.analyze(cap, { min_pct = 10, depth = 1 })
    assert.are.equal(1, d.nodes[1].collapsed) -- Late, below 10 %
    near(0.3, d.nodes[1].collapsed_ms_per_frame)
    assert.are.equal(3, d.nodes[1].deeper)
    near(4 + 4 + 2, d.nodes[1].deeper_ms_per_frame)
    d = tree.analyze(cap, { min_pct = 0, sort = "engine" })
    assert.same({ "Root/Frame", "Root/Frame/Late", "Root/Frame/AI", "Root/Frame/AI/Solve", "Root/Frame/Physics",
      "Root/Frame/Physics/Solve", "Root/Frame/Render" }, paths(d.nodes))
    d = tree.analyze(cap, { min_pct = 0, first = 1, last = 1 })
    assert.same("Root/Frame/Render", d.nodes[2].path) -- 4 ms against Physics' 3 in frame 1
    near(10, d.total_ms)
  end)

  it("totals the nodes that share a name, wherever they are", function()
    local d = tree.analyze(cap, { by_name = true, min_pct = 0 })
    local solve = h.find(d.names, "name", "Solve")
    assert.are.equal(2, solve.nodes)
    near(4.5, solve.ms_per_frame) -- (15 + 7.5) / 5
    near(4.5, solve.self_ms_per_frame)
    near(2, solve.calls_per_frame)
    near(7, solve.peak_ms) -- the larger of the two peaks
    assert.are.equal("Frame", d.names[1].name)
    assert.is_nil(h.find(d.names, "name", "Root"))
    d = tree.analyze(cap, { by_name = true, min_pct = 10 })
    assert.are.equal(1, d.collapsed) -- Late
    near(0.3, d.collapsed_ms_per_frame)
  end)

  it("refuses other formats and bad parameters", function()
    local dm = assert(vp.open("examples/sample.dm"))
    raises("EINPUT", "vprof capture is needed", tree.analyze, dm)
    dm:close()
    raises("EUSAGE", "min_pct", tree.analyze, cap, { min_pct = -1 })
    raises("EUSAGE", "sort", tree.analyze, cap, { sort = "size" })
    raises("EUSAGE", "depth", tree.analyze, cap, { depth = 1.5 })
    raises("EUSAGE", "frame in 1..5", tree.analyze, cap, { first = 6 })
  end)
end)

describe("vp.node", function()
  it("resolves paths, ids, globs and patterns to exactly one node", function()
    assert.are.equal("Root/Frame/Physics", node.resolve(cap, "Root/Frame/Physics").path)
    assert.are.equal("Root/Frame/Physics", node.resolve(cap, "Frame/Physics").path)
    assert.are.equal("Root/Frame/Physics", node.resolve(cap, 3).path)
    assert.are.equal("Root/Frame/Physics", node.resolve(cap, "3").path)
    assert.are.equal("Root/Frame/Physics", node.resolve(cap, "Phys*").path)
    assert.are.equal("Root/Frame/AI/Solve", node.resolve(cap, "**/AI/Solve").path)
    assert.are.equal("Root/Frame/AI/Solve", node.resolve(cap, "AI/Solve$", { lua = true }).path)
    raises("EUSAGE", "'Solve' matches 2 nodes; name one by its path:\n  Root/Frame/AI/Solve\n  "
      .. "Root/Frame/Physics/Solve", node.resolve, cap, "Solve")
    raises("EUSAGE", "no node matches 'Nothing'", node.resolve, cap, "Nothing")
    raises("EUSAGE", "no node has the id 99", node.resolve, cap, 99)
  end)

  it("gives the statistics, worst frames, children's share and group of one node", function()
    local d = node.analyze(cap, { node = "Physics", worst = 3 })
    assert.are.equal("Root/Frame/Physics", d.path)
    assert.are.equal(3, d.id)
    assert.are.equal(2, d.depth)
    -- time per frame: 3, 3, 3, 8, 3
    near(4, d.time.mean_ms)
    near(3, d.time.p50_ms)
    near(8, d.time.p95_ms)
    near(8, d.time.max_ms)
    assert.are.equal(4, d.time.max_frame)
    near(2, d.time.stddev_ms)
    near(20, d.time.total_ms)
    near(1, d.self.mean_ms)
    near(100 * 20 / 55, d.pct_of_frame)
    near(25, d.self_pct_of_node)
    near(1, d.calls_per_frame)
    -- the spike first, then the earliest of the ties
    assert.same({ 4, 1, 2 }, { d.worst[1].frame, d.worst[2].frame, d.worst[3].frame })
    assert.are.equal(1004, d.worst[1].tick)
    near(8, d.worst[1].time_ms)
    near(15, d.worst[1].frame_ms)
    near(100 * 8 / 15, d.worst[1].pct_of_frame)
    assert.are.equal(1, #d.children)
    assert.are.equal("Root/Frame/Physics/Solve", d.children[1].path)
    near(75, d.children[1].pct_of_node)
    near(3, d.children[1].ms_per_frame)
    assert.are.equal("Physics", d.group.name)
    assert.are.equal(8, d.group.id)
    near(4, d.group.self_ms_per_frame) -- Physics 1 + Solve 3
    near(25, d.group.node_pct)
    assert.same({ frame = 1, tick = 1001 }, d.first_seen)
    assert.are.equal(5, d.present_frames)
  end)

  it("counts a late node from where it first appears, within the range", function()
    local d = node.analyze(cap, { node = "Late" })
    assert.same({ frame = 3, tick = 1003 }, d.first_seen)
    assert.are.equal(3, d.present_frames)
    near(1.2, d.calls_per_frame)
    assert.are.equal(2, d.max_calls)
    d = node.analyze(cap, { node = "Late", first = 1, last = 2 })
    assert.are.equal(0, d.present_frames)
    assert.same({}, d.worst) -- no time in the range: no worst frames
    near(0, d.time.max_ms)
    -- frame numbers are the capture's, not the range's
    d = node.analyze(cap, { node = "Physics", first = 2, last = 5, worst = 1 })
    assert.are.equal(4, d.time.max_frame)
    assert.are.equal(4, d.worst[1].frame)
  end)

  it("refuses a missing node and bad parameters", function()
    raises("EUSAGE", "params.node is required", node.analyze, cap, {})
    raises("EUSAGE", "worst", node.analyze, cap, { node = "AI", worst = -1 })
  end)
end)

describe("tree.lua and node.lua", function()
  it("tree.lua draws the tree with folded lines, and the same figures as the module", function()
    local r = h.run("scripts/tree.lua", path, "--min-pct", "10")
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("\n%s+11%.00%s+0%.700%s+1%.00%s+100%.0  Frame%s+Game\n", r.stdout)
    assert.matches("\n%s+4%.000%s+1%.000%s+1%.00%s+36%.4    Physics%s+Physics\n", r.stdout)
    assert.matches("\n%s+3%.000%s+3%.000%s+1%.00%s+27%.3      Solve%s+Physics\n", r.stdout)
    assert.matches("\n%s+0%.300%s+%(%+1 node below 10 %%%)\n", r.stdout)
    local doc = h.run_json("scripts/tree.lua", path, "--json", "--min-pct", "10")
    assert.same(paths(tree.analyze(cap, { min_pct = 10 }).nodes), paths(doc.nodes))
    -- what --depth folds is labelled as such, with the largest of it (issue 26)
    r = h.run("scripts/tree.lua", path, "--min-pct", "10", "--depth", "1")
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("\n%s+0%.300%s+%(%+1 node below 10 %%%)\n", r.stdout)
    assert.matches("\n%s+10%.00%s+%(%+3 nodes deeper than %-%-depth 1, largest Physics 36%.4 %%%)\n", r.stdout)
    r = h.run("scripts/tree.lua", path, "--by-name", "--min-pct", "0")
    assert.matches("\n%s+4%.500%s+4%.500%s+2%.00%s+40%.9%s+2%s+7%.000  Solve\n", r.stdout)
  end)

  it("node.lua shows one node, and names the matches when a pattern is ambiguous", function()
    local r = h.run("scripts/node.lua", "Physics", path)
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("node%s+Root/Frame/Physics %(id 3%)", r.stdout)
    assert.matches("group%s+Physics %(id 8%): 4%.000 ms/frame self, this node 25%.0 %%", r.stdout)
    assert.matches("first seen%s+frame 1 %(tick 1001%)", r.stdout)
    assert.matches("\n  mean%s+4%.000%s+1%.000\n  p50%s+3%.000%s+1%.000\n", r.stdout)
    assert.matches("\n  max frame%s+4%s+1\n  stddev%s+2%.000%s+0%.000\n  total%s+20%.00%s+5%.000\n", r.stdout)
    assert.matches("\n%s+4%s+1004%s+8%.000%s+1%.000%s+1%s+15%.00%s+53%.3\n", r.stdout)
    r = h.run("scripts/node.lua", "Solve", path)
    assert.are.equal(2, r.code)
    assert.matches("'Solve' matches 2 nodes", r.stderr)
    assert.matches("Root/Frame/AI/Solve", r.stderr)
    r = h.run("scripts/node.lua", "Nope", path)
    assert.are.equal(2, r.code)
    assert.matches("no node matches 'Nope'", r.stderr)
    r = h.run("scripts/node.lua", "x", "examples/sample.dm")
    assert.are.equal(2, r.code)
    assert.matches("node%.lua reads VProf captures", r.stderr)
  end)

  it("--help states the definitions and exits 0", function()
    local r = h.run("scripts/tree.lua", "--help")
    assert.are.equal(0, r.code)
    assert.matches("By name %(%-%-by%-name%)", r.stdout)
    r = h.run("scripts/node.lua", "--help")
    assert.are.equal(0, r.code)
    assert.matches("worst frames", r.stdout)
    assert.matches("usage: vpscript node%.lua %[options%] NODE CAPTURE", r.stdout)
  end)
end)
