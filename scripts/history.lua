-- history.lua: the performance history: captures into a store, change points per series, trends, triage
--
-- usage: vpscript history.lua add --db DB [--commit C] [--branch B] [--time T] [--platform P]
--                                 [--scenario S] [--from-json FILE]... [CAPTURE...]
--        vpscript history.lua points [metadata options] CAPTURE...   (NDJSON for add --from-json)
--        vpscript history.lua changes --db DB [--since T] [--junit FILE] [--json]   (exit 3: a new regression)
--        vpscript history.lua trend --db DB [--match M] [--svg FILE] [--html FILE] [--json]
--        vpscript history.lua ack --db DB ID [--invalid | --new] [--note TEXT]
-- The store and its schema are vp.history.store's, the points, the change
-- points and the triage vp.history's, the tables and charts
-- vp.history.render's (docs/history.md); this script parses the options,
-- calls them and renders.
local cli = require "vp.cli"
local history = require "vp.history"
local junit = require "vp.junit"
local multi = require "vp.multi"
local render = require "vp.history.render"
local report = require "vp.report"
local store = require "vp.history.store"

local DB = { "--db", metavar = "DB", default = os.getenv("VPSCRIPT_HISTORY_DB"),
  help = "the store: an SQLite file (created when missing) or postgresql://user@host/db (also "
    .. "?host=/socket/dir); default: $VPSCRIPT_HISTORY_DB" }
local META = {
  { "--commit", metavar = "C", help = "the build's commit (default: $GITHUB_SHA, $CI_COMMIT_SHA, "
    .. "$BUILDKITE_COMMIT, $GIT_COMMIT)" },
  { "--branch", metavar = "B", help = "its branch (default: $GITHUB_HEAD_REF, $GITHUB_REF_NAME, "
    .. "$CI_COMMIT_BRANCH, $CI_COMMIT_REF_NAME, $BUILDKITE_BRANCH, $GIT_BRANCH; else unknown)" },
  { "--time", metavar = "T", help = "when it ran, ISO 8601 (default: the capture's modification time, in UTC)" },
  { "--platform", metavar = "P", help = "the machine class (default: $VPSCRIPT_PLATFORM, GitHub's "
    .. "$RUNNER_OS-$RUNNER_ARCH; else unknown)" },
  { "--scenario", metavar = "S", help = "the benchmark (default: the capture's file name without its extension)" },
  { "--match", metavar = "PATTERN", multi = true,
    help = "only metrics whose name contains this Lua pattern (repeat for several; default: every metric)" },
  multi.SHARD,
}
local FILTER = {
  { "--scenario", metavar = "S", help = "only this scenario's series" },
  { "--platform", metavar = "P", help = "only this platform's series" },
  { "--branch", metavar = "B", help = "only this branch's series" },
  { "--match", metavar = "PATTERN", multi = true, help = "only metrics whose name contains this Lua pattern" },
}
local METHOD = {
  { "--since", metavar = "T", help = "only changes whose first point after is at or after this time (ISO 8601)" },
  { "--latest", type = "integer", min = 1, default = history.DEFAULTS.latest, metavar = "N",
    help = "a change among the last N points of its series counts as the latest (exit 3 when a new regression)" },
  { "--window", type = "integer", min = 8, default = history.DEFAULTS.window, metavar = "N",
    help = "E-Divisive's window, in points" },
  { "--max-p", type = "number", positive = true, max = 1, default = history.DEFAULTS.max_p, metavar = "P",
    help = "a change's p-value (Welch's t, segment against segment) is below P" },
  { "--min-segment", type = "integer", min = 2, default = history.DEFAULTS.min_segment, metavar = "N",
    help = "each side of a change has at least N points (a single outlier is never a change)" },
  { "--min-pct", type = "number", min = 0, default = 100 * history.DEFAULTS.min_rel, metavar = "X",
    help = "a change moves the mean by at least X %" },
  { "--min-abs", type = "number", min = 0, default = history.DEFAULTS.min_abs, metavar = "X",
    help = "... and by at least X in the metric's unit" },
  { "--se-floor", type = "flag", help = "no segment's variance below its points' squared standard errors" },
}

local function spec(name, summary, options, positional, schema)
  local o = {}
  for _, list in ipairs(options) do
    for _, x in ipairs(list) do o[#o + 1] = x end
  end
  return { name = "history.lua " .. name, summary = summary, options = o, positional = positional or {},
    schema = schema, description = history.DESCRIPTION }
end

local SPECS = {
  add = spec("add", "Add captures (or the --json documents of hitches, check, compare or history.lua points) "
    .. "to the store: one point per metric; a capture already there (same SHA-256) adds nothing.",
    { { DB, { "--from-json", metavar = "FILE", multi = true,
      help = "also add the documents of FILE (JSON or NDJSON; - for standard input; a directory: its .json and "
        .. ".ndjson files)" } }, META },
    { { "CAPTURE", optional = true, rest = true, help = "capture files or directories" } }),
  points = spec("points", "Measure captures and print their points as NDJSON (history.lua add --from-json "
    .. "reads it back): the per-capture step of a job spread over machines.", { META, { cli.OUTPUT } },
    { { "CAPTURE", rest = true, help = "capture files or directories" } }, history.points_schema),
  changes = spec("changes", "Find the change points of every series, record them with their triage state and "
    .. "list them; exit 3 when a regression among the latest points is still new.",
    { { DB }, FILTER, METHOD, { { "--junit", metavar = "FILE", output = true,
      help = "also write JUnit XML (a testcase per change) to FILE" } } }, nil, history.schema),
  trend = spec("trend", "The series as a table with a sparkline, an SVG chart or an HTML page, change points "
    .. "marked and every point's commit shown.", { { DB }, FILTER, METHOD, {
    { "--limit", type = "integer", min = 1, default = 10, metavar = "N", help = "at most N series" },
    { "--points", type = "integer", min = 0, default = 20, metavar = "N",
      help = "the last N points of each series in the table (0: all)" },
    { "--svg", metavar = "FILE", output = true, help = "write the charts as one SVG file" },
    { "--html", metavar = "FILE", output = true, help = "write a page: each chart and the table of every point" },
  } }, nil, history.trend_schema),
  ack = spec("ack", "Set a change's triage state: acknowledged (the default), invalid, or new again.",
    { { DB, { "--invalid", type = "flag", help = "mark it invalid (not a real change)" },
      { "--new", type = "flag", help = "mark it new again" },
      { "--note", metavar = "TEXT", help = "a note kept with it" } } },
    { { "ID", help = "the change's id (history.lua changes lists them)" } }),
}

local COMMANDS = { "add", "points", "changes", "trend", "ack" }
local command = arg[1]
if not SPECS[command] then
  local usage = "usage: vpscript history.lua COMMAND [options] (COMMAND --help for each)\n\ncommands:\n"
  for _, c in ipairs(COMMANDS) do usage = usage .. string.format("  %-8s %s\n", c, SPECS[c].summary) end
  if command == "--help" or command == "-h" then
    io.stdout:write(usage .. "\n" .. history.DESCRIPTION)
    cli.exit(0)
  end
  cli.fail(2, "%s%s", command and ("unknown command '" .. command .. "'\n") or "", usage)
end
local opts, args = cli.parse(table.move(arg, 2, #arg, 1, {}), SPECS[command])

local function captures()
  local files = multi.shard(multi.expand(args, opts), opts.shard)
  local records = {}
  for i, f in ipairs(files) do
    local cap = cli.open(f, opts, { stats = true })
    records[i] = cli.run(history.measure, cap, history.metadata(opts, os.getenv, f), { match = opts.match })
    cap:close()
  end
  return records
end

if command == "points" then
  local out = {}
  for i, rec in ipairs(captures()) do
    rec.vpscript_history = 1
    out[i] = cli.encode_json(rec, history.points_schema) .. "\n"
  end
  cli.write_output(opts.output, table.concat(out))
  cli.exit(0)
end

local db = cli.run(store.open, opts.db)
local params = { scenario = opts.scenario, platform = opts.platform, branch = opts.branch, match = opts.match,
  since = opts.since, latest = opts.latest, window = opts.window, max_p = opts.max_p,
  min_segment = opts.min_segment, min_rel = opts.min_pct and opts.min_pct / 100, min_abs = opts.min_abs,
  se_floor = opts.se_floor, limit = opts.limit }

if command == "add" then
  local records, bad = captures(), {}
  for _, path in ipairs(opts.from_json) do
    for _, d in ipairs(cli.run(history.read_documents, path)) do
      local rec, why
      if d.doc then rec, why = history.from_document(d.doc, d.text, opts, os.getenv) end
      if rec then records[#records + 1] = rec else bad[#bad + 1] = d.where .. ": " .. (why or d.why) end
    end
  end
  if #records == 0 and #bad == 0 then cli.fail(2, "history.lua add: no capture and no --from-json document") end
  local r = cli.run(history.add, db, records)
  io.stdout:write(string.format("history: %s: %d capture%s added (%d points), %d already there\n", db.name,
    r.added, r.added == 1 and "" or "s", r.points, r.skipped))
  db:close()
  if #bad > 0 then cli.fail(2, "%d document%s not added:\n  %s", #bad, #bad == 1 and "" or "s",
    table.concat(bad, "\n  ")) end
elseif command == "changes" then
  local doc = cli.run(history.changes, db, params)
  doc.store = db.name
  db:close()
  if opts.junit then
    local ok, err = pcall(junit.write, opts.junit, render.junit(doc), "vpscript history")
    if not ok then cli.fail(2, "--junit %s: %s", opts.junit, tostring(err)) end
  end
  report.emit(opts, render.changes_model(doc, history.schema))
  if doc.failing > 0 then
    cli.fail(3, "%s: %d new regression%s among the latest points", db.name, doc.failing, doc.failing == 1 and "" or "s")
  end
elseif command == "trend" then
  local doc = cli.run(history.trend, db, params)
  doc.store = db.name
  db:close()
  if opts.svg then cli.write_output(opts.svg, render.trend_svg(doc)) end
  if opts.html then cli.write_output(opts.html, render.trend_html(doc)) end
  if not (opts.svg or opts.html) or opts.json or opts.csv then
    report.emit(opts, render.trend_model(doc, history.trend_schema, opts.points))
  end
elseif command == "ack" then
  if opts.invalid and opts.new then cli.fail(2, "--invalid and --new exclude each other") end
  local state = opts.invalid and "invalid" or (opts.new and "new" or "acknowledged")
  local r = cli.run(history.ack, db, args[1], state, opts.note)
  db:close()
  io.stdout:write(string.format("history: change %d (%s) is %s\n", r.id, render.series_name(r), r.state))
end
