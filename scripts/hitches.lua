-- hitches.lua: frame time statistics and the hitch frames of a capture, each with its causes
--
-- Reads any capture that has per-frame times (cap:frame_times()): VProf
-- recordings, and laige budget reports' per-frame lines. Causes (nodes and
-- budget groups) are reported for VProf captures only.
--
-- usage: vpscript hitches.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --rule NAME         median (ours, the default), capframex or unreal: whose definition of a hitch
--   --factor X          a hitch is at least X times its baseline (default 2.5; median, capframex)
--   --window N          baseline = median of the N preceding frames (default 30; the causes' too)
--   --min-excess-ms X   ... and at least X ms above the baseline (default 5; median)
--   --threshold-ms X    median: use the engine's absolute rule instead, frame_ms > X;
--                       unreal: its hitch threshold (default 60)
--   --causes N          causes (nodes, groups) listed per hitch (default 5)
--   --per DURATION      also the statistics of each wall-clock window: 60s, 1m, 500ms
--   --frames A:B        only frames A..B (the frames before A still feed the baselines)
--   --json, --csv, --help
--
-- Definitions: hitches.DEFINITIONS (printed by --help) and docs/metrics.md.
--
-- JSON: hitches.schema (stdlib/vp/hitches.lua), one document:
--   { file, format, rule, frames,
--     frame_ms = {mean, p50, p95, p99, max},         -- null when there are no frames
--     low_1pct_fps, low_01pct_fps, stutter_pct,       -- stutter_pct: the rule's figure
--     params = {factor, window, min_excess_ms, threshold_ms},  -- null where the rule has none
--     capframex = {...}, unreal = {...},              -- that rule's figures (vp.anchors), else null
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
  schema = hitches.schema, -- printed by --help
  formats = { "vprof", "laige-budget" },
  summary = "Frame time statistics and the hitch frames of a capture, each with its causes.",
  description = hitches.DEFINITIONS,
  options = {
    { "--rule", default = "median", choices = hitches.RULES,
      help = "whose definition of a hitch: ours (median), CapFrameX's stuttering or Unreal's hitches" },
    { "--factor", type = "number", positive = true, metavar = "X",
      help = "a hitch takes at least X times its baseline; median and capframex rules (default\1" .. "2.5)" },
    { "--window", type = "integer", default = 30, min = 1, metavar = "N",
      help = "the baseline is the median of the N preceding frames (the causes' too, under every rule)" },
    { "--min-excess-ms", type = "number", min = 0, metavar = "X",
      help = "a hitch is also at least X ms above its baseline; median rule (default\1" .. "5)" },
    { "--threshold-ms", type = "number", min = 0, metavar = "X",
      help = "median rule: use the absolute rule instead, a hitch is a frame taking more than X ms; "
        .. "unreal rule: its hitch threshold (default\1" .. "60)" },
    { "--causes", type = "integer", default = 5, min = 0, metavar = "N",
      help = "nodes and groups listed per hitch" },
    cli.PER,
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "a .vprof capture, or a laige budget report" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
-- --frames: the capture is opened whole and the range handed down, so that
-- the frames before the range feed the baseline windows
local cap = cli.open(path, opts)
local first, last
if opts.frames then
  first, last = require("vp").frames_of(opts.frames, cap.frame_count or #cap)
  if not first then cli.fail(2, "%s: frames out of range: the capture has %d frames", path, cap.frame_count or #cap) end
end
local doc, info = hitches.analyze(cap, {
  rule = opts.rule, factor = opts.factor, window = opts.window, min_excess_ms = opts.min_excess_ms,
  threshold_ms = opts.threshold_ms, causes = opts.causes, file = path, first = first, last = last, per_ms = opts.per,
  on_progress = cli.on_progress("hitches: causes"),
})

-- Output -------------------------------------------------------------------------

local n, total_ms, frame_stats = doc.frames, info.total_ms, doc.frame_ms
local p = doc.params
local is_vprof = cap.format == "vprof"
local hitch_list = doc.hitches

local function fps(v)
  if v == nil then return "-" end
  return fmt.fixed(v, 1) .. " fps"
end

local RULE_TEXT = {
  median = function()
    return string.format("frame time >= %s x the median of the preceding %d frames and >= %s ms above it",
      fmt.number(p.factor), p.window, fmt.number(p.min_excess_ms))
  end,
  threshold = function() return string.format("frame time > %s ms (absolute rule)", fmt.number(p.threshold_ms)) end,
  capframex = function()
    local c = doc.capframex
    return string.format("CapFrameX: frame time > %s x the moving average of the last %s frames "
      .. "(10 x sqrt(mean frame time))", fmt.number(c.factor), c.window and fmt.int(c.window) or "-")
  end,
  unreal = function()
    local u = doc.unreal
    return string.format("Unreal: frame time >= %s ms, > %s x the previous frame, >= %s ms after the previous "
      .. "hitch", fmt.number(u.threshold_ms), fmt.number(u.ratio), fmt.number(u.dead_window_ms))
  end,
}

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
local what = doc.rule == "unreal" and "of the charted frame time" or "of frame time"
header[#header + 1] = { "stutter", string.format("%s %s in %s hitch frame%s",
  fmt.pct(doc.stutter_pct, 2), what, fmt.int(#hitch_list), #hitch_list == 1 and "" or "s") }
header[#header + 1] = { "hitch rule", RULE_TEXT[doc.rule]() }
if doc.capframex then
  local c = doc.capframex
  header[#header + 1] = { "low-FPS time", string.format("%s of frame time below %s fps (not stutters)",
    fmt.pct(c.low_fps_time_pct, 2), fmt.number(c.low_fps)) }
  for _, low in ipairs(c.lows) do
    header[#header + 1] = { fmt.number(low.pct) .. " % low (CapFrameX)",
      string.format("%s average, %s integral", fps(low.average_fps), fps(low.integral_fps)) }
  end
elseif doc.unreal then
  local u = doc.unreal
  header[#header + 1] = { "hitches / minute", u.hitches_per_minute and fmt.fixed(u.hitches_per_minute, 2) or "-" }
  header[#header + 1] = { "spent hitching", fmt.pct(u.percent_spent_hitching, 2) .. string.format(
    " (hitch time less %s ms a hitch)", fmt.number(u.target_ms)) }
end

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

-- The text lists what --causes asks for, as the JSON does (only the text:
-- thousands of hitches' lines cost more than the JSON of them). A line
-- ends with its node path, cut at the front to the terminal's width.
local width = report.width(opts)
local function fit(head, node_path)
  if width and #head + #node_path > width then node_path = fmt.truncate(node_path, math.max(8, width - #head)) end
  return head .. node_path
end
local detail = { "\ncauses (excess over each one's own baseline)" }
if is_vprof and opts.causes > 0 and not opts.json and not opts.csv then
  for _, h in ipairs(hitch_list) do
    if #h.causes > 0 or #h.groups > 0 then
      detail[#detail + 1] = string.format("\nframe %s%s: %s ms, baseline %s ms", fmt.int(h.frame),
        h.tick and (" (tick " .. fmt.int(h.tick) .. ")") or "", fmt.ms(h.frame_ms), fmt.ms(h.baseline_ms))
      for _, g in ipairs(h.groups) do
        detail[#detail + 1] = string.format("  group  %9s ms  %s", "+" .. fmt.ms(g.excess_ms), g.group)
      end
      for _, c in ipairs(h.causes) do
        detail[#detail + 1] = fit(string.format("  node   %9s ms  self %s ms  [%s]  ", "+" .. fmt.ms(c.excess_ms),
          fmt.ms(c.self_ms), c.group or "-"), c.path)
      end
    end
  end
end

-- Where to look: the hitches grouped by their first cause (vp.hitches.by_cause).
local by_cause = {}
if is_vprof and #hitch_list > 0 and opts.causes > 0 then
  for i, g in ipairs(hitches.by_cause(hitch_list)) do
    by_cause[i] = { count = g.count, excess_ms = g.excess_ms, worst_frame = g.worst_frame, group = g.group,
      path = g.path or "(no cause found)" }
  end
end

-- --per: each window's figures.
local window_rows, window_columns = require("vp.hitches.render").windows(doc.windows)

local csv_cols = {
  "frame", "tick", "frame_ms", "baseline_ms", "excess_ms",
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
    #by_cause > 0 and { title = "hitches by cause (the node with the largest excess in each)", rows = by_cause,
      columns = {
        { key = "count", title = "hitches", format = fmt.int },
        { key = "excess_ms", title = "excess ms", format = fmt.ms },
        { key = "worst_frame", title = "worst frame", format = fmt.int },
        { key = "group", title = "group", align = "left" },
        { key = "path", title = "node path", align = "left" },
      } } or nil,
    #window_rows > 0 and { title = string.format("per %s of frame time", fmt.span(opts.per)), rows = window_rows,
      columns = window_columns } or nil,
  },
  csv = { columns = csv_cols, rows = rows },
})
cap:close()
