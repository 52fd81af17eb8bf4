-- info.lua: a one-screen summary of any supported capture (format, size, the format's own summary, warnings)
--
-- Generic: every capture class provides cap:summary(), an ordered list of
-- {name =, value =} rows (for VProf: frames, ticks, duration, nodes,
-- groups, escape width, truncated, zero timings); this script only prints
-- them. Rows whose name ends in "_ms" are shown as durations, "_bytes" as
-- sizes; everything else as is (numbers with thousands separators).
--
-- usage: vpscript info.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --format FMT   force the format (see vp.formats()) instead of detecting it
--   --json, --csv, --help
--
-- JSON: info.schema (stdlib/vp/info.lua), one document:
--   { file, format, size, summary = { <key> = <value>, ... }, warnings = [ "..." ] }
--   size in bytes; keys in snake_case (info.key), in the reader's order;
--   values are numbers (durations in ms under keys ending in _ms), booleans
--   or strings that are not numbers.
-- The analysis is stdlib/vp/info.lua (info.analyze); this script parses the
-- options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local info = require "vp.info"

local SPEC = {
  name = "info.lua",
  schema = info.schema, -- printed by --help
  summary = "A one-screen summary of any supported capture file.",
  description = [[
Prints the detected format, the path and size, then the rows the format's
reader provides (cap:summary(); for VProf: frames, first and last tick,
duration = the sum of all frame times, nodes, groups, time escape width,
truncation, whether the capture holds timings at all), then the reader's
warnings. With --json every row's key is in snake_case and every number a
number (durations in ms under keys ending in _ms).]],
  options = {
    { "--format", metavar = "FMT", help = "force the format instead of detecting it" },
  },
  positional = { { "CAPTURE", help = "a capture of any supported format" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
-- quiet: the warnings are part of this script's output
local cap = cli.open(path, opts, nil, true)

local doc, rows = info.analyze(cap, { file = path })

-- Generic presentation by name suffix: "x_ms" -> "x" shown as a duration,
-- "x_bytes" -> "x" shown as a size; "_" reads as a space.
local function show(name, v)
  if type(v) == "number" then
    local base = name:match("^(.*)_ms$")
    if base then return base, fmt.duration(v) end
    base = name:match("^(.*)_bytes$")
    if base then return base, string.format("%s (%s bytes)", fmt.bytes(v), fmt.int(v)) end
  end
  return name, fmt.value(v)
end

local kv = {
  { "format", tostring(cap.format) },
  { "file", cap.path or path },
  { "size", string.format("%s (%s bytes)", fmt.bytes(cap.size), fmt.int(cap.size)) },
}
local csv_rows = {
  { name = "format", value = cap.format }, { name = "file", value = cap.path or path },
  { name = "size", value = cap.size },
}
for _, row in ipairs(rows) do
  local label, text = show(row.name, row.value)
  kv[#kv + 1] = { (label:gsub("_", " ")), text }
  csv_rows[#csv_rows + 1] = row
end

local warnings = doc.warnings
local notes = {}
if #warnings > 0 then
  notes[1] = string.format("\nwarnings (%d)", #warnings)
  for _, w in ipairs(warnings) do notes[#notes + 1] = "  " .. w end
end

report.emit(opts, {
  json = doc,
  schema = info.schema_for(rows),
  header = kv,
  notes = notes,
  csv = { columns = { "name", "value" }, rows = csv_rows },
})
cap:close()
