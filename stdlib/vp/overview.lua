-- vp.overview: everything report.lua's page shows about one capture (and a
-- baseline), as plain data: the capture's summary, the charts' data
-- (vp.charts), the hitches with their causes (vp.hitches), the heaviest
-- nodes, the comparison with a baseline (vp.compare), and each format's
-- own view (.dw: disagreement kinds per weapon template; .dlag: ping and
-- loss over time; laige: systems against their budgets). vp.html draws it.
--
--   local doc = require("vp.overview").analyze(cap, {baseline = base})
--
-- Memory follows the charts' width and the tables' limits, not the frames:
-- the frame-time chart keeps each pixel column's min and max, the budget
-- chart one C pass of per-column sums.
local charts = require "vp.charts"
local hitches = require "vp.hitches"

local overview = {}

overview.DEFAULTS = { width = 960, top = 15, hitches = 40, causes = 3, compare_rows = 25 }

--- The shape of the result (report.lua --json).
overview.schema = "{file, format, frame_range: {first, last}, summary: [{name, value}], rule, "
  .. "frametime, distribution, budget, hitch_count, hitches: [{frame, tick, frame_ms, baseline_ms, "
  .. "causes: [{path, group, self_ms, excess_ms}]}], top: [{path, group, ms_per_frame, self_ms_per_frame, "
  .. "calls_per_frame, peak_ms, peak_frame}], baseline: {file, frame_range: {first, last}, curve: [], "
  .. "curve_new: [], metrics: [{metric, unit, a, b, change_pct, significant, direction}]}, "
  .. "weapons: [{weapon_template_id, traces, compared, disagree, by_kind: {*}}], kinds: [], "
  .. "lag: [{name, points: [{x, y}]}], systems: [{name, p99_ms, budget_ms, over}]}"

local function range_of(cap)
  if type(cap.frame_range) ~= "function" then return nil end
  local first, last = cap:frame_range()
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
  for i, st in ipairs(cap:node_stats(nil, nil, { sort = "self", limit = limit })) do
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

--- overview.analyze(cap, params) -> result (plain data, overview.schema).
-- params (all optional): baseline (a capture of the same kind: both
-- percentile curves and vp.compare's table), width (chart pixels), top
-- (nodes listed), hitches (hitches listed, the worst by excess; all are
-- marked on the chart), causes (per hitch), compare_rows.
function overview.analyze(cap, params)
  params = params or {}
  local D = overview.DEFAULTS
  local width = params.width or D.width
  local doc = { file = cap.path, format = cap.format, frame_range = range_of(cap), summary = {} }
  for i, r in ipairs(cap:summary()) do
    doc.summary[i] = { name = r.name, value = type(r.value) == "number" and r.value or tostring(r.value) }
  end
  if has_frames(cap) and #cap:frame_times() > 0 then
    local h = hitches.analyze(cap, { causes = params.causes or D.causes })
    local marks = {}
    for i, x in ipairs(h.hitches) do marks[i] = x.frame end
    doc.frametime = charts.frametime(cap, { width = width, hitches = marks })
    doc.rule = doc.frametime.rule
    doc.distribution = charts.distribution(cap)
    doc.hitch_count = #h.hitches
    local list = {}
    for _, x in ipairs(h.hitches) do list[#list + 1] = x end
    table.sort(list, function(a, b)
      local ea, eb = a.frame_ms - (a.baseline_ms or 0), b.frame_ms - (b.baseline_ms or 0)
      if ea ~= eb then return ea > eb end
      return a.frame < b.frame
    end)
    doc.hitches = {}
    for i = 1, math.min(#list, params.hitches or D.hitches) do
      local x = list[i]
      local causes = {}
      for k, c in ipairs(x.causes) do
        causes[k] = { path = c.path, group = c.group, self_ms = c.self_ms, excess_ms = c.excess_ms }
      end
      doc.hitches[i] = { frame = x.frame, tick = x.tick, frame_ms = x.frame_ms, baseline_ms = x.baseline_ms,
        causes = causes }
    end
    table.sort(doc.hitches, function(a, b) return a.frame < b.frame end)
  end
  if cap.format == "vprof" and cap.frame_count > 0 then
    doc.budget = charts.budget(cap, { width = width })
    doc.top = top_nodes(cap, params.top or D.top)
  end
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
    local r = require("vp.compare").analyze(base, cap, { nodes = 10 })
    local rows = {}
    for _, m in ipairs(r.metrics) do
      if #rows >= (params.compare_rows or D.compare_rows) then break end
      rows[#rows + 1] = { metric = m.metric, unit = m.unit, a = m.a, b = m.b, change_pct = m.change_pct,
        significant = m.significant, direction = m.direction }
    end
    doc.baseline = { file = base.path, frame_range = range_of(base), metrics = rows }
    if has_frames(base) and has_frames(cap) then
      doc.baseline.curve, doc.baseline.curve_new = charts.percentiles(base), charts.percentiles(cap)
    end
  end
  return doc
end

return overview
