-- vp.budget: budget-group self time per frame over a whole VProf capture:
-- the analysis behind scripts/budget.lua, and the statistics of a group the
-- metric catalogue's group.NAME.* read (one definition for both).
--
--   local budget = require "vp.budget"
--   local doc = budget.analyze(cap, {fold_hidden = true})  -- plain data (budget.schema)
--   for g, d in pairs(cap:dist("groups")) do
--     print(g.name, budget.group_stats(d, cap:dist("frame_ms"):sum()).p99_ms)
--   end
--
-- Performance: the per-group figures come from summaries the reader keeps
-- of each group's self time per frame (exact value counts, the sum in frame
-- order, the first maximum: cap:dist("groups")), computed in the open pass when
-- the capture was opened with {stats = {groups = true}} (budget.lua does),
-- else by one pass when first asked for. No per-frame column is built.
-- The definitions (self time, group self time, percentiles, max frame,
-- share) are budget.DEFINITIONS (budget.lua's --help) and docs/metrics.md.
local E = require "vp.error"
local stats = require "vp.stats"

local budget = {}

--- The shape of the result (and of `budget.lua --json`); groups sorted by
-- mean_ms, descending.
budget.schema = "{file, frames, frame_range: {first, last}, groups: [{group, id, flags, mean_ms, p50_ms, p95_ms, "
  .. "p99_ms, max_ms, "
  .. "max_frame, share_pct}]}"

--- Every definition the analysis uses, as budget.lua's --help prints it.
budget.DEFINITIONS = [[
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

--- budget.group_stats(series, total_ms) -> {mean_ms, p50_ms, p95_ms,
-- p99_ms, max_ms, max_frame, share_pct}: the statistics of a group's
-- per-frame self time (a Series, one value per frame, or the summary
-- cap:dist("groups") gives, which answers the same questions with the same
-- numbers without holding the column). All nil when there
-- are no frames; share_pct (100 x the group's time / total_ms, the summed
-- frame times) nil when total_ms is 0.
function budget.group_stats(s, total_ms)
  local out = {}
  if #s == 0 then return out end
  out.mean_ms = s:mean()
  out.max_ms = s:max()
  if s:min() == out.max_ms then -- constant (often all 0): skip the C sort
    out.p50_ms, out.p95_ms, out.p99_ms = out.max_ms, out.max_ms, out.max_ms
  else
    out.p50_ms, out.p95_ms, out.p99_ms = s:percentile(50), s:percentile(95), s:percentile(99)
  end
  out.max_frame = s:argmax()
  out.share_pct = total_ms > 0 and 100 * s:sum() / total_ms or nil
  for k, v in pairs(out) do out[k] = stats.defined(v) end
  return out
end

--- budget.analyze(cap, params) -> result, info
-- result (plain data, shaped as budget.schema): {file, frames, frame_range =
-- {first, last} (the frame numbers analysed: cap.first_frame .. cap.last_frame), groups = [
-- {group, id, flags, mean_ms, p50_ms, p95_ms, p99_ms, max_ms, max_frame,
-- share_pct} ]} (sorted by mean_ms, descending; nil where a statistic does
-- not exist). info = {total_ms = the frame times summed, hidden = {[group
-- id] = true for hidden groups}}.
-- params (all optional): fold_hidden (count a node of a hidden group towards
-- its nearest visible ancestor's group), file (the name used when cap.path
-- is unset). Raises a vp.error EINPUT on a capture that is not VProf.
function budget.analyze(cap, params)
  params = params or {}
  E.check_format(cap, "vprof", "vp.budget")
  local n = cap.frame_count
  local total_ms = cap:dist("frame_ms"):sum()
  local series = cap:dist("groups", { fold_hidden = params.fold_hidden })

  -- Which groups have nodes: the group each non-root node's self time goes to.
  local listed = {}
  do
    local effective = {} -- node -> the group its self time counts towards
    for node in cap:nodes() do -- pre-order: a parent comes before its children
      local g, parent = node.group, node.parent
      if params.fold_hidden and g and g.hidden and parent then
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

  local rows, hidden = {}, {}
  for g in pairs(listed) do
    local s = series[g]
    local row
    if s and n > 0 then
      row = budget.group_stats(s, total_ms)
    elseif n > 0 then -- no time at all in the C pass: all zeros
      row = { mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0, max_frame = 1,
        share_pct = total_ms > 0 and 0 or nil }
    else
      row = {}
    end
    row.group, row.id, row.flags = g.name, g.id, g.flags
    if g.hidden then hidden[g.id] = true end
    rows[#rows + 1] = row
  end
  table.sort(rows, function(a, b)
    local ma, mb = a.mean_ms or 0, b.mean_ms or 0
    if ma ~= mb then return ma > mb end
    return a.id < b.id
  end)

  local first, last = cap.first_frame, cap.last_frame
  return { file = cap.path or params.file, frames = n, frame_range = first and { first = first, last = last } or nil,
      groups = rows },
    { total_ms = total_ms, hidden = hidden }
end

return budget
