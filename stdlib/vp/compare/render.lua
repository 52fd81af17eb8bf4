-- vp.compare.render: compare.lua's output: the --json document, and the
-- text, Markdown and CSV tables of a vp.compare result (sections by
-- direction, only-in lists, the test and shape lines). Presentation only:
-- every figure comes from vp.compare.analyze.
--
--   local render = require "vp.compare.render"
--   if opts.json then cli.json(render.document(r), compare.schema)
--   else render.emit(r, opts) end      -- opts: markdown, limit, all, csv, wide
local fmt = require "vp.fmt"
local json = require "vp.json"
local report = require "vp.report"
local metrics = require "vp.metrics"

local render = {}

--- render.document(r) -> the --json document: vp.compare's result with each
-- only_in_* entry's values as a map (null for the ones the capture cannot give).
function render.document(r)
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
  return doc
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
local function signed_pct(v) return (v > 0 and "+" or "") .. fmt.fixed(v, 1) end
-- the 95 % interval of change %, or of the change when A is 0
local function ci_text(m)
  local ci = m.ci
  if not ci then return "-" end
  if ci.pct_lo then return signed_pct(ci.pct_lo) .. " .. " .. signed_pct(ci.pct_hi) .. " %" end
  return signed(ci.change_lo, m.unit) .. " .. " .. signed(ci.change_hi, m.unit)
end
local function pval(v) return v == nil and "" or fmt.p_value(v) end
local function shape_text(m)
  local s = m.shape
  if not s or s.p_adjusted == nil then return "" end
  return fmt.p_value(s.p_adjusted) .. (s.significant and " *" or "")
end
local function effect(m, key, digits)
  local e = m.effect
  if not e or e[key] == nil then return "" end
  if key == "hl_shift" then return signed(e.hl_shift, m.unit:match("^ms") and "ms" or nil) end
  return (e[key] > 0 and "+" or "") .. fmt.fixed(e[key], digits)
end
local function label(m)
  if m.normalised then return m.metric .. " (per " .. m.unit:match("/(.*)$") .. ")" end
  return m.metric
end

--- render.phases_text(phases) -> "3 phases: 1..1,999 at 14.14 ms, ...": a
-- capture's phases (vp.phases) on one line.
function render.phases_text(list)
  local parts = {}
  for i, ph in ipairs(list or {}) do
    parts[i] = string.format("%s..%s at %s ms", fmt.int(ph.first), fmt.int(ph.last), fmt.ms(ph.typical_ms))
  end
  return string.format("%d phase%s: %s", #parts, #parts == 1 and "" or "s", table.concat(parts, ", "))
end

-- The section a metric is listed in: its direction, except that a change
-- whose median shift (Hodges-Lehmann) goes the other way is "mixed", never
-- an improvement or a regression.
local function section_of(m)
  local d, hl = m.direction, m.effect and m.effect.hl_shift
  if (d == "worse" or d == "better") and hl and hl ~= 0 then
    local worse_sign = m.polarity == "higher" and -1 or 1
    if (hl * worse_sign > 0) ~= (d == "worse") then return "mixed" end
  end
  return d
end

-- The frame-level metrics the default text leads with, in this order.
local FRAME_LEVEL = { "frame_ms.mean", "frame_ms.p50", "frame_ms.p95", "frame_ms.p99", "frame_ms.max",
  "low_1pct_fps", "low_01pct_fps", "hitches", "stutter_pct" }

-- The verdict of one metric, in words.
local function verdict_of(m)
  if m.significant then return (m.direction == "better" and "better" or "worse") .. " (significant)" end
  if m.cannot_tell then return "cannot tell" end
  if m.p_adjusted == nil then return m.direction == "same" and "no change" or m.direction .. " (not tested)" end
  return "no significant change"
end

-- The frame-level verdict on one line: "worse: frame_ms.mean +10.0 %, ..."
-- from the significant frame-level changes, else what can be said.
local function headline_verdict(rows)
  local worse, better, unsure = {}, {}, 0
  for _, m in ipairs(rows) do
    local t = m.metric .. " " .. (m.change_pct and ((m.change_pct > 0 and "+" or "") .. fmt.fixed(m.change_pct, 1)
      .. " %") or "new")
    if m.significant and m.direction == "worse" then worse[#worse + 1] = t end
    if m.significant and m.direction == "better" then better[#better + 1] = t end
    if m.cannot_tell then unsure = unsure + 1 end
  end
  if #worse > 0 then
    return "B is worse: " .. table.concat(worse, ", ") .. (#better > 0 and ("; better: " .. table.concat(better, ", "))
      or "")
  end
  if #better > 0 then return "B is better: " .. table.concat(better, ", ") end
  if unsure > 0 then return "cannot tell: " .. require("vp.compare").CANNOT_TELL end
  return "no significant change in the frame time"
end

-- compare.lua's default text: the frame-level verdict, then the significant
-- regressions and improvements of everything else, largest first, a leaf
-- node's self time (the same numbers as its time) not listed twice.
local function lead(r, opts, columns, header)
  local by, frame_rows = {}, {}
  for _, m in ipairs(r.metrics) do by[m.metric] = m end
  for _, name in ipairs(FRAME_LEVEL) do
    local m = by[name]
    if m then
      frame_rows[#frame_rows + 1] = setmetatable({ label = label(m), verdict = verdict_of(m) }, { __index = m })
    end
  end
  table.insert(header, 1, { "verdict", headline_verdict(frame_rows) })
  local frame_level = {}
  for _, name in ipairs(FRAME_LEVEL) do frame_level[name] = true end
  local matter, rest = {}, 0
  for _, m in ipairs(r.metrics) do
    local node = m.metric:match("^(node%..+)%.self_ms$")
    local twin = node and by[node .. ".mean_ms"]
    local leaf_twice = twin and twin.a == m.a and twin.b == m.b
    local where = section_of(m)
    if not frame_level[m.metric] and not leaf_twice then
      -- a share (no better direction) moves when others do: not a change that matters by itself
      if m.significant and (where == "worse" or where == "better") then
        matter[#matter + 1] = setmetatable({ label = label(m), verdict = where }, { __index = m })
      elseif where ~= "same" then
        rest = rest + 1
      end
    end
  end
  table.sort(matter, function(x, y)
    local ax, ay = math.abs(x.impact or x.change_pct or 0), math.abs(y.impact or y.change_pct or 0)
    if ax ~= ay then return ax > ay end
    return x.metric < y.metric
  end)
  local shown = matter
  local more = 0
  if opts.limit ~= 0 and #matter > opts.limit then
    shown, more = table.move(matter, 1, opts.limit, 1, {}), #matter - opts.limit
  end
  local verdict_col = { key = "verdict", title = "verdict", align = "left" }
  local frame_cols = { columns[1], columns[2], columns[3], columns[5], columns[6], columns[7], verdict_col,
    columns[#columns] }
  local matter_cols = { columns[1], columns[2], columns[3], columns[5], columns[6], columns[7], columns[9],
    verdict_col, columns[#columns] }
  local notes = {}
  if more > 0 then notes[#notes + 1] = string.format("  ... %d more significant (--limit 0 lists them)", more) end
  if rest > 0 then
    notes[#notes + 1] = string.format("  %d other metrics moved without significance: --all lists every metric",
      rest)
  end
  return {
    { title = "frame time", columns = frame_cols, rows = frame_rows, empty = "no frame metrics" },
    { title = string.format("changes that matter (%d significant)", #matter), columns = matter_cols, rows = shown,
      empty = "none significant", notes = #notes > 0 and notes or nil },
  }
end

--- render.emit(r, opts): print r as a table (or Markdown with opts.markdown,
-- CSV with opts.csv). The text leads with the frame-level verdict and the
-- significant changes (opts.limit rows, 0 = all); opts.all lists every
-- metric by section instead (regressions, improvements, mixed: the mean
-- and the median shift disagree, changed, unchanged), as Markdown does
-- (without the unchanged unless opts.all).
function render.emit(r, opts)
  local SECTIONS = {
    { key = "worse", title = "regressions" }, { key = "better", title = "improvements" },
    { key = "mixed", title = "mixed (the mean and the median shift disagree)" },
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
        if section_of(m) == sec.key then list[#list + 1] = setmetatable({ label = label(m) }, { __index = m }) end
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
        -- anchored: an unanchored "([^.]*)$" retries from every byte of a long name
        local short = e.kind == "metric" and x.metric or x.metric:match("^.*%.([^.]*)$") or x.metric
        parts[#parts + 1] = short .. " " .. num(x.value, (metrics.lookup(x.metric)).unit)
      end
    end
    return table.concat(parts, ", ")
  end
  local function side_text(x)
    local frames = x.frames and (", " .. fmt.int(x.frames) .. " frames" .. (x.runs > 1 and " a run" or "")) or ""
    if x.runs == 1 then return string.format("%s (%s%s)", x.file, x.format, frames) end
    return string.format("%d runs: %s .. %s (%s%s)", x.runs, x.files[1], x.files[#x.files], x.format, frames)
  end
  local s = r.summary
  local headline = string.format("%d metrics: %d worse (%d significant), %d better (%d significant), %d changed, "
    .. "%d unchanged", s.metrics, s.worse, s.significant_worse, s.better, s.significant_better, s.changed, s.same)
  local test_line
  local pairing = r.pairing
  if r.evidence == "runs" then
    test_line = string.format("Welch t on the %d and %d run values", r.a.runs, r.b.runs)
  elseif r.evidence == "aligned" then
    test_line = string.format("paired stretches (%d by %s: the captures line up)", pairing.stretches, pairing.axis)
  else
    test_line = "per-frame batch means (allows for slow drift)"
  end
  test_line = string.format("%s, two-sided, Holm-adjusted over %d metrics, alpha %s; intervals %s %%", test_line,
    r.tests, fmt.number(r.alpha, 4), fmt.number(100 * r.level, 3))
  local SHAPE_TEXT = { grid = "quantile grid", ks = "Kolmogorov-Smirnov", ad = "Anderson-Darling" }
  local shape_line = string.format("%s, Holm-adjusted over %d distributions: %d changed", SHAPE_TEXT[r.shape_test],
    r.shape_tests, s.shape_changes)
  local only = { { "A", r.only_in_a }, { "B", r.only_in_b } }

  if opts.markdown then
    local code = report.md_code -- names and files as code spans: never markup
    local out = { string.format("### vpscript compare\n\n**A** %s -> **B** %s\n", code(side_text(r.a)),
      code(side_text(r.b))),
      headline .. ". Significance: " .. test_line .. ". Shape: " .. shape_line .. "." }
    for _, w in ipairs(r.warnings) do out[#out + 1] = "\n> warning: " .. w end
    local function md(x) return (tostring(x):gsub("|", "\\|")) end
    for _, sec in ipairs(sections) do
      if sec.n > 0 then
        out[#out + 1] = string.format("\n#### %s (%d)\n\n| metric | A | B | change | change %% | 95 %% CI | "
          .. "p (adj.) | | HL shift | Cliff's d | shape p |\n|---|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|",
          sec.title, sec.n)
        for _, m in ipairs(sec.shown) do
          out[#out + 1] = string.format("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", code(m.label, true),
            num(m.a, m.unit), num(m.b, m.unit), signed(m.change, m.unit), pct(m.change_pct), ci_text(m),
            pval(m.p_adjusted), m.significant and "**significant**" or "", effect(m, "hl_shift"),
            effect(m, "cliffs_delta", 2), shape_text(m))
        end
        if sec.more > 0 then out[#out + 1] = string.format("\n_%d more (see --limit 0)_", sec.more) end
      end
    end
    for _, o in ipairs(only) do
      if #o[2] > 0 then
        out[#out + 1] = string.format("\n#### only in %s (%d)\n", o[1], #o[2])
        for _, e in ipairs(o[2]) do
          out[#out + 1] = string.format("- %s %s: %s", e.kind, code(e.name), md(values_text(e)))
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
    { key = "ci", title = "95 % CI", format = function(_, m) return ci_text(m) end, align = "right" },
    { key = "p_adjusted", title = "p (adj.)", format = pval, align = "right" },
    { key = "significant", title = "", format = function(v) return v and "*" or "" end, align = "left" },
    { key = "effect", title = "HL shift", format = function(_, m) return effect(m, "hl_shift") end, align = "right" },
    { key = "effect", title = "delta", format = function(_, m) return effect(m, "cliffs_delta", 2) end,
      align = "right" },
    { key = "shape", title = "shape p", format = function(_, m) return shape_text(m) end, align = "right" },
    { key = "unit", title = "unit", align = "left" },
  }
  local function note(more)
    return more > 0 and { string.format("  ... %d more (--limit 0 lists all)", more) } or nil
  end
  local tables = {}
  for _, sec in ipairs(opts.all and sections or {}) do
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
  local function nested(path)
    local a, b = path:match("^(%w+)%.([%w_]+)$")
    return function(_, row) return row[a] and row[a][b] end
  end
  local csv_columns = {}
  for i, k in ipairs({ "metric", "unit", "polarity", "a", "b", "change", "change_pct", "impact", "direction",
    "normalised", "evidence", "p_value", "p_adjusted", "significant", "ci.pct_lo", "ci.pct_hi", "ci.change_lo",
    "ci.change_hi", "effect.hl_shift", "effect.cliffs_delta", "shape.p_adjusted" }) do
    csv_columns[i] = { key = k, csv = k:gsub("%.", "_"), csv_value = k:find("%.") and nested(k) or nil }
  end
  local header = { { "A", side_text(r.a) }, { "B", side_text(r.b) }, { "metrics", headline },
    { "significance", test_line .. " (* = significant)" }, { "shape", shape_line } }
  if pairing then
    header[#header + 1] = { "pairing", pairing.why }
    header[#header + 1] = { "phases A", render.phases_text(pairing.phases_a) }
    header[#header + 1] = { "phases B", render.phases_text(pairing.phases_b) }
  end
  if s.cannot_tell > 0 then
    header[#header + 1] = { "cannot tell", string.format("%d metric%s: the interval is wider than +-%s %%; %s",
      s.cannot_tell, s.cannot_tell == 1 and "" or "s", fmt.number(require("vp.compare").NO_POWER_PCT, 3),
      require("vp.compare").CANNOT_TELL) }
  end
  for _, w in ipairs(r.warnings) do header[#header + 1] = { "warning", w } end
  if not opts.all then
    for i, t in ipairs(lead(r, opts, COLUMNS, header)) do table.insert(tables, i, t) end
  end
  report.emit(opts, {
    title = "compare: A -> B",
    header = header,
    sections = tables,
    csv = { rows = r.metrics, columns = csv_columns },
  })
end

return render
