-- compare.lua: every metric of two captures side by side, with the change, its impact and its significance
--
-- usage: vpscript compare.lua [options] A B   (B: several files or directories, see vp.multi)
-- The comparison, its definitions and the --json shape are vp.compare's (docs/compare.md);
-- this script parses the options and prints a table, Markdown, CSV or JSON.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local json = require "vp.json"
local report = require "vp.report"
local metrics = require "vp.metrics"
local compare = require "vp.compare"
local multi = require "vp.multi"

local SPEC = {
  name = "compare.lua",
  summary = "Every metric of two captures side by side: change, impact and significance.",
  description = compare.DEFINITIONS,
  options = {
    { "--alpha", type = "number", default = compare.DEFAULTS.alpha, min = 0, max = 1, metavar = "X",
      help = "significance level (Holm-adjusted Mann-Whitney U p-values)" },
    { "--nodes", type = "integer", default = compare.DEFAULTS.nodes, min = 0, metavar = "N",
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

-- Every group and node metric is read: VProf captures compute those
-- statistics while they are read ({stats = true}; other formats ignore it).
local cap_a, cap_b = cli.open(args[1], { stats = true }), cli.open(args[2], { stats = true })
local r = compare.analyze(cap_a, cap_b, { alpha = opts.alpha, nodes = opts.nodes, match = opts.match })
cap_a:close()
cap_b:close()

if opts.json then
  -- only_in_*: the values as a map, null for the ones the capture cannot give
  local doc = {}
  for k, v in pairs(r) do doc[k] = v end
  for _, k in ipairs({ "only_in_a", "only_in_b" }) do
    doc[k] = {}
    for i, e in ipairs(r[k]) do
      local m = {}
      for _, x in ipairs(e.values) do m[x.metric] = x.value == nil and json.null or x.value end
      doc[k][i] = { kind = e.kind, name = e.name, metrics = m }
    end
  end
  cli.json(doc, compare.schema)
  return
end

local function num(v, unit) -- nil prints as "-"
  if unit == "ms" or (unit and unit:match("^ms/")) then return fmt.ms(v) end
  return fmt.number(v, 3)
end
local function signed(v, unit) return (v and v > 0 and "+" or "") .. num(v, unit) end
local function pct(v)
  if v == nil then return "new" end
  return (v > 0 and "+" or "") .. fmt.fixed(v, 1) .. " %"
end
local function pval(v)
  if v == nil then return "" end
  if v == 0 then return "<1e-300" end
  if v < 1e-4 then return string.format("%.1e", v) end
  return string.format("%.4f", v)
end
local function label(m)
  if m.normalised then return m.metric .. " (per " .. m.unit:match("/(.*)$") .. ")" end
  return m.metric
end

local SECTIONS = {
  { key = "worse", title = "regressions" }, { key = "better", title = "improvements" },
  { key = "changed", title = "changed (no better direction)" }, { key = "same", title = "unchanged" },
}
local function limited(list)
  if opts.limit == 0 or #list <= opts.limit then return list, 0 end
  return table.move(list, 1, opts.limit, 1, {}), #list - opts.limit
end
-- The metrics by direction: {key, title, n, shown (--limit), more}; "same" only with --all.
local sections = {}
for _, sec in ipairs(SECTIONS) do
  if sec.key ~= "same" or opts.all then
    local list = {}
    for _, m in ipairs(r.metrics) do
      if m.direction == sec.key then list[#list + 1] = setmetatable({ label = label(m) }, { __index = m }) end
    end
    local shown, more = limited(list)
    sections[#sections + 1] = { key = sec.key, title = sec.title, n = #list, shown = shown, more = more }
  end
end
-- An only-in entry's first four values: "mean_ms 1.234, p50_ms ..."
local function values_text(e)
  local parts = {}
  for _, x in ipairs(e.values) do
    if x.value ~= nil and #parts < 4 then
      local short = e.kind == "metric" and x.metric or x.metric:match("([^.]*)$")
      parts[#parts + 1] = short .. " " .. num(x.value, (metrics.lookup(x.metric)).unit)
    end
  end
  return table.concat(parts, ", ")
end
local function side_text(x)
  return string.format("%s (%s%s)", x.file, x.format, x.frames and (", " .. fmt.int(x.frames) .. " frames") or "")
end
local s = r.summary
local headline = string.format("%d metrics: %d worse (%d significant), %d better (%d significant), %d unchanged",
  s.metrics, s.worse, s.significant_worse, s.better, s.significant_better, s.same)
local test_line = string.format("Mann-Whitney U, two-sided, Holm-adjusted over %d distributions, alpha %s",
  r.tests, fmt.number(r.alpha, 4))
local only = { { "A", r.only_in_a }, { "B", r.only_in_b } }

if opts.markdown then
  local out = { string.format("### vpscript compare\n\n**A** `%s` -> **B** `%s`\n", side_text(r.a), side_text(r.b)),
    headline .. ". Significance: " .. test_line .. "." }
  local function md(x) return (tostring(x):gsub("|", "\\|")) end
  for _, sec in ipairs(sections) do
    if sec.n > 0 then
      out[#out + 1] = string.format("\n#### %s (%d)\n\n| metric | A | B | change | change %% | p (adj.) | |\n"
        .. "|---|--:|--:|--:|--:|--:|---|", sec.title, sec.n)
      for _, m in ipairs(sec.shown) do
        out[#out + 1] = string.format("| `%s` | %s | %s | %s | %s | %s | %s |", md(m.label), num(m.a, m.unit),
          num(m.b, m.unit), signed(m.change, m.unit), pct(m.change_pct), pval(m.p_adjusted),
          m.significant and "**significant**" or "")
      end
      if sec.more > 0 then out[#out + 1] = string.format("\n_%d more (see --limit 0)_", sec.more) end
    end
  end
  for _, o in ipairs(only) do
    if #o[2] > 0 then
      out[#out + 1] = string.format("\n#### only in %s (%d)\n", o[1], #o[2])
      for _, e in ipairs(o[2]) do
        out[#out + 1] = string.format("- %s `%s`: %s", e.kind, md(e.name), md(values_text(e)))
      end
    end
  end
  io.stdout:write(table.concat(out, "\n"), "\n")
  io.stdout:flush()
  return
end

local COLUMNS = {
  { key = "label", title = "metric", align = "left" },
  { key = "a", title = "A", format = function(v, m) return num(v, m.unit) end, align = "right" },
  { key = "b", title = "B", format = function(v, m) return num(v, m.unit) end, align = "right" },
  { key = "change", title = "change", format = function(v, m) return signed(v, m.unit) end, align = "right" },
  { key = "change_pct", title = "change %", format = pct, align = "right" },
  { key = "p_adjusted", title = "p (adj.)", format = pval, align = "right" },
  { key = "significant", title = "", format = function(v) return v and "*" or "" end, align = "left" },
  { key = "unit", title = "unit", align = "left" },
}
local function note(more) return more > 0 and { string.format("  ... %d more (--limit 0 lists all)", more) } or nil end
local tables = {}
for _, sec in ipairs(sections) do
  if sec.n > 0 or sec.key == "worse" then
    tables[#tables + 1] = { title = string.format("%s (%d)", sec.title, sec.n), columns = COLUMNS, rows = sec.shown,
      empty = "none", notes = note(sec.more) }
  end
end
for _, o in ipairs(only) do
  if #o[2] > 0 then
    local rows = {}
    for i, e in ipairs(o[2]) do rows[i] = { kind = e.kind, name = e.name, values = values_text(e) } end
    local shown, more = limited(rows)
    tables[#tables + 1] = { title = string.format("only in %s (%d)", o[1], #o[2]), rows = shown, notes = note(more),
      columns = { { key = "kind", title = "kind" }, { key = "name", title = "name" },
        { key = "values", title = "values", align = "left" } } }
  end
end
local csv_columns = {}
for i, k in ipairs({ "metric", "unit", "polarity", "a", "b", "change", "change_pct", "impact", "direction",
  "normalised", "p_value", "p_adjusted", "significant", "prob_b_greater" }) do csv_columns[i] = { key = k } end
report.emit(opts, {
  title = "compare: A -> B",
  header = { { "A", side_text(r.a) }, { "B", side_text(r.b) }, { "metrics", headline },
    { "significance", test_line .. " (* = significant)" } },
  sections = tables,
  csv = { rows = r.metrics, columns = csv_columns },
  max_width = 140,
})
