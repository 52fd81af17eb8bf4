-- budget.lua: per budget group self time per frame (mean, p50, p95, p99, max, share of frame time)
--
-- The engine's budget panel (showbudget) over a whole VProf capture instead
-- of the last 30 frames.
--
-- usage: vpscript budget.lua [options] CAPTURE
--   --fold-hidden   count a node in a hidden group towards the group of its
--                   nearest ancestor in a visible group
--   --json, --csv, --help
--
-- Definitions: see DESCRIPTION below (printed by --help) and docs/metrics.md.
--
-- JSON (one document):
--   { file, frames,
--     groups = [ {group, id, flags, mean_ms, p50_ms, p95_ms, p99_ms, max_ms,
--                 max_frame, share_pct} ] }     -- sorted by mean_ms, descending
-- Statistics are null when the capture has no frames; share_pct is null
-- when the total frame time is 0.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"

local DESCRIPTION = [[
Definitions:
  self time        a node's inclusive time in a frame minus its children's
                   inclusive times, clamped at 0.
  group self time  per frame, the sum of the self times of the group's nodes
                   (0 in frames where it has none): what the engine's budget
                   panel draws. With --fold-hidden, a node in a hidden group
                   (flag BUDGETFLAG_HIDDEN) counts towards the group of its
                   nearest ancestor in a visible group.
  mean, p50..max   over all frames of the capture; percentiles are nearest
                   rank: the value at rank ceil(p/100 * n) of the ascending
                   order.
  max frame        the (first) 1-based frame where the group's self time is
                   largest.
  share %          100 x (the group's self time summed over all frames) /
                   (the frame times summed over all frames). Frame time = the
                   sum of the inclusive times of the root's direct children
                   (the root's own time when that is larger).
Listed: every group that has at least one node (with --fold-hidden: that
some node counts towards), sorted by mean, largest first.]]

local SPEC = {
  name = "budget.lua",
  summary = "Budget-group self time per frame over a whole VProf capture.",
  description = DESCRIPTION,
  options = {
    { "--fold-hidden", type = "flag",
      help = "count nodes of hidden groups towards their nearest visible ancestor's group" },
  },
  positional = { { "CAPTURE", help = "a .vprof capture" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open(path)
if cap.format ~= "vprof" then
  cli.fail(2, "%s: budget.lua reads VProf captures; this is a %s capture", path, tostring(cap.format))
end

local ft = cap:frame_times()
local n = #ft
local total_ms = ft:sum()
local series = cap:group_self_ms({ fold_hidden = opts.fold_hidden })

-- Which groups have nodes: the group each non-root node's self time goes to.
local listed = {}
do
  local effective = {} -- node -> the group its self time counts towards
  for node in cap:nodes() do -- pre-order: a parent comes before its children
    local g, parent = node.group, node.parent
    if opts.fold_hidden and g and g.hidden and parent then
      g = effective[parent] or g
    end
    effective[node] = g
    if parent ~= nil and g then listed[g] = true end
  end
end
-- Defensive: any group the C pass gave time to is listed too (e.g. the root's
-- own time, when larger than its children's).
for g, s in pairs(series) do
  if not listed[g] and s:sum() > 0 then listed[g] = true end
end

local function null(v)
  if v == nil or v ~= v then return cli.null end
  return v
end

local rows = {}
for g in pairs(listed) do
  local s = series[g]
  local row = { group = g.name, id = g.id, flags = g.flags, hidden = g.hidden }
  if s and n > 0 then
    row.mean_ms = s:mean()
    row.max_ms = s:max()
    if s:min() == row.max_ms then -- constant (often all 0): skip the C sort
      row.p50_ms, row.p95_ms, row.p99_ms = row.max_ms, row.max_ms, row.max_ms
    else
      row.p50_ms, row.p95_ms, row.p99_ms = s:percentile(50), s:percentile(95), s:percentile(99)
    end
    row.max_frame = s:argmax()
    row.share_pct = total_ms > 0 and 100 * s:sum() / total_ms or nil
  elseif n > 0 then -- no time at all in the C pass: all zeros
    row.mean_ms, row.p50_ms, row.p95_ms, row.p99_ms, row.max_ms = 0, 0, 0, 0, 0
    row.max_frame = 1
    row.share_pct = total_ms > 0 and 0 or nil
  end
  rows[#rows + 1] = row
end
table.sort(rows, function(a, b)
  local ma, mb = a.mean_ms or 0, b.mean_ms or 0
  if ma ~= mb then return ma > mb end
  return a.id < b.id
end)

local doc_groups = cli.array()
for i, r in ipairs(rows) do
  doc_groups[i] = {
    group = r.group, id = r.id, flags = r.flags,
    mean_ms = null(r.mean_ms), p50_ms = null(r.p50_ms), p95_ms = null(r.p95_ms), p99_ms = null(r.p99_ms),
    max_ms = null(r.max_ms), max_frame = null(r.max_frame), share_pct = null(r.share_pct),
  }
end

local function flag_text(_, r)
  local t = {}
  local f = r.flags or 0
  if f & 1 ~= 0 then t[#t + 1] = "client" end
  if f & 2 ~= 0 then t[#t + 1] = "server" end
  if f & 4 ~= 0 then t[#t + 1] = "other" end
  if r.hidden then t[#t + 1] = "hidden" end
  if #t == 0 then return "-" end
  return table.concat(t, "+")
end

local share_sum = 0
for _, r in ipairs(rows) do share_sum = share_sum + (r.share_pct or 0) end

report.emit(opts, {
  json = { file = cap.path or path, frames = n, groups = doc_groups },
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
      { key = "group" }, { key = "id" }, { key = "flags" }, { key = "mean_ms" }, { key = "p50_ms" },
      { key = "p95_ms" }, { key = "p99_ms" }, { key = "max_ms" }, { key = "max_frame" }, { key = "share_pct" },
    },
  },
})
cap:close()
