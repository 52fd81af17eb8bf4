-- lua_sandbox.lua: the rules-file sandbox harness (tests/fuzz/lua_driver.c
-- runs it in one persistent Lua state). Input: a selector byte (the limits:
-- 0 the defaults but 100 ms of CPU; 1 little memory; 2 few values and short
-- strings) and a rules file, loaded by gate.load (vp.host.sandbox) and,
-- when it loads, validated by gate.validate.
--
-- What may fail: a vp.error (EUSAGE: the file is refused; EINPUT). Anything
-- else raised is a bug (the driver aborts), and so is a message longer than
-- the bounds allow.
local E = require "vp.error"
local gate = require "vp.gate"

local LIMITS = {
  { cpu_ms = 100 },
  { cpu_ms = 100, memory_mb = 2 },
  { cpu_ms = 100, values = 50, bytes = 200, string_bytes = 16, rules = 5 },
}

return function(path, selector, _)
  local limits = LIMITS[selector % #LIMITS + 1]
  local ok, list = pcall(gate.load, path, { limits = limits })
  if ok then
    assert(type(list) == "table" and #list >= 1, "gate.load returned no list")
    ok, list = pcall(gate.validate, list, { source = path })
  end
  if not ok then
    if not E.is(list) then error(list, 0) end
    -- a message says the file, the rule and the problem, never the whole file back
    assert(#list.message < 20000, "a message of " .. #list.message .. " bytes")
  end
end
