-- report.lua: one self-contained HTML page of charts and tables about a capture (and a baseline)
--
-- The page opens offline, without JavaScript: inline SVG and tables only.
--
-- usage: vpscript report.lua CAPTURE [--baseline BASE] -o report.html
--   --baseline BASE   also: both percentile curves overlaid and compare.lua's table
--   -o, --output FILE the page (default: stdout)
--   --width N         chart width in pixels (default 960)
--   --frames A:B      only frames A..B (negative: from the end)
--   --json            print the page's data instead (vp.overview.schema)
--
-- What it shows: the frame time over the capture (each pixel column's
-- fastest..slowest frame, the hitch rule's threshold, hitch frames marked),
-- the distribution with p50/p95/p99 and the 1 %/0.1 % lows, budget groups
-- stacked over time, the heaviest nodes, each hitch with its causes; with a
-- baseline the percentile curves overlaid and the comparison; a .dw trace:
-- disagreement kinds per weapon template; .dlag: ping and loss over time;
-- laige reports: systems against their budgets. Data: stdlib/vp/overview.lua;
-- the page: stdlib/vp/html.lua.
local cli = require "vp.cli"
local html = require "vp.html"
local overview = require "vp.overview"

local SPEC = {
  name = "report.lua",
  summary = "One self-contained HTML page about a capture (and a baseline): charts and tables, offline, "
    .. "no JavaScript.",
  description = [[
The page holds inline SVG charts and tables and nothing else: no script, no
font or style from anywhere. A frame-time chart keeps each pixel column's
fastest and slowest frame, so no hitch is averaged away and a 1,000,000-frame
capture makes a page of the same size as a short one.
Sections: summary; frame time; distribution; budget groups (VProf); top nodes
by self time (VProf); hitches with their causes; with --baseline, the
percentile curves overlaid and compare.lua's largest changes; .dw:
disagreement kinds per weapon template; .dlag: ping and loss over time;
laige reports: systems against their budgets.]],
  options = {
    { "--baseline", metavar = "BASE", help = "a capture of the same kind to compare against" },
    { "--output", short = "-o", metavar = "FILE", output = true, help = "write the page to FILE (default stdout)" },
    { "--width", type = "integer", default = overview.DEFAULTS.width, min = 200, max = 20000, metavar = "N",
      help = "chart width in pixels" },
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "any capture vpscript reads" } },
}

local opts, args = cli.parse(arg, SPEC)
local path = args[1]
local cap = cli.open(path)
cli.restrict(cap, opts.frames)
local base
if opts.baseline then
  base = cli.open(opts.baseline)
  if opts.frames then cli.restrict(base, opts.frames) end
end
local doc = cli.run(overview.analyze, cap, { baseline = base, width = opts.width })
if opts.json then
  cli.json(doc, overview.schema)
else
  cli.write_output(opts.output, html.report(doc))
end
cap:close()
if base then base:close() end
