-- vp.repl.errors: how the REPL shows an error (repl.error_text): the
-- message, a short traceback and, for a nil that a lookup gave, what was
-- missing (vp.repl.describe's nil_hint). Part of vp.repl (see there).
local describe = require "vp.repl.describe"

local errors = {}

-- The message with a short traceback (repl.error_text, without the hint).
local function trace_text(msg, max)
  local head, tb = msg:match("^(.-)\nstack traceback:\n(.*)$")
  if not head then return msg end
  local frames = {}
  for line in tb:gmatch("[^\n]+") do
    line = line:gsub("^%s+", "")
    if line ~= "[C]: in ?" and line ~= "[C]: in function 'error'" and line ~= "[C]: in function 'assert'" then
      frames[#frames + 1] = line
    end
  end
  if #frames == 0 or (#frames == 1 and frames[1]:match("^repl:%d+: in main chunk$")) then
    return head
  end
  local out = { head, "stack traceback:" }
  for i = 1, math.min(#frames, max) do out[#out + 1] = "  " .. frames[i] end
  if #frames > max then out[#out + 1] = string.format("  ... (%d more)", #frames - max) end
  return table.concat(out, "\n")
end

--- errors.text(msg, max, src, env) -> string: repl.error_text, for the
-- chunk src (repl.source) run in env.
function errors.text(msg, max, src, env)
  msg = tostring(msg)
  local text = trace_text(msg, max or 6)
  local field = msg:match("attempt to index a nil value %(field '([^']+)'%)")
  local global = msg:match("attempt to index a nil value %(global '([^']+)'%)")
  local bare = msg:match("attempt to index a nil value$") or msg:match("attempt to index a nil value\n")
  local hint = (field or bare) and describe.nil_hint(src, field, env)
    or global and string.format("-- %s is nil (a call that failed? vp.open returns nil and the reason: "
      .. "print(vp.open(path)) shows it)", global)
  return hint and (text .. "\n" .. hint) or text
end

return errors
