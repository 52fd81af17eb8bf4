-- vp.history.render: what history.lua prints and writes (an output module):
-- the changes as a table and JUnit, the trend as a table with a sparkline,
-- an SVG chart (vp.svg) and an HTML page (vp.html), each point's commit
-- shown on hover and in the page's tables.
local fmt = require "vp.fmt"
local html = require "vp.html"
local junit = require "vp.junit"
local svg = require "vp.svg"

local render = {}

local function short(commit)
  if type(commit) ~= "string" then return "-" end
  return commit:sub(1, 10)
end

--- render.series_name(s) -> "scenario / platform / branch: metric".
function render.series_name(s)
  return string.format("%s / %s / %s: %s", s.scenario, s.platform, s.branch, s.metric)
end

local function value(v, unit)
  if type(v) ~= "number" then return "-" end
  local s = unit == "ms" and fmt.ms(v) or fmt.number(v, 3)
  return s
end

local function interval(seg, unit)
  return string.format("%s (%s .. %s)", value(seg.mean, unit), value(seg.lo, unit), value(seg.hi, unit))
end

local function signed_pct(v)
  return string.format("%+.1f %%", v)
end

--- render.changes_rows(doc) -> rows for fmt.table / CSV: one per change.
function render.changes_rows(doc)
  local rows = {}
  for i, c in ipairs(doc.changes) do
    rows[i] = { id = c.id, state = c.state, series = render.series_name(c),
      commits = short(c.before_commit) .. ".." .. short(c.after_commit), after_time = c.after_time,
      before = interval(c.before, c.unit), after = interval(c.after, c.unit), size_pct = c.size_pct,
      p_value = c.p_value,
      verdict = (c.regression and c.latest and c.state == "new") and "REGRESSION" or
        (c.regression and "worse" or (c.polarity == "none" and "changed" or "better")) }
  end
  return rows
end

render.CHANGE_COLUMNS = {
  { key = "id", title = "id" }, { key = "state", title = "state" }, { key = "verdict", title = "verdict" },
  { key = "series", title = "series", align = "left" },
  { key = "commits", title = "commits" },
  { key = "before", title = "before (95 % CI)", align = "right" },
  { key = "after", title = "after (95 % CI)", align = "right" },
  { key = "size_pct", title = "change", format = function(v) return signed_pct(v) end },
  { key = "p_value", title = "p", format = function(v) return fmt.p_value(v) end },
}

--- render.changes_model(doc) -> the vp.report model of `history.lua
-- changes`: the table of changes (text, CSV) and the document (JSON).
function render.changes_model(doc, schema)
  local notes = {}
  if doc.failing > 0 then
    notes[1] = "\nacknowledge a change once it is understood: vpscript history.lua ack --db DB ID"
  end
  return { json = doc, schema = schema, title = "history: " .. doc.store,
    header = { { "series", fmt.int(doc.series) }, { "points", fmt.int(doc.points) },
      { "failing", string.format("%d new regression%s among each series' latest %d points", doc.failing,
        doc.failing == 1 and "" or "s", doc.params.latest) } },
    sections = { { title = string.format("change points (%d)", #doc.changes), rows = render.changes_rows(doc),
      columns = render.CHANGE_COLUMNS, empty = "no change points", notes = notes } } }
end

--- render.junit(doc) -> a vp.junit suite: one testcase per change found,
-- failed when it is a new regression among the latest points; one passing
-- testcase when there is none.
function render.junit(doc)
  local esc = junit.escape
  local lines, failures = {}, 0
  local cases = {}
  for _, c in ipairs(doc.changes) do
    local name = string.format("change %s: %s", tostring(c.id), render.series_name(c))
    local msg = string.format("%s %s -> %s (%s, p = %s) between %s and %s; %s", c.metric, value(c.before.mean, c.unit),
      value(c.after.mean, c.unit), signed_pct(c.size_pct), fmt.p_value(c.p_value), short(c.before_commit),
      short(c.after_commit), c.state)
    local failed = c.regression and c.latest and c.state == "new"
    if failed then failures = failures + 1 end
    cases[#cases + 1] = { name = name, msg = msg, failed = failed }
  end
  if #cases == 0 then cases[1] = { name = "change points", msg = "no change points in " .. doc.series .. " series" } end
  lines[1] = string.format('  <testsuite name="%s" tests="%d" failures="%d" errors="0" skipped="0" time="0">',
    esc("history " .. doc.store), #cases, failures)
  for _, k in ipairs(cases) do
    lines[#lines + 1] = string.format('    <testcase classname="%s" name="%s" time="0">', esc("history"),
      esc(k.name))
    if k.failed then
      lines[#lines + 1] = string.format('      <failure type="regression" message="%s">%s</failure>', esc(k.msg),
        esc(k.msg))
    else
      lines[#lines + 1] = "      <system-out>" .. esc(k.msg) .. "</system-out>"
    end
    lines[#lines + 1] = "    </testcase>"
  end
  lines[#lines + 1] = "  </testsuite>"
  return { xml = table.concat(lines, "\n"), tests = #cases, failures = failures, errors = 0, skipped = 0 }
end

-- Trend ----------------------------------------------------------------------------------

local TREND_COLUMNS = {
  { key = "index", title = "#" }, { key = "time", title = "time" }, { key = "commit", title = "commit" },
  { key = "value", title = "value", align = "right" }, { key = "se", title = "+- se", align = "right" },
  { key = "n", title = "frames" }, { key = "change", title = "change point (first point after it)", align = "left" },
}

local function marks_at(s)
  local at = {}
  for _, c in ipairs(s.changes) do at[c.index] = c end
  return at
end

local function change_label(c)
  return string.format("change %s%s %s (p = %s)", c.id and ("#" .. c.id .. " ") or "", signed_pct(c.size_pct),
    c.state or "not recorded", fmt.p_value(c.p_value))
end

--- render.sparkline(values) -> block characters from the smallest value to the largest.
function render.sparkline(values)
  local lo = math.huge
  for _, v in ipairs(values) do lo = math.min(lo, v) end
  local shifted = {}
  for i, v in ipairs(values) do shifted[i] = v - lo end
  return svg.sparkline(shifted)
end

--- render.trend_model(doc, schema, points) -> the vp.report model of
-- `history.lua trend`: each series a section, titled with a sparkline of
-- its last 100 points, its table the last `points` points (0: all).
function render.trend_model(doc, schema, last)
  local sections = {}
  for _, s in ipairs(doc.series) do
    local pts, at = s.points, marks_at(s)
    local vals, lo, hi = {}, math.huge, -math.huge
    for i = math.max(1, #pts - 99), #pts do
      vals[#vals + 1] = pts[i].value
      lo, hi = math.min(lo, pts[i].value), math.max(hi, pts[i].value)
    end
    local title = string.format("%s (%s): %d points, %d change%s", render.series_name(s), s.unit or "-", #pts,
      #s.changes, #s.changes == 1 and "" or "s")
    if #vals > 0 then
      title = title .. string.format("\n  %s  %s .. %s", render.sparkline(vals), value(lo, s.unit), value(hi, s.unit))
    end
    local rows = {}
    for i = (last > 0 and #pts > last) and #pts - last + 1 or 1, #pts do
      local p = pts[i]
      rows[#rows + 1] = { index = i, time = p.time, commit = short(p.commit), value = value(p.value, s.unit),
        se = p.se and value(p.se, s.unit) or "-", n = p.n, change = at[i] and change_label(at[i]) or "" }
    end
    sections[#sections + 1] = { title = title, rows = rows, columns = TREND_COLUMNS }
  end
  return { json = doc, schema = schema, title = "history: " .. doc.store,
    header = { { "series", fmt.int(#doc.series) } }, sections = sections,
    notes = #doc.series == 0 and { "  no series match" } or nil }
end

local function chart(s)
  local at = marks_at(s)
  local points, marks = {}, {}
  for i, p in ipairs(s.points) do
    points[i] = { x = i, y = p.value, title = string.format("#%d %s %s: %s%s", i, short(p.commit), p.time,
      value(p.value, s.unit), p.se and (" +- " .. value(p.se, s.unit)) or "") }
    if at[i] then marks[#marks + 1] = { x = i - 0.5, label = change_label(at[i]) } end
  end
  return svg.lines({ { name = s.metric, points = points } }, { title = render.series_name(s), marks = marks,
    xlabel = "point (in time order; hover: commit, time, value)", ylabel = s.unit or "" })
end

--- render.trend_svg(doc) -> one SVG file: each series' chart, one under the other.
function render.trend_svg(doc)
  local parts, y = {}, 0
  for _, s in ipairs(doc.series) do
    local one = chart(s):gsub("^<svg ", string.format('<svg y="%d" ', y), 1)
    parts[#parts + 1] = one
    y = y + svg.H
  end
  return string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">\n%s'
    .. "</svg>\n", svg.W, math.max(y, 1), svg.W, math.max(y, 1), table.concat(parts))
end

--- render.trend_html(doc) -> a page: each series' chart and the table of
-- every point with its commit, time, value, standard error and changes.
function render.trend_html(doc)
  local sections = {}
  for i, s in ipairs(doc.series) do
    local at = marks_at(s)
    local rows = {}
    for j, p in ipairs(s.points) do
      rows[j] = { index = j, time = p.time, commit = p.commit, value = value(p.value, s.unit),
        se = p.se and value(p.se, s.unit) or nil, n = p.n, file = p.file,
        change = at[j] and change_label(at[j]) or nil }
    end
    sections[i] = { id = "s" .. i, title = render.series_name(s), body = chart(s) .. html.table({
      { key = "index", title = "#", num = true }, { key = "time", title = "time" },
      { key = "commit", title = "commit" }, { key = "value", title = "value", num = true },
      { key = "se", title = "+- se", num = true }, { key = "n", title = "frames", num = true },
      { key = "change", title = "change point (first point after it)" }, { key = "file", title = "capture" } },
      rows) }
  end
  return html.page("vpscript history: " .. doc.store, string.format("%d series; made by vpscript %s", #doc.series,
    require("vp").version or ""), sections)
end

return render
