-- Deep trees (issue 15, item 2): a VProf capture whose nodes form one chain
-- 20,000 and 100,000 deep, every node in a hidden group. Full paths grow with
-- the depth (the deepest is 690 KB here), so building one per node was
-- quadratic: top.lua took 56 s and 458 MB on the 20,000 chain. Now every
-- shipped script runs in time linear in the file, within 64 MB + 10 x the
-- file of peak memory (GNU time's %M), listings show paths elided in the
-- middle with the node's id, and folding hidden groups is memoised.
-- The captures are generated here (string.pack, straight from the format
-- spec), never committed.
local h = require "helpers"
local vp = require "vp"

local dir
local chains = {}

-- A chain `depth` deep under the root: node i (id i, named "n<i>") is the
-- child of node i - 1, in group 1 ("Chain", hidden); frame 1 adds them all,
-- frame 2 only times them. Inclusive times shrink with the depth.
local function chain(path, depth)
  local le = function(v) return string.pack("<i4", v) end
  local parts = { le(1), le(0), "\0", le(1), "\2Unaccounted\0", le(6), "\2Chain\0", le(0x8000) }
  for i = 1, depth do parts[#parts + 1] = "\1" .. le(i - 1) .. "n" .. i .. "\0" .. le(1) .. le(i) end
  local t = { "\3", string.pack("<BI2", 1, 0) }
  for d = 1, depth do t[#t + 1] = string.pack("<BI2", 1, (depth - d + 1) % 60000) end
  t[#t + 1] = "\4"
  local timings = table.concat(t)
  parts[#parts + 1] = timings
  parts[#parts + 1] = "\0" .. le(2) .. timings
  return h.write_file(path, table.concat(parts))
end

local function gnu_time()
  local f = io.open("/usr/bin/time", "rb")
  if f then f:close() end
  return f ~= nil
end

setup(function()
  dir = h.tmpdir()
  chains[20000] = chain(dir .. "/chain20k.vprof", 20000)
  chains[100000] = chain(dir .. "/chain100k.vprof", 100000)
  h.write_file(dir .. "/rules.lua", [[return {
    { metric = "node.Root/n1/n2/n3.calls_per_frame", max = 5 },
    { metric = "node.n1/n2.mean_ms", max = 1000 },
    { metric = "frame_ms.p99", max = 1000 },
  }]])
end)
teardown(h.cleanup)

describe("a 100,000-deep chain of nodes", function()
  it("gives each node a bounded path that finds it again, and the full one on request", function()
    local cap = assert(vp.open(chains[100000]))
    local deep = assert(cap:node(100000))
    assert.equal(100000, deep.depth)
    assert.equal(688899, #deep.full_path)
    assert.is_true(#deep.path <= 256)
    assert.matches("^Root/n1/n2/.*/\226\128\166%[id=100000%]/.*/n99999/n100000$", deep.path)
    assert.equal(deep, cap:node(deep.path))
    assert.equal(deep, cap:node(deep.full_path))
    local mid = cap:node(50000)
    assert.equal(mid, cap:node(mid.path))
    assert.equal(mid, cap:node(mid.full_path:sub(6))) -- relative to the root
    assert.is_nil(cap:node(mid.full_path .. "/nope"))
    assert.equal("Root/n1/n2", cap:node(2).path) -- short paths are whole
    -- every node's path: bounded work each
    local total, count = 0, 0
    for node in cap:nodes() do
      total = total + #node.path
      count = count + 1
    end
    assert.equal(100001, count)
    assert.is_true(total < 100001 * 220)
    -- the path order is the byte order of the full paths: "n1" < "n1/n2" < ... in a chain
    assert.equal(1, cap.root.path_order)
    assert.equal(101, cap:node(100).path_order)
    cap:close()
  end)

  it("folds every hidden node into the root's visible group, each once", function()
    local cap = assert(vp.open(chains[100000]))
    local doc = require("vp.budget").analyze(cap, { fold_hidden = true })
    assert.same({ "Unaccounted" }, { doc.groups[1].group })
    assert.equal(1, #doc.groups)
    doc = require("vp.budget").analyze(cap)
    assert.same({ "Chain" }, { doc.groups[1].group }) -- the root's own time is 0
    cap:close()
  end)

  local SCRIPTS = {
    { "top.lua", function(p) return "scripts/top.lua", p, "--json" end },
    { "hitches.lua", function(p) return "scripts/hitches.lua", p, "--json" end },
    { "budget.lua", function(p) return "scripts/budget.lua", p, "--json" end },
    { "budget.lua --fold-hidden", function(p) return "scripts/budget.lua", p, "--json", "--fold-hidden" end },
    { "check.lua (node rules)", function(p) return "scripts/check.lua", dir .. "/rules.lua", p, "--json" end },
    { "compare.lua (itself)", function(p) return "scripts/compare.lua", p, p, "--json" end },
  }
  for _, s in ipairs(SCRIPTS) do
    it(s[1] .. " runs in linear time and memory on the 20,000 and 100,000 chains #slow #resource", function()
      if not gnu_time() then
        pending("needs GNU time (/usr/bin/time) to measure peak memory")
        return
      end
      for _, depth in ipairs({ 20000, 100000 }) do
        local p = chains[depth]
        local size = #h.read_file(p)
        -- one run under GNU time: peak RSS (KB), seconds and exit status
        local tf, ef = os.tmpname(), os.tmpname()
        local words = { s[2](p) }
        for i, w in ipairs(words) do words[i] = h.quote(w) end
        local cmd = string.format("/usr/bin/time -o %s -f '%%M %%e %%x' %s %s >/dev/null 2>%s </dev/null",
          h.quote(tf), h.quote(h.bin()), table.concat(words, " "), h.quote(ef))
        os.execute(cmd)
        local kb, secs, code = h.read_file(tf):match("(%d+) ([%d%.]+) (%d+)")
        local stderr = h.read_file(ef)
        os.remove(tf)
        os.remove(ef)
        assert.equal("0", code, s[1] .. " on " .. depth .. ": " .. stderr)
        kb, secs = tonumber(kb), tonumber(secs)
        -- (Under AddressSanitizer, `make asan`, the peak is mostly its shadow
        -- memory and quarantine, not the program's: the bound is the release
        -- build's.)
        local limit_kb = 64 * 1024 + 10 * size / 1024
        if not os.getenv("ASAN_OPTIONS") then
          assert.is_true(kb <= limit_kb, string.format("%s on %d: peak %d KB, limit %d KB", s[1], depth, kb,
            math.floor(limit_kb)))
        end
        -- Quadratic work on the 100,000 chain takes minutes (top.lua took 56 s
        -- on the 20,000 one); linear work takes well under a second.
        assert.is_true(secs < 15, string.format("%s on %d took %.1f s", s[1], depth, secs))
      end
    end)
  end
end)
