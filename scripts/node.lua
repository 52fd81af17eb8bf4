-- node.lua: one VProf node's drill-down: its time and self time per frame, worst frames, children's share, group
--
-- Names the node by path, id, or a glob on names (and paths with a "/"),
-- and shows over the capture (or --frames I:J): the statistics of its time
-- and self time per frame, the frames where it took longest, how its time
-- splits among its children, its budget group and where it first appears.
--
-- usage: vpscript node.lua [options] NODE CAPTURE...   (several files: one run each, see vp.multi)
--   NODE             "Root/CEngine::Frame/...", a path relative to the root, an
--                    id, or a glob: "Physics*", "**/npc_zombie/AI_Pathfind"
--   --lua            NODE is a Lua pattern (string.find), not a glob
--   --frames I:J     only frames I..J (1-based, inclusive; "I:" and ":J" too)
--   --worst N        worst frames to list (default 10)
--   --json, --csv (the worst frames), --help
--
-- Definitions: node.DEFINITIONS (printed by --help) and docs/metrics.md.
-- JSON: node.schema (stdlib/vp/node.lua). The analysis is stdlib/vp/node.lua
-- (node.analyze); this script parses the options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local node = require "vp.node"
local report = require "vp.report"

local SPEC = {
  name = "node.lua",
  schema = node.schema, -- printed by --help
  summary = "One node of a VProf capture in detail.",
  description = node.DEFINITIONS,
  options = {
    { "--lua", type = "flag", help = "NODE is a Lua pattern instead of a glob" },
    cli.FRAMES,
    { "--worst", type = "integer", default = node.DEFAULTS.worst, min = 0, metavar = "N",
      help = "how many of the slowest frames to list" },
  },
  positional = {
    { "NODE", help = "a node path, id, or glob (see above)" },
    { "CAPTURE", help = "a .vprof capture", files = true },
  },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local query, path = args[1], args[2]
cli.check_order(SPEC, query, path)
local cap = cli.open_as(path, opts, "vprof", { frames = opts.frames })

local doc = cli.run(node.analyze, cap, { node = query, lua = opts.lua,
  worst = opts.worst, file = path })

local function fixed(d) return function(v) return fmt.fixed(v, d) end end
local g = doc.group

local header = {
  { "node", string.format("%s (id %d)", doc.path, doc.id) },
  { "group", g and string.format("%s (id %d)%s: %s ms/frame self, this node %s %%", g.name, g.id,
    g.hidden and ", hidden" or "", fmt.ms(g.self_ms_per_frame), fmt.fixed(g.node_pct, 1)) or "-" },
  { "first seen", doc.first_seen.frame and string.format("frame %s (tick %s); in %s of the range's frames",
    fmt.int(doc.first_seen.frame), tostring(doc.first_seen.tick), fmt.int(doc.present_frames)) or "-" },
  { "frames", fmt.frames(doc.frames, doc.first_frame, doc.last_frame) },
  { "calls/frame", string.format("%s (at most %s in a frame)", fmt.fixed(doc.calls_per_frame, 2),
    fmt.value(doc.max_calls)) },
  { "% of frame", fmt.fixed(doc.pct_of_frame, 1) },
  { "self % of node", fmt.fixed(doc.self_pct_of_node, 1) },
}

-- One row per statistic, a column each for the time and the self time.
local stat_rows = {}
for _, st in ipairs({ { "mean", "mean_ms" }, { "p50", "p50_ms" }, { "p95", "p95_ms" }, { "p99", "p99_ms" },
  { "max", "max_ms" }, { "max frame", "max_frame" }, { "stddev", "stddev_ms" }, { "total", "total_ms" } }) do
  stat_rows[#stat_rows + 1] = { what = st[1], frame = st[2] == "max_frame", time = doc.time[st[2]],
    self = doc.self[st[2]] }
end
local function stat(v, row)
  if row.frame then return fmt.int(v) end
  return fmt.ms(v)
end

local WORST = {
  { key = "frame", title = "frame" }, { key = "tick", title = "tick", format = tostring },
  { key = "time_ms", title = "time ms", format = fmt.ms }, { key = "self_ms", title = "self ms", format = fmt.ms },
  { key = "calls", title = "calls" }, { key = "frame_ms", title = "frame ms", format = fmt.ms },
  { key = "pct_of_frame", title = "% frame", format = fixed(1), align = "right" },
}

report.emit(opts, {
  json = doc, schema = node.schema,
  title = string.format("node: %s", cap.path or path),
  header = header,
  sections = {
    { title = "time and self time per frame (ms; total: over the range)", rows = stat_rows, columns = {
      { key = "what", title = "", align = "left" },
      { key = "time", title = "time", format = stat, align = "right" },
      { key = "self", title = "self", format = stat, align = "right" },
    } },
    { title = "worst frames", rows = doc.worst, empty = "none (no time in the range)", columns = WORST },
    { title = "children (share of the node's time)", rows = doc.children, empty = "none", columns = {
      { key = "ms_per_frame", title = "ms/frame", format = fmt.ms, align = "right" },
      { key = "pct_of_node", title = "% node", format = fixed(1), align = "right" },
      { key = "max_ms", title = "max ms", format = fmt.ms, align = "right" },
      { key = "max_frame", title = "max frame", align = "right" },
      { key = "path", title = "path", align = "left" },
    } },
  },
  csv = { rows = doc.worst, columns = WORST },
})
cap:close()
