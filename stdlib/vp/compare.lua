-- vp.compare: every metric of two captures side by side: the change, its
-- impact and its significance. The analysis behind compare.lua.
--
--   local compare = require "vp.compare"
--   local r = compare.analyze(cap_a, cap_b, {alpha = 0.01, nodes = 10, match = {"^group%."}})
--   for _, m in ipairs(r.metrics) do print(m.metric, m.a, m.b, m.impact, m.significant) end
--   io.write(json.encode(r, compare.schema))   -- compare.lua's --json (see only_in below)
--
-- A is the baseline, B the new capture. The metrics compared are the
-- catalogue's (vp.metrics) that both captures have; the groups, nodes,
-- systems, ... present in only one of them are listed separately with their
-- values. Definitions (compare.DEFINITIONS, printed by compare.lua --help;
-- docs/compare.md):
--   change      B - A; change_pct = 100 (B - A) / |A| (nil when A is 0 and
--               B is not)
--   normalised  a total (entry.per: hitches, disagreement counts, laige
--               counters) is divided by its capture's frames (compared
--               traces, ...) when the two captures differ in it; a_raw and
--               b_raw keep the totals
--   impact      change_pct signed by the metric's polarity (positive =
--               worse), 0 for metrics with no better direction, nil for a
--               change from 0; rows sort by |impact|, a change from 0 first
--   significant the per-frame distributions behind the metrics (one test
--               per distribution: group.X.mean_ms and group.X.p99_ms share
--               one) are tested with the two-sided Mann-Whitney U test
--               (vp.mwu), the p-values of one comparison Holm-adjusted as
--               one family; significant = adjusted p < alpha
--   nodes       VProf: p95, p99 and the test only for the `nodes` nodes
--               whose mean time per frame changed most (0 = all)
--
-- The result is plain data (nil for absent, never NaN or infinity) in the
-- shape of compare.schema, except that the only_in_a / only_in_b entries
-- hold their values as an ordered list `values = {{metric, value}, ...}`
-- (value nil when the capture cannot give it) where the document has the
-- map `metrics = {<metric> = value}`.
local E = require "vp.error"
local metrics = require "vp.metrics"
local mwu = require "vp.mwu"

local compare = {}

compare.DEFAULTS = { alpha = 0.01, nodes = 10, match = nil }

--- The --json document (docs/architecture.md notation).
compare.schema = [[{
  a: {file, format, frames}, b: {file, format, frames},
  alpha, test, correction, tests,
  summary: {metrics, worse, better, changed, same, significant_worse, significant_better},
  metrics: [{metric, unit, polarity, a, b, change, change_pct, impact, direction, normalised,
             a_raw, b_raw, per, p_value, p_adjusted, significant, prob_b_greater}],
  only_in_a: [{kind, name, metrics: {*}}],
  only_in_b: [{kind, name, metrics: {*}}]
}]]

--- The definitions, as compare.lua --help prints them.
compare.DEFINITIONS = [[
Definitions:
  metrics     every metric of the catalogue that both captures have (see
              docs/metrics-table.md); a group, node, system, budget or
              measurement found in only one capture is listed under "only
              in A" / "only in B" with its values, not compared.
  change      B - A, and change % = 100 x (B - A) / |A| (none when A is 0).
  normalised  totals (hitches, per-kind disagreement counts, counters) are
              divided by the capture's frames (compared traces, ...) first
              when the two captures differ in it.
  impact      change % signed by the metric's polarity: positive = worse
              (a rise of a lower-is-better metric), negative = better; 0
              for metrics that are neither. Rows are sorted by |impact|;
              a change from 0 counts as the largest.
  significant for metrics that summarise a per-frame distribution (frame
              time, group self time, node time, lag samples): a two-sided
              Mann-Whitney U test of A's values against B's (normal
              approximation with tie correction and continuity
              correction). The p-values of all distributions compared are
              Holm-adjusted together, so the chance of ANY false alarm in
              one comparison stays below --alpha; "significant" means the
              adjusted p < --alpha. Consecutive frames are correlated, so
              the test is optimistic on long captures: read it together
              with the size of the change. prob(B>A) is the probability
              that a frame of B is slower than a frame of A (0.5 = none).
  nodes       VProf: mean, self, calls per frame and peak for every node;
              p95, p99 and the significance test for the --nodes nodes with
              the largest change of mean time per frame.]]

-- The result holds no NaN or infinity (a change from 0 has no change_pct and no impact).
local finite = metrics.finite

-- Significance ---------------------------------------------------------------------------

--- compare.significance(family, alpha) -> tests, m
-- family: a list of {a = values, b = values} (Series or lists of numbers),
-- the distributions of one comparison. tests[i] = {p, p_adjusted,
-- prob_b_greater, significant} for each pair, or nil when a sample is
-- empty. The p-values are Holm-adjusted over the m pairs that can be
-- tested; a pair whose values are all tied has nothing to test (p = 1,
-- p_adjusted = 1) and no place in the family.
function compare.significance(family, alpha)
  alpha = alpha or compare.DEFAULTS.alpha
  local tests, ps, at = {}, {}, {}
  for i, pair in ipairs(family) do
    local t = mwu.test(pair.a, pair.b)
    if t then
      tests[i] = { p = t.p, prob_b_greater = t.prob_b_greater }
      if t.sigma > 0 then
        ps[#ps + 1] = t.p
        at[#ps] = i
      else
        tests[i].p_adjusted = 1
      end
    end
  end
  for k, adj in pairs(mwu.holm(ps)) do tests[at[k]].p_adjusted = adj end
  for i = 1, #family do
    local t = tests[i]
    if t then t.significant = t.p_adjusted < alpha end
  end
  return tests, #ps
end

-- Pairing ----------------------------------------------------------------------------------

-- The metrics a capture has: names (name -> entity or true), by entity, in order.
local function index(cap)
  local list = metrics.available(cap, { series_pass = false })
  local names, by_entity, order = {}, {}, {}
  for _, r in ipairs(list) do
    names[r.name] = r.entity or true
    if r.entity then
      if not by_entity[r.entity] then
        by_entity[r.entity] = {}
        order[#order + 1] = r.entity
      end
      local l = by_entity[r.entity]
      l[#l + 1] = r.name
    end
  end
  return { list = list, names = names, by_entity = by_entity, order = order }
end

-- Entities (and fixed metrics) found on one side only, with their values.
local function only_in(this, other, cap, matches)
  local out = {}
  for _, ent in ipairs(this.order) do
    if not other.by_entity[ent] then
      local kind, name = ent:match("^([^:]+):(.*)$")
      local values = {}
      for _, m in ipairs(this.by_entity[ent]) do
        if matches(m) then values[#values + 1] = { metric = m, value = finite(metrics.value(cap, m)) } end
      end
      if #values > 0 then out[#out + 1] = { kind = kind, name = name, values = values } end
    end
  end
  for _, r in ipairs(this.list) do
    if not r.entity and not other.names[r.name] and matches(r.name) then
      local v = finite(metrics.value(cap, r.name))
      out[#out + 1] = { kind = "metric", name = r.name, values = { { metric = r.name, value = v } } }
    end
  end
  return out
end

-- VProf: the p95/p99 names of the `k` nodes whose mean time changed most
-- (k = 0: all), and the set of those nodes' paths.
local function moved_nodes(common, va, vb, k, matches)
  local moved = {}
  for _, name in ipairs(common) do
    local path = name:match("^node%.(.+)%.mean_ms$")
    if path and va[name] and vb[name] then
      moved[#moved + 1] = { path = path, d = math.abs(vb[name] - va[name]) }
    end
  end
  table.sort(moved, function(x, y)
    if x.d ~= y.d then return x.d > y.d end
    return x.path < y.path
  end)
  k = k == 0 and #moved or math.min(k, #moved)
  local extra, tested = {}, {}
  for i = 1, k do
    tested[moved[i].path] = true
    for _, stat in ipairs({ "p95_ms", "p99_ms" }) do
      local name = "node." .. moved[i].path .. "." .. stat
      if matches(name) then extra[#extra + 1] = name end
    end
  end
  return extra, tested
end

local function check_params(p)
  if type(p.alpha) ~= "number" or not (p.alpha >= 0 and p.alpha <= 1) then
    E.raise("EUSAGE", "vp.compare: alpha must be a number in 0..1, got %s", tostring(p.alpha))
  end
  if math.type(p.nodes) ~= "integer" or p.nodes < 0 then
    E.raise("EUSAGE", "vp.compare: nodes must be an integer >= 0, got %s", tostring(p.nodes))
  end
  for _, pat in ipairs(p.match or {}) do
    local ok, err = pcall(string.find, "", pat)
    if not ok then E.raise("EUSAGE", "vp.compare: bad pattern '%s': %s", tostring(pat), tostring(err)) end
  end
end

--- compare.analyze(cap_a, cap_b [, params]) -> result (see the top of this file)
-- params (all optional; defaults in compare.DEFAULTS): alpha, nodes, match
-- (a list of Lua patterns: only metrics whose name contains one of them).
-- Raises EUSAGE (vp.error) for parameters it cannot use.
function compare.analyze(cap_a, cap_b, params)
  local p = {}
  for k, v in pairs(compare.DEFAULTS) do p[k] = v end
  for k, v in pairs(params or {}) do p[k] = v end
  check_params(p)
  local function matches(name)
    if not p.match or #p.match == 0 then return true end
    for _, pat in ipairs(p.match) do
      if name:find(pat) then return true end
    end
    return false
  end

  local ia, ib = index(cap_a), index(cap_b)
  local common = {}
  for _, r in ipairs(ia.list) do
    if ib.names[r.name] and matches(r.name) then common[#common + 1] = r.name end
  end
  local va = metrics.compute(cap_a, common)
  local vb = metrics.compute(cap_b, common)
  local tested_nodes
  if cap_a.format == "vprof" and cap_b.format == "vprof" then
    local extra
    extra, tested_nodes = moved_nodes(common, va, vb, p.nodes, matches)
    local ea = metrics.compute(cap_a, extra)
    local eb = metrics.compute(cap_b, extra)
    for _, name in ipairs(extra) do
      common[#common + 1] = name
      va[name], vb[name] = ea[name], eb[name]
    end
  end

  -- Changes
  local function per_value(cap, values, per)
    if not per then return nil end
    if values[per] == nil then values[per] = metrics.value(cap, per) or false end
    return values[per] or nil
  end
  local rows = {}
  for _, name in ipairs(common) do
    local a, b = va[name], vb[name]
    if a ~= nil and b ~= nil then
      local e = metrics.lookup(name)
      local d = metrics.delta(name, a, b, per_value(cap_a, va, e.per), per_value(cap_b, vb, e.per))
      d.metric = name
      rows[#rows + 1] = d
    end
  end

  -- Significance: one test per distribution, one Holm family per comparison.
  local family, slot = {}, {} -- distribution key -> index in family (false: none)
  for _, r in ipairs(rows) do
    local key = metrics.distribution_key(r.metric)
    local node = r.metric:match("^node%.(.+)%.[%w_]+$")
    -- Nodes: only the inclusive-time distribution of the tested nodes (self
    -- time and calls would triple the passes for little news).
    if key and node and not (tested_nodes and tested_nodes[node] and key:sub(1, 9) == "node\0time") then key = nil end
    if key and slot[key] == nil then
      slot[key] = false
      local sa = metrics.distribution(cap_a, r.metric)
      local sb = sa and metrics.distribution(cap_b, r.metric)
      if sa and sb then
        family[#family + 1] = { a = sa, b = sb }
        slot[key] = #family
      end
    end
    r.slot = key and slot[key] or nil
  end
  local tests, m = compare.significance(family, p.alpha)

  -- Order: by |impact|, a change from 0 first; then by |change %|; then by name.
  local function size(r) return r.change_pct and math.abs(r.change_pct) or math.huge end
  table.sort(rows, function(x, y)
    local mx, my = math.abs(x.worse_pct or 0), math.abs(y.worse_pct or 0)
    if mx ~= my then return mx > my end
    local sx, sy = size(x), size(y)
    if sx ~= sy then return sx > sy end
    return x.metric < y.metric
  end)

  local summary = { metrics = #rows, worse = 0, better = 0, changed = 0, same = 0,
    significant_worse = 0, significant_better = 0 }
  local out = {}
  for i, r in ipairs(rows) do
    local t = r.slot and tests[r.slot]
    out[i] = {
      metric = r.metric, unit = r.unit, polarity = r.polarity, a = finite(r.a), b = finite(r.b),
      change = finite(r.change), change_pct = finite(r.change_pct), impact = finite(r.worse_pct),
      direction = r.direction, normalised = r.normalised, a_raw = finite(r.a_raw), b_raw = finite(r.b_raw),
      per = r.per,
      p_value = t and t.p, p_adjusted = t and t.p_adjusted, significant = t and t.significant,
      prob_b_greater = t and t.prob_b_greater,
    }
    summary[r.direction] = summary[r.direction] + 1
    if t and t.significant and (r.direction == "worse" or r.direction == "better") then
      local k = "significant_" .. r.direction
      summary[k] = summary[k] + 1
    end
  end

  local function side(cap)
    return { file = cap.path, format = cap.format, frames = (metrics.value(cap, "frames")) }
  end
  return {
    a = side(cap_a), b = side(cap_b), alpha = p.alpha, test = "mann-whitney-u", correction = "holm",
    tests = m, summary = summary, metrics = out,
    only_in_a = only_in(ia, ib, cap_a, matches), only_in_b = only_in(ib, ia, cap_b, matches),
  }
end

return compare
