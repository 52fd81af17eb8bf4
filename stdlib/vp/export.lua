-- vp.export: any capture in the formats other tools read, streamed to a
-- file (an output module: it writes). The VProf exporters run in C
-- (vp.export.core, host/export: chrome, speedscope, csv and folded, whose
-- stacks are written in order as they are found, never held as text):
-- memory stays bounded by the tree, never by the frames or the output; the
-- rest are Lua modules under vp.export.*.
--
--   local export = require "vp.export"
--   export.write(cap, "chrome", io.stdout, {name = "sample"})
--
-- Every output is deterministic: the same capture and options always give
-- the same bytes (no clock, no table order).
local E = require "vp.error"

local export = {}

--- The VProf time layout, as export.lua --help states it.
export.LAYOUT = [[
VProf records no timestamps inside a frame, only each node's time per frame,
so chrome and speedscope lay the frames out: each frame starts at the sum of
the earlier frame times (the first exported frame at 0), and each node's
children start one after another from their parent's start, in recorded
order (the order of the frame's timing records). A child that would end
after its parent is cut at the parent's end; the root's event, when the root
has time of its own, spans the frame. Events nest strictly, and a frame's
top-level events add up to its frame time. Times are whole microseconds.]]

--- Each target: what it writes and the capture formats it reads.
export.TARGETS = {
  chrome = { formats = { "vprof", "devt", "dlag" },
    what = "Chrome Trace Event JSON (Perfetto, chrome://tracing, Tracy's import-chrome, speedscope): "
      .. "VProf: an X event per node instance with time (args path, group, calls, self_ms), an instant "
      .. "event 'frame N' per frame, counters frame_ms and 'group self ms'; .devt: instant events; .dlag: "
      .. "counters" },
  folded = { formats = { "vprof" },
    what = "collapsed stacks 'Root;A;B <self us>' summed over the frames (flamegraph.pl, inferno, speedscope, "
      .. "Firefox profiler); with --diff BASE: 'stack base_us new_us'" },
  speedscope = { formats = { "vprof" },
    what = "speedscope's file format: one evented profile, or one per frame with --per-frame" },
  csv = { formats = { "vprof", "devt", "dlag", "dm", "dw", "laige-budget", "laige-profile" },
    what = "VProf: a row per frame (frame, tick, start_ms, frame_ms, each budget group's self ms; --node "
      .. "PATH adds node_ms, node_self_ms, node_calls); other captures: a row per record, every field by "
      .. "its API name" },
  presentmon = { formats = { "vprof", "laige-budget" },
    what = "PresentMon 1.x CSV of the frame times (CapFrameX and other PresentMon readers); fill values in "
      .. "docs/export.md" },
}

export.NAMES = { "chrome", "folded", "speedscope", "csv", "presentmon" }

local function reads(target, format)
  for _, f in ipairs(export.TARGETS[target].formats) do
    if f == format then return true end
  end
  return false
end

--- export.buffer(f) -> put(piece), flush(): the pieces of an output,
-- gathered and written to f 4,096 at a time (flush writes what is left):
-- a write per few thousand lines, and memory bounded whatever the
-- capture's size. The Lua exporters write through it.
function export.buffer(f)
  local buf = {}
  local function flush()
    f:write(table.concat(buf))
    buf = {}
  end
  local function put(piece)
    buf[#buf + 1] = piece
    if #buf >= 4096 then flush() end
  end
  return put, flush
end

--- export.write(cap, to, file, params) -> {to, format, rows}: rows are the
-- frames (VProf chrome, speedscope, csv), lines (folded) or records written.
-- params (all optional): name (the capture's name in the output: process
-- and profile names, PresentMon's Application), what (the output's name
-- for error messages), per_frame (speedscope), node (csv, VProf: a node,
-- its id or path), baseline (folded: a second VProf capture: the
-- differential form). Raises EUSAGE for a target the capture's format has
-- not, or an option that target does not take.
function export.write(cap, to, f, params)
  params = params or {}
  local target = export.TARGETS[to]
  if not target then E.raise("EUSAGE", "vp.export: unknown target '%s'", tostring(to)) end
  if not reads(to, cap.format) then
    E.raise("EUSAGE", "--to %s: a %s capture cannot be exported as %s (it exports to %s)", to,
      tostring(cap.format), to, table.concat(export.targets_of(cap.format), ", "))
  end
  local function only(opt, key, wanted)
    if params[key] ~= nil and params[key] ~= false and not wanted then
      E.raise("EUSAGE", "%s is for --to %s", opt, key == "baseline" and "folded" or key == "per_frame"
        and "speedscope" or "csv of a VProf capture")
    end
  end
  only("--diff", "baseline", to == "folded")
  only("--per-frame", "per_frame", to == "speedscope")
  only("--node", "node", to == "csv" and cap.format == "vprof")
  local name = params.name or (cap.path or cap.format):match("[^/]*$")
  local rows
  if cap.format == "vprof" and (to == "chrome" or to == "speedscope" or to == "csv") then
    local node
    if params.node ~= nil then
      node = cap:node(params.node)
      if not node then E.raise("EUSAGE", "--node: no node %s in %s", tostring(params.node), tostring(cap.path)) end
    end
    require("vp.export.core").vprof(cap, f, to, { name = name, what = params.what, per_frame = params.per_frame,
      node = node })
    rows = cap.frame_count
  elseif to == "folded" then
    local base = params.baseline
    if base and base.format ~= "vprof" then
      E.raise("EUSAGE", "--diff: the baseline is a %s capture, not vprof", tostring(base.format))
    end
    rows = require("vp.export.core").folded(cap, f, base, { what = params.what })
  elseif to == "presentmon" then
    rows = require("vp.export.presentmon").write(cap, f, { application = name })
  elseif to == "csv" then
    rows = require("vp.export.records").csv(cap, f)
  else
    rows = require("vp.export.records").chrome(cap, f)
  end
  return { to = to, format = cap.format, rows = rows }
end

--- export.targets_of(format) -> the targets a capture of that format exports to.
function export.targets_of(format)
  local out = {}
  for _, t in ipairs(export.NAMES) do
    if reads(t, format) then out[#out + 1] = t end
  end
  return out
end

return export
