-- The examples: the sample generator's contract (deterministic, 1-3 MB, the
-- four planted hitches found by hitches.lua with their causes) and the two
-- example user scripts on captures with known values built by the writer.
local h = require "helpers"

describe("examples", function()
    local dir
    setup(function() dir = h.tmpdir() end)
    teardown(function() h.cleanup() end)

    describe("gen/vprof.lua", function()
        local sample
        setup(function()
            local r = h.run("examples/generate.lua", dir .. "/a")
            assert(r.code == 0, r.stderr)
            sample = dir .. "/a/sample.vprof"
        end)

        it("writes the same bytes every time, 1-3 MB #slow", function()
            local r = h.run("examples/gen/vprof.lua", dir .. "/a")
            assert.are.equal(0, r.code, r.stderr)
            os.execute("mkdir -p " .. h.quote(dir .. "/b"))
            r = h.run("examples/gen/vprof.lua", dir .. "/b")
            assert.are.equal(0, r.code, r.stderr)
            local a, b = h.read_file(sample), h.read_file(dir .. "/b/sample.vprof")
            assert.is_true(a == b, "two runs gave different bytes")
            assert.is_true(#a >= 1000000 and #a <= 3000000, "size " .. #a)
        end)

        it("plants exactly the four documented hitches, each with its cause", function()
            local doc = h.run_json("scripts/hitches.lua", sample, "--json")
            assert.are.equal(4000, doc.frames)
            local want = {
                {1200, "Root/CEngine::Frame/FileSystem_Update/Stream_Update/Stream_LoadChunk",
                 "Streaming", 30},
                {2500, "Root/CEngine::Frame/_Host_RunFrame_Server/Physics_Step/Ragdoll_Constraints",
                 "Physics", 30},
                {3100, "Root/CEngine::Frame/CL_Render/R_DrawWorld/Shader_Compile",
                 "World Rendering", 45},
                {3700, "Root/CEngine::Frame/Lua_GameThink/Lua_GC", "Scripting", 30},
            }
            assert.are.equal(#want, #doc.hitches)
            for i, wnt in ipairs(want) do
                local hit = doc.hitches[i]
                assert.are.equal(wnt[1], hit.frame)
                assert.are.equal(wnt[2], hit.causes[1].path)
                assert.are.equal(wnt[3], hit.causes[1].group)
                assert.is_true(h.near(wnt[4], hit.causes[1].self_ms, 1e-6),
                    "self_ms " .. tostring(hit.causes[1].self_ms))
                assert.are.equal(wnt[3], hit.groups[1].group)
            end
        end)
    end)

    describe("physics_over.lua", function()
        local path
        setup(function()
            -- Physics self time per frame: 3, 5, 4 (not over: strictly above),
            -- 4.004, 11 ms; the child in "Game" is not Physics self time.
            local frames = {}
            local phys = {3000, 7000, 6000, 4004, 12000}
            local game = {0, 2000, 2000, 0, 1000}
            for i = 1, 5 do
                frames[i] = {tick = 100 + 2 * i, [0] = {us = 0, calls = 1},
                             [1] = phys[i] + 1000, [2] = phys[i], [3] = game[i]}
            end
            path = h.vprof(dir .. "/phys.vprof", {
                nodes = {
                    {id = 1, parent = 0, name = "CEngine::Frame", group = "Unaccounted"},
                    {id = 2, parent = 1, name = "Physics_Step", group = "Physics"},
                    {id = 3, parent = 2, name = "Think", group = "Game"},
                },
                frames = frames,
            })
        end)

        it("lists the frames strictly over the limit with tick, frame time and share", function()
            local doc = h.run_json("examples/physics_over.lua", path, "--json")
            assert.are.equal("Physics", doc.group)
            assert.are.equal(4, doc.limit_ms)
            assert.are.equal(5, doc.frames)
            assert.are.equal(3, doc.over)
            assert.is_true(h.near(60, doc.over_pct))
            assert.are.equal(5, doc.worst_frame)
            assert.are.equal(3, #doc.rows)
            local want = {{2, 104, 5, 8}, {4, 108, 4.004, 5.004}, {5, 110, 11, 13}}
            for i, wnt in ipairs(want) do
                local row = doc.rows[i]
                assert.are.equal(wnt[1], row.frame)
                assert.are.equal(wnt[2], row.tick)
                assert.is_true(h.near(wnt[3], row.self_ms), "self_ms " .. row.self_ms)
                assert.is_true(h.near(wnt[4], row.frame_ms), "frame_ms " .. row.frame_ms)
                assert.is_true(h.near(100 * wnt[3] / wnt[4], row.share_pct))
            end
        end)

        it("honours --ms, --limit and --group", function()
            local doc = h.run_json("examples/physics_over.lua", path, "--json", "--ms", "10")
            assert.are.equal(1, doc.over)
            assert.are.equal(5, doc.rows[1].frame)
            doc = h.run_json("examples/physics_over.lua", path, "--json", "--limit", "2")
            assert.are.equal(3, doc.over)
            assert.are.equal(2, #doc.rows)
            doc = h.run_json("examples/physics_over.lua", path, "--json", "--group", "Game",
                "--ms", "1.5")
            assert.are.equal(2, doc.over)
            assert.are.same({2, 3}, {doc.rows[1].frame, doc.rows[2].frame})
        end)

        it("prints a table, and fails with exit 2 on an unknown group", function()
            local r = h.run("examples/physics_over.lua", path)
            assert.are.equal(0, r.code, r.stderr)
            assert.matches("over the limit%s+3 %(60%.0 %%%)", r.stdout)
            assert.matches("\n%s+5%s+110%s+11%.00%s+13%.00", r.stdout)
            r = h.run("examples/physics_over.lua", path, "--group", "Nope")
            assert.are.equal(2, r.code)
            assert.matches("no budget group 'Nope'", r.stderr)
        end)
    end)

    describe("node_histogram.lua", function()
        local path
        setup(function()
            -- Node 2's time is 1, 2, ..., 10 ms in frames 1..10.
            local frames = {}
            for i = 1, 10 do
                frames[i] = {tick = i, [1] = 20000, [2] = {us = 1000 * i, calls = i}}
            end
            path = h.vprof(dir .. "/hist.vprof", {
                nodes = {
                    {id = 1, parent = 0, name = "CEngine::Frame"},
                    {id = 2, parent = 1, name = "Work", group = "Game"},
                },
                frames = frames,
            })
        end)

        it("bins a node's time per frame between --min and --max", function()
            local doc = h.run_json("examples/node_histogram.lua", path, "Root/CEngine::Frame/Work",
                "--json", "--bins", "5", "--min", "0", "--max", "10")
            assert.are.equal(2, doc.node)
            assert.are.equal("Root/CEngine::Frame/Work", doc.path)
            assert.are.same({first = 1, last = 10, count = 10}, doc.frames)
            local counts = {}
            for i, b in ipairs(doc.bins) do counts[i] = b.count end
            assert.are.same({1, 2, 2, 2, 3}, counts)
            assert.are.equal(0, doc.below)
            assert.are.equal(0, doc.above)
            assert.is_true(h.near(5.5, doc.mean))
            assert.is_true(h.near(10, doc.max))
        end)

        it("counts values outside the range and restricts to --frames", function()
            local doc = h.run_json("examples/node_histogram.lua", path, "2", "--json",
                "--bins", "2", "--min", "3", "--max", "6", "--frames", "2:9")
            assert.are.same({first = 2, last = 9, count = 8}, doc.frames)
            assert.are.equal(1, doc.below)   -- 2
            assert.are.equal(3, doc.above)   -- 7, 8, 9
            assert.are.same({2, 2}, {doc.bins[1].count, doc.bins[2].count})
        end)

        it("bins calls with --metric calls and prints bars", function()
            local r = h.run("examples/node_histogram.lua", path, "2", "--metric", "calls",
                "--bins", "2", "--min", "0", "--max", "10")
            assert.are.equal(0, r.code, r.stderr)
            -- a value on an inner edge goes to the upper bin: 1..4 | 5..10
            assert.matches("0 %- 5%s+4%s+#+\n", r.stdout)
            assert.matches("5 %- 10%s+6%s+#+\n", r.stdout)
        end)

        it("fails with exit 2 on an unknown node or a range outside the capture", function()
            local r = h.run("examples/node_histogram.lua", path, "Root/Nope")
            assert.are.equal(2, r.code)
            assert.matches("no node 'Root/Nope'", r.stderr)
            r = h.run("examples/node_histogram.lua", path, "2", "--frames", "11:")
            assert.are.equal(2, r.code)
        end)
    end)
end)
