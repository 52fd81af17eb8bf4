-- vp.error: the one kind of error object vpscript raises on purpose.
--
--   local E = require "vp.error"
--   E.raise("EINPUT", "%s: a %s capture has no per-frame times", path, cap.format)
--   local ok, e = pcall(f)
--   if E.is(e) then print(e.code, e.message, e.exit) end
--
-- Analyses raise these for input they cannot analyse and parameters they
-- cannot use; scripts raise them (through vp.cli) to end with a chosen exit
-- status. Anything else raised is a bug and ends the program with status 1
-- and a traceback. The vpscript host reads `exit` and `message`: it prints
-- "vpscript: <message>" on stderr (when there is a message) and exits with
-- `exit`, without a traceback.
local E = {}

local mt = {
  __name = "vp.error",
  __tostring = function(e) return e.message or ("exit " .. tostring(e.exit)) end,
}

-- Exit statuses by code: the one place that maps them, both ways. Input the
-- tool cannot read or analyse and bad usage are 2; a failed gate is 3;
-- output whose reader went away (a closed pipe: `| head`) is 141, as
-- SIGPIPE would end it; anything not listed (a bug, an exhausted resource,
-- a script's own "ESCRIPT") is 1. A status a script chooses (vp.cli's
-- cli.fail) is raised with the first code listed for it.
local CODES = {
  { "EOK", 0 }, { "EINPUT", 2 }, { "EGATE", 3 }, { "EUSAGE", 2 }, { "EFORMAT", 2 }, { "ETRUNC", 2 },
  { "EVERSION", 2 }, { "ENOENT", 2 }, { "EISDIR", 2 }, { "EIO", 2 }, { "EEMPTY", 2 }, { "ELIMIT", 2 },
  { "EUNSUPPORTED", 2 }, { "ECHANGED", 2 }, { "EPIPE", 141 },
}
local EXIT, CODE = {}, {}
for _, c in ipairs(CODES) do
  EXIT[c[1]] = c[2]
  CODE[c[2]] = CODE[c[2]] or c[1]
end

--- E.exit_code(code) -> the exit status for an error code (1 when unknown).
function E.exit_code(code)
  return EXIT[code] or 1
end

--- E.code_of(status) -> the code an exit status is raised with: the first
-- listed for it ("EOK" for 0, "EINPUT" for 2, "EGATE" for 3), "ESCRIPT" for
-- 1 and any other.
function E.code_of(status)
  return CODE[status] or "ESCRIPT"
end

--- E.new(code, message [, exit]) -> error object {code, message, exit}.
-- exit defaults to E.exit_code(code); message may be nil (end quietly).
function E.new(code, message, exit)
  return setmetatable({ code = code, message = message, exit = exit or E.exit_code(code) }, mt)
end

local visible -- core/text's visible escapes (vp.fmt.visible), loaded when first needed

--- E.format(fmt, ...) -> string.format(fmt, ...) with every string argument
-- shown with visible escapes (vp.fmt.visible): the arguments are data (a
-- name, a path, a reader's message) and never add a line, move a
-- terminal's cursor or forge a CI log command; the format is the code's
-- own and keeps its newlines. With no further arguments, fmt itself.
function E.format(fmt, ...)
  local n = select("#", ...)
  if n == 0 then return fmt end
  visible = visible or (require "vp" and require("vp.text.core").visible)
  local args = table.pack(...)
  for i = 1, n do
    if type(args[i]) == "string" then args[i] = visible(args[i]) end
  end
  return string.format(fmt, table.unpack(args, 1, n))
end

--- E.raise(code, fmt, ...): raise E.new(code, E.format(fmt, ...)),
-- blaming the caller's caller. With no further arguments fmt is the message.
function E.raise(code, fmt, ...)
  error(E.new(code, E.format(fmt, ...)), 2)
end

-- What an analysis checks of its arguments, said the one way. `who` names
-- the analysis ("vp.lag"), `name` the parameter.

--- E.check_format(cap, format, who): raise EINPUT ("<who>: a <format>
-- capture is needed, not <cap.format>") unless cap is of that format.
function E.check_format(cap, format, who)
  if cap.format ~= format then
    E.raise("EINPUT", "%s: a %s capture is needed, not %s", who, format, tostring(cap.format))
  end
end

--- E.check_number(v, name, who [, min [, above]]): raise EUSAGE ("<who>:
-- params.<name> must be a number of at least <min>, not <v>", or "above
-- <min>") unless v is nil or a number >= min (> min when `above`; min
-- defaults to 0; NaN is refused).
function E.check_number(v, name, who, min, above)
  min = min or 0
  if v ~= nil and (type(v) ~= "number" or v ~= v or v < min or (above and v == min)) then
    E.raise("EUSAGE", "%s: params.%s must be a number %s %s, not %s", who, name, above and "above" or "of at least",
      min, tostring(v))
  end
end

--- E.check_count(v, name, who): raise EUSAGE ("<who>: params.<name> must
-- be a whole number of at least 0, not <v>") unless v is nil or an integer
-- >= 0.
function E.check_count(v, name, who)
  if v ~= nil and (math.type(v) ~= "integer" or v < 0) then
    E.raise("EUSAGE", "%s: params.%s must be a whole number of at least 0, not %s", who, name, tostring(v))
  end
end

--- E.is(x) -> true when x is an error object made by this module.
function E.is(x)
  return getmetatable(x) == mt
end

--- E.message(x) -> the text of any error value (an error object's message,
-- a string, or tostring of anything else).
function E.message(x)
  if E.is(x) then return x.message or "" end
  return tostring(x)
end

return E
