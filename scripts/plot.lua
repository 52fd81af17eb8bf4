-- plot.lua: one chart of a capture as a standalone SVG file
--
-- usage: vpscript plot.lua CAPTURE --chart frametime|histogram|budget|compare [-o FILE.svg]
--   --chart NAME      frametime: each pixel column's fastest..slowest frame (no hitch averaged
--                     away), the hitch rule's threshold, hitch frames marked; histogram: the
--                     frame-time distribution with p50/p95/p99 and the 1 %/0.1 % lows;
--                     budget: VProf budget groups' self time stacked over the capture;
--                     compare: percentile curves of CAPTURE and --baseline BASE overlaid
--   --baseline BASE   the capture compare draws against
--   -o, --output FILE write there instead of stdout
--   --width N         pixels (default 960)
--   --frames A:B      only frames A..B (negative: from the end)
-- Data: stdlib/vp/charts.lua; drawing: stdlib/vp/svg.lua.
local cli = require "vp.cli"
local charts = require "vp.charts"
local hitches = require "vp.hitches"
local svg = require "vp.svg"

local SPEC = {
  name = "plot.lua",
  formats = { "vprof", "laige-budget" },
  summary = "One chart of a capture as a standalone SVG file.",
  description = "Charts:\n"
    .. "  frametime  each pixel column's fastest..slowest frame (so no hitch is averaged away), the hitch\n"
    .. "             rule's threshold (dashed) and the hitch frames (red)\n"
    .. "  histogram  the frame-time distribution, p50/p95/p99 and the 1 % / 0.1 % lows marked\n"
    .. "  budget     VProf budget groups' self time per frame, stacked, over the capture\n"
    .. "  compare    the percentile curves of CAPTURE and --baseline BASE overlaid",
  options = {
    { "--chart", choices = { "frametime", "histogram", "budget", "compare" }, metavar = "NAME",
      help = "which chart (required)" },
    { "--baseline", metavar = "BASE", help = "compare: the baseline capture" },
    cli.OUTPUT,
    { "--width", type = "integer", default = svg.W, min = 200, max = 20000, metavar = "N", help = "width in pixels" },
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "a .vprof capture or a laige budget report" } },
}

local opts, args = cli.parse(arg, SPEC)
if not opts.chart then cli.fail(2, "--chart NAME is required (frametime, histogram, budget, compare)") end
if opts.chart == "compare" and not opts.baseline then cli.fail(2, "--chart compare needs --baseline BASE") end
local cap = cli.open(args[1])
cli.restrict(cap, opts.frames)

local out
if opts.chart == "frametime" then
  local h = cli.run(hitches.analyze, cap, { causes = 0 })
  local marks = {}
  for i, x in ipairs(h.hitches) do marks[i] = x.frame end
  out = svg.frametime(cli.run(charts.frametime, cap, { width = opts.width, hitches = marks }), { width = opts.width })
elseif opts.chart == "histogram" then
  out = svg.histogram(cli.run(charts.distribution, cap), { width = opts.width })
elseif opts.chart == "budget" then
  out = svg.budget(cli.run(charts.budget, cap, { width = opts.width }), { width = opts.width })
else
  local base = cli.open(opts.baseline)
  cli.restrict(base, opts.frames)
  out = svg.percentiles({
    { name = "baseline: " .. opts.baseline:match("[^/]*$"), curve = cli.run(charts.percentiles, base) },
    { name = args[1]:match("[^/]*$"), curve = cli.run(charts.percentiles, cap) },
  }, { width = opts.width })
  base:close()
end
cli.write_output(opts.output, out)
cap:close()
