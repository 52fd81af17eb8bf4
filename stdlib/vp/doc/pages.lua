-- vp.doc.pages: documentation of the modules that turn results into what
-- a script writes: vp.export (other tools' formats), vp.overview and
-- vp.html (report.lua's page), and the renderers of compare.lua, check.lua
-- and history.lua (vp.compare.render, vp.gate.render, vp.history.render),
-- and the --per windows' table of hitches.lua and report.lua
-- (vp.hitches.render).
-- Their entry points: what each takes and returns. Read by vp.doc (the
-- REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse [=[
class vp.export: any capture in the formats other tools read (export.lua)
  Streamed to a file: the VProf exporters run in C and write as they go, so memory stays bounded by the tree, never
  by the frames or the output; the other formats' are Lua modules under vp.export.*. The same capture and options
  always give the same bytes.
function export.write(cap, to, file, params) -> {to, format, rows}
  the capture written to a Lua file as target to (export.NAMES); rows counts the frames (VProf chrome, speedscope,
  csv), lines (folded) or records written; params (all optional): name, what (the output's name in messages),
  per_frame (speedscope), node (csv of VProf), baseline (folded: the differential form); EUSAGE for a target the
  format has not or an option the target does not take
  > local f = assert(io.open("/tmp/sample.csv", "w"))
  > print(require("vp.export").write(cap, "csv", f).rows)  --> 4000
  > f:close()
function export.targets_of(format) -> list
  the targets a capture of that format exports to
  > print(table.concat(require("vp.export").targets_of("dm"), ", "))  --> csv
function export.buffer(f) -> put(piece), flush()
  an output's pieces gathered and written to the file f 4,096 at a time, flush writing what is left: how the Lua
  exporters write
  > local put, flush = require("vp.export").buffer(io.stdout)
  > put("a\n")
  > flush()
field NAMES
  the targets in order: chrome, folded, speedscope, csv, presentmon
  > print(table.concat(require("vp.export").NAMES, " "))
field TARGETS
  each target's {formats, what}: the capture formats it reads and what it writes
  > print(require("vp.export").TARGETS.folded.what)
field LAYOUT
  how chrome and speedscope lay out VProf frames, which record no timestamps, as export.lua --help says it

class vp.overview: everything report.lua's page shows, as plain data
  One capture's summary, the charts' data (vp.charts), the hitches with their causes and grouped by cause, the
  heaviest nodes, the comparison with a baseline (vp.compare), each format's own view, and what the page's
  interactive views read (explore). vp.html draws it; report.lua --json prints it. Memory follows the frames and
  the tree, never frames x nodes.
function overview.analyze(cap [, params]) -> result
  cap: a capture or a list of runs of one build; params (all optional): baseline (a capture or a list of runs),
  width, target_fps, groups, top, hitches, causes, compare_rows, trees, tree_frames, tree_rows, detail,
  stretches, per_ms, explore (false: no interactive data); result in overview.schema's shape
  > local d = require("vp.overview").analyze(cap, {explore = false})
  > print(d.format, d.hitch_count)  --> vprof  4
field schema
  the shape of analyze's result (vp.json notation): report.lua's --json document
field DEFAULTS
  the defaults of analyze's params: width, top, hitches, causes, compare_rows, trees, tree_rows, detail, stretches
  > print(require("vp.overview").DEFAULTS.width)  --> 960

class vp.html: report.lua's page, one self-contained HTML file
  Draws vp.overview's result: inline SVG (vp.svg) and tables, then the interactive views' data (a JSON element,
  columns packed: html.pack) and their script (vp/html/report.js, inlined). No request to anywhere; with
  scripting off the static charts and tables are the page. The same data always gives the same bytes.
function html.report(doc [, opts]) -> string
  the page for vp.overview's result doc; opts.title overrides the heading
  > local page = require("vp.html").report(require("vp.overview").analyze(cap))
  > require("vp.output").write("/tmp/report.html", page, "-o")
function html.page(title, meta, sections) -> string
  a page of sections {id, title, body (HTML)} in report.lua's style with a table of contents (history.lua trend
  --html)
  > local page = require("vp.html").page("t", "made by me", {{id = "a", title = "A", body = "<p>a</p>"}})
function html.table(columns, rows [, row_attrs]) -> string
  an HTML table: columns {key, title, format = function(v, row), num = true}, nil printing "-"; row_attrs(row, i)
  gives a row's attributes (already escaped) or nil
  > print(require("vp.html").table({{key = "n", title = "n", num = true}}, {{n = 1}, {}}))
function html.esc(s) -> string
  s as XML text and attribute values (vp.svg's esc): made valid, then &, <, >, " escaped
  > print(require("vp.html").esc('a < "b"'))
function html.pack(list [, signed]) -> string
  a list of integers as base64 LEB128 varints (zigzag-coded when signed; floats rounded): the page's columns
  > print(require("vp.html").pack({0, 1, 300}))
function html.live(doc) -> data | nil
  the interactive views' data for vp.overview's result doc (html.live_schema's shape, the page's JSON element);
  nil when it has no explore
  > print(require("vp.html").live(require("vp.overview").analyze(cap, {explore = false})))  --> nil
field live_schema
  the shape of html.live's result: what report.js reads

class vp.compare.render: compare.lua's output
  The --json document and the text, Markdown and CSV tables of a vp.compare result. Presentation only: every figure
  comes from vp.compare.analyze.
function render.document(r) -> doc
  the --json document of vp.compare's result r (compare.schema's shape): each only_in entry's values as a map
  > local r = require("vp.compare").analyze(cap, cap)
  > require("vp.cli").json(require("vp.compare.render").document(r), require("vp.compare").schema)
function render.emit(r, opts)
  print r on stdout as compare.lua does: the text leads with the frame-level verdict and the significant changes
  (opts.limit rows, 0 all); opts.all lists every metric by section, opts.markdown as Markdown, opts.csv as CSV
  > require("vp.compare.render").emit(require("vp.compare").analyze(cap, cap), {limit = 10})
function render.phases_text(phases) -> string
  a capture's phases (vp.phases) on one line: "3 phases: 1..1,999 at 14.14 ms, ..."
  > local r = require("vp.compare").analyze(cap, cap)
  > print(require("vp.compare.render").phases_text(r.pairing.phases_a))

class vp.gate.render: check.lua's output
  Each rule result's explanation (the message the --json document, the JUnit XML and the table carry) and the
  text, Markdown and CSV tables of a vp.gate result. Presentation only: every figure and verdict comes from
  vp.gate.evaluate.
function render.document(r) -> doc
  the --json document of gate.evaluate's result r (and what vp.junit.suite reads): each result with its message
  > local gate = require "vp.gate"
  > local r = gate.evaluate(gate.validate({{metric = "frame_ms.p99", max = 20}}), cap)
  > print(require("vp.gate.render").document(r).results[1].message)
function render.emit(doc, opts, rules_path)
  print render.document's doc on stdout as check.lua does (vp.report.emit; opts: the script's options): the
  table or CSV, the failures under it, the change column when there is a baseline
  > local gate = require "vp.gate"
  > local r = gate.evaluate(gate.validate({{metric = "frame_ms.p99", max = 20}}), cap)
  > require("vp.gate.render").emit(require("vp.gate.render").document(r), {}, "rules.lua")

class vp.hitches.render: the --per windows as one table
  The figures of each window of frame time (hitches.analyze with per_ms) as rows and columns that hitches.lua's text
  (vp.report) and report.lua's page (vp.html.table) both show. Presentation only: every figure comes from
  vp.hitches.
function render.windows(windows) -> rows, columns
  one row a window, numbered from 1, its frames as text and its start in seconds; the columns to show them
  > local doc = require("vp.hitches").analyze(cap, {per_ms = 10000})
  > local rows = require("vp.hitches.render").windows(doc.windows)
  > print(#rows, rows[2].frames)  --> 6  700 (735..1,434)

class vp.history.render: history.lua's tables, JUnit, SVG and HTML
  What history.lua prints and writes from vp.history's results (history.changes, history.trend): the changes as a
  table and JUnit, the trend as a table with sparklines, an SVG chart and an HTML page, each point's commit shown.
  The titles name the store: set doc.store (db.name, as history.lua does) on the result first.
function render.changes_model(doc, schema) -> model
  the vp.report model of history.lua changes (doc: history.changes' result): the table of changes and, as JSON,
  the document with that schema (history.schema)
  > local history, store = require "vp.history", require "vp.history.store"
  > local db = store.open("history.db")
  > local doc = history.changes(db)
  > doc.store = db.name
  > require("vp.report").emit({}, require("vp.history.render").changes_model(doc, history.schema))
function render.changes_rows(doc) -> rows
  one row per change of history.changes' result, for vp.fmt.table or CSV (render.CHANGE_COLUMNS)
field CHANGE_COLUMNS
  the columns of those rows: id, state, verdict, series, commits, before, after, change, p
function render.junit(doc) -> suite
  a vp.junit suite of history.changes' result: a testcase per change, failed when it is a new regression among
  the latest points; one passing testcase when there is none
function render.trend_model(doc, schema, points) -> model
  the vp.report model of history.lua trend (doc: history.trend's result): a section per series titled with a
  sparkline of its last 100 points, its table the last `points` points (0: all)
function render.trend_svg(doc) -> string
  one SVG file of history.trend's result: each series' chart, one under the other
function render.trend_html(doc) -> string
  an HTML page (vp.html.page) of history.trend's result: each series' chart and the table of every point with its
  commit, time, value, standard error and changes
function render.series_name(s) -> string
  a series as "scenario / platform / branch: metric"
  > print(require("vp.history.render").series_name({scenario = "s", platform = "p", branch = "b", metric = "m"}))
function render.sparkline(values) -> string
  block characters from the smallest value to the largest
  > print(require("vp.history.render").sparkline({1, 3, 2, 5}))
]=]
