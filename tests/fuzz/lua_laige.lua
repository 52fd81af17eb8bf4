-- lua_laige.lua: the laige readers harness (tests/fuzz/lua_driver.c runs it
-- in one persistent Lua state). Input: a selector byte (0 profile, 1 budget
-- report, 2 detect from the content) and the file, opened through vp.open
-- and vp.laige (text or JSON), then analysed and summarised as laige.lua
-- and info.lua do.
--
-- What may fail: the open (nil, message, code) and an analysis raising a
-- vp.error. Anything else raised is a bug: the driver aborts.
local vp = require "vp"
local E = require "vp.error"
local laige = require "vp.laige"
local info = require "vp.info"

local MODES = { "laige-profile", "laige-budget", false }

local function analysis(f, ...)
  local ok, err = pcall(f, ...)
  if not ok and not E.is(err) then error(err, 0) end
end

return function(path, selector, _)
  local fmt = MODES[selector % #MODES + 1]
  local cap = vp.open(path, fmt and { format = fmt } or nil)
  if not cap then return end
  if cap.format ~= "laige-profile" and cap.format ~= "laige-budget" then
    cap:close()
    return
  end
  local _ = tostring(cap)
  analysis(info.analyze, cap)
  analysis(laige.analyze, cap)
  for _, sort in ipairs(laige.SORTS or {}) do analysis(laige.analyze, cap, { sort = sort }) end
  analysis(laige.metrics, cap)
  analysis(laige.over_budget, cap)
  cap:close()
end
