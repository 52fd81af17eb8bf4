-- hitches.lua: frame time statistics and the hitch frames of a capture, each with its causes
--
-- Reads any capture that has per-frame times (cap:frame_times()): VProf
-- recordings, and laige budget reports' per-frame lines. Causes (nodes and
-- budget groups) are reported for VProf captures only.
--
-- usage: vpscript hitches.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --factor X          a hitch is at least X times its baseline (default 2.5)
--   --window N          baseline = median of the N preceding frames (default 30)
--   --min-excess-ms X   ... and at least X ms above the baseline (default 5)
--   --threshold-ms X    use the engine's absolute rule instead: frame_ms > X
--   --causes N          causes (nodes, groups) listed per hitch (default 5)
--   --json, --csv, --help
--
-- Definitions: hitches.DEFINITIONS (printed by --help) and docs/metrics.md.
--
-- JSON: hitches.schema (stdlib/vp/hitches.lua), one document:
--   { file, format, frames,
--     frame_ms = {mean, p50, p95, p99, max},         -- null when there are no frames
--     low_1pct_fps, low_01pct_fps, stutter_pct,
--     params = {factor, window, min_excess_ms, threshold_ms},  -- threshold_ms null unless given
--     hitches = [ { frame, tick, frame_ms, baseline_ms,       -- frame 1-based; tick/baseline may be null
--                   causes = [ {node, path, group, self_ms, excess_ms} ],  -- by excess_ms, descending
--                   groups = [ {group, excess_ms} ] } ] }                  -- by excess_ms, descending
-- The analysis is stdlib/vp/hitches.lua (hitches.analyze, which the metric
-- catalogue uses too); this script parses the options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local hitches = require "vp.hitches"

local SPEC = {
  name = "hitches.lua",
  formats = { "vprof", "laige-budget" },
  summary = "Frame time statistics and the hitch frames of a capture, each with its causes.",
  description = hitches.DEFINITIONS,
  options = {
    { "--factor", type = "number", default = 2.5, positive = true, metavar = "X",
      help = "a hitch takes at least X times its baseline" },
    { "--window", type = "integer", default = 30, min = 1, metavar = "N",
      help = "the baseline is the median of the N preceding frames" },
    { "--min-excess-ms", type = "number", default = 5, min = 0, metavar = "X",
      help = "a hitch is also at least X ms above its baseline" },
    { "--threshold-ms", type = "number", min = 0, metavar = "X",
      help = "use the absolute rule instead: a hitch is a frame taking more than X ms" },
    { "--causes", type = "integer", default = 5, min = 0, metavar = "N",
      help = "nodes and groups listed per hitch" },
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "a .vprof capture, or a laige budget report" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open(path)
cli.restrict(cap, opts.frames)
local doc, info = hitches.analyze(cap, {
  factor = opts.factor, window = opts.window, min_excess_ms = opts.min_excess_ms,
  threshold_ms = opts.threshold_ms, causes = opts.causes, file = path,
  on_progress = cli.on_progress("hitches: causes"),
})

-- Output -------------------------------------------------------------------------

local n, total_ms, frame_stats = doc.frames, info.total_ms, doc.frame_ms
local factor, window, min_excess = doc.params.factor, doc.params.window, doc.params.min_excess_ms
local threshold = doc.params.threshold_ms
local is_vprof = cap.format == "vprof"
local hitch_list = doc.hitches

local function fps(v)
  if v == nil then return "-" end
  return fmt.fixed(v, 1) .. " fps"
end

local rule
if threshold then
  rule = string.format("frame time > %s ms (absolute rule)", fmt.number(threshold))
else
  rule = string.format("frame time >= %s x the median of the preceding %d frames and >= %s ms above it",
    fmt.number(factor), window, fmt.number(min_excess))
end

local header = {
  { "frames", fmt.int(n) .. (n > 0 and ("  (" .. fmt.duration(total_ms) .. " of frame time)") or "") },
}
if frame_stats then
  header[#header + 1] = { "frame time (ms)", string.format("mean %s  p50 %s  p95 %s  p99 %s  max %s",
    fmt.ms(frame_stats.mean), fmt.ms(frame_stats.p50), fmt.ms(frame_stats.p95), fmt.ms(frame_stats.p99),
    fmt.ms(frame_stats.max)) }
  header[#header + 1] = { "1 % low", fps(doc.low_1pct_fps) }
  header[#header + 1] = { "0.1 % low", fps(doc.low_01pct_fps) }
end
header[#header + 1] = { "stutter", string.format("%s of frame time in %s hitch frame%s",
  fmt.pct(doc.stutter_pct, 2), fmt.int(#hitch_list), #hitch_list == 1 and "" or "s") }
header[#header + 1] = { "hitch rule", rule }

local rows = {}
for i, h in ipairs(hitch_list) do
  local c, g = h.causes[1], h.groups[1]
  rows[i] = {
    frame = h.frame, tick = h.tick, frame_ms = h.frame_ms, baseline_ms = h.baseline_ms,
    excess_ms = h.baseline_ms and (h.frame_ms - h.baseline_ms) or nil,
    cause = c and c.path, cause_excess_ms = c and c.excess_ms,
    group = g and g.group, group_excess_ms = g and g.excess_ms,
  }
end
local columns = {
  { key = "frame", title = "frame" },
  { key = "tick", title = "tick", align = "right" },
  { key = "frame_ms", title = "frame ms", format = fmt.ms },
  { key = "baseline_ms", title = "baseline", format = fmt.ms, align = "right" },
  { key = "excess_ms", title = "excess", format = fmt.ms, align = "right" },
}
if is_vprof then
  columns[#columns + 1] = { key = "group", title = "top group", align = "left" }
  columns[#columns + 1] = { key = "group_excess_ms", title = "group +ms", format = fmt.ms, align = "right" }
  columns[#columns + 1] = { key = "cause_excess_ms", title = "node +ms", format = fmt.ms, align = "right" }
  columns[#columns + 1] = { key = "cause", title = "top cause (node path)", align = "left" }
end

-- The text lists the causes worth reading: those with at least a tenth of
-- the largest one's excess (the JSON has all of them, up to --causes).
local function worth(list)
  local out, floor = {}, list[1] and list[1].excess_ms / 10 or 0
  for _, c in ipairs(list) do
    if c.excess_ms >= floor then out[#out + 1] = c end
  end
  return out, #list - #out
end

local detail = { "\ncauses (excess over each one's own baseline; smaller ones in --json)" }
if is_vprof and opts.causes > 0 then
  for _, h in ipairs(hitch_list) do
    if #h.causes > 0 or #h.groups > 0 then
      detail[#detail + 1] = string.format("\nframe %d%s: %s ms, baseline %s ms", h.frame,
        h.tick and (" (tick " .. h.tick .. ")") or "", fmt.ms(h.frame_ms), fmt.ms(h.baseline_ms))
      local groups, gmore = worth(h.groups)
      for _, g in ipairs(groups) do
        detail[#detail + 1] = string.format("  group  %9s ms  %s", "+" .. fmt.ms(g.excess_ms), g.group)
      end
      local causes, cmore = worth(h.causes)
      for _, c in ipairs(causes) do
        detail[#detail + 1] = string.format("  node   %9s ms  %s  [%s]  self %s ms", "+" .. fmt.ms(c.excess_ms),
          c.path, c.group or "-", fmt.ms(c.self_ms))
      end
      if gmore + cmore > 0 then
        detail[#detail + 1] = string.format("  (%d smaller group%s, %d smaller node%s)", gmore,
          gmore == 1 and "" or "s", cmore, cmore == 1 and "" or "s")
      end
    end
  end
end

local csv_cols = {
  { key = "frame" }, { key = "tick" }, { key = "frame_ms" }, { key = "baseline_ms" }, { key = "excess_ms" },
  { key = "group", csv = "top_group" }, { key = "group_excess_ms", csv = "top_group_excess_ms" },
  { key = "cause", csv = "top_cause_path" }, { key = "cause_excess_ms", csv = "top_cause_excess_ms" },
}

-- On a terminal the text starts with the frame time at a glance: one line,
-- each character the slowest frame of its stretch (vp.charts, vp.svg).
local tty, term_cols = cli.terminal("stdout")
if tty and not opts.json and not opts.csv and n > 0 then
  io.stdout:write(require("vp.svg").sparkline(require("vp.charts").sparkline(cap, math.max(10, (term_cols or 80) - 1))),
    "\n")
end

report.emit(opts, {
  json = doc,
  schema = hitches.schema,
  title = string.format("hitches: %s (%s)", doc.file, tostring(cap.format)),
  header = header,
  sections = {
    { title = string.format("hitch frames (%d)", #hitch_list), columns = columns, rows = rows,
      empty = "no hitch frames", notes = #detail > 1 and detail or nil },
  },
  csv = { columns = csv_cols, rows = rows },
})
cap:close()
