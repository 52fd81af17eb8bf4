-- vp.overview: everything report.lua's page shows about one capture (and a
-- baseline), as plain data: the capture's summary, the charts' data
-- (vp.charts), the hitches with their causes and grouped by cause
-- (vp.hitches), the heaviest nodes, the comparison with a baseline
-- (vp.compare), each format's own view (.dw: disagreement kinds per weapon
-- template; .dlag: ping and loss over time; laige: systems against their
-- budgets), and what the page's interactive views read (`explore`: every
-- frame's time, tick and top group, the budget groups at a finer
-- resolution, the call trees of the hitch frames and of chosen frames, the
-- comparison's runs and node totals by stretch). vp.html draws it.
--
--   local doc = require("vp.overview").analyze(cap, {baseline = base})
--
-- Memory follows the frames (a few numbers each), the tree (a row per
-- node), the trees kept (a row per node of each) and the charts' widths;
-- never frames x nodes: the frame-time chart keeps each pixel column's min
-- and max, the budget chart one C pass of per-column sums.
local charts = require "vp.charts"
local hitches = require "vp.hitches"
local hitch_core = require "vp.hitches.core"

local overview = {}

overview.DEFAULTS = { width = 960, top = 15, hitches = 40, causes = hitches.DEFAULTS.causes, compare_rows = 25,
  trees = 100, tree_rows = 500000, detail = 4, stretches = 10 }

local frames_schema = "{first, count, unit_ms, ms: [], tick: [], top: []}"
local tree_schema = "{path: [], name: [], parent: [], group: []}"
local phase_schema = "{phase, first, last, typical_ms}"

--- The shape of the result (report.lua --json).
overview.schema = "{file, format, frame_range: {first, last}, summary: [{name, value}], rule, targets: [{fps, ms}], "
  .. "frametime, per_ms, windows: " .. hitches.windows_schema .. ", distribution, "
  .. "exceedance: {frames, min_ms, max_ms, points: [{ms, pct}]}, budget, "
  .. "hitch_count, "
  .. "hitches: [{frame, tick, frame_ms, baseline_ms, causes: [{path, group, self_ms, excess_ms}]}], causes: "
  .. hitches.by_cause_schema .. ", top: [{path, group, ms_per_frame, self_ms_per_frame, calls_per_frame, peak_ms, "
  .. "peak_frame}], baseline: {file, frame_range: {first, last}, curve: [], curve_new: [], changed: [{metric, unit, "
  .. "a, b, change_pct, significant, direction}], metrics: [{metric, unit, a, b, change_pct, significant, "
  .. "direction}], explore: {settings: [{name, value}], warnings: [], verdicts: [{metric, unit, polarity, a, b, "
  .. "change, change_pct, direction, significant, cannot_tell, evidence, method, p_adjusted, pct_lo, pct_hi, "
  .. "note}], stretches, phases: [[" .. phase_schema .. "]], tree: " .. tree_schema .. ", groups: [], "
  .. "sides: [{name, runs: [{file, frames: " .. frames_schema .. "}], stretches: [{frames, time_ms: [], "
  .. "self_ms: []}]}]}}, "
  .. "weapons: [{weapon_template_id, traces, compared, disagree, by_kind: {*}}], kinds: [], "
  .. "lag: [{name, points: [{x, y}]}], systems: [{name, p99_ms, budget_ms, over}], "
  .. "explore: {frames: " .. frames_schema .. ", window, phases: [" .. phase_schema .. "], groups: [{name, id, "
  .. "total_ms}], budget: {buckets, sums: []}, nodes: " .. tree_schema .. ", hitches: [{frame, frame_ms, "
  .. "baseline_ms, cause}], trees_left_out, trees: [{frame, tick, frame_ms, kind, baseline_ms, node: [], "
  .. "time_ms: [], self_ms: [], calls: [], excess: {node: [], excess_ms: []}, causes: [{path, group, self_ms, "
  .. "excess_ms}]}]}}"

local function range_of(cap)
  if type(cap.frame_range) ~= "function" then return nil end
  local first, last = cap.first_frame, cap.last_frame
  return first and { first = first, last = last } or nil
end

local function has_frames(cap)
  return cap.format == "vprof" or cap.format == "laige-budget"
end

-- The heaviest nodes by self time over the frames the capture holds.
local function top_nodes(cap, limit)
  local n = cap.frame_count
  if n == 0 then return {} end
  local rows = {}
  for i, st in ipairs(cap:totals(nil, nil, { sort = "self", limit = limit })) do
    rows[i] = { path = st.node.path, group = st.node.group and st.node.group.name,
      ms_per_frame = st.time_ms / n, self_ms_per_frame = st.self_ms / n, calls_per_frame = st.calls / n,
      peak_ms = st.peak_ms, peak_frame = st.peak_frame }
  end
  return rows
end

local function lag_series(cap)
  local want = { "Socket RTT", "Client Application Ping", "Server Application Ping", "Packet Downloss",
    "Packet Upploss" }
  local out = {}
  for _, name in ipairs(want) do
    local m = cap:measurement(name)
    if m and m.count > 0 then
      local pts, t, v = {}, m:times():totable(), m:values():totable()
      local t0 = t[1]
      for i = 1, #t do pts[i] = { x = (t[i] - t0) / 1000, y = v[i] } end
      out[#out + 1] = { name = name, points = pts }
    end
  end
  return out
end

local function laige_systems(cap)
  local model = require "vp.laige.model"
  local rows = {}
  for _, s in ipairs(cap.systems or {}) do
    rows[#rows + 1] = { name = s.name, p99_ms = model.system_p99(s), budget_ms = s.budget_ms,
      over = model.system_over(s) }
  end
  return rows
end

-- Every frame's time (and, from a VProf capture's budget pass, its tick
-- and top group: an index into `groups`, 0 for none).
local function frames_column(cap, per_frame, index_of_group)
  local s = cap:frame_times()
  local out = { first = cap.first_frame or 1, count = #s, unit_ms = cap.format == "vprof" and 0.004 or 0.001,
    ms = s:totable() }
  if per_frame then
    out.tick, out.top = per_frame.tick, {}
    for i, id in ipairs(per_frame.top) do out.top[i] = index_of_group[id] or 0 end
  end
  return out
end

-- The tree of a VProf capture in pre-order: each node's path, name, parent
-- (index in this list, 0 for the root) and group (group_index(group), 0
-- without one); index_of maps node ids to positions.
local function node_table(cap, group_index)
  local t, index_of = { path = {}, name = {}, parent = {}, group = {} }, {}
  local k = 0
  for node in cap:nodes() do
    k = k + 1
    index_of[node.id] = k
    t.path[k], t.name[k] = node.path, node.name
    t.parent[k] = node.parent and index_of[node.parent.id] or 0
    t.group[k] = group_index(node.group)
  end
  return t, index_of
end

-- Frame f's call tree as the API gives it (cap:frame(f):nodes(), self_ms).
local function frame_tree(cap, f, index_of, kind)
  local fr = cap:frame(f)
  local t = { frame = f, tick = fr.tick, frame_ms = fr.frame_ms, kind = kind, node = {}, time_ms = {}, self_ms = {},
    calls = {} }
  local k = 0
  for node, ms, calls in fr:nodes() do
    k = k + 1
    t.node[k], t.time_ms[k], t.self_ms[k], t.calls[k] = index_of[node.id], ms, fr:self_ms(node), calls
  end
  return t
end

-- The capture's phases ({phase, first, last, typical_ms}: vp.phases), for
-- the frame-time chart, when it has more than one.
local function phases_of(cap)
  local list = {}
  for i, p in ipairs(require("vp.phases").analyze(cap).phases) do
    list[i] = { phase = p.phase, first = p.first, last = p.last, typical_ms = p.typical_ms }
  end
  return #list > 1 and list or nil
end

-- The hitches, the largest excess over the baseline first (the earlier frame on ties).
local function by_excess(list)
  local out = table.move(list, 1, #list, 1, {})
  table.sort(out, function(a, c)
    local ea, ec = a.frame_ms - (a.baseline_ms or 0), c.frame_ms - (c.baseline_ms or 0)
    if ea ~= ec then return ea > ec end
    return a.frame < c.frame
  end)
  return out
end

-- The interactive views' data of a capture with frames (see the schema);
-- b: charts.budget's result with detail and per_frame (VProf); ranked:
-- the hitches by_excess.
local function explore(cap, doc, h, b, ranked, params)
  local D = overview.DEFAULTS
  local ex = { window = h.params.window }
  local cause_of = {}
  for i, c in ipairs(doc.causes) do
    for _, f in ipairs(c.frames) do cause_of[f] = i end
  end
  ex.phases = phases_of(cap)
  ex.hitches = {}
  for i, x in ipairs(h.hitches) do
    ex.hitches[i] = { frame = x.frame, frame_ms = x.frame_ms, baseline_ms = x.baseline_ms, cause = cause_of[x.frame] }
  end
  if cap.format ~= "vprof" then
    ex.frames = frames_column(cap)
    return ex
  end
  ex.groups, ex.budget = {}, { buckets = b.detail and b.detail.buckets or 0, sums = {} }
  local index_of_group = {}
  for i, g in ipairs(b.detail and b.detail.groups or {}) do
    ex.groups[i] = { name = g.name, id = g.id, total_ms = g.total_ms }
    ex.budget.sums[i] = g.sums
    index_of_group[g.id] = i
  end
  -- the groups past detail_groups: one entry, where the others' frames and nodes point
  local other = b.detail and b.detail.other
  if other then
    local i = #ex.groups + 1
    ex.groups[i] = { name = string.format("(%d other groups)", other.count), id = -1, total_ms = other.total_ms }
    ex.budget.sums[i] = other.sums
    setmetatable(index_of_group, { __index = function(_, id) if id >= 0 then return i end end })
  end
  ex.frames = frames_column(cap, b.per_frame, index_of_group)
  local index_of
  ex.nodes, index_of = node_table(cap, function(g) return g and index_of_group[g.id] or 0 end)
  -- trees: the frames asked for, the slowest frame, the largest hitches
  -- (by excess over the baseline), each once, while their rows (a node
  -- of a frame each) stay within tree_rows; kept in frame order
  local want, kinds = {}, {}
  local hitch_of = {}
  local function add(f, kind)
    if not kinds[f] then want[#want + 1] = f end
    kinds[f] = kinds[f] or kind
  end
  for _, f in ipairs(params.tree_frames or {}) do add(f, "chosen") end
  if doc.frametime and doc.frametime.max_frame then add(doc.frametime.max_frame, "slowest") end
  for i = 1, math.min(#ranked, params.trees or D.trees) do
    local x = ranked[i]
    hitch_of[x.frame] = x
    add(x.frame, "hitch")
    if kinds[x.frame] ~= "chosen" then kinds[x.frame] = "hitch" end
  end
  local kept, rows, budget = {}, 0, params.tree_rows or D.tree_rows
  ex.trees_left_out = 0
  for _, f in ipairs(want) do
    local t = frame_tree(cap, f, index_of, kinds[f])
    if rows + #t.node > budget then
      ex.trees_left_out = ex.trees_left_out + 1
    else
      rows = rows + #t.node
      kept[#kept + 1] = t
    end
  end
  table.sort(kept, function(a, c) return a.frame < c.frame end)
  ex.trees = {}
  for i, t in ipairs(kept) do
    local f = t.frame
    local x = hitch_of[f]
    if x then
      t.baseline_ms, t.causes = x.baseline_ms, {}
      for k, c in ipairs(x.causes) do
        t.causes[k] = { path = c.path, group = c.group, self_ms = c.self_ms, excess_ms = c.excess_ms }
      end
      -- every node above its own baseline, for the colours: the figures
      -- hitches.lua's causes are the largest of
      local nodes = hitch_core.causes(cap, f, { window = ex.window, limit = #ex.nodes.path })
      t.excess = { node = {}, excess_ms = {} }
      for k, c in ipairs(nodes) do t.excess.node[k], t.excess.excess_ms[k] = index_of[c.node.id], c.excess_ms end
    end
    ex.trees[i] = t
  end
  return ex
end

local function is_list(x)
  return type(x) == "table" and getmetatable(x) == nil
end

-- The comparison's runs and node totals by stretch (the differential
-- tree), and compare's verdicts and method, for the comparison page.
local function compare_explore(A, B, r, params)
  local K = params.stretches or overview.DEFAULTS.stretches
  local ex = { settings = {}, warnings = r.warnings, verdicts = {}, stretches = K, sides = {} }
  -- compare's method, whatever it reports: every scalar of the result,
  -- and of each table in it that is not a list (the sides, the summary,
  -- the pairing of stretches)
  local function scalar(v)
    local t = type(v)
    return t == "string" or t == "number" or t == "boolean"
  end
  local names = {}
  for k, v in pairs(r) do
    if scalar(v) then
      names[#names + 1] = { name = k, value = v }
    elseif type(v) == "table" and v[1] == nil then
      for kk, vv in pairs(v) do
        if scalar(vv) then names[#names + 1] = { name = k .. "." .. kk, value = vv } end
      end
    end
  end
  table.sort(names, function(x, y) return x.name < y.name end)
  ex.settings = names
  for i, m in ipairs(r.metrics) do
    local row = { pct_lo = m.ci and m.ci.pct_lo, pct_hi = m.ci and m.ci.pct_hi }
    for k, v in pairs(m) do
      if scalar(v) then row[k] = v end
    end
    ex.verdicts[i] = row
  end
  -- each side's phases, where compare found them (its pairing of the captures)
  local pairing = type(r.pairing) == "table" and r.pairing or nil
  if pairing then ex.phases = { pairing.phases_a, pairing.phases_b } end
  if not (A[1].format == "vprof" and B[1].format == "vprof") then
    for i, side in ipairs({ A, B }) do
      ex.sides[i] = { name = i == 1 and "baseline" or "capture", runs = {} }
      for k, cap in ipairs(side) do
        if has_frames(cap) then ex.sides[i].runs[k] = { file = cap.path, frames = frames_column(cap) } end
      end
    end
    return ex
  end
  -- the union of both sides' trees, by path
  local tree, index_of_path = { path = {}, name = {}, parent = {}, group = {} }, {}
  local group_names, group_index = {}, {}
  for _, side in ipairs({ B, A }) do
    for _, cap in ipairs(side) do
      for node in cap:nodes() do
        local p = node.path
        if not index_of_path[p] then
          local k = #tree.path + 1
          index_of_path[p] = k
          tree.path[k], tree.name[k] = p, node.name
          tree.parent[k] = node.parent and index_of_path[node.parent.path] or 0
          local g = node.group and node.group.name
          if g and not group_index[g] then
            group_names[#group_names + 1] = g
            group_index[g] = #group_names
          end
          tree.group[k] = g and group_index[g] or 0
        end
      end
    end
  end
  ex.tree, ex.groups = tree, group_names
  for i, side in ipairs({ A, B }) do
    local s = { name = i == 1 and "baseline" or "capture", runs = {}, stretches = {} }
    for k = 1, K do s.stretches[k] = { frames = 0, time_ms = {}, self_ms = {} } end
    for _, st in ipairs(s.stretches) do
      for k = 1, #tree.path do st.time_ms[k], st.self_ms[k] = 0, 0 end
    end
    for k, cap in ipairs(side) do
      s.runs[k] = { file = cap.path, frames = frames_column(cap) }
      local n, first = cap.frame_count, cap.first_frame
      for j = 1, math.min(K, n) do
        local a, b = charts.span(j, math.min(K, n), n)
        local st = s.stretches[j]
        st.frames = st.frames + (b - a + 1)
        for _, row in ipairs(cap:totals(first + a - 1, first + b - 1)) do
          local at = index_of_path[row.node.path]
          st.time_ms[at] = st.time_ms[at] + row.time_ms
          st.self_ms[at] = st.self_ms[at] + row.self_ms
        end
      end
    end
    ex.sides[i] = s
  end
  return ex
end

--- overview.analyze(cap, params) -> result (plain data, overview.schema).
-- cap: a capture, or a list of captures (runs of one build: the page's own
-- sections show the first, the comparison all of them). params (all
-- optional): baseline (a capture of the same kind or a list of runs:
-- both percentile curves, vp.compare's verdicts and the comparison's
-- interactive data), width (chart pixels), target_fps (charts.targets),
-- groups (the budget chart's groups: charts.budget), top (nodes listed),
-- hitches (hitches listed, the worst by excess; all are marked on the
-- chart), causes (per hitch), compare_rows, trees (the hitch frames whose
-- call trees are kept, the largest by excess), tree_frames (more frames
-- whose trees are kept), tree_rows (the most rows, a node of a kept
-- frame each, the trees may hold: the frames asked for first, then the
-- slowest, then the largest hitches), detail (budget buckets per chart column),
-- stretches (of each run, for the differential tree), per_ms (the
-- figures of each consecutive window of that much frame time too:
-- windows, as hitches.analyze gives them), explore (false: no interactive
-- data).
function overview.analyze(cap, params)
  params = params or {}
  local runs = is_list(cap) and cap or { cap }
  cap = runs[1]
  local D = overview.DEFAULTS
  local width = params.width or D.width
  local doc = { file = cap.path, format = cap.format, frame_range = range_of(cap), summary = {},
    targets = charts.targets(params.target_fps) }
  for i, r in ipairs(cap:summary()) do
    doc.summary[i] = { name = r.name, value = type(r.value) == "number" and r.value or tostring(r.value) }
  end
  local h, ranked
  if has_frames(cap) and #cap:frame_times() > 0 then
    h = hitches.analyze(cap, { causes = params.causes or D.causes, per_ms = params.per_ms })
    doc.per_ms, doc.windows = params.per_ms, h.windows
    local marks = {}
    for i, x in ipairs(h.hitches) do marks[i] = x.frame end
    doc.frametime = charts.frametime(cap, { width = width, hitches = marks, target_fps = params.target_fps })
    doc.rule = doc.frametime.rule
    doc.distribution = charts.distribution(cap)
    doc.exceedance = charts.exceedance(cap, { width = width })
    doc.hitch_count = #h.hitches
    doc.causes = hitches.by_cause(h.hitches)
    ranked = by_excess(h.hitches)
    doc.hitches = {}
    for i = 1, math.min(#ranked, params.hitches or D.hitches) do
      local x = ranked[i]
      local causes = {}
      for k, c in ipairs(x.causes) do
        causes[k] = { path = c.path, group = c.group, self_ms = c.self_ms, excess_ms = c.excess_ms }
      end
      doc.hitches[i] = { frame = x.frame, tick = x.tick, frame_ms = x.frame_ms, baseline_ms = x.baseline_ms,
        causes = causes }
    end
    table.sort(doc.hitches, function(a, b) return a.frame < b.frame end)
  end
  local budget
  if cap.format == "vprof" and cap.frame_count > 0 then
    -- one pass: the chart's columns, and the finer buckets and per-frame
    -- figures the interactive views read
    local live = params.explore ~= false
    budget = charts.budget(cap, { width = width, groups = params.groups, detail = live and (params.detail or D.detail),
      per_frame = live })
    doc.budget = { frames = budget.frames, columns = budget.columns, groups = budget.groups, others = budget.others }
    doc.top = top_nodes(cap, params.top or D.top)
  end
  if h and params.explore ~= false then doc.explore = explore(cap, doc, h, budget, ranked, params) end
  if cap.format == "dw" then
    local hd = require("vp.hitdiff").analyze(cap)
    doc.weapons, doc.kinds = hd.by_weapon, require("vp.hitdiff").KINDS
  elseif cap.format == "dlag" then
    doc.lag = lag_series(cap)
  elseif cap.format == "laige-budget" or cap.format == "laige-profile" then
    doc.systems = laige_systems(cap)
  end
  local base = params.baseline
  if base then
    local A = is_list(base) and base or { base }
    local r = require("vp.compare").analyze(A, runs, { nodes = 10 })
    local function row(m)
      return { metric = m.metric, unit = m.unit, a = m.a, b = m.b, change_pct = m.change_pct,
        significant = m.significant, direction = m.direction }
    end
    -- the groups and nodes that changed first, then every metric in compare's order
    local changed, rows = {}, {}
    for _, m in ipairs(r.metrics) do
      local moved = m.significant and (m.direction == "worse" or m.direction == "better")
      if moved and (m.metric:find("^group%.") or m.metric:find("^node%.")) then changed[#changed + 1] = row(m) end
      if #rows < (params.compare_rows or D.compare_rows) then rows[#rows + 1] = row(m) end
    end
    doc.baseline = { file = A[1].path, frame_range = range_of(A[1]), changed = changed, metrics = rows }
    if has_frames(A[1]) and has_frames(cap) then
      doc.baseline.curve, doc.baseline.curve_new = charts.percentiles(A[1]), charts.percentiles(cap)
    end
    if params.explore ~= false then doc.baseline.explore = compare_explore(A, runs, r, params) end
  end
  return doc
end

return overview
