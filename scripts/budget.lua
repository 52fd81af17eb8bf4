-- budget.lua: per budget group self time per frame (mean, p50, p95, p99, max, share of frame time)
--
-- The engine's budget panel (showbudget) over a whole VProf capture instead
-- of the last 30 frames.
--
-- usage: vpscript budget.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --fold-hidden   count a node in a hidden group towards the group of its
--                   nearest ancestor in a visible group
--   --json, --csv, --help
--
-- Definitions: budget.DEFINITIONS (printed by --help) and docs/metrics.md.
--
-- JSON: budget.schema (stdlib/vp/budget.lua), one document:
--   { file, frames,
--     groups = [ {group, id, flags, mean_ms, p50_ms, p95_ms, p99_ms, max_ms,
--                 max_frame, share_pct} ] }     -- sorted by mean_ms, descending
-- Statistics are null when the capture has no frames; share_pct is null
-- when the total frame time is 0.
-- The analysis is stdlib/vp/budget.lua (budget.analyze; the metric
-- catalogue reads its budget.group_stats); this script parses the options
-- and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local budget = require "vp.budget"

local SPEC = {
  name = "budget.lua",
  schema = budget.schema, -- printed by --help
  formats = { "vprof" },
  summary = "Budget-group self time per frame over a whole VProf capture.",
  description = budget.DEFINITIONS,
  options = {
    { "--fold-hidden", type = "flag",
      help = "count nodes of hidden groups towards their nearest visible ancestor's group" },
    cli.FRAMES,
  },
  positional = { { "CAPTURE", help = "a .vprof capture" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
-- What budget.analyze reads, computed while the capture is read (over a
-- --frames range: by one pass over it, once the capture holds only those).
local cap = cli.open_as(path, opts, "vprof", {
  stats = { groups = not opts.fold_hidden, fold_hidden = opts.fold_hidden }, frames = opts.frames })

local doc, info = budget.analyze(cap, { fold_hidden = opts.fold_hidden, file = path })
local n, total_ms = doc.frames, info.total_ms

local rows = doc.groups

local function flag_text(_, r)
  local t = {}
  local f = r.flags or 0
  if f & 1 ~= 0 then t[#t + 1] = "client" end
  if f & 2 ~= 0 then t[#t + 1] = "server" end
  if f & 4 ~= 0 then t[#t + 1] = "other" end
  if info.hidden[r.id] then t[#t + 1] = "hidden" end
  if #t == 0 then return "-" end
  return table.concat(t, "+")
end

local share_sum = 0
for _, r in ipairs(rows) do share_sum = share_sum + (r.share_pct or 0) end

report.emit(opts, {
  json = doc,
  schema = budget.schema,
  title = string.format("budget: %s", cap.path or path),
  header = {
    { "frames", fmt.int(n) },
    { "frame time", n > 0 and string.format("%s total, %s ms mean", fmt.duration(total_ms),
      fmt.ms(total_ms / n)) or "-" },
    { "hidden groups", opts.fold_hidden and "folded into the nearest visible ancestor's group"
      or "counted as themselves (--fold-hidden folds them)" },
  },
  sections = {
    { title = "group self time per frame (ms)", rows = rows, empty = "no groups with nodes",
      columns = {
        { key = "group", title = "group" },
        { key = "id", title = "id" },
        { key = "mean_ms", title = "mean", format = fmt.ms, align = "right" },
        { key = "p50_ms", title = "p50", format = fmt.ms, align = "right" },
        { key = "p95_ms", title = "p95", format = fmt.ms, align = "right" },
        { key = "p99_ms", title = "p99", format = fmt.ms, align = "right" },
        { key = "max_ms", title = "max", format = fmt.ms, align = "right" },
        { key = "max_frame", title = "max frame", align = "right" },
        { key = "share_pct", title = "share", format = function(v) return fmt.pct(v) end, align = "right" },
        { key = "flags", title = "flags", format = flag_text, align = "left" },
      },
      notes = #rows > 0 and { string.format("  (shares sum to %s of frame time)", fmt.pct(share_sum)) } or nil },
  },
  csv = {
    rows = rows,
    columns = {
      "group", "id", "flags", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "max_frame", "share_pct",
    },
  },
})
cap:close()
