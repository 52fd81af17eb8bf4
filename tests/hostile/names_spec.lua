-- Names that inject or collide, and long names that cost (issue 27): a
-- node, group or file name is data, so it never adds a line, a cell, a
-- heading or an element to what a script prints, never picks another
-- node, and costs time linear in its length. Every capture is built here.
local h = require "helpers"
local M = require "hostile.measure"

local dir

-- A capture whose tree is Root > A > each of `names` (every node has time).
local function named(path, names, frames)
  local vp = require "vp"
  local w = vp.writer("vprof", path)
  w:default_groups()
  local a = w:node(w.root_id, "A", 1)
  local t = { [a] = 1000 }
  for i, name in ipairs(names) do t[w:node(a, name, 1)] = 100 + i end
  for i = 1, frames or 40 do w:frame(i, t) end
  w:close()
  return path
end

describe("hostile names (issue 27)", function()
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  it("compare.lua lists a node with a 40 KB name found on one side only in linear time", function()
    -- before: an unanchored match per "only in" row, 5.9 s at 16 KB, 4x per doubling
    local a = named(dir .. "/long_a.vprof", { string.rep("x", 40000) })
    local b = named(dir .. "/long_b.vprof", {})
    local r = M.run({ "scripts/compare.lua", a, b }, { timeout = 120 })
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("only in A %(1%)", r.stdout)
    M.within_cpu(r, 2)
  end)
end)
