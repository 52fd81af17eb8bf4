-- --frames A:B: the frames analysed are numbered as in the file, whichever
-- hitch rule finds them (the C rule on VProf, the Lua rules on positions in
-- the frame times: laige reports, capframex, unreal), and a frame outside
-- the range held raises like any index out of range.
local h = require "helpers"

local function first_hitch(...)
  local doc = h.run_json("scripts/hitches.lua", ...)
  return doc.hitches[1] and doc.hitches[1].frame, doc
end

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
    local want = {}
    for _, x in ipairs(all.hitches) do
      if x.frame >= 40 + 30 then want[#want + 1] = x.frame end -- a full window inside the range
    end
    local got = {}
    for _, x in ipairs(part.hitches) do
      assert.is_true(x.frame >= 40, "frame " .. x.frame)
      if x.frame >= 40 + 30 then got[#got + 1] = x.frame end
    end
    assert.are.same(want, got)
  end)

  it("cap:frame and cap:frames take the file's numbers and raise outside the range held", function()
    local cap = h.open_ok("examples/sample.vprof")
    cap:restrict(1101, 1300)
    assert.are.equal(1101, cap:frame(1101).index)
    assert.are.equal(200, #cap)
    local n = 0
    for _ in cap:frames(1290) do n = n + 1 end
    assert.are.equal(11, n)
    assert.has_error(function() cap:frame(1100) end, "frame 1100 is out of range 1101..1300")
    assert.has_error(function() cap:frames(1, 5) end)
    cap:close()
  end)
end)
