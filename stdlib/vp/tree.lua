-- vp.tree: a VProf capture's call tree over a frame range, as the engine's
-- vprof_generate_report shows it (inclusive time, self time, calls per
-- frame, percent of frame, indented), with the nodes below a share of the
-- frame collapsed into their parent; or, by name, the totals of the nodes
-- that share a name wherever they are in the tree (the engine's "by name"
-- summary). The analysis behind scripts/tree.lua.
--
--   local tree = require "vp.tree"
--   local doc = tree.analyze(cap, {min_pct = 1, first = 1, last = 500})
--   for _, r in ipairs(doc.nodes) do print(("  "):rep(r.depth - 1) .. r.name, r.ms_per_frame) end
--   local byname = tree.analyze(cap, {by_name = true})     -- shaped as tree.names_schema
--
-- One C pass (cap:totals) gives every node's totals; this module only
-- orders, divides and collapses them. Definitions: tree.DEFINITIONS and
-- docs/metrics.md.
local E = require "vp.error"

local tree = {}

tree.DEFAULTS = { min_pct = 0.5, sort = "time", depth = 0 }

--- Sibling orders: "time" (largest inclusive time first) or "engine" (the
-- order the engine added them, as cap:nodes() and the file have it).
tree.SORT_NAMES = { "time", "engine" }

--- The shape of the tree result (tree.lua --json). Rows in tree order (each
-- node after its parent); depth is 1 for the root's children (the root
-- itself is not a row: its children carry the frame time). collapsed and
-- collapsed_ms_per_frame: the node's children left out for being below
-- min_pct, and their inclusive time per frame; deeper and
-- deeper_ms_per_frame: those left out for being deeper than params.depth
-- (however large), deeper_largest the largest of them.
tree.schema = "{file, frames, first_frame, last_frame, total_ms, ms_per_frame, min_pct, sort, depth, "
  .. "nodes: [{path, name, depth, group, frames, calls_per_frame, ms_per_frame, self_ms_per_frame, "
  .. "pct_of_frame, self_pct_of_frame, peak_ms, peak_frame, collapsed, collapsed_ms_per_frame, "
  .. "deeper, deeper_ms_per_frame, deeper_largest: {path, ms_per_frame, pct_of_frame}}], "
  .. "collapsed, collapsed_ms_per_frame}"

--- The shape of the by-name result (tree.lua --by-name --json): one row per
-- name, largest inclusive time first; nodes: how many nodes (paths) have it.
tree.names_schema = "{file, frames, first_frame, last_frame, total_ms, ms_per_frame, min_pct, "
  .. "names: [{name, nodes, calls_per_frame, ms_per_frame, self_ms_per_frame, pct_of_frame, "
  .. "self_pct_of_frame, peak_ms}], collapsed, collapsed_ms_per_frame}"

--- Every definition the analysis uses, as tree.lua's --help prints it.
tree.DEFINITIONS = [[
Over the F frames of the range (all frames, or --frames I:J), per node:
  ms/frame      inclusive time summed over the range / F (the node and
                everything it called)
  self/frame    self time summed / F; self time = inclusive time minus the
                children's inclusive times, clamped at 0
  calls/frame   calls summed / F
  % frame       100 x inclusive time / the frame time summed over the range
                (frame time = the inclusive times of the root's children,
                or the root's own time when larger); self % likewise
  peak ms       the largest inclusive time in one frame, and that frame
Averages are over all F frames, including those before a node first
appeared, as the engine's report does.
Tree: each node under its parent, siblings largest first (--sort engine:
the engine's order). A node below --min-pct % of the frame is left out with
everything under it, and its parent's line says how many children were left
out and their time ("+N nodes below 0.5 %"). Everything deeper than --depth
is left out too, whatever its share, and said apart ("+N nodes deeper than
--depth 3"), with the largest of it.
By name (--by-name): the nodes that share a name are totalled, wherever
they are in the tree, as the engine's report does: calls, inclusive and
self time summed, peak the largest of their peaks. Self time never counts
twice; inclusive time does when a name is nested inside itself (recursion).
Nodes never called in the range are left out; names below --min-pct are
totalled in the last line.]]

--- tree.frame_range(cap, params, who) -> first, last, nframes: the frame
-- range params.first..params.last (default every frame the capture
-- holds), in the capture's frame numbers (cap.first_frame .. cap.last_frame: 1..#cap
-- unless the capture was restricted; its columns are indexed by them),
-- checked (EUSAGE naming `who` for a frame it does not hold); nframes is 0
-- for a capture without frames. Shared with vp.node and vp.top.
function tree.frame_range(cap, p, who)
  E.check_format(cap, "vprof", who)
  local lo, hi = cap.first_frame, cap.last_frame
  if not lo then lo, hi = 1, 0 end
  for _, k in ipairs({ "first", "last" }) do
    local v = p[k]
    if v ~= nil and (math.type(v) ~= "integer" or v < lo or v > hi) then
      E.raise("EUSAGE", "%s: params.%s must be a frame in %d..%d, not %s", who, k, lo, hi, tostring(v))
    end
  end
  local first, last = p.first or lo, p.last or hi
  if first > last and hi >= lo then
    E.raise("EUSAGE", "%s: params.first (%d) is after params.last (%d)", who, first, last)
  end
  return first, last, hi >= lo and (last - first + 1) or 0
end

-- Per frame and percent of the range's frame time.
local function per(x, nframes) return nframes > 0 and x / nframes or nil end
local function pct(x, total) return total > 0 and 100 * x / total or nil end

local function by_name(stats_rows, nframes, total_ms, min_pct)
  local rows, index = {}, {}
  for _, st in ipairs(stats_rows) do
    local node = st.node
    if node.parent ~= nil and st.calls > 0 then
      local r = index[node.name]
      if not r then
        r = { name = node.name, nodes = 0, calls = 0, time = 0, self = 0, peak_ms = 0 }
        index[node.name] = r
        rows[#rows + 1] = r
      end
      r.nodes = r.nodes + 1
      r.calls, r.time, r.self = r.calls + st.calls, r.time + st.time_ms, r.self + st.self_ms
      if st.peak_ms > r.peak_ms then r.peak_ms = st.peak_ms end
    end
  end
  table.sort(rows, function(a, b)
    if a.time ~= b.time then return a.time > b.time end
    return a.name < b.name
  end)
  local shown, hidden, hidden_ms = {}, 0, 0
  for _, r in ipairs(rows) do
    local share = pct(r.time, total_ms) or 0
    if share >= min_pct then
      shown[#shown + 1] = {
        name = r.name, nodes = r.nodes, calls_per_frame = per(r.calls, nframes),
        ms_per_frame = per(r.time, nframes), self_ms_per_frame = per(r.self, nframes),
        pct_of_frame = pct(r.time, total_ms), self_pct_of_frame = pct(r.self, total_ms), peak_ms = r.peak_ms,
      }
    else
      hidden, hidden_ms = hidden + 1, hidden_ms + r.time
    end
  end
  return shown, hidden, per(hidden_ms, nframes)
end

-- call_tree(root, children, ...): root the root's totals row, children(st)
-- the rows of st's children in the engine's order.
local function call_tree(root, children, nframes, total_ms, p)
  local out = {}
  local function visit(st, depth)
    local list = children(st)
    if p.sort == "time" then
      local order = {}
      for i, c in ipairs(list) do order[c] = i end
      table.sort(list, function(a, b)
        if a.time_ms ~= b.time_ms then return a.time_ms > b.time_ms end
        return order[a] < order[b]
      end)
    end
    local rows, f = {}, { hidden = 0, hidden_ms = 0, deeper = 0, deeper_ms = 0 }
    for _, c in ipairs(list) do
      local share = pct(c.time_ms, total_ms) or 0
      if share < p.min_pct then
        f.hidden, f.hidden_ms = f.hidden + 1, f.hidden_ms + c.time_ms
      elseif p.depth ~= 0 and depth > p.depth then
        f.deeper, f.deeper_ms = f.deeper + 1, f.deeper_ms + c.time_ms
        if not f.largest or c.time_ms > f.largest.time_ms then f.largest = c end
      else
        rows[#rows + 1] = c
      end
    end
    return rows, f
  end
  local function walk(st, depth)
    local rows, f = visit(st, depth)
    local me
    if st ~= root then
      local node = st.node
      me = {
        path = node.path, name = node.name, depth = depth - 1, group = node.group and node.group.name,
        frames = st.frames, calls_per_frame = per(st.calls, nframes), ms_per_frame = per(st.time_ms, nframes),
        self_ms_per_frame = per(st.self_ms, nframes), pct_of_frame = pct(st.time_ms, total_ms),
        self_pct_of_frame = pct(st.self_ms, total_ms), peak_ms = st.peak_ms, peak_frame = st.peak_frame,
        collapsed = f.hidden, collapsed_ms_per_frame = per(f.hidden_ms, nframes),
        deeper = f.deeper, deeper_ms_per_frame = f.deeper > 0 and per(f.deeper_ms, nframes) or nil,
        deeper_largest = f.largest and { path = f.largest.node.path, ms_per_frame = per(f.largest.time_ms, nframes),
          pct_of_frame = pct(f.largest.time_ms, total_ms) },
      }
      out[#out + 1] = me
    end
    for _, c in ipairs(rows) do walk(c, depth + 1) end
    return f
  end
  if not root then return out, 0, nil end
  local f = walk(root, 1)
  return out, f.hidden, per(f.hidden_ms, nframes)
end

--- tree.analyze(cap, params) -> result
-- result (plain data): shaped as tree.schema, or tree.names_schema with
-- params.by_name. params (all optional): first, last (the frame range,
-- inclusive, in the capture's frame numbers; default all), min_pct (0.5:
-- nodes, or names, below this % of the frame time are collapsed), sort
-- ("time" or "engine"), depth (0 = all levels; else the deepest level
-- listed, 1 = the root's children), by_name (total the nodes by name),
-- file (the name used when cap.path is unset).
-- collapsed/collapsed_ms_per_frame at the top: the root's children (or
-- names) left out. Raises a vp.error: EINPUT for a capture that is not
-- VProf, EUSAGE for a bad parameter.
function tree.analyze(cap, params)
  params = params or {}
  local who = "vp.tree"
  local first, last, nframes = tree.frame_range(cap, params, who)
  E.check_number(params.min_pct, "min_pct", who)
  local sort = params.sort or tree.DEFAULTS.sort
  if sort ~= "time" and sort ~= "engine" then
    E.raise("EUSAGE", "%s: params.sort must be time or engine, not %s", who, tostring(sort))
  end
  local depth = params.depth or tree.DEFAULTS.depth
  if math.type(depth) ~= "integer" or depth < 0 then
    E.raise("EUSAGE", "%s: params.depth must be an integer of at least 0, not %s", who, tostring(depth))
  end
  local p = { min_pct = params.min_pct or tree.DEFAULTS.min_pct, sort = sort, depth = depth }

  local total_ms = nframes > 0 and cap:dist("frame_ms", { first = first, last = last }):sum() or 0
  -- Every node's totals for the names; for the tree, over the capture's
  -- whole range, only the rows it visits (a listed node's children, from
  -- the statistics: memory by what is shown), else every row of the range.
  local rows
  local function all_rows()
    rows = rows or (nframes > 0 and cap:totals(first, last) or {})
    return rows
  end
  local doc = {
    file = cap.path or params.file, frames = nframes,
    first_frame = nframes > 0 and first or nil, last_frame = nframes > 0 and last or nil,
    total_ms = total_ms, ms_per_frame = per(total_ms, nframes), min_pct = p.min_pct,
  }
  if params.by_name then
    doc.names, doc.collapsed, doc.collapsed_ms_per_frame = by_name(all_rows(), nframes, total_ms, p.min_pct)
    return doc
  end
  doc.sort, doc.depth = sort, depth
  local root, children
  if nframes == 0 then
    root = nil
  elseif first == cap.first_frame and last == cap.last_frame then
    root = cap:totals(cap.root)
    children = function(st)
      local list = {}
      for c in st.node:children() do list[#list + 1] = cap:totals(c) end
      return list
    end
  else
    -- children lists in the engine's order, from the pre-order rows
    local kids = {}
    for _, st in ipairs(all_rows()) do
      local parent = st.node.parent
      if parent == nil then
        root = st
      else
        kids[parent] = kids[parent] or {}
        table.insert(kids[parent], st)
      end
    end
    children = function(st) return kids[st.node] or {} end
  end
  doc.nodes, doc.collapsed, doc.collapsed_ms_per_frame = call_tree(root, children, nframes, total_ms, p)
  return doc
end

return tree
