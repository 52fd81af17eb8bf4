-- busted output handler for vpscript: a dot per test while running, then
-- every failure and error in full, then ONE plain closing line
--   busted: N passed, N failed, N skipped
-- alone on the last line, so CI logs and humans read the same verdict.
-- Errors (a spec file that fails to load, an error outside `it`) count as
-- failed: a run that could not even start its tests must not look green.
local pretty = require "pl.pretty"

local function message_text(m)
  if type(m) == "string" then return m end
  if m == nil then return "(no message)" end
  return pretty.write(m)
end

return function(options)
  local busted = require "busted"
  local handler = require "busted.outputHandlers.base"()

  local function describe_failure(f, label)
    local where = ""
    local trace = f.element and f.element.trace
    if trace and trace.short_src then
      where = trace.short_src .. ":" .. tostring(trace.currentline) .. ": "
    end
    local s = label .. ": " .. where .. f.name .. "\n" .. message_text(f.message)
    if options.verbose and f.trace and f.trace.traceback then
      s = s .. "\n" .. f.trace.traceback
    end
    return s
  end

  local function on_test_end(_, _, status)
    local mark = status == "success" and "." or status == "pending" and "s"
      or status == "failure" and "F" or "E"
    io.write(mark)
    io.flush()
    return nil, true
  end

  local function on_error()
    io.write("E")
    io.flush()
    return nil, true
  end

  local function on_suite_end()
    io.write("\n")
    for _, p in ipairs(handler.pendings) do
      io.write("\nskipped: ", p.name, p.message and (" (" .. message_text(p.message) .. ")") or "", "\n")
    end
    for _, f in ipairs(handler.failures) do
      io.write("\n", describe_failure(f, "FAILED"), "\n")
    end
    for _, e in ipairs(handler.errors) do
      io.write("\n", describe_failure(e, "ERROR"), "\n")
    end
    local failed = handler.failuresCount + handler.errorsCount
    io.write(string.format("\n%.2f s\nbusted: %d passed, %d failed, %d skipped\n",
      handler.getDuration(), handler.successesCount, failed, handler.pendingsCount))
    io.flush()
    return nil, true
  end

  busted.subscribe({ "test", "end" }, on_test_end, { predicate = handler.cancelOnPending })
  busted.subscribe({ "suite", "end" }, on_suite_end)
  busted.subscribe({ "error", "file" }, on_error)
  busted.subscribe({ "failure", "file" }, on_error)
  busted.subscribe({ "error", "describe" }, on_error)
  busted.subscribe({ "failure", "describe" }, on_error)
  return handler
end
