-- top.lua: the heaviest VProf nodes by path: calls, time, self time and peaks per frame
--
-- The engine's vprof_generate_report done better: one row per node PATH (two
-- same-named nodes never merge; a later same-named sibling's path component
-- carries "#2", "#3"), over the whole capture or a frame range, computed in
-- one C pass (cap:node_stats).
--
-- usage: vpscript top.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --sort time|self|avg|peak|peakavg   order (default time)
--   --limit N        rows to show (default 25; 0 = all)
--   --frames I:J     only frames I..J (1-based, inclusive; "I:" and ":J" too)
--   --json, --csv, --help
--
-- Definitions: see DESCRIPTION below (printed by --help) and docs/metrics.md.
--
-- JSON (one document):
--   { file, frames, first_frame, last_frame, total_ms, sort, limit,
--     nodes = [ {path, name, group, frames, calls, time_ms, self_ms,
--                calls_per_frame, ms_per_frame, ms_per_call, self_ms_per_frame,
--                pct_of_frame, peak_ms, peak_frame, peak_self_ms, peak_over_avg} ] }
--   ms_per_call is null for a node never called; peak_over_avg is null when
--   ms_per_frame is 0; pct_of_frame is null when total_ms is 0.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"

local DESCRIPTION = [[
Per node (by path; the root itself is left out: its children carry the
frame time), over the F frames of the range:
  calls/frame     total calls / F
  ms/frame        total inclusive time / F ("avg ms/frame")
  ms/call         total inclusive time / total calls ("average")
  self ms/frame   total self time / F; self time = inclusive time minus the
                  children's inclusive times, clamped at 0
  % of frame      100 x total inclusive time / total frame time of the range
                  (frame time = sum of the inclusive times of the root's
                  direct children, or the root's own time when larger)
  peak ms         the largest inclusive time in one frame, and that frame
                  (1-based; the first one on ties)
  peak/avg        peak ms / ms/frame: how spiky a node is
  frames          frames of the range in which the node exists
Sort orders (largest first): time = ms/frame, self = self ms/frame,
avg = ms/call, peak = peak ms, peakavg = peak/avg. Ties: by path.]]

local SORTS = { time = "time_ms", self = "self_ms", avg = "ms_per_call", peak = "peak_ms",
  peakavg = "peak_over_avg" }

local SPEC = {
  name = "top.lua",
  summary = "The heaviest nodes of a VProf capture, per node path.",
  description = DESCRIPTION,
  options = {
    { "--sort", choices = { "time", "self", "avg", "peak", "peakavg" }, default = "time",
      help = "sort order (see above)" },
    { "--limit", type = "integer", default = 25, min = 0, metavar = "N", help = "rows to show; 0 = all" },
    { "--frames", type = "range", help = "only frames I..J (1-based, inclusive; I: and :J too)" },
  },
  positional = { { "CAPTURE", help = "a .vprof capture" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open(path)
if cap.format ~= "vprof" then
  cli.fail(2, "%s: top.lua reads VProf captures; this is a %s capture", path, tostring(cap.format))
end

local n = cap.frame_count
local first, last = 1, n
if opts.frames or n > 0 then first, last = cli.resolve_range(opts.frames, n) end
local nframes = n > 0 and (last - first + 1) or 0

local total_ms = 0
if nframes > 0 then
  local ft = cap:frame_times()
  total_ms = ft:slice(first, last):sum()
end

local rows = {}
if nframes > 0 then
  for _, st in ipairs(cap:node_stats(first, last)) do
    local node = st.node
    if node.parent ~= nil and st.frames > 0 then
      local per_frame = st.time_ms / nframes
      rows[#rows + 1] = {
        path = node.path, name = node.name, group = node.group and node.group.name,
        frames = st.frames, calls = st.calls, time_ms = st.time_ms, self_ms = st.self_ms,
        calls_per_frame = st.calls / nframes,
        ms_per_frame = per_frame,
        ms_per_call = st.calls > 0 and st.time_ms / st.calls or nil,
        self_ms_per_frame = st.self_ms / nframes,
        pct_of_frame = total_ms > 0 and 100 * st.time_ms / total_ms or nil,
        peak_ms = st.peak_ms, peak_frame = st.peak_frame, peak_self_ms = st.peak_self_ms,
        peak_over_avg = per_frame > 0 and st.peak_ms / per_frame or nil,
      }
    end
  end
end

local key = SORTS[opts.sort]
table.sort(rows, function(a, b)
  local x, y = a[key], b[key]
  if x ~= y then
    if x == nil then return false end
    if y == nil then return true end
    return x > y
  end
  return a.path < b.path
end)
local shown = rows
if opts.limit > 0 and #rows > opts.limit then
  shown = {}
  for i = 1, opts.limit do shown[i] = rows[i] end
end

local function null(v)
  if v == nil then return cli.null end
  return v
end

local doc_nodes = cli.array()
for i, r in ipairs(shown) do
  doc_nodes[i] = {
    path = r.path, name = r.name, group = null(r.group), frames = r.frames, calls = r.calls,
    time_ms = r.time_ms, self_ms = r.self_ms, calls_per_frame = r.calls_per_frame,
    ms_per_frame = r.ms_per_frame, ms_per_call = null(r.ms_per_call),
    self_ms_per_frame = r.self_ms_per_frame, pct_of_frame = null(r.pct_of_frame),
    peak_ms = r.peak_ms, peak_frame = r.peak_frame, peak_self_ms = r.peak_self_ms,
    peak_over_avg = null(r.peak_over_avg),
  }
end

local function fixed2(v) return fmt.fixed(v, 2) end

report.emit(opts, {
  json = {
    file = cap.path or path, frames = nframes, first_frame = nframes > 0 and first or cli.null,
    last_frame = nframes > 0 and last or cli.null, total_ms = total_ms, sort = opts.sort,
    limit = opts.limit, nodes = doc_nodes,
  },
  title = string.format("top: %s", cap.path or path),
  header = {
    { "frames", nframes > 0 and string.format("%s (%s..%s)", fmt.int(nframes), fmt.int(first), fmt.int(last))
      or "0" },
    { "frame time", nframes > 0 and string.format("%s total, %s ms mean", fmt.duration(total_ms),
      fmt.ms(total_ms / nframes)) or "-" },
    { "sorted by", opts.sort .. string.format(" (showing %d of %d nodes)", #shown, #rows) },
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
      { key = "path" }, { key = "name" }, { key = "group" }, { key = "frames" }, { key = "calls" },
      { key = "time_ms" }, { key = "self_ms" }, { key = "calls_per_frame" }, { key = "ms_per_frame" },
      { key = "ms_per_call" }, { key = "self_ms_per_frame" }, { key = "pct_of_frame" }, { key = "peak_ms" },
      { key = "peak_frame" }, { key = "peak_self_ms" }, { key = "peak_over_avg" },
    },
  },
  max_width = 140,
})
cap:close()
