-- plot.lua: one chart of a capture as a standalone SVG file
--
-- usage: vpscript plot.lua CAPTURE --chart NAME [NODE|GROUP] [-o FILE.svg]
--   --chart NAME      frametime: each pixel column's fastest..slowest frame (no hitch averaged
--                     away), the hitch rule's threshold, the target frame times, hitch frames
--                     marked; histogram: the frame-time distribution with p50/p95/p99 and the
--                     1 %/0.1 % lows; exceedance: the tail, the share of frames at least as slow
--                     as each frame time on a log scale; budget: VProf budget groups' self time
--                     stacked over the capture (--group picks them); node NODE / group GROUP:
--                     one node's time or one group's self time over the capture; compare:
--                     percentile curves of CAPTURE and --baseline BASE overlaid
--   --baseline BASE   the capture compare draws against
--   --group NAME      budget: a group to draw (repeat for several; default the 8 largest)
--   --target-fps FPS  a target line at 1000 / FPS ms (repeat; default 60 and 30)
--   -o, --output FILE write there instead of stdout
--   --width N         pixels (default 960)
--   --frames A:B      only frames A..B (negative: from the end)
-- Data: stdlib/vp/charts.lua; drawing: stdlib/vp/svg.lua.
local cli = require "vp.cli"
local charts = require "vp.charts"
local hitches = require "vp.hitches"
local svg = require "vp.svg"

local CHARTS = { "frametime", "histogram", "exceedance", "budget", "node", "group", "compare" }

local SPEC = {
  name = "plot.lua",
  formats = { "vprof", "laige-budget" },
  summary = "One chart of a capture as a standalone SVG file.",
  description = "Charts:\n"
    .. "  frametime   each pixel column's fastest..slowest frame as one band (a line through the\n"
    .. "              frames when zoomed in: --frames), the hitch rule's threshold (dashed), the\n"
    .. "              target frame times (green; --target-fps) and the hitch frames (red)\n"
    .. "  histogram   the frame-time distribution, p50/p95/p99 and the 1 % / 0.1 % lows marked at\n"
    .. "              their values (the axis reaches the slowest mark)\n"
    .. "  exceedance  the tail: for each frame time, the share of frames at least that slow, on a\n"
    .. "              log scale (100 % down to 1 frame), with the target frame times\n"
    .. "  budget      VProf budget groups' self time per frame, stacked, over the capture: the\n"
    .. "              groups --group names, in that order, or the 8 largest\n"
    .. "  node NODE   one VProf node's inclusive time per frame (NODE: a path, or a name only one\n"
    .. "              node has), each column's min..max\n"
    .. "  group NAME  one budget group's self time per frame, each column's min..max\n"
    .. "  compare     the percentile curves of CAPTURE and --baseline BASE overlaid",
  options = {
    { "--chart", choices = CHARTS, metavar = "NAME", help = "which chart (required)" },
    { "--baseline", metavar = "BASE", help = "compare: the baseline capture" },
    { "--group", metavar = "NAME", multi = true, help = "budget: a group to draw (repeat for several)" },
    cli.TARGET_FPS,
    cli.OUTPUT,
    { "--width", type = "integer", default = svg.W, min = 200, max = 20000, metavar = "N", help = "width in pixels" },
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "a .vprof capture or a laige budget report" },
    { "NAME", optional = true, help = "node and group: the node (path or name) or the budget group" } },
}

local opts, args = cli.parse(arg, SPEC)
if not opts.chart then cli.fail(2, "--chart NAME is required (%s)", table.concat(CHARTS, ", ")) end
if opts.chart == "compare" and not opts.baseline then cli.fail(2, "--chart compare needs --baseline BASE") end
local named = opts.chart == "node" or opts.chart == "group"
if named and not args[2] then
  cli.fail(2, "--chart %s needs the %s's name after the capture", opts.chart, opts.chart)
elseif not named and args[2] then
  cli.fail(2, "unexpected argument '%s': only --chart node and group take a name", args[2])
end
if #opts.group > 0 and opts.chart ~= "budget" then cli.fail(2, "--group picks the groups of --chart budget") end
local cap = cli.open(args[1], opts, { frames = opts.frames })

local target_fps = #opts.target_fps > 0 and opts.target_fps or nil
local width = { width = opts.width }
local out
if opts.chart == "frametime" then
  local h = cli.run(hitches.analyze, cap, { causes = 0 })
  local marks = {}
  for i, x in ipairs(h.hitches) do marks[i] = x.frame end
  out = svg.frametime(cli.run(charts.frametime, cap, { width = opts.width, hitches = marks, target_fps = target_fps }),
    width)
elseif opts.chart == "histogram" then
  out = svg.histogram(cli.run(charts.distribution, cap), width)
elseif opts.chart == "exceedance" then
  out = svg.exceedance(cli.run(charts.exceedance, cap, width),
    { width = opts.width, targets = cli.run(charts.targets, target_fps) })
elseif opts.chart == "budget" then
  out = svg.budget(cli.run(charts.budget, cap, { width = opts.width, groups = #opts.group > 0 and opts.group or nil }),
    width)
elseif named then
  out = svg.series(cli.run(charts[opts.chart], cap, args[2], width), width)
else
  local base = cli.open(opts.baseline, opts, { frames = opts.frames })
  out = svg.percentiles({
    { name = "baseline: " .. opts.baseline:match("[^/]*$"), curve = cli.run(charts.percentiles, base) },
    { name = args[1]:match("[^/]*$"), curve = cli.run(charts.percentiles, cap) },
  }, width)
  base:close()
end
cli.write_output(opts.output, out)
cap:close()
