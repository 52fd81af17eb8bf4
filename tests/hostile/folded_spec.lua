-- export --to folded streams its stacks from C (issue 27, item 4: it built
-- the whole text in memory, 2.9 GB for a 1.5 MB chain of long names). Held
-- here to the Lua definition it replaced, on trees that stress the order
-- and the merging: names with ';', line breaks and '#', namesakes,
-- siblings whose stacks sort across each other's blocks ("A" < "A-B" <
-- "A;x", '-' before ';' before '0'), labels that read the same once folded
-- ("a;b" and "a,b" add up), and a baseline with stacks of its own.
local h = require "helpers"
local M = require "hostile.measure"
local cases = require "hostile.cases"

local dir

-- The definition: each node's self time (whole us) keyed by its stack, the
-- labels joined by ';' (name and "#k", ';' as ',', CR and LF as ' '); equal
-- stacks add up; lines in byte order; with a baseline "stack base new".
local function reference(path, base_path)
  local function stacks(p)
    local cap = h.open_ok(p)
    local out, stack = {}, {}
    for _, row in ipairs(cap:totals()) do
      local node = row.node
      -- a namesake's "#k": after the path's last component, not escaped ("\#" is a name's own '#')
      local suffix = require("vp.fmt").path_last(node.path):match("[^\\](#%d+)$")
      local name = node.name .. (suffix or "")
      local label = name:gsub(";", ","):gsub("[\r\n]", " ")
      local s = node.parent and (stack[node.parent] .. ";" .. label) or label
      stack[node] = s
      local us = math.floor(row.self_ms * 1000 + 0.5)
      if us > 0 then out[s] = (out[s] or 0) + us end
    end
    cap:close()
    return out
  end
  local new, base = stacks(path), base_path and stacks(base_path)
  local keys, seen = {}, {}
  for _, t in ipairs({ new, base or {} }) do
    for k in pairs(t) do
      if not seen[k] then seen[k], keys[#keys + 1] = true, k end
    end
  end
  table.sort(keys)
  local lines = {}
  for i, k in ipairs(keys) do
    lines[i] = base and string.format("%s %d %d\n", k, base[k] or 0, new[k] or 0) or string.format("%s %d\n", k, new[k])
  end
  return table.concat(lines)
end

-- A capture of `tree` ({name, us, children}) under the root.
local function build(path, tree)
  local vp = require "vp"
  local w = vp.writer("vprof", path)
  w:default_groups()
  local t = {}
  local function add(parent, list)
    for _, n in ipairs(list) do
      local id = w:node(parent, n[1], 1)
      t[id] = n[2]
      add(id, n[3] or {})
    end
  end
  add(w.root_id, tree)
  for i = 1, 3 do w:frame(i, t) end
  w:close()
  return path
end

describe("export --to folded (streamed in C)", function()
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  local TREE = {
    { "A", 400, { { "x", 8 }, { "y;z", 12 }, { "y,z", 16 } } },
    { "A-B", 100, { { "deep", 40, { { "deeper", 20 } } } } },
    { "A0", 60 },
    { "A", 200, { { "x", 4, { { "under", 8 } } } } }, -- a namesake: "A#2"
    { "A#2", 36 },                                    -- its literal twin
    { "line\nbreak", 24, { { "cr\rhere", 8 } } },
    { "semi;colon", 32, { { "k", 4 } } },
    { "semi,colon", 16, { { "k", 8 } } },             -- folds into the same stacks
    { "zero", 0, { { "child", 12 } } },
  }
  local BASE = {
    { "A", 300, { { "x", 4 }, { "only_base", 44 } } },
    { "gone", 20 },
    { "semi;colon", 8 },
  }

  it("writes the definition's bytes, alone and against a baseline", function()
    local a = build(dir .. "/a.vprof", TREE)
    local b = build(dir .. "/b.vprof", BASE)
    local r = h.run("scripts/export.lua", a, "--to", "folded")
    assert.are.equal(0, r.code, r.stderr)
    assert.are.equal(reference(a), r.stdout)
    r = h.run("scripts/export.lua", a, "--to", "folded", "--diff", b)
    assert.are.equal(0, r.code, r.stderr)
    assert.are.equal(reference(a, b), r.stdout)
    r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "folded", "--frames", "1000:1300")
    assert.are.equal(0, r.code, r.stderr)
    assert.is_true(#r.stdout > 0)
  end)

  it("the sample capture and a range of it: the definition's bytes", function()
    local r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "folded", "--diff",
      "examples/runs/base/run1.vprof")
    assert.are.equal(0, r.code, r.stderr)
    assert.are.equal(reference("examples/sample.vprof", "examples/runs/base/run1.vprof"), r.stdout)
  end)

  it("a 1,000-deep chain of 1,500-byte names: 76 MB of stacks in bounded memory and linear time", function()
    -- before: 2.9 GB for this 1.5 MB file
    local path = cases.write(dir, "vprof_long_names_chain", { n = 1000 })
    local r = M.run({ "scripts/export.lua", path, "--to", "folded", "-o", dir .. "/chain.folded" }, { timeout = 120 })
    assert.are.equal(0, r.code, r.stderr)
    M.within_budget(r, path)
    M.within_cpu(r, 10)
    local f = assert(io.open(dir .. "/chain.folded", "rb"))
    local lines, size = 0, f:seek("end")
    f:seek("set")
    for _ in f:lines() do lines = lines + 1 end
    f:close()
    assert.are.equal(100, lines)
    assert.is_true(size > 70e6, "size " .. size)
  end)
end)
