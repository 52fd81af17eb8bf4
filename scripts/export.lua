-- export.lua: a capture in the formats other tools read (Chrome trace, folded stacks, speedscope, CSV, PresentMon)
--
-- usage: vpscript export.lua CAPTURE --to chrome|folded|speedscope|csv|presentmon [-o FILE]
--   --to FORMAT       what to write (export.TARGETS: which capture formats each reads)
--   -o, --output FILE write there instead of stdout
--   --diff BASE       folded: the differential form against a baseline VProf capture
--   --per-frame       speedscope: one profile per frame
--   --node PATH       csv of a VProf capture: add the node's ms, self ms and calls per frame
--   --frames A:B      only frames A..B (negative: from the end)
--   --json            with -o: print what was written ({file, format, to, output, frame_range, rows})
--
-- The writers are stdlib/vp/export.lua and vp.export.* (the VProf ones
-- streamed in C); the VProf time layout is export.LAYOUT (--help prints it).
local cli = require "vp.cli"
local export = require "vp.export"

local targets = {}
for _, t in ipairs(export.NAMES) do
  targets[#targets + 1] = string.format("  %-11s %s", t, export.TARGETS[t].what)
end

local SPEC = {
  name = "export.lua",
  summary = "A capture in the formats other tools read: Chrome trace, collapsed stacks, speedscope, CSV, "
    .. "PresentMon.",
  description = "Targets:\n" .. table.concat(targets, "\n") .. "\n\n" .. export.LAYOUT
    .. "\n\nThe same capture and options always give the same bytes.",
  options = {
    { "--to", choices = export.NAMES, metavar = "FORMAT", help = "what to write (required)" },
    cli.OUTPUT,
    { "--diff", metavar = "BASE", help = "folded: the differential form 'stack base_us new_us' against BASE" },
    { "--per-frame", type = "flag", help = "speedscope: one profile per frame" },
    { "--node", metavar = "PATH", help = "csv of a VProf capture: add the node's ms, self ms and calls" },
    cli.FRAMES,
    { "--json", type = "flag", help = "with -o: print what was written as one JSON document" },
  },
  positional = { { "CAPTURE", help = "any capture (the targets each format has: above)" } },
}

local SCHEMA = "{file, format, to, output, frame_range: {first, last}, rows}"

local opts, args = cli.parse(arg, SPEC)
if not opts.to then cli.fail(2, "--to FORMAT is required (%s)", table.concat(export.NAMES, ", ")) end
if opts.json and not opts.output then cli.fail(2, "--json needs -o FILE: the export itself goes to stdout") end
local path = args[1]
local cap = cli.open(path, opts, { frames = opts.frames })
local range = cli.range_of(cap)
local base
if opts.diff then
  base = cli.open(opts.diff, opts, { frames = opts.frames })
end

-- -o: a new file renamed into place once whole and checked (vp.output);
-- an error on the way leaves the old one as it was.
local out = opts.output and require("vp.output").open(opts.output, "-o")
local res = cli.run(export.write, cap, opts.to, out and out.file or io.stdout, {
  per_frame = opts.per_frame or nil, node = opts.node, baseline = base,
  what = opts.output and ("-o " .. opts.output) or "stdout",
})
if out then out:commit() else io.stdout:flush() end
if opts.json then
  cli.json({ file = path, format = cap.format, to = opts.to, output = opts.output, frame_range = range,
    rows = res.rows }, SCHEMA)
end
-- A trace many times the capture's size is said (issue 26): a Chrome trace
-- holds every node of every frame; most viewers slow down long before that.
do
  local f = opts.output and io.open(opts.output, "rb") or io.stdout
  local bytes = f and f:seek("end") -- nil for a pipe or a terminal
  if f and f ~= io.stdout then f:close() end
  local size = tonumber(cap.size) or 0
  if bytes and size > 0 and bytes > 20 * size and bytes > 10 * 1024 * 1024 then
    local fmt = require "vp.fmt"
    cli.warn(opts, "%s is %s, %d x the capture (%s): %s; --frames A:B exports a stretch", opts.output or "the output",
      fmt.bytes(bytes), bytes // size, fmt.bytes(size), opts.to == "chrome"
        and "a Chrome trace holds an event for every node of every frame (--to speedscope is smaller)"
        or "viewers may be slow to open it")
  end
end
cap:close()
if base then base:close() end
