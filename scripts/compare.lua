-- compare.lua: every metric of two captures side by side, with the change, its impact and its significance
--
-- A is the baseline, B the new capture (several B files or directories:
-- each is compared with A, see vp.multi). Metrics come from the catalogue
-- (stdlib/vp/metrics.lua, docs/metrics-table.md); the pair is compared on
-- the metrics both captures have, and the groups, nodes, systems, ...
-- present in only one of them are listed separately.
--
-- usage: vpscript compare.lua [options] A B
--   --alpha X        significance level (default 0.01)
--   --nodes N        VProf nodes whose percentiles and significance are
--                    computed: the N with the largest change of mean time
--                    per frame (default 10; 0 = every node)
--   --limit N        rows per section in the text and Markdown output
--                    (default 30; 0 = all); JSON and CSV list everything
--   --all            also list the metrics that did not change
--   --match PATTERN  only metrics whose name contains PATTERN (a Lua pattern;
--                    repeat the option for several)
--   --markdown       print Markdown (for a code review) instead of a table
--   --jobs N         with several B files: N at a time
--   --json, --csv, --help
--
-- Definitions: see DESCRIPTION below (printed by --help) and docs/compare.md.
--
-- JSON (one document):
--   { a = {file, format, frames}, b = {file, format, frames},
--     alpha, test = "mann-whitney-u", correction = "holm", tests,
--     summary = {metrics, worse, better, changed, same, significant_worse, significant_better},
--     metrics = [ {metric, unit, polarity, a, b, change, change_pct, impact,
--                  direction, normalised, a_raw, b_raw, per,
--                  p_value, p_adjusted, significant, prob_b_greater} ],
--     only_in_a = [ {kind, name, metrics = {<metric> = value}} ],
--     only_in_b = [ ... ] }
--   metrics are sorted by |impact|, largest first. impact = change_pct
--   signed so that positive is worse (0 for metrics with no better
--   direction); null when A is 0 (then change_pct is null too). p_value,
--   p_adjusted, significant and prob_b_greater are null for metrics without
--   a per-frame distribution. a and b are per frame (per compared trace,
--   ...) when normalised is true; a_raw and b_raw are the totals.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local metrics = require "vp.metrics"
local mwu = require "vp.mwu"
local multi = require "vp.multi"

local DESCRIPTION = [[
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

local SPEC = {
  name = "compare.lua",
  summary = "Every metric of two captures side by side: change, impact and significance.",
  description = DESCRIPTION,
  options = {
    { "--alpha", type = "number", default = 0.01, min = 0, max = 1, metavar = "X",
      help = "significance level (Holm-adjusted Mann-Whitney U p-values)" },
    { "--nodes", type = "integer", default = 10, min = 0, metavar = "N",
      help = "VProf nodes tested and given percentiles: the N whose mean time changed most (0 = all)" },
    { "--limit", type = "integer", default = 30, min = 0, metavar = "N",
      help = "rows per section in text and Markdown output; 0 = all" },
    { "--all", type = "flag", help = "also list metrics that did not change" },
    { "--match", metavar = "PATTERN", multi = true,
      help = "only metrics whose name contains this Lua pattern (repeat for several: any of them)" },
    { "--markdown", type = "flag", help = "print Markdown tables (for a code review)" },
  },
  positional = {
    { "A", help = "the baseline capture" },
    { "B", help = "the capture to compare with A", files = true },
  },
}

local opts, args = multi.parse(arg, SPEC)
if opts.markdown and (opts.json or opts.csv) then
  cli.fail(2, "--markdown excludes --json and --csv (try 'vpscript compare.lua --help')")
end
for _, pat in ipairs(opts.match) do
  local ok, err = pcall(string.find, "", pat)
  if not ok then cli.fail(2, "option --match: bad pattern '%s': %s", pat, tostring(err)) end
end

local path_a, path_b = args[1], args[2]
local cap_a = cli.open(path_a)
local cap_b = cli.open(path_b)

local function matches(name)
  if #opts.match == 0 then return true end
  for _, pat in ipairs(opts.match) do
    if name:find(pat) then return true end
  end
  return false
end

-- Which metrics each side has ----------------------------------------------------------

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

local ia, ib = index(cap_a), index(cap_b)

local common = {}
for _, r in ipairs(ia.list) do
  if ib.names[r.name] and matches(r.name) then common[#common + 1] = r.name end
end

-- Entities (and fixed metrics) found on one side only: listed with their values.
local order_of = {} -- entity row -> its metric names in catalogue order (for the text)
local function only_in(this, other, cap)
  local out = cli.array()
  for _, ent in ipairs(this.order) do
    if not other.by_entity[ent] then
      local kind, name = ent:match("^([^:]+):(.*)$")
      local vals, names = {}, {}
      for _, m in ipairs(this.by_entity[ent]) do
        if matches(m) then
          vals[m] = metrics.value(cap, m) or cli.null
          names[#names + 1] = m
        end
      end
      if #names > 0 then
        out[#out + 1] = { kind = kind, name = name, metrics = vals }
        order_of[out[#out]] = names
      end
    end
  end
  for _, r in ipairs(this.list) do
    if not r.entity and not other.names[r.name] and matches(r.name) then
      local v = metrics.value(cap, r.name)
      out[#out + 1] = { kind = "metric", name = r.name, metrics = { [r.name] = v or cli.null } }
    end
  end
  return out
end

local only_a = only_in(ia, ib, cap_a)
local only_b = only_in(ib, ia, cap_b)

-- Values -----------------------------------------------------------------------------------

local va = metrics.compute(cap_a, common)
local vb = metrics.compute(cap_b, common)

-- VProf: percentiles and tests for the nodes whose mean time changed most.
local tested_nodes
if cap_a.format == "vprof" and cap_b.format == "vprof" then
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
  local k = opts.nodes == 0 and #moved or math.min(opts.nodes, #moved)
  local extra = {}
  for i = 1, k do
    for _, stat in ipairs({ "p95_ms", "p99_ms" }) do
      local name = "node." .. moved[i].path .. "." .. stat
      if matches(name) then extra[#extra + 1] = name end
    end
  end
  local ea = metrics.compute(cap_a, extra)
  local eb = metrics.compute(cap_b, extra)
  for _, name in ipairs(extra) do
    common[#common + 1] = name
    va[name], vb[name] = ea[name], eb[name]
  end
  tested_nodes = {}
  for i = 1, k do tested_nodes[moved[i].path] = true end
end

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

-- Significance --------------------------------------------------------------------------------

local tests = {} -- distribution key -> {p =, prob =}
local keys = {}
for _, r in ipairs(rows) do
  local key = metrics.distribution_key(r.metric)
  local node = r.metric:match("^node%.(.+)%.[%w_]+$")
  -- Nodes: only the inclusive-time distribution of the --nodes nodes (self
  -- time and calls would triple the passes for little news).
  if key and node and not (tested_nodes and tested_nodes[node] and key:sub(1, 9) == "node\0time") then key = nil end
  if key and tests[key] == nil then
    tests[key] = false
    local sa = metrics.distribution(cap_a, r.metric)
    local sb = sa and metrics.distribution(cap_b, r.metric)
    if sa and sb then
      local t = mwu.test(sa, sb)
      if t and t.sigma > 0 then
        tests[key] = { p = t.p, prob = t.prob_b_greater }
        keys[#keys + 1] = key
      elseif t then
        -- every value tied (e.g. a group at 0 in both): nothing to test,
        -- and no place in the Holm family
        tests[key] = { p = 1, prob = t.prob_b_greater, p_adj = 1 }
      end
    end
  end
  r.key = key
end
local ps = {}
for i, key in ipairs(keys) do ps[i] = tests[key].p end
local adj = mwu.holm(ps)
for i, key in ipairs(keys) do tests[key].p_adj = adj[i] end

for _, r in ipairs(rows) do
  local t = r.key and tests[r.key]
  if t then
    r.p_value, r.p_adjusted, r.prob_b_greater = t.p, t.p_adj, t.prob
    r.significant = t.p_adj < opts.alpha
  end
end

-- Order: by |impact|, a change from 0 first; then by name.
-- Metrics with no better direction follow, by |change %|.
local function magnitude(r)
  return math.abs(r.worse_pct or 0)
end
local function size(r)
  return r.change_pct and math.abs(r.change_pct) or math.huge
end
table.sort(rows, function(x, y)
  local mx, my = magnitude(x), magnitude(y)
  if mx ~= my then return mx > my end
  local sx, sy = size(x), size(y)
  if sx ~= sy then return sx > sy end
  return x.metric < y.metric
end)

local summary = { metrics = #rows, worse = 0, better = 0, changed = 0, same = 0,
  significant_worse = 0, significant_better = 0 }
for _, r in ipairs(rows) do
  summary[r.direction] = summary[r.direction] + 1
  if r.significant and (r.direction == "worse" or r.direction == "better") then
    local k = "significant_" .. r.direction
    summary[k] = summary[k] + 1
  end
end

-- Output ----------------------------------------------------------------------------------------

local function finite(v)
  if v == nil or v ~= v or v == math.huge or v == -math.huge then return cli.null end
  return v
end

local function side(cap, path)
  local frames = metrics.value(cap, "frames")
  return { file = cap.path or path, format = cap.format, frames = frames or cli.null }
end

local doc_rows = cli.array()
for i, r in ipairs(rows) do
  local null = cli.null
  doc_rows[i] = {
    metric = r.metric, unit = r.unit, polarity = r.polarity, a = finite(r.a), b = finite(r.b),
    change = finite(r.change), change_pct = finite(r.change_pct), impact = finite(r.worse_pct),
    direction = r.direction, normalised = r.normalised, a_raw = finite(r.a_raw), b_raw = finite(r.b_raw),
    per = r.per or null,
    p_value = r.p_value or null, p_adjusted = r.p_adjusted or null,
    significant = r.significant == nil and null or r.significant,
    prob_b_greater = r.prob_b_greater or null,
  }
end

local doc = {
  a = side(cap_a, path_a), b = side(cap_b, path_b),
  alpha = opts.alpha, test = "mann-whitney-u", correction = "holm", tests = #keys,
  summary = summary, metrics = doc_rows, only_in_a = only_a, only_in_b = only_b,
}

local function num(v, unit)
  if v == nil or v ~= v then return "-" end
  if unit == "ms" or (unit and unit:match("^ms/")) then return fmt.ms(v) end
  if v == math.huge then return "inf" end
  return fmt.number(v, 3)
end

local function signed(v, unit)
  if v == nil or v ~= v then return "-" end
  local s = num(v, unit)
  if v > 0 then s = "+" .. s end
  return s
end

local function pct(v)
  if v == nil then return "new" end
  if v ~= v then return "-" end
  local s = fmt.fixed(v, 1) .. " %"
  if v > 0 then s = "+" .. s end
  return s
end

local function pval(v)
  if v == nil then return "" end
  if v == 0 then return "<1e-300" end
  if v < 1e-4 then return string.format("%.1e", v) end
  return string.format("%.4f", v)
end

local function label(r)
  if r.normalised then return r.metric .. " (per " .. r.unit:match("/(.*)$") .. ")" end
  return r.metric
end

local sections = {
  { key = "worse", title = "regressions" },
  { key = "better", title = "improvements" },
  { key = "changed", title = "changed (no better direction)" },
  { key = "same", title = "unchanged" },
}

local function section_rows(key)
  local out = {}
  for _, r in ipairs(rows) do
    if r.direction == key then out[#out + 1] = r end
  end
  return out
end

local function limited(list)
  if opts.limit == 0 or #list <= opts.limit then return list, 0 end
  local out = {}
  for i = 1, opts.limit do out[i] = list[i] end
  return out, #list - opts.limit
end

local function entity_value_text(e)
  local parts = {}
  local names = order_of[e]
  if not names then
    names = {}
    for m in pairs(e.metrics) do names[#names + 1] = m end
    table.sort(names)
  end
  for _, m in ipairs(names) do
    local v = e.metrics[m]
    local short = m:sub(#m - (m:reverse():find("%.") or (#m + 1)) + 2)
    if e.kind == "metric" then short = m end
    if v ~= cli.null and #parts < 4 then
      local entry = metrics.lookup(m)
      parts[#parts + 1] = short .. " " .. num(v, entry and entry.unit)
    end
  end
  return table.concat(parts, ", ")
end

local headline = string.format("%d metrics: %d worse (%d significant), %d better (%d significant), %d unchanged",
  summary.metrics, summary.worse, summary.significant_worse, summary.better, summary.significant_better,
  summary.same)
local test_line = string.format("Mann-Whitney U, two-sided, Holm-adjusted over %d distributions, alpha %s",
  #keys, fmt.number(opts.alpha, 4))

local function side_text(s)
  local f = s.frames ~= cli.null and string.format(", %s frames", fmt.int(s.frames)) or ""
  return string.format("%s (%s%s)", s.file, s.format, f)
end

if opts.markdown then
  local out = {}
  out[#out + 1] = string.format("### vpscript compare\n\n**A** `%s` -> **B** `%s`\n", side_text(doc.a),
    side_text(doc.b))
  out[#out + 1] = headline .. ". Significance: " .. test_line .. "."
  local function md(s) return (tostring(s):gsub("|", "\\|")) end
  for _, sec in ipairs(sections) do
    local list = section_rows(sec.key)
    if #list > 0 and (sec.key ~= "same" or opts.all) then
      local shown, more = limited(list)
      out[#out + 1] = string.format("\n#### %s (%d)\n\n| metric | A | B | change | change %% | p (adj.) | |\n"
        .. "|---|--:|--:|--:|--:|--:|---|", sec.title, #list)
      for _, r in ipairs(shown) do
        out[#out + 1] = string.format("| `%s` | %s | %s | %s | %s | %s | %s |", md(label(r)), num(r.a, r.unit),
          num(r.b, r.unit), signed(r.change, r.unit), pct(r.change_pct), pval(r.p_adjusted),
          r.significant and "**significant**" or "")
      end
      if more > 0 then out[#out + 1] = string.format("\n_%d more (see --limit 0)_", more) end
    end
  end
  for _, o in ipairs({ { "A", only_a }, { "B", only_b } }) do
    if #o[2] > 0 then
      out[#out + 1] = string.format("\n#### only in %s (%d)\n", o[1], #o[2])
      for _, e in ipairs(o[2]) do
        out[#out + 1] = string.format("- %s `%s`: %s", e.kind, md(e.name), md(entity_value_text(e)))
      end
    end
  end
  io.stdout:write(table.concat(out, "\n"), "\n")
  io.stdout:flush()
else
  local text_sections = {}
  local columns = {
    { key = "label", title = "metric", align = "left" },
    { key = "a", title = "A", format = function(_, r) return num(r.a, r.unit) end, align = "right" },
    { key = "b", title = "B", format = function(_, r) return num(r.b, r.unit) end, align = "right" },
    { key = "change", title = "change", format = function(_, r) return signed(r.change, r.unit) end, align = "right" },
    { key = "change_pct", title = "change %", format = function(_, r) return pct(r.change_pct) end, align = "right" },
    { key = "p_adjusted", title = "p (adj.)", format = function(v) return pval(v) end, align = "right" },
    { key = "significant", title = "", format = function(v) return v and "*" or "" end, align = "left" },
    { key = "unit", title = "unit", align = "left" },
  }
  for _, sec in ipairs(sections) do
    local list = section_rows(sec.key)
    if sec.key ~= "same" or opts.all then
      local shown, more = limited(list)
      local trows = {}
      for i, r in ipairs(shown) do
        trows[i] = setmetatable({ label = label(r) }, { __index = r })
      end
      if #list > 0 or sec.key == "worse" then
        text_sections[#text_sections + 1] = {
          title = string.format("%s (%d)", sec.title, #list), columns = columns, rows = trows,
          empty = "none", notes = more > 0 and { string.format("  ... %d more (--limit 0 lists all)", more) } or nil,
        }
      end
    end
  end
  for _, o in ipairs({ { "A", only_a }, { "B", only_b } }) do
    if #o[2] > 0 then
      local trows = {}
      for i, e in ipairs(o[2]) do trows[i] = { kind = e.kind, name = e.name, values = entity_value_text(e) } end
      local shown, more = limited(trows)
      text_sections[#text_sections + 1] = {
        title = string.format("only in %s (%d)", o[1], #o[2]), rows = shown,
        columns = { { key = "kind", title = "kind" }, { key = "name", title = "name" },
          { key = "values", title = "values", align = "left" } },
        notes = more > 0 and { string.format("  ... %d more (--limit 0 lists all)", more) } or nil,
      }
    end
  end
  local csv_rows = {}
  for i, r in ipairs(rows) do
    csv_rows[i] = setmetatable({ impact = r.worse_pct }, { __index = r })
  end
  report.emit(opts, {
    json = doc,
    title = "compare: A -> B",
    header = {
      { "A", side_text(doc.a) },
      { "B", side_text(doc.b) },
      { "metrics", headline },
      { "significance", test_line .. " (* = significant)" },
    },
    sections = text_sections,
    csv = {
      rows = csv_rows,
      columns = {
        { key = "metric" }, { key = "unit" }, { key = "polarity" }, { key = "a" }, { key = "b" },
        { key = "change" }, { key = "change_pct" }, { key = "impact" }, { key = "direction" },
        { key = "normalised" }, { key = "p_value" }, { key = "p_adjusted" }, { key = "significant" },
        { key = "prob_b_greater" },
      },
    },
    max_width = 140,
  })
end
cap_a:close()
cap_b:close()
