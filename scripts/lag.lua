-- lag.lua: lag profiler (.dlag) measurements: ping and loss first, statistics per measurement, spikes
--
-- The client's debuglag overlay over the whole export: per measurement
-- (Client Frame, Socket RTT, Packet Downloss, ... by index) the sample
-- count, min, mean, p50, p95, max and time span, and the samples that spike
-- above the measurement's typical level. `--measurement NAME` prints one
-- series sample by sample instead.
--
-- usage: vpscript lag.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --k X                 spike threshold: p50 + X x MAD (default 5)
--   --measurement NAME    print that measurement's samples (a name from the
--                         table, an index, or measurement_N)
--   --max-samples N       with --measurement: samples listed (100,000; the
--                         rest are counted; 0 = all)
--   --limit N             spikes listed in the text output (default 20;
--                         JSON lists up to 10,000 and counts them all)
--   --json, --csv, --help
--
-- Definitions: lag.DEFINITIONS (printed by --help) and docs/dlag.md.
--
-- JSON (one document), default mode: lag.schema (stdlib/vp/lag.lua)
--   { file, format = "dlag", time, k, measurement_count, samples,
--     traceroute_host, hop_count,
--     network = [ <row> ],          -- the ping and loss measurements present,
--                                   -- in the order listed in --help
--     measurements = [ <row> ],     -- every measurement, by index (the
--                                   -- first 1,024: lag.DEFAULTS)
--     unlisted = { measurements, samples, hops },   -- past those limits
--     spike_count,                  -- every spike; the list holds 10,000
--     spikes = [ {index, name, sample, time, value, threshold} ],
--     hops = [ {index, address, name, samples, mean, max} ] }
--   <row> = {index, name, page, samples, total, min, mean, p50, p95, max,
--            first_time, last_time, time_span, mad, threshold, spikes}
-- --measurement NAME: lag.measurement_schema
--   { file, format = "dlag", k, measurement = <row>, unlisted_samples,
--     samples = [ {index, time, value, unknown, spike} ] }
-- Statistics of a measurement without samples are null.
-- The analysis is stdlib/vp/lag.lua (lag.analyze, lag.measurement_doc; the
-- metric catalogue reads its lag.summary); this script parses the options
-- and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local lag = require "vp.lag"

local SPEC = {
  name = "lag.lua",
  schema = lag.schema, -- printed by --help
  formats = { "dlag" },
  summary = "Per-measurement statistics and spikes of a .dlag lag profiler export, ping and loss first.",
  description = lag.DEFINITIONS,
  options = {
    { "--k", type = "number", default = 5, min = 0, metavar = "X",
      help = "spike threshold: a sample above p50 + X x MAD is a spike" },
    { "--measurement", metavar = "NAME",
      help = "print this measurement's samples (name, index or measurement_N)" },
    { "--max-samples", type = "integer", default = lag.DEFAULTS.max_samples, min = 0, metavar = "N",
      help = "with --measurement: samples listed (the rest are counted; 0 = all)" },
    { "--limit", type = "integer", default = 20, min = 0, metavar = "N",
      help = "spikes listed in the text output (JSON lists up to 10,000, counts all)" },
  },
  positional = { { "CAPTURE", help = "a .dlag lag profiler export" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open_as(path, opts, "dlag")

-- fmt.table passes (value, row): keep the row out of fmt.number's decimals.
local function num(v) return fmt.number(v) end

local stat_columns = {
  { key = "index", title = "#" },
  { key = "name", title = "measurement", align = "left" },
  { key = "page", title = "page" },
  { key = "samples", title = "samples", format = fmt.int },
  { key = "min", title = "min", format = num, align = "right" },
  { key = "mean", title = "mean", format = num, align = "right" },
  { key = "p50", title = "p50", format = num, align = "right" },
  { key = "p95", title = "p95", format = num, align = "right" },
  { key = "max", title = "max", format = num, align = "right" },
  { key = "time_span", title = "span", format = fmt.int, align = "right" },
  { key = "spikes", title = "spikes", format = fmt.int, align = "right" },
}

cli.run(function()
  if opts.measurement then
    local want = math.tointeger(tonumber(opts.measurement)) or opts.measurement
    -- an index out of range raises; a name that matches nothing gives nil
    local in_range = math.type(want) ~= "integer" or (want >= 1 and want <= cap.measurement_count)
    local m = in_range and cap:measurement(want) or nil
    if not m then
      cli.fail(2, "%s: no measurement '%s' (the file has %d; names, indices 1..%d and measurement_N "
        .. "are accepted)", path, opts.measurement, cap.measurement_count, cap.measurement_count)
    end
    local doc = lag.measurement_doc(cap, m, { k = opts.k, file = path, max_samples = opts.max_samples })
    local row, samples = doc.measurement, doc.samples
    report.emit(opts, {
      json = doc,
      schema = lag.measurement_schema,
      title = string.format("lag: %s: measurement %d %s (page %d)", cap.path or path, row.index,
        row.name, row.page),
      header = {
        { "samples", fmt.int(row.samples) },
        { "min / mean / max", string.format("%s / %s / %s", fmt.number(row.min), fmt.number(row.mean),
          fmt.number(row.max)) },
        { "p50 / p95", string.format("%s / %s", fmt.number(row.p50), fmt.number(row.p95)) },
        { "time span", row.time_span and string.format("%s (%s .. %s)", fmt.int(row.time_span),
          fmt.int(row.first_time), fmt.int(row.last_time)) or "-" },
        { "spike threshold", row.threshold and string.format("%s (p50 + %s x MAD %s)",
          fmt.number(row.threshold), fmt.number(opts.k), fmt.number(row.mad)) or "-" },
        { "spikes", fmt.int(row.spikes) },
      },
      sections = {
        { title = "samples", rows = samples, empty = "no samples",
          notes = doc.unlisted_samples > 0 and { string.format("  (%s more samples; --max-samples N "
            .. "lists more, 0 all)", fmt.int(doc.unlisted_samples)) } or nil,
          columns = {
            { key = "index", title = "#" },
            { key = "time", title = "time", format = fmt.int },
            { key = "value", title = "value", format = num, align = "right" },
            { key = "unknown", title = "unknown", format = fmt.int },
            { key = "spike", title = "spike", format = function(v) return v and "SPIKE" or "" end,
              align = "left" },
          } },
      },
      csv = { rows = samples, columns = { "index", "time", "value", "unknown", "spike" } },
    })
    return
  end

  local doc = lag.analyze(cap, { k = opts.k, file = path })
  local rows, network, hops, spikes = doc.measurements, doc.network, doc.hops, doc.spikes

  local with = {}
  for _, r in ipairs(rows) do
    if r.samples > 0 then with[#with + 1] = r end
  end
  local with_notes = {}
  if doc.unlisted.measurements > 0 then
    with_notes[1] = string.format("  (%s more measurements with %s samples past the first %s were not "
      .. "analysed)", fmt.int(doc.unlisted.measurements), fmt.int(doc.unlisted.samples), fmt.int(#rows))
  end
  local shown = {}
  for i = 1, math.min(#spikes, opts.limit) do shown[i] = spikes[i] end
  local spike_notes = {}
  if doc.spike_count > #shown then
    spike_notes[1] = string.format("  (%s more; --limit N shows more, --json lists up to %s)",
      fmt.int(doc.spike_count - #shown), fmt.int(lag.DEFAULTS.max_spikes))
  end
  local hop_notes = {}
  if doc.unlisted.hops > 0 then
    hop_notes[1] = string.format("  (%s more tail records)", fmt.int(doc.unlisted.hops))
  end

  report.emit(opts, {
    json = doc,
    schema = lag.schema,
    title = string.format("lag: %s", cap.path or path),
    header = {
      { "measurements", string.format("%s (%s with samples)", fmt.int(cap.measurement_count),
        fmt.int(cap.measurements_with_samples)) },
      { "samples", fmt.int(cap.sample_count) },
      { "graph states", fmt.int(cap.graph_state_count) },
      { "traceroute", cap.traceroute_host ~= "" and string.format("%s, %d hops", cap.traceroute_host,
        cap.hop_count) or string.format("off, %d tail records", cap.hop_count) },
      { "spike rule", string.format("value > p50 + %s x MAD", fmt.number(opts.k)) },
    },
    sections = {
      { title = "ping and loss", rows = network, columns = stat_columns,
        empty = "none of the ping and loss measurements are in the file" },
      { title = "measurements with samples (values in each measurement's own unit; span in file time)",
        rows = with, columns = stat_columns, empty = "no samples", notes = with_notes },
      { title = string.format("spikes (%s)", fmt.int(doc.spike_count)), rows = shown, empty = "no spikes",
        columns = {
          { key = "index", title = "#" },
          { key = "name", title = "measurement", align = "left" },
          { key = "sample", title = "sample", format = fmt.int },
          { key = "time", title = "time", format = fmt.int },
          { key = "value", title = "value", format = num, align = "right" },
          { key = "threshold", title = "threshold", format = num, align = "right" },
        },
        notes = spike_notes },
      { title = "traceroute hops (tail records)", rows = hops, empty = "none",
        columns = {
          { key = "index", title = "#" },
          { key = "address", title = "address", align = "left" },
          { key = "name", title = "name", align = "left" },
          { key = "samples", title = "samples", format = fmt.int },
          { key = "mean", title = "mean", format = num, align = "right" },
          { key = "max", title = "max", format = num, align = "right" },
        },
        notes = hop_notes },
    },
    csv = { rows = rows, columns = lag.ROW_KEYS },
  })
end)
cap:close()
