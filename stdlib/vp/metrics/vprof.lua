-- vp.metrics.vprof: the catalogue's VProf budget-group and node metrics.
-- Entry fields: see vp.metrics.
--
-- Group metrics read the reader's summaries of each group's self time per
-- frame (cap:dist("groups"): exact value counts, no column) and their
-- statistics come from vp.budget, as budget.lua's. Their distributions, which
-- vp.compare and vp.gate test by batches of consecutive frames, are those
-- summaries too: vp.infer asks them for each batch's value counts
-- (dist:batches), made for the groups asked in one pass with the nodes
-- asked (the entries' test_prefetch: prefetch_batches). Node
-- totals are the reader's whole-capture statistics (cap:totals: one pass
-- for every node, the open pass when the capture was opened with {stats =
-- ...}); node percentiles and distributions are value counts over batches
-- from one more C pass for all the nodes asked together (cap:series with a
-- list of nodes and {batches = cuts}: the entries' `prefetch`, which
-- metrics.prepare_tests runs with the groups'), over the
-- batches vp.infer will ask for (the capture's own, or those metrics.cuts
-- set for a run of several). No column, and nothing iterates frames x nodes
-- in Lua.
--
-- Listing (metrics.available, what compare.lua compares) names every node
-- of a tree of at most NODE_LIST nodes; of a larger one the NODE_LIST with
-- the largest total inclusive time (ties by path), so that a 100,000-node
-- tree does not make half a million metric names. Any node can still be
-- asked for by name.
local vp = require "vp"
local C = require "vp.metrics.context"
local infer = require "vp.infer"

local entries = {}
local function add(e) entries[#entries + 1] = e end

-- Budget groups ------------------------------------------------------------------------

-- The groups listed (their metrics in the catalogue) when a capture has
-- more: the heaviest by total self time, as nodes are (NODE_LIST), so a
-- capture of 100,000 groups costs a comparison what 2,000 do; a rule can
-- still name any group.
local GROUP_LIST = 2000

-- groups by name -> {group =, series =}
local vprof_groups, group_names = C.listing(function(ctx)
  local by_name, order = {}, {}
  for g, s in pairs(ctx.cap:dist("groups")) do
    if not by_name[g.name] then
      by_name[g.name] = { group = g, series = s }
      order[#order + 1] = g
    end
  end
  if #order > GROUP_LIST then
    local sum = {}
    for _, g in ipairs(order) do sum[g] = by_name[g.name].series:sum() end
    table.sort(order, function(a, b)
      if sum[a] ~= sum[b] then return sum[a] > sum[b] end
      return a.id < b.id
    end)
    for i = #order, GROUP_LIST + 1, -1 do order[i] = nil end
  end
  table.sort(order, function(a, b) return a.id < b.id end)
  local names = {}
  for i, g in ipairs(order) do names[i] = g.name end
  return by_name, names
end)

-- One statistic of a group's per-frame self time, as budget.lua computes it
-- (vp.budget.group_stats, once per group).
local function group_stat(ctx, name, key)
  local g = vprof_groups(ctx)[name]
  if not g then return nil, "no budget group named '" .. name .. "' with nodes" end
  if not g.stats then
    g.stats = require("vp.budget").group_stats(g.series, ctx.cap:dist("frame_ms"):sum())
  end
  local v = C.get(g.stats, key)
  if v ~= nil then return v end
  if #g.series == 0 then return nil, "no frames" end
  return nil, "the total frame time is 0"
end

-- A group's distribution: its summary, which gives vp.infer the value
-- counts of each batch of consecutive frames (dist:batches).
local function group_series(ctx, name)
  local g = vprof_groups(ctx)[name]
  return g and g.series
end

-- The batches vp.infer asks a capture for: those metrics.cuts set (a run
-- of several one after the other), else the capture's own.
local function cuts_of(ctx)
  local n = ctx.cap.frame_count
  return ctx.cuts or infer.cuts(n, math.max(1, infer.batch_count(n)))
end

-- Whether the capture has a group of that name (with nodes or not: one
-- without is there, and cannot be measured).
local function has_group(ctx, name)
  return ctx.cap:group(name) ~= nil
end

-- Nodes ----------------------------------------------------------------------------------

local NODE_LIST = 2000

-- The listed nodes' totals, by path, and their paths in listing order; the
-- root is left out (its children carry the frame time, see frame_ms.*).
local vprof_nodes, node_paths = C.listing(function(ctx)
  local cap = ctx.cap
  local by_path, order = {}, {}
  local rows
  if cap.node_count - 1 <= NODE_LIST then
    rows = cap:totals() -- every node, in pre-order
  elseif cap.frame_count > 0 then
    rows = cap:totals(1, cap.frame_count, { sort = "time", limit = NODE_LIST })
  else
    rows = {}
  end
  for _, r in ipairs(rows) do
    if r.node.parent ~= nil then
      by_path[r.node.path] = r
      order[#order + 1] = r.node.path
    end
  end
  return by_path, order
end)

-- A node's totals by full, relative or elided path (nil for the root and
-- for no node): the node the capture finds by that path, whose totals may
-- be all the open pass made (vp.open's stats.nodes list), else the listing.
local function vprof_node(ctx, path)
  local node = ctx.cap:node(path)
  if not node then return vprof_nodes(ctx)[path] end
  if node.parent == nil then return nil end
  ctx.node_rows = ctx.node_rows or {}
  local r = ctx.node_rows[node]
  if not r then
    r = ctx.cap:totals(node)
    ctx.node_rows[node] = r
  end
  return r
end

-- A node's per-frame values of one field as vp.infer reads them: a source
-- of value counts over batches (src:batches(cuts): cap:series with
-- {batches = cuts}, kept per cuts), #src, src:percentile(p) (nearest rank,
-- from any batches' counts) and src:totable() (the column, built on request).
local Source = {}
Source.__index = Source
Source.__len = function(src) return src.n end
function Source:batches(cuts)
  local key = table.concat(cuts, ",")
  local b = self.made[key]
  if not b then
    b = vp.batches_all({ { self.cap, { self.node }, self.field, { batches = cuts } } })[1][1]
    self.made[key] = b
  end
  return b
end
function Source:percentile(p)
  local _, b = next(self.made)
  return (b or self:batches(infer.cuts(self.n, 1))):percentile(p)
end
function Source:totable() return self.cap:series(self.node, self.field):totable() end

-- A node's source, by field and path.
local function node_series(ctx, path, field)
  ctx.node_series = ctx.node_series or {}
  local r = vprof_node(ctx, path)
  if not r then return nil end
  local key = field .. "\0" .. r.node.path
  local src = ctx.node_series[key]
  if not src then
    src = setmetatable({ cap = ctx.cap, node = r.node, field = field, n = ctx.cap.frame_count, made = {} }, Source)
    ctx.node_series[key] = src
  end
  return src
end

-- The batches that the metrics asked of each capture ({ctx, asked =
-- {{param, field}, ...}} in jobs) need, over the cuts vp.infer will ask
-- for: nodes' fields (param a path, field the entry's series_field) and,
-- when the capture's distributions are going to be tested
-- (metrics.will_test), groups' self time (param a group name, no field).
-- One C pass per capture and field (cap:series with a list of nodes, the
-- asked groups with the first) instead of one per node or group, the
-- captures' passes at once (vp.batches_all). Unknown nodes and groups are
-- left for metrics.value to report.
local function prefetch_batches(jobs)
  local requests, made = {}, {}
  for _, job in ipairs(jobs) do
    local ctx = job.ctx
    local cuts = cuts_of(ctx)
    local key = table.concat(cuts, ",")
    local want, fields, groups = {}, {}, {}
    for _, x in ipairs(job.asked) do
      if x.field then
        local src = node_series(ctx, x.param, x.field)
        if src and not src.made[key] and not want[src] then
          want[src] = true
          C.add_to(fields, x.field, src)
        end
      elseif ctx.will_test then
        local g = vprof_groups(ctx)[x.param]
        if g and not want[g] then
          want[g] = true
          groups[#groups + 1] = g.group
        end
      end
    end
    if #fields == 0 and #groups > 0 then C.add_to(fields, "self_ms", nil) end -- the groups alone
    for f, field in ipairs(fields) do
      local list, nodes = fields[field], {}
      for i, src in ipairs(list) do nodes[i] = src.node end
      local g = f == 1 and #groups > 0 and groups
      requests[#requests + 1] = { ctx.cap, nodes, field, { batches = cuts, groups = g } }
      made[#requests] = { list = list, key = key }
    end
  end
  for i, batches in ipairs(vp.batches_all(requests)) do
    for j, src in ipairs(made[i].list) do src.made[made[i].key] = batches[j] end
  end
end

-- Budget-group metrics

local GROUP_STATS = {
  { "mean_ms", "mean self time per frame" },
  { "p50_ms", "median self time per frame (nearest rank)" },
  { "p95_ms", "95th percentile self time per frame (nearest rank)" },
  { "p99_ms", "99th percentile self time per frame (nearest rank)" },
  { "max_ms", "largest self time in one frame" },
}
for _, gs in ipairs(GROUP_STATS) do
  add {
    name = "group.NAME." .. gs[1], match = "^group%.(.+)%." .. gs[1]:gsub("_", "%%_") .. "$",
    kind = "group", unit = "ms", polarity = "lower", formats = C.VPROF, names = group_names, has = has_group,
    doc = "budget group NAME: " .. gs[2] .. " (the sum of its nodes' self times; 0 in frames "
      .. "where it has none; as budget.lua)",
    get = function(ctx, name) return group_stat(ctx, name, gs[1]) end,
    dist = group_series, test_prefetch = prefetch_batches,
  }
end

add {
  name = "group.NAME.share_pct", match = "^group%.(.+)%.share%_pct$", kind = "group",
  unit = "%", polarity = "none", formats = C.VPROF, names = group_names, has = has_group,
  doc = "budget group NAME: 100 x its self time summed over all frames / the total frame time "
    .. "(a share: it moves when other groups do, so it has no better direction)",
  get = function(ctx, name) return group_stat(ctx, name, "share_pct") end,
  dist = group_series, test_prefetch = prefetch_batches,
}

add {
  name = "group.NAME.pX_ms", match = "^group%.(.+)%.p(%d+%.?%d*)_ms$", arg_of_family = true, quantile_arg = true,
  valid = function(_, x) return C.percent(x) end,
  kind = "group", unit = "ms", polarity = "lower", formats = C.VPROF, names = group_names, has = has_group,
  doc = "budget group NAME: any percentile X of its self time per frame (nearest rank), 0 < X <= 100: "
    .. "group.Physics.p90_ms, group.Physics.p99.9_ms",
  get = function(ctx, name, x)
    local g = vprof_groups(ctx)[name]
    if not g then return nil, "no budget group named '" .. name .. "' with nodes" end
    if #g.series == 0 then return nil, "no frames" end
    return g.series:percentile(tonumber(x))
  end,
  dist = group_series, test_prefetch = prefetch_batches,
}

-- Node metrics

local function per_frame(ctx, r, key)
  local n = ctx.cap.frame_count
  if n == 0 then return nil, "no frames" end
  return r[key] / n
end

local NODE = {
  { "mean_ms", "mean inclusive time per frame over all frames (0 where absent)", "time_ms",
    function(ctx, r) return per_frame(ctx, r, "time_ms") end },
  { "self_ms", "mean self time per frame over all frames", "self_ms",
    function(ctx, r) return per_frame(ctx, r, "self_ms") end },
  { "calls_per_frame", "calls per frame over all frames", "calls",
    function(ctx, r) return per_frame(ctx, r, "calls") end, "calls" },
  { "max_ms", "largest inclusive time in one frame", "time_ms",
    function(ctx, r)
      if ctx.cap.frame_count == 0 then return nil, "no frames" end
      return r.peak_ms
    end },
  { "p95_ms", "95th percentile inclusive time per frame (nearest rank; the nodes asked together "
    .. "share one C pass)", "time_ms",
    function(ctx, r) return C.series_stat(node_series(ctx, r.node.path, "time_ms"), "p95") end,
    nil, true },
  { "p99_ms", "99th percentile inclusive time per frame (nearest rank; the nodes asked together "
    .. "share one C pass)", "time_ms",
    function(ctx, r) return C.series_stat(node_series(ctx, r.node.path, "time_ms"), "p99") end,
    nil, true },
}

for _, ns in ipairs(NODE) do
  local field = ns[3]
  add {
    name = "node.PATH." .. ns[1], match = "^node%.(.+)%." .. ns[1]:gsub("_", "%%_") .. "$",
    kind = "node", unit = ns[5] or "ms", polarity = "lower", formats = C.VPROF, names = node_paths,
    has = function(ctx, path) return vprof_node(ctx, path) ~= nil end,
    series_field = field, prefetch = ns[6] and prefetch_batches or nil,
    doc = "node PATH (\"Root/CEngine::Frame/...\", by path, not name): " .. ns[2],
    get = function(ctx, path)
      local r = vprof_node(ctx, path)
      if not r then return nil, "no node '" .. path .. "'" end
      return ns[4](ctx, r)
    end,
    dist = function(ctx, path) return node_series(ctx, path, field) end,
  }
end

-- Any percentile of a node's inclusive or self time per frame.
for _, np in ipairs({ { "pX_ms", "p", "time_ms", "inclusive" }, { "self_pX_ms", "self_p", "self_ms", "self" } }) do
  local field = np[3]
  add {
    name = "node.PATH." .. np[1], match = "^node%.(.+)%." .. np[2]:gsub("_", "%%_") .. "(%d+%.?%d*)_ms$",
    arg_of_family = true, quantile_arg = true, valid = function(_, x) return C.percent(x) end,
    kind = "node", unit = "ms", polarity = "lower", formats = C.VPROF, names = node_paths,
    has = function(ctx, path) return vprof_node(ctx, path) ~= nil end,
    series_field = field, prefetch = prefetch_batches,
    doc = "node PATH: any percentile X of its " .. np[4] .. " time per frame (nearest rank), 0 < X <= 100: "
      .. "node.PATH." .. np[2] .. "90_ms, node.PATH." .. np[2] .. "99.9_ms",
    get = function(ctx, path, x)
      local r = vprof_node(ctx, path)
      if not r then return nil, "no node '" .. path .. "'" end
      return C.series_stat(node_series(ctx, r.node.path, field), "p" .. x)
    end,
    dist = function(ctx, path) return node_series(ctx, path, field) end,
  }
end

return { entries = entries }
