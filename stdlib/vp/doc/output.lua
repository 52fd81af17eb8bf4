-- vp.doc.output: documentation of the stdlib modules a script of one's own
-- builds on, as the shipped scripts do: vp.stats (statistics of lists and
-- Series), vp.fmt (numbers for people), vp.report (tables, CSV, JSON),
-- vp.charts (what a picture shows, as data) and vp.svg (the picture).
-- Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse [=[
class vp.stats: statistics of a list or a Series
  The statistics the shipped analyses use, on a Lua list of numbers or a vp.Series (a Series' own C methods are
  faster on a long column). Percentiles are nearest rank everywhere, as s:percentile.
function stats.percentile(x, p) -> number | nil
  nearest-rank percentile, p in 0..100 (nil for an empty list)
  > print(require("vp.stats").percentile({3, 1, 2, 10}, 50))  --> 2
function stats.percentiles(x, ps) -> {[p] = number}
  several percentiles of one list, sorted once
  > local q = require("vp.stats").percentiles(cap:frame_times(), {50, 99})
function stats.median(x) -> number | nil
  the middle value (the mean of the middle two for an even count)
  > print(require("vp.stats").median({1, 2, 3, 10}))  --> 2.5
function stats.mean(x) -> number | nil
  arithmetic mean (nil for an empty list)
  > print(require("vp.stats").mean({1, 2, 3}))  --> 2.0
function stats.stddev(x) -> number | nil
  population standard deviation
  > print(require("vp.stats").stddev({2, 4, 4, 4, 5, 5, 7, 9}))  --> 2.0
function stats.mad(x) -> number | nil
  median absolute deviation from the median
  > print(require("vp.stats").mad({1, 2, 3, 4, 100}))  --> 1
function stats.slowest_count(n, pct) -> integer
  how many frames "the slowest pct %" of n frames is: floor(n x pct / 100), at least 1
  > print(require("vp.stats").slowest_count(4000, 1))  --> 40
function stats.low_fps(frame_ms, pct [, sorted]) -> number | nil, k
  the pct % low FPS, 1000 / the mean of the slowest k = stats.slowest_count(n, pct) frame times (ms), and k;
  nil for no frames or a mean of 0
  > print(require("vp.stats").low_fps(cap:frame_times(), 1))
function stats.summary(x) -> {n, mean, min, p50, p95, p99, max, stddev}
  the usual figures at once (nil fields when empty)
  > local s = require("vp.stats").summary(cap:group_self_ms().Physics)
function stats.defined(x) -> number | nil
  x when it is a finite number, else nil: how a result keeps NaN and infinities out
  > print(require("vp.stats").defined(0/0))  --> nil

class vp.fmt: numbers for people
  One way to print every number in text (JSON and CSV carry them raw): counts, frame numbers and ticks with
  thousands separators, milliseconds with sensible decimals, p-values with 3 significant digits.
function fmt.int(n) -> string
  an integer with thousands separators
  > print(require("vp.fmt").int(51249))  --> 51,249
function fmt.ms(x) -> string
  milliseconds with the decimals their size deserves, no unit ("-" for nil)
  > print(require("vp.fmt").ms(59.272), require("vp.fmt").ms(1.4994))  --> 59.27  1.499
function fmt.fixed(x, decimals) -> string
  x with exactly that many decimals
  > print(require("vp.fmt").fixed(2.5, 2))  --> 2.50
function fmt.number(x [, decimals]) -> string
  x with at most decimals (3) places, trailing zeros trimmed
  > print(require("vp.fmt").number(16.700))  --> 16.7
function fmt.pct(x [, decimals]) -> string
  a percentage, one decimal by default: "4.2 %"
  > print(require("vp.fmt").pct(4.2))
function fmt.p_value(p) -> string
  a p-value, 3 significant digits
  > print(require("vp.fmt").p_value(0.000123456))
function fmt.bytes(n) -> string
  a size: "1.06 MiB"
  > print(require("vp.fmt").bytes(cap.size))
function fmt.duration(ms) -> string
  a duration: "850 ms", "12.3 s", "4 min 05 s"
  > print(require("vp.fmt").duration(cap:frame_times():sum()))
function fmt.span(ms) -> string
  a window's length in its own unit, as --per takes it: "500 ms", "10 s", "1 min", "1.5 h"
  > print(require("vp.fmt").span(60000))
function fmt.frames(n, first, last) -> string
  a range of frames as the scripts' headers show it: "201 (3,000..3,200)"
  > print(require("vp.fmt").frames(201, 3000, 3200))
function fmt.truncate(s, width) -> string
  s cut to width characters, keeping its end ("...ame/Physics")
  > print(require("vp.fmt").truncate("Root/CEngine::Frame/Physics", 12))
function fmt.table(rows, columns [, opts]) -> string
  an aligned text table: columns {key, title, format = function(v, row), align}, opts {max_width, indent}
  > print(require("vp.fmt").table({{a = 1, b = "x"}}, {{key = "a", title = "A"}, {key = "b", title = "B"}}))
function fmt.kv(pairs [, indent]) -> string
  "name   value" lines, the names aligned: pairs = {{name, value}, ...}
  > print(require("vp.fmt").kv({{"frames", "4,000"}, {"mean", "14.63 ms"}}))

class vp.report: tables, CSV and JSON of one output model
  A script's output said once: report.emit(opts, model) prints the model as text (cut to the terminal),
  CSV (--csv) or JSON (--json), model = {title, header = {{name, value}}, sections = {{title, rows, columns,
  notes, empty}}, json, schema, csv = {rows, columns}}. nil prints as "-" in text and as an empty CSV field.
function report.emit(opts, model)
  print the model as the options ask (opts.json, opts.csv, opts.wide)
  > local columns = {{key = "n", title = "n"}}
  > require("vp.report").emit({}, {title = "t", sections = {{rows = {{n = 1}}, columns = columns}}})
function report.text(model [, width]) -> string
  the readable rendering, tables cut to width columns (nil: never cut)
  > print(require("vp.report").text({title = "t", sections = {}}))
function report.width(opts) -> integer | nil
  the columns text is cut to: nil with --wide, else COLUMNS, else the terminal's width, else nil (a pipe)
  > print(require("vp.report").width({}))
function report.csv(columns, rows) -> string
  a header of the column keys, then a line per row (RFC 4180 quoting)
  > io.write(require("vp.report").csv({"a", "b"}, {{a = 1, b = "x,y"}}))

class vp.charts: what a picture shows, as plain data
  Frame times downsampled per pixel column (each column's smallest and largest, so no hitch is averaged
  away), their distribution and tail, a node's or a group's time, budget groups over time; vp.svg draws
  each. Any capture with per-frame times; nodes and groups need VProf.
function charts.frametime(cap [, params]) -> {frames, first_frame, max_ms, max_frame, min_ms, rule, targets, \
columns, hitches}
  the frame time per pixel column {first, last, lo, hi, threshold}, the target lines {fps, ms} and the hitch
  frames marked; params: width (960), target_fps, hitches.lua's rule (factor, window, min_excess_ms,
  threshold_ms)
  > local d = require("vp.charts").frametime(cap, {width = 400})
function charts.node(cap, node [, params]) -> {frames, first_frame, what, name, max_ms, max_frame, min_ms, \
columns}
  a VProf node's inclusive time per frame per pixel column; node: a node, its id, path or unique name
  > local d = require("vp.charts").node(cap, "Physics_Step")
function charts.group(cap, group [, params]) -> {frames, first_frame, what, name, max_ms, max_frame, min_ms, \
columns}
  a VProf budget group's self time per frame per pixel column (one C pass)
  > local d = require("vp.charts").group(cap, "Physics")
function charts.distribution(cap [, params]) -> {frames, bins, above, curve, marks}
  a histogram of the frame times {lo, hi, count}, the frames above its last bin, the percentile curve {p,
  ms} and the marks (p50, p95, p99, the 1 % and 0.1 % lows in ms, max)
  > local d = require("vp.charts").distribution(cap)
function charts.exceedance(cap [, params]) -> {frames, min_ms, max_ms, points}
  the tail: for each frame time ms, pct = 100 x the frames at least that slow / frames (a log scale keeps
  the slowest apart)
  > local d = require("vp.charts").exceedance(cap)
function charts.budget(cap [, params]) -> {frames, columns, groups, others, detail, per_frame}
  VProf budget groups' self time per frame averaged per pixel column; params.groups: the groups to draw (a
  list of names, or "all"), default the 8 largest
  > local d = require("vp.charts").budget(cap, {groups = {"Physics", "World Rendering"}})
function charts.sparkline(cap, width) -> {number, ...}
  each of width columns' largest frame time
  > print(#require("vp.charts").sparkline(cap, 60))
function charts.targets([fps]) -> {{fps, ms}, ...}
  the frame-time budgets of these frame rates (default 60 and 30: 16.7 and 33.3 ms), the highest rate first
  > print(require("vp.charts").targets({144})[1].ms)

class vp.svg: the picture, as standalone SVG text
  Draws vp.charts' data as one SVG document (a string: write it to a file, open it in a browser); plot.lua
  and report.lua use the same functions.
function svg.frametime(data [, opts]) -> string
  charts.frametime's data: the envelope, target lines and hitch marks
  > local text = require("vp.svg").frametime(require("vp.charts").frametime(cap))
function svg.series(data [, opts]) -> string
  charts.node's or charts.group's data over time
  > local text = require("vp.svg").series(require("vp.charts").group(cap, "Physics"))
function svg.histogram(dist [, opts]) -> string
  charts.distribution's bins with the percentile marks
  > local text = require("vp.svg").histogram(require("vp.charts").distribution(cap))
function svg.exceedance(data [, opts]) -> string
  charts.exceedance's curve on a log scale of the share of frames
  > local text = require("vp.svg").exceedance(require("vp.charts").exceedance(cap))
function svg.budget(data [, opts]) -> string
  charts.budget's groups stacked over time
  > local text = require("vp.svg").budget(require("vp.charts").budget(cap))
function svg.lines(series [, opts]) -> string
  line charts over a shared x axis: series = {{name, points = {{x, y}, ...}}, ...}, opts.xlabel, opts.ylabel
  > local text = require("vp.svg").lines({{name = "p99", points = {{x = 1, y = 16.2}, {x = 2, y = 17.0}}}})
function svg.bars(rows [, opts]) -> string
  horizontal bars, one per row {label, parts = {{name, value}, ...}} stacked, row.limit a budget's tick
  > local text = require("vp.svg").bars({{label = "Physics", parts = {{name = "self", value = 2.9}}, limit = 4}})
function svg.sparkline(values [, width]) -> string
  one line of block characters for a terminal
  > print(require("vp.svg").sparkline(require("vp.charts").sparkline(cap, 60)))
]=]
