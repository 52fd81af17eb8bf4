-- vp.laige: models of the laige engine's reports, read in Lua because they
-- are text: the profile report (`--prof-out`, JSON or text; one model
-- whatever the form) and the budget report (`--budget-report`, text).
--
--   local laige = require "vp.laige"
--   local cap, msg, code = laige.open("run.json")   -- or vp.open(path)
--   print(cap.counters.ticks, cap.tick_ms and cap.tick_ms.p99)
--   for name, v in pairs(laige.metrics(cap)) do print(name, v) end
--   local doc = laige.analyze(cap)                   -- what laige.lua prints
--
-- The specs are ../shared/specs/laige-profiler.md and the "laige reports"
-- section of format-notes.md (which wins). Reading rules:
-- * the model uses one naming for both forms: `tick_ms`, `frame_ms` and a
--   system's `window` (the JSON keys are tick_time_ms, frame_time_ms and
--   window_ms);
-- * an empty window (`n=0` in text, `null` in JSON) is nil, never a table
--   of NaNs; `nan`/`inf` in text are numbers; counts are integers when
--   they are whole numbers, times are floats, in both forms;
-- * unknown keys and lines are kept in an `extra` table, with a warning;
-- * a missing or unknown version, malformed JSON and a text report cut
--   mid-line are errors (`nil, "<path>: line N: ..." | "<path>: at byte N:
--   ...", code`); a newer version is read as far as it is understood, with
--   a warning.
--
-- The work is split by job: vp.laige.read (what both parsers share: fields,
-- numbers, warnings), vp.laige.text (the line forms), vp.laige.json (the
-- JSON form), vp.laige.model (the two classes and the rules about systems
-- and budgets), vp.laige.metrics (the metric catalogue's values) and
-- vp.laige.analysis (laige.lua's analysis). This module opens a report and
-- gathers their entry points.
local vp = require "vp"
local E = require "vp.error"
local read = require "vp.laige.read"
local model = require "vp.laige.model"
local analysis = require "vp.laige.analysis"

local laige = {}

-- The parts' entry points, under their own names.
local function gather(part, names)
  for _, k in ipairs(names) do laige[k] = part[k] end
end
--- laige.KNOWN_VERSION: the report version this reader implements;
-- laige.RESULTS: the results a budget report uses.
gather(read, { "KNOWN_VERSION", "RESULTS" })
gather(model, { "kind", "system_p99", "system_over", "budget_pct", "over_budget" })
gather(analysis, { "analyze", "schema_of", "profile_schema", "budget_schema", "DEFINITIONS", "SORTS" })

--- laige.metrics(cap) -> {name = number} (vp.laige.metrics; also cap:metrics()).
function laige.metrics(cap)
  return require("vp.laige.metrics").metrics(cap)
end

-- What a name that is not a regular file is, as the C readers say it
-- (core/source.c).
local NOT_A_FILE = {
  ["named pipe"] = "a FIFO (named pipe)", ["char device"] = "a character device",
  ["block device"] = "a block device", socket = "a socket",
}

-- The report's file, opened: the handle, its size and its first bytes (at
-- most 4 KiB), or nil, message, code. A text report is then read a line at
-- a time, a JSON one whole.
local function open_file(path)
  -- Refused before opening: io.open on a FIFO waits for a writer, forever
  -- if none comes.
  local ok, lfs = pcall(require, "lfs")
  local mode = ok and type(lfs) == "table" and lfs.attributes(path, "mode")
  if mode == "directory" then return nil, "is a directory, expected a capture file", "EISDIR" end
  if mode and mode ~= "file" then
    return nil, "is " .. (NOT_A_FILE[mode] or "not a regular file") .. ", not a capture file", "EIO"
  end
  local f, msg, errno = io.open(path, "rb")
  if not f then
    msg = tostring(msg)
    if msg:sub(1, #path + 2) == path .. ": " then msg = msg:sub(#path + 3) end
    return nil, msg, errno == 2 and "ENOENT" or "EIO"
  end
  local head, rmsg, rerrno = f:read(4096)
  if not head then
    f:close()
    if rerrno == 21 then return nil, "is a directory, expected a capture file", "EISDIR" end
    if rmsg then return nil, tostring(rmsg), "EIO" end
    return nil, "the file is empty", "EEMPTY"
  end
  local size = f:seek("end")
  f:seek("set")
  return f, size, head
end

-- Which parser reads a profile report: the JSON one when the content (after
-- a BOM and blank space) starts like JSON, the text one otherwise; each says
-- what is wrong with content that is neither.
local function is_json(head)
  if head:sub(1, 3) == "\239\187\191" then head = head:sub(4) end
  return head:match("^%s*[{%[]") ~= nil
end

--- laige.open(path [, opts [, format]]) -> cap | nil, message, code
-- format: "laige-profile" or "laige-budget" (what vp.open detected or was
-- told); nil detects from the content with vp.detect, the one detector.
function laige.open(path, opts, format)
  if type(path) ~= "string" then error("laige.open: path must be a string", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("laige.open: opts must be a table", 2) end
  format = format or (opts and opts.format)
  if format ~= nil and format ~= "laige-profile" and format ~= "laige-budget" then
    error("laige.open: unknown format '" .. tostring(format) .. "'", 2)
  end
  local f, size, head = open_file(path)
  if not f then return nil, path .. ": " .. size, head end
  if not format then
    format = vp.detect(path)
    if format ~= "laige-profile" and format ~= "laige-budget" then
      f:close()
      return nil, path .. ": not a laige report (expected 'laige-profile', 'laige-budget-report' "
        .. "or a JSON object with \"version\" and \"counters\")", "EFORMAT"
    end
  end
  local ctx = read.new_ctx(path)
  local ok, cap = pcall(function()
    if format == "laige-budget" then return require("vp.laige.text").budget(ctx, f, path, size) end
    if is_json(head) then
      local data, rmsg = f:read("a")
      if not data then read.fail("EIO", "cannot read the file: " .. tostring(rmsg)) end
      return require("vp.laige.json").profile(ctx, data, path, size)
    end
    return require("vp.laige.text").profile(ctx, f, path, size)
  end)
  f:close()
  if not ok then
    if E.is(cap) then return nil, path .. ": " .. cap.message, cap.code end
    error(cap, 0)
  end
  if opts and opts.frames ~= nil then
    if format ~= "laige-budget" then
      return nil, path .. ": a laige profile report has no frames to choose (only budget reports have)", "EUSAGE"
    end
    local rok, why = model.restrict(cap, opts.frames)
    if not rok then return nil, path .. ": " .. why, "ERANGE" end
  end
  return cap
end

return laige
