-- vp.doc.history: documentation of the performance history's modules
-- (history.lua: vp.history, vp.history.store) and of the generic change
-- point method behind them (vp.changepoint). Read by vp.doc (the REPL's
-- help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse([=[
class vp.changepoint: change points in a series of values
  E-Divisive means in windows with Welch's t as a deterministic test (Apache Otava's method), a minimum segment
  length, relative and absolute floors and a log scale; for any short series of values in order (builds, nights,
  phases of a capture). docs/history.md states the method and its calibration.
function cp.detect(values [, opts]) -> {n, log, segments = [{first, last, n, mean, lo, hi}], changes}
  opts: se (the points' standard errors: a floor for each segment's variance), log, window (50), max_p (0.001),
  min_segment (4), min_rel (0.01), min_abs (0), level (0.95); changes = [{index (its first point after), before,
  after (the segments either side), size_pct, diff, p, t, df}]; values must be finite
  > local r = require("vp.changepoint").detect({16.1, 16.0, 16.2, 16.1, 17.0, 17.1, 16.9, 17.0}, {min_segment = 3})
  > print(r.changes[1].index, r.changes[1].size_pct)  --> 5 5.6...
function cp.best_split(x, a, b, ms) -> index, q
  the split of x[a..b] (the first point of its right side) with the largest E-Divisive Q, and q, that Q; both
  sides at least ms points long; nil when the segment is too short
field DEFAULTS
  the defaults of detect's opts

class vp.history: the performance history (history.lua)
  Captures' metrics as points of series (scenario x platform x branch x metric) in a store, their change points
  with the commit range each falls in, and the changes' triage states. Results are plain data; errors are
  vp.error objects (EINPUT for a store or document that cannot be used, EUSAGE for a bad parameter).
function history.metadata(opts, getenv [, path]) -> {commit, branch, time, platform, scenario, host, ci_url}
  the options' values, else the CI environment's (history.ENV), else the capture's (its name, its modification
  time); getenv is os.getenv or a table
function history.measure(cap, meta [, {match, hash}]) -> {capture, points = [{metric, unit, polarity, value, n, se}]}
  one capture's points: the catalogue's metrics (match: Lua patterns to keep), its frame count and, where the
  metric has a per-frame distribution, vp.infer's standard error; the capture's hash is vp.sha256_file's
function history.from_document(doc, text [, meta_opts [, getenv]]) -> record | nil, why
  the record of a --json document of hitches.lua, check.lua, compare.lua (B's values) or history.lua points; nil
  and why when it is none of them
function history.read_documents(path) -> [{doc, text, where} | {where, why}]
  the JSON documents of a file (one, or one a line), of standard input ("-") or of a directory's .json and .ndjson
  files
function history.add(db, records) -> {added, skipped, points}
  each record in a transaction of its own; a capture whose hash is there already adds nothing
function history.series(db [, {scenario, platform, branch, match}]) -> [{id, scenario, metric, ...}]
  the series the filter chooses ({id, scenario, platform, branch, metric, unit, polarity}), sorted by their names
function history.points(db, series) -> [{capture, value, se, n, commit, time, file}]
  one series' points in time order
function history.detect(series, points [, params]) -> vp.changepoint's result
  the change points of one series with history.lua's method (times on a log scale)
function history.changes(db [, params]) -> {series, points, changes, failing, params}
  every chosen series' change points, recorded in the store with their triage states; failing counts the new
  regressions among the latest points (history.lua changes exits 3 then)
  > local store = require "vp.history.store"
  > local r = require("vp.history").changes(store.open("history.db"), {branch = "main"})
function history.ack(db, id, state [, note]) -> {id, state, note, metric, scenario, platform, branch}
  a change's triage state set: new, acknowledged or invalid
function history.trend(db [, params]) -> {series = [{..., points, changes}]}
  the chosen series (at most params.limit) with every point and their change points
function history.utc(text) -> "YYYY-MM-DDTHH:MM:SSZ" | nil, why
  an ISO 8601 date or time in UTC, the form the store keeps; nil and why for text that is not one
field schema
  the --json document of history.lua changes (vp.json notation)
field trend_schema
  the --json document of history.lua trend
field points_schema
  one line of history.lua points, which add --from-json reads back
field DEFAULTS
  the change detection's defaults: latest, window, max_p, min_segment, min_rel, min_abs, se_floor
field DESCRIPTION
  the definitions history.lua --help prints
field ENV
  the environment variables each metadata field is read from, in order
field STATES
  the triage states

class vp.history.store: the history's database
  An SQLite file or a PostgreSQL database (LuaDBI's drivers), one schema versioned and migrated on open; every
  statement prepared with its values bound to ? placeholders.
function store.open(url) -> db
  an SQLite file (a path or sqlite:PATH) or postgresql://user@host/db, migrated to store.SCHEMA_VERSION
  > local db = require("vp.history.store").open("history.db")
function store.kind(url) -> "sqlite" | "postgresql", file
  which store a URL names, and the SQLite file it names
function store.safe_url(url) -> url
  the URL without its password, for messages
method db:exec(sql, ...) -> changed rows
  one statement, its values bound
method db:rows(sql, ...) -> list of rows
  a query's rows, each a list of columns (nil for NULL)
method db:transaction(f) -> f's results
  f between BEGIN (SQLite: BEGIN IMMEDIATE) and COMMIT; an error rolls back and goes on
method db:version() -> number
  the schema version the store is at
method db:close()
  the statements and the connection (idempotent)
field SCHEMA_VERSION
  the schema version this vpscript writes
]=])
