-- vp.top: the heaviest VProf nodes by path over a whole capture or a frame
-- range: calls, time, self time and peaks per frame. The analysis behind
-- scripts/top.lua.
--
--   local top = require "vp.top"
--   local doc, info = top.analyze(cap, {sort = "self", limit = 10, first = 1, last = 500})
--   for _, r in ipairs(doc.nodes) do print(r.path, r.self_ms_per_frame) end
--
-- One row per node PATH (two same-named nodes never merge; a later
-- same-named sibling's path component carries "#2", "#3"). The totals come
-- from the reader (cap:totals): over the whole capture they are the
-- statistics of the open pass (top.lua opens with {stats = {nodes = true}})
-- or of one more pass, over a range one pass over its frames; the reader
-- also sorts (ties by path order) so that rows are built only for the
-- nodes shown, whatever the size of the tree. Paths longer than 256 bytes
-- are shown elided in the middle (node.path). The definitions are
-- top.DEFINITIONS (top.lua's --help) and docs/metrics.md.
local E = require "vp.error"
local tree = require "vp.tree"

local top = {}

top.DEFAULTS = { sort = "time", limit = 25 }

--- Sort orders: the row field each one sorts by, largest first.
top.SORTS = { time = "time_ms", self = "self_ms", avg = "ms_per_call", peak = "peak_ms",
  peakavg = "peak_over_avg" }

-- The same orders as the reader names them (cap:totals(i, j, {sort = ...})).
local READER_SORT = { time = "time", self = "self", avg = "per_call", peak = "peak",
  peakavg = "peak_over_avg" }

--- The sort orders in the order --help lists them.
top.SORT_NAMES = { "time", "self", "avg", "peak", "peakavg" }

--- The shape of the result (and of `top.lua --json`). ms_per_call is nil for
-- a node never called; peak_over_avg is nil when ms_per_frame is 0;
-- pct_of_frame is nil when total_ms is 0; first_frame and last_frame are nil
-- for a capture without frames.
top.schema = "{file, frames, first_frame, last_frame, total_ms, sort, limit, nodes: [{path, name, group, "
  .. "frames, calls, time_ms, self_ms, calls_per_frame, ms_per_frame, ms_per_call, self_ms_per_frame, "
  .. "pct_of_frame, peak_ms, peak_frame, peak_self_ms, peak_over_avg}]}"

--- Every definition the analysis uses, as top.lua's --help prints it.
top.DEFINITIONS = [[
Per node (by path; the root itself is left out: its children carry the
frame time), over the F frames of the range:
  calls/frame     total calls / F
  ms/frame        total inclusive time / F ("avg ms/frame")
  ms/call         total inclusive time / total calls ("average")
  self ms/frame   total self time / F; self time = inclusive time minus the
                  children's inclusive times, clamped at 0
  % of frame      100 x total inclusive time / total frame time of the range
                  (frame time = sum of the inclusive times of the root's
                  direct children, or the root's own time when larger)
  peak ms         the largest inclusive time in one frame, and that frame
                  (1-based; the first one on ties)
  peak/avg        peak ms / ms/frame: how spiky a node is
  frames          frames of the range in which the node exists
Sort orders (largest first): time = ms/frame, self = self ms/frame,
avg = ms/call, peak = peak ms, peakavg = peak/avg. Ties: by path.]]

local function check_params(cap, p)
  E.check_format(cap, "vprof", "vp.top")
  if p.sort ~= nil and not top.SORTS[p.sort] then
    E.raise("EUSAGE", "vp.top: params.sort must be one of %s, not %s", table.concat(top.SORT_NAMES, ", "),
      tostring(p.sort))
  end
  if p.limit ~= nil and (math.type(p.limit) ~= "integer" or p.limit < 0) then
    E.raise("EUSAGE", "vp.top: params.limit must be an integer of at least 0, not %s", tostring(p.limit))
  end
end

--- top.analyze(cap, params) -> result, info
-- result (plain data, shaped as top.schema): {file, frames, first_frame,
-- last_frame, total_ms, sort, limit, nodes = [ {path, name, group, frames,
-- calls, time_ms, self_ms, calls_per_frame, ms_per_frame, ms_per_call,
-- self_ms_per_frame, pct_of_frame, peak_ms, peak_frame, peak_self_ms,
-- peak_over_avg} ]}: the first `limit` nodes in sort order (all of them for
-- limit 0). info = {node_count = how many nodes the range has, before the
-- limit}.
-- params (all optional): sort ("time"), limit (25; 0 = all), first, last
-- (the frame range, inclusive, in the capture's frame numbers as
-- cap.first_frame .. cap.last_frame; default every frame it holds), file (the
-- name used when cap.path is unset). Raises a vp.error: EINPUT for a capture
-- that is not VProf, EUSAGE for a bad parameter.
function top.analyze(cap, params)
  params = params or {}
  check_params(cap, params)
  local sort = params.sort or top.DEFAULTS.sort
  local limit = params.limit or top.DEFAULTS.limit
  local first, last, nframes = tree.frame_range(cap, params, "vp.top")

  local total_ms = 0
  if nframes > 0 then total_ms = cap:dist("frame_ms", { first = first, last = last }):sum() end

  -- The reader sorts every node of the range by the figure (those without
  -- one last, ties by path) and hands over the first `limit`.
  local shown, count = {}, 0
  if nframes > 0 then
    local stats
    stats, count = cap:totals(first, last, { sort = READER_SORT[sort], limit = limit })
    for i, st in ipairs(stats) do
      local node = st.node
      local per_frame = st.time_ms / nframes
      shown[i] = {
        path = node.path, name = node.name, group = node.group and node.group.name,
        frames = st.frames, calls = st.calls, time_ms = st.time_ms, self_ms = st.self_ms,
        calls_per_frame = st.calls / nframes,
        ms_per_frame = per_frame,
        ms_per_call = st.calls > 0 and st.time_ms / st.calls or nil,
        self_ms_per_frame = st.self_ms / nframes,
        pct_of_frame = total_ms > 0 and 100 * st.time_ms / total_ms or nil,
        peak_ms = st.peak_ms, peak_frame = st.peak_frame, peak_self_ms = st.peak_self_ms,
        peak_over_avg = per_frame > 0 and st.peak_ms / per_frame or nil,
      }
    end
  end

  return {
    file = cap.path or params.file, frames = nframes,
    first_frame = nframes > 0 and first or nil, last_frame = nframes > 0 and last or nil,
    total_ms = total_ms, sort = sort, limit = limit, nodes = shown,
  }, { node_count = count }
end

return top
