-- vp.node: one VProf node's drill-down over a frame range: statistics of
-- its time and self time per frame, its worst frames, its children's share
-- of its time, its budget group and where it first appears. The analysis
-- behind scripts/node.lua.
--
--   local node = require "vp.node"
--   local n = node.resolve(cap, "Physics_Step")       -- a path, an id, a glob or (lua) a pattern
--   local doc = node.analyze(cap, {node = n, worst = 5})  -- plain data (node.schema)
--   print(doc.time.p99_ms, doc.children[1].path, doc.children[1].pct_of_node)
--
-- The node's columns come from the capture in C (cap:series, vp.Series
-- statistics), its children's and its group's totals from one pass over
-- the range (cap:totals): memory grows with the frames once, not per
-- child or group; nothing loops over frames in Lua. Definitions:
-- node.DEFINITIONS and docs/metrics.md.
local E = require "vp.error"
local stats = require "vp.stats"
local tree = require "vp.tree"
local vp = require "vp"

local node = {}

node.DEFAULTS = { worst = 10 }

local STATS = "{mean_ms, p50_ms, p95_ms, p99_ms, max_ms, max_frame, stddev_ms, total_ms}"

--- The shape of the result (node.lua --json).
node.schema = "{file, frames, first_frame, last_frame, path, name, id, depth, group: {name, id, hidden, "
  .. "self_ms_per_frame, node_pct}, first_seen: {frame, tick}, present_frames, calls_per_frame, "
  .. "max_calls, pct_of_frame, self_pct_of_node, time: " .. STATS .. ", self: " .. STATS .. ", "
  .. "worst: [{frame, tick, time_ms, self_ms, calls, frame_ms, pct_of_frame}], "
  .. "children: [{path, name, ms_per_frame, pct_of_node, max_ms, max_frame}]}"

--- Every definition the analysis uses, as node.lua's --help prints it.
node.DEFINITIONS = [[
The node: a path ("Root/CEngine::Frame/..." or relative to the root), a node
id, or a glob on names (* ? [abc], and on paths with a "/": ** crosses
levels); --lua takes a Lua pattern. It must name exactly one node.
Over the F frames of the range (all frames, or --frames I:J), per frame:
  time          the node's inclusive time (0 in frames where it is absent)
  self          its time minus its children's, clamped at 0
  mean .. max   mean, nearest-rank p50/p95/p99 (the value at rank
                ceil(p/100 * F)), max and the (first) frame of the max,
                population standard deviation, and the total
  % of frame    100 x the node's total time / the frame time summed
  worst frames  the frames with the largest time, largest first (the
                earlier first on ties; only frames where it took time),
                with the frame's tick and time
  children      each child's total time as a % of the node's; self % is
                the node's own share (the rest: clamping and rounding)
  group         the node's budget group; its self time per frame; node %
                = the node's self time as a % of the group's
  first seen    the first frame of the capture in which the node exists;
                present frames: the frames of the range from then on]]

--- node.resolve(cap, query [, {lua = true}]) -> node: the node `query`
-- names: a node (returned as is), an id (integer, or a string of digits),
-- a path, else a glob (or with lua a Lua pattern) that must match exactly
-- one node (cap:find). Raises EUSAGE naming the matches when there are
-- none or several.
function node.resolve(cap, query, opts)
  opts = opts or {}
  if type(query) == "userdata" then return query end
  local id = math.tointeger(query) or (type(query) == "string" and query:match("^%d+$") and tonumber(query))
  local n = (id and cap:node(id)) or (type(query) == "string" and not opts.lua and cap:node(query)) or nil
  if n then return n end
  if type(query) ~= "string" then
    E.raise("EUSAGE", "vp.node: no node has the id %s", tostring(query))
  end
  local found = cap:find(query, { lua = opts.lua })
  if #found == 1 then return found[1] end
  if #found == 0 then
    -- the nearest names and paths (vp.near): a name is answered with names, a path with paths
    local names, seen = {}, {}
    for x in cap:nodes() do
      local key = query:find("/", 1, true) and x.path or x.name
      if not seen[key] then names[#names + 1], seen[key] = key, true end
    end
    E.raise("EUSAGE", "vp.node: no node matches '%s'%s (a path, an id, or a glob such as 'Physics*' or '**/Name')",
      query, require("vp.near").hint(query, names))
  end
  local paths = {}
  for i = 1, math.min(#found, 10) do paths[i] = found[i].path end
  local more = #found > 10 and string.format("\n  ... (%d more)", #found - 10) or ""
  -- a line per path in the format: the paths, as arguments, are shown with visible escapes
  E.raise("EUSAGE", "vp.node: '%s' matches %d nodes; name one by its path:" .. string.rep("\n  %s", #paths) .. more,
    query, #found, table.unpack(paths))
end

-- The statistics of one per-frame column (a Series of the range).
local function summary(s)
  if #s == 0 then return {} end
  local out = {
    mean_ms = s:mean(), p50_ms = s:percentile(50), p95_ms = s:percentile(95), p99_ms = s:percentile(99),
    max_ms = s:max(), max_frame = s:argmax(), stddev_ms = s:stddev(), total_ms = s:sum(),
  }
  for k, v in pairs(out) do out[k] = stats.defined(v) end
  return out
end

local function empty() return vp.Series({}) end

local function pct(x, total) return total and total > 0 and 100 * x / total or nil end

--- node.analyze(cap, params) -> result
-- result (plain data, shaped as node.schema; nil where a statistic does
-- not exist). params: node (required: a node, id, path or pattern, as
-- node.resolve takes), lua (the pattern is a Lua pattern), first, last
-- (the frame range in the capture's frame numbers; default all), worst
-- (10: how many worst frames), file (the name used when cap.path is
-- unset). Frame numbers in the result (max_frame, worst[].frame,
-- first_seen.frame) are the capture's. Raises a vp.error: EINPUT for a
-- capture that is not VProf, EUSAGE for a bad parameter or a node that
-- cannot be resolved.
function node.analyze(cap, params)
  params = params or {}
  local who = "vp.node"
  local first, last, nframes = tree.frame_range(cap, params, who)
  if params.node == nil then E.raise("EUSAGE", "%s: params.node is required", who) end
  local worst_k = params.worst or node.DEFAULTS.worst
  if math.type(worst_k) ~= "integer" or worst_k < 0 then
    E.raise("EUSAGE", "%s: params.worst must be an integer of at least 0, not %s", who, tostring(worst_k))
  end
  local n = node.resolve(cap, params.node, { lua = params.lua })

  -- The node's own columns over the range (its worst frames and
  -- percentiles), and every node's totals over it (its children's shares
  -- and its group's self time): no column per child or group.
  local time = nframes > 0 and cap:series(n, "time_ms"):slice(first, last) or empty()
  -- Over the capture's whole range its statistics answer (one row per child,
  -- the group's summary: memory by what is shown); a part of it takes every
  -- node's totals over that part, in one pass.
  local whole = nframes > 0 and first == cap.first_frame and last == cap.last_frame
  local totals = nframes > 0 and not whole and cap:totals(first, last) or {}
  local self_s = nframes > 0 and cap:series(n, "self_ms"):slice(first, last) or empty()
  local calls = nframes > 0 and cap:series(n, "calls"):slice(first, last) or empty()
  local total_ms = time:sum()
  local frame_total = nframes > 0 and cap:dist("frame_ms", { first = first, last = last }):sum() or 0


  local doc = {
    file = cap.path or params.file, frames = nframes,
    first_frame = nframes > 0 and first or nil, last_frame = nframes > 0 and last or nil,
    path = n.path, name = n.name, id = n.id, depth = n.depth,
    first_seen = { frame = n.first_frame, tick = n.first_frame and cap:frame(n.first_frame).tick or nil },
    present_frames = nframes > 0 and n.first_frame and math.max(0, last - math.max(first, n.first_frame) + 1) or 0,
    calls_per_frame = nframes > 0 and calls:sum() / nframes or nil,
    max_calls = stats.defined(calls:max()),
    pct_of_frame = pct(total_ms, frame_total),
    self_pct_of_node = pct(self_s:sum(), total_ms),
    time = summary(time), self = summary(self_s),
  }

  local g = n.group
  if g then
    doc.group = { name = g.name, id = g.id, hidden = g.hidden }
    if nframes > 0 then -- the sum of its nodes' self times (both exact sums)
      local sum
      if whole then
        local d = cap:dist("groups")[g]
        sum = d and d:sum() or 0
      else
        local own = {}
        for _, r in ipairs(totals) do
          if r.node.group_id == n.group_id then own[#own + 1] = r.self_ms end
        end
        sum = vp.Series(own):sum()
      end
      doc.group.self_ms_per_frame = sum / nframes
      doc.group.node_pct = pct(self_s:sum(), sum)
    end
  end

  doc.worst = {}
  for _, i in ipairs(time:top(worst_k)) do
    if time[i] <= 0 then break end -- frames where it took no time are not "worst"
    local no = i
    local f = cap:frame(no)
    doc.worst[#doc.worst + 1] = {
      frame = no, tick = f.tick, time_ms = time[i], self_ms = self_s[i], calls = math.tointeger(calls[i]),
      frame_ms = f.frame_ms, pct_of_frame = pct(time[i], f.frame_ms),
    }
  end

  doc.children = {}
  local by_index = {}
  for _, r in ipairs(totals) do by_index[r.node.index] = r end
  for c in n:children() do
    local row = { path = c.path, name = c.name }
    local r = whole and cap:totals(c) or by_index[c.index]
    if r then
      row.ms_per_frame = r.time_ms / nframes
      row.pct_of_node = pct(r.time_ms, total_ms)
      row.max_ms, row.max_frame = r.peak_ms, r.peak_frame
    end
    doc.children[#doc.children + 1] = row
  end
  table.sort(doc.children, function(a, b)
    local x, y = a.ms_per_frame or 0, b.ms_per_frame or 0
    if x ~= y then return x > y end
    return a.path < b.path
  end)
  return doc
end

return node
