-- report.lua: one self-contained HTML page of charts and tables about a capture (and a baseline)
--
-- The page opens offline: inline SVG, tables and an inline script, no
-- request to anywhere; with scripting off its static charts and tables are
-- the page.
--
-- usage: vpscript report.lua CAPTURE [--baseline BASE] -o report.html
--        vpscript report.lua B... --runs --baseline A... -o report.html   (runs a side)
--   --baseline BASE   also: the comparison page (repeat, or a directory, for several runs)
--   --runs            the captures given are runs of one build (one page)
--   -o, --output FILE the page (default: stdout)
--   --width N         chart width in pixels (default 960)
--   --frames A:B      only frames A..B (negative: from the end)
--   --target-fps FPS  a target line on the frame-time charts (repeat; default 60 and 30)
--   --group NAME      the budget chart's groups at first (repeat; default the 8 largest)
--   --tree A:B        also keep the call trees of frames A..B (repeat)
--   --trees N         the hitch frames whose trees are kept (the largest; default 100)
--   --per DURATION    also the figures of each window of that much frame time (60s, 1m, 500ms)
--   --json            print the page's data instead (vp.overview.schema)
--
-- What it shows: the frame time over the capture (each pixel column's
-- fastest..slowest frame at every zoom, target lines, hitch frames
-- marked), the call tree of a frame (a hitch frame's nodes coloured by
-- their excess over their own baselines), the hitches grouped by cause,
-- the distribution and its tail, budget groups over time, the heaviest
-- nodes, each hitch with its causes; with a baseline both captures on one
-- timeline, compare's verdicts and a differential tree; a .dw trace:
-- disagreement kinds per weapon template; .dlag: ping and loss over time;
-- laige reports: systems against their budgets. Data:
-- stdlib/vp/overview.lua; the page: stdlib/vp/html.lua and html/report.js.
local cli = require "vp.cli"
local html = require "vp.html"
local multi = require "vp.multi"
local overview = require "vp.overview"

local SPEC = {
  name = "report.lua",
  summary = "One self-contained HTML page about a capture (and a baseline): charts and tables to explore, "
    .. "offline.",
  description = [[
The page holds inline SVG charts, tables and an inline script, and nothing
else: no font, style, script or data from anywhere. With scripting on:
the frame-time chart zooms and pans (drag a range, the wheel, Reset; each
pixel column keeps its fastest and slowest frame at every zoom, so no
hitch is averaged away), hovering a frame shows its number, tick, time and
top budget group, and a click opens its call tree (icicle, flame graph or
table: inclusive and self time, calls; a hitch frame's nodes coloured by
their self time over their own baseline, the causes hitches.lua prints
first). The page holds the trees of the hitch frames (--trees), the slowest
frame and the frames --tree names. The hitches grouped by cause mark their
frames on the chart; the budget groups over time show the groups picked
(any of them), stacked or as lines, zoomed with the frame-time chart. With
--baseline, both captures on one timeline, compare.lua's verdicts (the
groups and nodes that changed first) and a differential tree of the
stretches picked (tenths of each run). With scripting off the static
charts and tables remain: summary; frame time; hitches by cause;
hitches; with --per, each window of frame time; budget groups; distribution and its tail (log scale); top nodes
by self time; the comparison; .dw: disagreement kinds per weapon template;
.dlag: ping and loss over time; laige reports: systems against their
budgets.]],
  options = {
    { "--baseline", metavar = "BASE", multi = true,
      help = "a capture of the same kind to compare against (repeat, or a directory, for several runs)" },
    { "--runs", type = "flag", help = "the captures given (files and directories) are runs of one build" },
    { "--output", short = "-o", metavar = "FILE", output = true, help = "write the page to FILE (default stdout)" },
    { "--width", type = "integer", default = overview.DEFAULTS.width, min = 200, max = 20000, metavar = "N",
      help = "chart width in pixels" },
    cli.FRAMES,
    cli.TARGET_FPS,
    { "--group", metavar = "NAME", multi = true,
      help = "a budget group the budget chart shows at first (repeat; default the 8 largest)" },
    { "--tree", type = "range", metavar = "A:B", multi = true,
      help = "also keep the call trees of frames A..B (the capture's frame numbers; repeat)" },
    cli.PER,
    { "--trees", type = "integer", default = overview.DEFAULTS.trees, min = 0, metavar = "N",
      help = "how many hitch frames' call trees the page keeps (the largest hitches)" },
  },
  positional = { { "CAPTURE", help = "any capture vpscript reads (with --runs: several, or directories)", files = true,
    rest = true } },
}

-- The most frames --tree may name, all ranges together: each tree is a
-- row per node in the page.
local MAX_TREES = 1000

local opts, args = cli.parse(arg, SPEC)
local b_files = multi.expand(args, opts)
if #b_files == 0 then cli.fail(2, "no capture files in %s", table.concat(args, ", ")) end
if #b_files > 1 and not opts.runs then
  cli.fail(2, "%d captures: report.lua writes one page (--runs: they are runs of one build)", #b_files)
end
local a_files = multi.expand(opts.baseline, opts)
if #opts.baseline > 0 and #a_files == 0 then
  cli.fail(2, "no capture files in %s", table.concat(opts.baseline, ", "))
end
-- A page about one side reads the node totals (its top nodes) while the
-- capture is read; the comparison reads every statistic.
local caps, base
if #a_files > 0 then
  caps, base = cli.open_runs(b_files, opts, opts.frames, a_files)
else
  caps = cli.open_runs(b_files, opts, opts.frames, nil, { nodes = true })
end
local cap = caps[1]

-- --tree ranges in the capture's frame numbers (negative: from the end)
local tree_frames = {}
for _, r in ipairs(opts.tree) do
  local first, last
  if cap.format == "vprof" then first, last = cap.first_frame, cap.last_frame end
  if not first then cli.fail(2, "--tree: a %s capture has no call trees", tostring(cap.format)) end
  local function at(v, default)
    if v == nil then return default end
    return v < 0 and last + 1 + v or v
  end
  local i, j = at(r.first, first), at(r.last, last)
  if i < first or j > last or i > j then
    cli.fail(2, "--tree %s: the capture holds frames %d..%d", r.text, first, last)
  end
  for f = i, j do
    if #tree_frames >= MAX_TREES then cli.fail(2, "--tree: at most %d frames", MAX_TREES) end
    tree_frames[#tree_frames + 1] = f
  end
end

local doc = cli.run(overview.analyze, #caps > 1 and caps or cap, { baseline = base, width = opts.width,
  target_fps = #opts.target_fps > 0 and opts.target_fps or nil, groups = #opts.group > 0 and opts.group or nil,
  tree_frames = tree_frames, trees = opts.trees, per_ms = opts.per })
-- the page is plain data: the captures go before it is made
for _, c in ipairs(caps) do c:close() end
for _, c in ipairs(base or {}) do c:close() end
if opts.json then
  cli.json(doc, overview.schema)
else
  cli.write_output(opts.output, html.report(doc))
end
