-- top.lua: the heaviest VProf nodes by path: calls, time, self time and peaks per frame
--
-- The engine's vprof_generate_report done better: one row per node PATH (two
-- same-named nodes never merge; a later same-named sibling's path component
-- carries "#2", "#3"), over the whole capture or a frame range, computed in
-- one C pass (cap:totals).
--
-- usage: vpscript top.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --sort time|self|avg|peak|peakavg   order (default time)
--   --limit N        rows to show (default 25; 0 = all)
--   --frames I:J     only frames I..J (1-based, inclusive; "I:" and ":J" too)
--   --json, --csv, --help
--
-- Definitions: top.DEFINITIONS (printed by --help) and docs/metrics.md.
--
-- JSON: top.schema (stdlib/vp/top.lua), one document:
--   { file, frames, first_frame, last_frame, total_ms, sort, limit,
--     nodes = [ {path, name, group, frames, calls, time_ms, self_ms,
--                calls_per_frame, ms_per_frame, ms_per_call, self_ms_per_frame,
--                pct_of_frame, peak_ms, peak_frame, peak_self_ms, peak_over_avg} ] }
--   ms_per_call is null for a node never called; peak_over_avg is null when
--   ms_per_frame is 0; pct_of_frame is null when total_ms is 0.
-- The analysis is stdlib/vp/top.lua (top.analyze); this script parses the
-- options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local top = require "vp.top"

local SPEC = {
  name = "top.lua",
  schema = top.schema, -- printed by --help
  formats = { "vprof" },
  summary = "The heaviest nodes of a VProf capture, per node path.",
  description = top.DEFINITIONS,
  options = {
    { "--sort", choices = top.SORT_NAMES, default = top.DEFAULTS.sort, help = "sort order (see above)" },
    { "--limit", type = "integer", default = top.DEFAULTS.limit, min = 0, metavar = "N",
      help = "rows to show; 0 = all" },
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "a .vprof capture" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
-- Whole-capture node totals are computed while the capture is read (a range
-- makes its own pass over its frames).
local cap = cli.open_as(path, opts, "vprof", { stats = { nodes = true }, frames = opts.frames })

local doc, info = top.analyze(cap, { sort = opts.sort, limit = opts.limit, file = path })
local nframes, total_ms, shown = doc.frames, doc.total_ms, doc.nodes

local function fixed2(v) return fmt.fixed(v, 2) end

report.emit(opts, {
  json = doc,
  schema = top.schema,
  title = string.format("top: %s", cap.path or path),
  header = {
    { "frames", fmt.frames(nframes, doc.first_frame, doc.last_frame) },
    { "frame time", nframes > 0 and string.format("%s total, %s ms mean", fmt.duration(total_ms),
      fmt.ms(total_ms / nframes)) or "-" },
    { "sorted by", opts.sort .. string.format(" (showing %d of %d nodes)", #shown, info.node_count) },
  },
  sections = {
    { title = nil, rows = shown, empty = "no nodes", columns = {
      { key = "calls_per_frame", title = "calls/fr", format = fixed2 },
      { key = "ms_per_frame", title = "ms/frame", format = fmt.ms },
      { key = "ms_per_call", title = "ms/call", format = fmt.ms, align = "right" },
      { key = "self_ms_per_frame", title = "self/fr", format = fmt.ms },
      { key = "pct_of_frame", title = "% frame", format = function(v) return fmt.fixed(v, 1) end,
        align = "right" },
      { key = "peak_ms", title = "peak ms", format = fmt.ms },
      { key = "peak_frame", title = "peak fr" },
      { key = "peak_over_avg", title = "pk/avg", format = function(v) return fmt.fixed(v, 1) end,
        align = "right" },
      { key = "group", title = "group", align = "left" },
      { key = "path", title = "path", align = "left" },
    } },
  },
  csv = {
    rows = shown,
    columns = {
      "path", "name", "group", "frames", "calls", "time_ms", "self_ms", "calls_per_frame", "ms_per_frame",
      "ms_per_call", "self_ms_per_frame", "pct_of_frame", "peak_ms", "peak_frame", "peak_self_ms", "peak_over_avg",
    },
  },
})
cap:close()
