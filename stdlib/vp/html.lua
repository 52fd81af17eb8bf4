-- vp.html: report.lua's page (an output module): one self-contained HTML
-- file drawing vp.overview's data. The page is inline SVG (vp.svg) and
-- tables with inline CSS, then the interactive views' data (a JSON
-- element, the columns packed: html.pack) and their script (vp/html/
-- report.js, read from beside this module and inlined). No request to
-- anywhere: it opens offline; with scripting off (a mail client, a CI
-- artifact viewer, print) the static charts and tables are the page. The
-- same data always gives the same bytes (no date, no random ids).
--
--   local html = require "vp.html"
--   io.write(html.report(require("vp.overview").analyze(cap)))
local fmt = require "vp.fmt"
local json = require "vp.json"
local svg = require "vp.svg"

local html = {}

html.esc = svg.esc

local CSS = [[
body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222;line-height:1.4}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:12px 0 6px}
.meta{color:#666;margin-top:0}nav a{margin-right:12px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.worse{color:#b22}.better{color:#282}.note{color:#666;font-size:13px}
svg.vp-chart{display:block;max-width:100%;height:auto;margin:8px 0}
ul.causes{margin:0;padding-left:16px}
.vp-live,.vp-live-only{display:none}.vp-js .vp-live{display:block}.vp-js .vp-live-only{display:block}
.vp-js nav a.vp-live-only{display:inline}.vp-js .vp-static{display:none}
.vp-toolbar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:6px 0;font-size:13px}
.vp-toolbar button,button.vp-link{font-size:12px;padding:2px 8px;cursor:pointer}
button.vp-on,tr.vp-on{background:#dde7f3}.vp-range{font-variant-numeric:tabular-nums;color:#333}
.vp-hint{color:#888;font-size:12px}.vp-clickable{cursor:pointer}.vp-clickable:hover{background:#f3f6fa}
svg.vp-live-chart{cursor:crosshair;user-select:none}
.vp-tip{position:absolute;display:none;background:#fff;border:1px solid #999;padding:4px 8px;font-size:12px;
pointer-events:none;box-shadow:0 1px 4px rgba(0,0,0,.2);z-index:10;white-space:nowrap}
.vp-icicle{position:relative;width:960px;margin:8px 0;overflow:hidden}
.vp-node{position:absolute;height:19px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;font-size:11px;
line-height:19px;padding-left:2px;box-sizing:border-box;border-right:1px solid #fff;cursor:pointer}
.vp-node.vp-hl,tr.vp-hl{outline:2px solid #222;z-index:2}
.vp-groups{display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;margin:6px 0}
.vp-swatch{display:inline-block;width:10px;height:10px;margin-left:3px}
table.vp-tree-table td.vp-name{white-space:nowrap}]]

--- html.table(columns, rows [, row_attrs]) -> string: columns = [{key,
-- title, format = function, num = true}]; a nil value prints "-".
-- row_attrs(row, i) -> the row's attributes (already escaped) or nil.
function html.table(columns, rows, row_attrs)
  local out = { "<table><thead><tr>" }
  for _, c in ipairs(columns) do
    out[#out + 1] = string.format('<th%s>%s</th>', c.num and ' class="n"' or "", html.esc(c.title))
  end
  out[#out + 1] = "</tr></thead><tbody>"
  for i, r in ipairs(rows) do
    local attrs = row_attrs and row_attrs(r, i)
    out[#out + 1] = attrs and "<tr " .. attrs .. ">" or "<tr>"
    for _, c in ipairs(columns) do
      local v = r[c.key]
      local s
      if c.raw then
        s = c.raw(v, r)
      else
        s = html.esc(v == nil and "-" or (c.format and c.format(v, r) or tostring(v)))
      end
      out[#out + 1] = string.format('<td%s>%s</td>', c.num and ' class="n"' or "", s)
    end
    out[#out + 1] = "</tr>"
  end
  out[#out + 1] = "</tbody></table>"
  return table.concat(out)
end

-- Packing ----------------------------------------------------------------------
-- The interactive views' columns are lists of integers: each written as an
-- unsigned LEB128 varint (zigzag-coded first when `signed`: 0, -1, 1, -2 ->
-- 0, 1, 2, 3), the bytes base64-coded. report.js's unpack reads them.

local B64 = {}
do
  local abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, 64 do B64[i - 1] = abc:sub(i, i) end
end

local BYTE = {}
for b = 0, 255 do BYTE[b] = string.char(b) end

local function base64(s)
  local out, n = {}, #s
  for i = 1, n - 2, 3 do
    local a, b, c = s:byte(i, i + 2)
    local v = a << 16 | b << 8 | c
    out[#out + 1] = B64[v >> 18] .. B64[v >> 12 & 63] .. B64[v >> 6 & 63] .. B64[v & 63]
  end
  local rest = n % 3
  if rest == 1 then
    local v = s:byte(n) << 16
    out[#out + 1] = B64[v >> 18] .. B64[v >> 12 & 63] .. "=="
  elseif rest == 2 then
    local a, b = s:byte(n - 1, n)
    local v = a << 16 | b << 8
    out[#out + 1] = B64[v >> 18] .. B64[v >> 12 & 63] .. B64[v >> 6 & 63] .. "="
  end
  return table.concat(out)
end

--- html.pack(list [, signed]) -> string: a list of integers (whole
-- numbers; floats are rounded to the nearest) as base64 varints: the
-- encoding the page's columns use. Values must be >= 0 unless signed.
function html.pack(list, signed)
  local bytes = {}
  for i = 1, #list do
    local v = math.floor(list[i] + 0.5)
    if signed then
      v = v >= 0 and 2 * v or -2 * v - 1
    elseif v < 0 then
      error(string.format("vp.html.pack: value %d is negative (pack it signed)", v), 2)
    end
    while v >= 128 do
      bytes[#bytes + 1] = BYTE[v & 127 | 128]
      v = v >> 7
    end
    bytes[#bytes + 1] = BYTE[v]
  end
  return base64(table.concat(bytes))
end

-- x * k for each x of a list (ms to units), within what a varint holds
-- exactly: a value a broken capture gives (NaN, inf, negative, 1e308 ms)
-- is drawn at the nearest end (NaN at 0); the tables say the value itself.
local TOP_UNITS = 2 ^ 50
local function scaled(list, k)
  local out = {}
  for i = 1, #list do
    local v = list[i] * k
    out[i] = v ~= v and 0 or math.max(0, math.min(TOP_UNITS, v))
  end
  return out
end

local function deltas(list)
  local out, prev = {}, 0
  for i = 1, #list do
    out[i] = list[i] - prev
    prev = list[i]
  end
  return out
end

-- A frame column (vp.overview's frames): times in its units, ticks as
-- differences, top groups as they are.
local function pack_frames(f)
  return { first = f.first, count = f.count, unit_ms = f.unit_ms, ms = html.pack(scaled(f.ms, 1 / f.unit_ms)),
    tick = f.tick and html.pack(deltas(f.tick), true), top = f.top and html.pack(f.top) }
end

local function pack_tree(t)
  return { path = t.path, name = t.name, parent = html.pack(t.parent), group = html.pack(t.group) }
end

-- The call tree of a frame: (node index difference, time us, self us,
-- calls) per node, and for a hitch (node index difference, excess us).
local function pack_frame_tree(t)
  local flat, prev = {}, 0
  for k = 1, #t.node do
    local i = #flat
    flat[i + 1], flat[i + 2], flat[i + 3], flat[i + 4] = t.node[k] - prev, t.time_ms[k] * 1000, t.self_ms[k] * 1000,
      t.calls[k]
    prev = t.node[k]
  end
  local out = { frame = t.frame, tick = t.tick, frame_ms = t.frame_ms, kind = t.kind, baseline_ms = t.baseline_ms,
    causes = t.causes, data = html.pack(flat) }
  if t.excess then
    -- by node index, as the rows
    local order = {}
    for k = 1, #t.excess.node do order[k] = k end
    table.sort(order, function(a, b) return t.excess.node[a] < t.excess.node[b] end)
    local e, p = {}, 0
    for _, k in ipairs(order) do
      e[#e + 1], e[#e + 2] = t.excess.node[k] - p, t.excess.excess_ms[k] * 1000
      p = t.excess.node[k]
    end
    out.excess = html.pack(e, true)
  end
  return out
end

local function pack_compare(c)
  local out = { stretches = c.stretches, phases = c.phases, groups = c.groups, tree = c.tree and pack_tree(c.tree),
    sides = {} }
  for i, s in ipairs(c.sides) do
    local side = { name = s.name, runs = {}, stretches = {} }
    for k, r in ipairs(s.runs) do side.runs[k] = { file = r.file, frames = pack_frames(r.frames) } end
    for k, st in ipairs(s.stretches or {}) do
      side.stretches[k] = { frames = st.frames, time = html.pack(scaled(st.time_ms, 1000)),
        self = html.pack(scaled(st.self_ms, 1000)) }
    end
    out.sides[i] = side
  end
  return out
end

local frames_schema = "{first, count, unit_ms, ms, tick, top}"
local tree_schema = "{path: [], name: [], parent, group}"

--- The shape of html.live's result: what report.js reads.
html.live_schema = "{file, format, rule, window, targets: [{fps, ms, label}], frames: " .. frames_schema
  .. ", groups: [{name, id, total_ms}], budget: {buckets, sums: []}, budget_default: [], nodes: " .. tree_schema
  .. ", hitches: {frame: [], frame_ms: [], baseline_ms: [], cause: []}, causes: [{path, group, frames: []}], "
  .. "trees_left_out, trees: [{frame, tick, frame_ms, kind, baseline_ms, causes: [{path, group, self_ms, "
  .. "excess_ms}], data, excess}], "
  .. "phases: [{phase, first, last, typical_ms}], compare: {stretches, phases: [[{phase, first, last, typical_ms}]], "
  .. "groups: [], tree: " .. tree_schema
  .. ", sides: [{name, runs: [{file, frames: " .. frames_schema .. "}], stretches: [{frames, time, self}]}]}}"

--- html.live(doc) -> the interactive views' data (plain data in the shape
-- of html.live_schema, what the page's JSON element holds), or nil when
-- the page has none.
function html.live(d)
  local ex = d.explore
  if not ex then return nil end
  local L = { file = d.file, format = d.format, rule = d.rule, window = ex.window, targets = {},
    frames = pack_frames(ex.frames), groups = ex.groups, causes = {}, trees = {},
    trees_left_out = ex.trees_left_out,
    hitches = { frame = {}, frame_ms = {}, baseline_ms = {}, cause = {} } }
  for i, x in ipairs(ex.hitches) do
    local hl = L.hitches
    -- a hitch without a baseline (frame 1 under the absolute rule) keeps its place: null
    hl.frame[i], hl.frame_ms[i], hl.baseline_ms[i], hl.cause[i] = x.frame, x.frame_ms, x.baseline_ms or json.null,
      x.cause or json.null
  end
  for i, t in ipairs(d.targets or {}) do L.targets[i] = { fps = t.fps, ms = t.ms, label = svg.target_label(t) } end
  for i, c in ipairs(d.causes or {}) do L.causes[i] = { path = c.path, group = c.group, frames = c.frames } end
  if ex.budget then
    L.budget = { buckets = ex.budget.buckets, sums = {} }
    -- in the frame column's units: a VProf self time is a whole number of them
    for i, s in ipairs(ex.budget.sums) do L.budget.sums[i] = html.pack(scaled(s, 1 / ex.frames.unit_ms)) end
    -- the groups the static chart draws are the ones ticked at first
    local at = {}
    for i, g in ipairs(ex.groups) do at[g.id] = i end
    L.budget_default = {}
    for _, g in ipairs(d.budget and d.budget.groups or {}) do L.budget_default[#L.budget_default + 1] = at[g.id] end
  end
  if ex.nodes then L.nodes = pack_tree(ex.nodes) end
  for i, t in ipairs(ex.trees or {}) do L.trees[i] = pack_frame_tree(t) end
  L.phases = ex.phases
  if d.baseline and d.baseline.explore then L.compare = pack_compare(d.baseline.explore) end
  return L
end

-- The page's script, read once from beside this module (vp/html/report.js
-- on the module path).
local script
local function app_script()
  if script then return script end
  local path = package.searchpath("vp.html.report", (package.path:gsub("%.lua", ".js")))
  local f = path and io.open(path, "rb")
  if not f then error("vp.html: vp/html/report.js is not beside vp/html.lua on the module path", 0) end
  script = f:read("a")
  f:close()
  assert(not script:lower():find("</script", 1, true), "vp/html/report.js holds </script")
  return script
end

local function ms(v) return fmt.ms(v) end
local function fixed2(v) return fmt.fixed(v, 2) end

local function section(out, id, title, body, class)
  out[#out + 1] = string.format('<section id="%s"%s><h2>%s</h2>\n%s\n</section>', id,
    class and ' class="' .. class .. '"' or "", html.esc(title), body)
end

local function causes_cell(list)
  if not list or #list == 0 then return "-" end
  local li = {}
  for i, c in ipairs(list) do
    li[i] = string.format("<li>+%s ms %s <span class=\"note\">[%s]</span></li>", html.esc(fmt.ms(c.excess_ms)),
      html.esc(c.path), html.esc(c.group or "-"))
  end
  return '<ul class="causes">' .. table.concat(li) .. "</ul>"
end

local function live_div(id)
  return string.format('<div id="vp-live-%s" class="vp-live"></div>', id)
end

local function static_div(content)
  return '<div class="vp-static">' .. content .. "</div>"
end

local function signed_pct(v) return (v > 0 and "+" or "") .. fmt.fixed(v, 1) end

local compare_columns = {
  { key = "metric", title = "metric" },
  { key = "a", title = "baseline", format = function(v) return fmt.number(v) end, num = true },
  { key = "b", title = "capture", format = function(v) return fmt.number(v) end, num = true },
  { key = "change_pct", title = "change %", format = signed_pct, num = true },
  { key = "significant", title = "significant", format = function(v) return v and "yes" or "no" end },
  { key = "direction", title = "", raw = function(v)
    return string.format('<span class="%s">%s</span>', html.esc(v or ""), html.esc(v or "-")) end },
}

-- The comparison: the groups and nodes that changed, compare's method and
-- its verdicts on every metric (each with its evidence, method and
-- interval), the percentile curves, and the interactive timeline.
local function baseline_section(b, name)
  local content = {}
  local ex = b.explore
  if #(b.changed or {}) > 0 then
    content[#content + 1] = "<h3>What changed: budget groups and nodes</h3>" .. html.table(compare_columns, b.changed)
  else
    content[#content + 1] = '<p class="note">No budget group or node changed significantly.</p>'
  end
  if ex then content[#content + 1] = live_div("compare") end
  if b.curve then
    content[#content + 1] = svg.percentiles({ { name = "baseline: " .. tostring(b.file):match("[^/]*$"),
      curve = b.curve }, { name = name, curve = b.curve_new } },
      { title = "Frame time by percentile: baseline and capture" })
  end
  if ex then
    local settings = {}
    for i, s in ipairs(ex.settings) do settings[i] = { name = s.name, value = tostring(s.value) } end
    content[#content + 1] = "<h3>The comparison's method</h3>" .. html.table({ { key = "name", title = "" },
      { key = "value", title = "" } }, settings)
    for _, w in ipairs(ex.warnings or {}) do
      content[#content + 1] = '<p class="note">warning: ' .. html.esc(w) .. "</p>"
    end
    local function interval(_, r)
      if not r.pct_lo then return "-" end
      return string.format("%s .. %s %%", signed_pct(r.pct_lo), signed_pct(r.pct_hi))
    end
    local rows = {}
    for i = 1, math.min(#ex.verdicts, #b.metrics) do rows[i] = ex.verdicts[i] end
    local metric, va, vb, change, significant, direction = table.unpack(compare_columns)
    content[#content + 1] = string.format("<h3>Verdicts (%d of %d metrics, the largest changes first)</h3>", #rows,
      #ex.verdicts) .. html.table({
      { key = "metric", title = metric.title, raw = function(v, r)
        -- compare's note on the row (why there is no interval, ...) shows on hover
        return r.note and string.format('<span title="%s">%s *</span>', html.esc(r.note), html.esc(v)) or html.esc(v)
      end }, va, vb, change,
      { key = "pct_lo", title = "95 % interval", raw = function(v, r) return html.esc(interval(v, r)) end },
      { key = "p_adjusted", title = "p (adjusted)", format = function(v) return fmt.p_value(v) end, num = true },
      { key = "significant", title = significant.title, format = function(v, r)
        -- compare's "cannot tell" (an interval too wide to tell a regression from noise)
        if r.cannot_tell then return "cannot tell" end
        return significant.format(v)
      end }, { key = "evidence", title = "evidence" }, { key = "method", title = "method" }, direction }, rows)
      .. '<p class="note">* compare\'s note on the metric shows when the pointer is on its name.</p>'
  else
    content[#content + 1] = html.table(compare_columns, b.metrics)
  end
  return table.concat(content, "\n")
end

--- html.report(doc [, opts]) -> string: the page for vp.overview's result.
-- opts.title overrides the heading.
function html.report(d, opts)
  opts = opts or {}
  local name = tostring(d.file or "capture"):match("[^/]*$")
  local out, nav = {}, {}
  local body = {}
  local range = d.frame_range and string.format("frames %s..%s", fmt.int(d.frame_range.first),
    fmt.int(d.frame_range.last)) or "no frames"
  local function add(id, title, content, class)
    nav[#nav + 1] = string.format('<a href="#%s"%s>%s</a>', id, class and ' class="' .. class .. '"' or "",
      html.esc(title))
    section(body, id, title, content, class)
  end
  local live = html.live(d)

  local sum = {}
  for i, r in ipairs(d.summary or {}) do
    sum[i] = { name = r.name, value = type(r.value) == "number" and fmt.number(r.value, 4) or r.value }
  end
  add("summary", "Summary", html.table({ { key = "name", title = "" }, { key = "value", title = "" } }, sum))

  if d.frametime then
    local targets = {}
    for i, t in ipairs(d.targets or {}) do targets[i] = svg.target_label(t) end
    add("frametime", "Frame time", static_div(svg.frametime(d.frametime) .. string.format(
      '<p class="note">Each pixel column spans the fastest to the slowest of its frames, so no hitch is '
      .. 'averaged away. Worst frame: %s ms (frame %s). Hitches (red, %d): %s. Target frame times (green): %s.</p>',
      fmt.ms(d.frametime.max_ms), fmt.int(d.frametime.max_frame), d.hitch_count or 0, html.esc(d.rule or ""),
      html.esc(table.concat(targets, ", ")))) .. (live and live_div("frametime") or ""))
  end
  if live and live.nodes then
    add("tree", "Call tree of a frame", '<div id="vp-live-tree"><p class="note">Click a frame on the frame-time '
      .. 'chart, or a hitch in the tables below, to see its call tree.</p></div>', "vp-live-only")
  end
  if d.causes and #d.causes > 0 then
    add("causes", "Hitches by cause", html.table({
      { key = "path", title = "cause (the node with the largest excess)", format = function(v) return v end },
      { key = "group", title = "group" },
      { key = "count", title = "hitches", num = true },
      { key = "excess_ms", title = "total excess ms", format = ms, num = true },
      { key = "worst_frame", title = "worst frame", num = true },
      { key = "worst_excess_ms", title = "its excess ms", format = ms, num = true } }, d.causes,
      function(_, i) return live and string.format('data-cause="%d"', i) or nil end)
      .. '<p class="note">Each hitch counts towards its first cause: the node whose self time rose most over its '
      .. 'own baseline (the same figures hitches.lua prints).</p>' .. (live and live_div("causes") or ""))
  end
  if d.hitches then
    local note = (d.hitch_count or 0) > #d.hitches and string.format(
      '<p class="note">The %d largest of %d hitches (by excess over the baseline), in frame order.</p>',
      #d.hitches, d.hitch_count) or ""
    add("hitches", string.format("Hitches (%d)", d.hitch_count or 0), note .. html.table({
      { key = "frame", title = "frame", num = true }, { key = "tick", title = "tick", num = true },
      { key = "frame_ms", title = "frame ms", format = ms, num = true },
      { key = "baseline_ms", title = "baseline ms", format = ms, num = true },
      { key = "causes", title = "causes (excess over each one's own baseline)", raw = causes_cell } }, d.hitches,
      function(r) return live and string.format('data-frame="%d"', r.frame) or nil end))
  end
  if d.windows then
    local rows, columns = require("vp.hitches.render").windows(d.windows)
    add("windows", string.format("Per %s of frame time", fmt.span(d.per_ms)), html.table(columns, rows))
  end
  if d.budget and #d.budget.groups > 0 then
    add("budget", "Budget groups", static_div(svg.budget(d.budget)) .. (live and live_div("budget") or ""))
  end
  if d.distribution then
    local m = d.distribution.marks
    local function mark(label, v) return html.esc(v and svg.mark_label(label, v) or label .. " -") end
    add("distribution", "Distribution", svg.histogram(d.distribution) .. svg.percentiles({
      { name = name, curve = d.distribution.curve } }, { title = "Frame time by percentile" })
      .. (d.exceedance and svg.exceedance(d.exceedance, { targets = d.targets }) or "")
      .. string.format('<p class="note">%s, %s, %s; %s, %s: the mean of the slowest 1 %% and 0.1 %% of frames.</p>',
        mark("p50", m.p50), mark("p95", m.p95), mark("p99", m.p99), mark("1 % low", m.low_1pct_ms),
        mark("0.1 % low", m.low_01pct_ms)))
  end
  if d.top then
    add("top", "Top nodes (self time)", html.table({
      { key = "self_ms_per_frame", title = "self ms/frame", format = ms, num = true },
      { key = "ms_per_frame", title = "ms/frame", format = ms, num = true },
      { key = "calls_per_frame", title = "calls/frame", format = fixed2, num = true },
      { key = "peak_ms", title = "peak ms", format = ms, num = true },
      { key = "peak_frame", title = "peak frame", num = true },
      { key = "group", title = "group" }, { key = "path", title = "path" } }, d.top))
  end
  if d.baseline then add("baseline", "Against the baseline", baseline_section(d.baseline, name)) end
  if d.weapons then
    local rows = {}
    for i, w in ipairs(d.weapons) do
      local parts = {}
      for _, k in ipairs(d.kinds) do
        if k ~= "agree" then parts[#parts + 1] = { name = k, value = w.by_kind[k] or 0 } end
      end
      rows[i] = { label = "template " .. tostring(w.weapon_template_id), parts = parts }
    end
    add("weapons", "Disagreement kinds per weapon template", svg.bars(rows, { unit = "traces",
      title = "Client/server disagreements by kind" }))
  end
  if d.lag and #d.lag > 0 then
    local ping, loss = {}, {}
    for _, s in ipairs(d.lag) do
      if s.name:find("loss") then loss[#loss + 1] = s else ping[#ping + 1] = s end
    end
    local content = ""
    if #ping > 0 then content = svg.lines(ping, { title = "Ping over time", ylabel = "ms", xlabel = "s" }) end
    if #loss > 0 then content = content .. svg.lines(loss, { title = "Packet loss over time", ylabel = "loss",
      xlabel = "s" }) end
    add("lag", "Ping and loss", content)
  end
  if d.systems and #d.systems > 0 then
    local rows = {}
    for i, s in ipairs(d.systems) do
      rows[i] = { label = s.name, limit = s.budget_ms, parts = { { name = s.over and "over budget" or "p99",
        value = s.p99_ms or 0, color = s.over and "#e15759" or "#4e79a7" } } }
    end
    add("systems", "Systems against their budgets", svg.bars(rows, { unit = "p99 ms (black tick: the budget)",
      title = "Systems: p99 against budget", legend = false }))
  end

  out[#out + 1] = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
  out[#out + 1] = string.format("<title>%s</title><style>%s</style></head><body>",
    html.esc(opts.title or ("vpscript report: " .. name)), CSS)
  out[#out + 1] = string.format('<h1>%s</h1><p class="meta">%s capture, %s; made by vpscript %s</p>',
    html.esc(opts.title or name), html.esc(d.format or "?"), range, html.esc(require("vp").version or ""))
  out[#out + 1] = "<nav>" .. table.concat(nav) .. "</nav>"
  out[#out + 1] = table.concat(body, "\n")
  if live then
    -- "<" only occurs inside JSON strings, where \u003c stands for it: no
    -- name in the data can end the element
    out[#out + 1] = '<script type="application/json" id="vp-data">'
      .. json.encode(live, html.live_schema):gsub("<", "\\u003c")
      .. "</script>"
    out[#out + 1] = "<script>\n" .. app_script() .. "</script>"
  end
  out[#out + 1] = "</body></html>\n"
  return table.concat(out, "\n")
end

--- html.page(title, meta, sections) -> string: a page of sections {id,
-- title, body (HTML)} in report.lua's style, with a table of contents
-- (history.lua trend --html).
function html.page(title, meta, sections)
  local nav, body = {}, {}
  for _, s in ipairs(sections) do
    nav[#nav + 1] = string.format('<a href="#%s">%s</a>', html.esc(s.id), html.esc(s.title))
    section(body, html.esc(s.id), s.title, s.body)
  end
  return table.concat({ '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
    string.format("<title>%s</title><style>%s</style></head><body>", html.esc(title), CSS),
    string.format('<h1>%s</h1><p class="meta">%s</p>', html.esc(title), html.esc(meta)),
    "<nav>" .. table.concat(nav) .. "</nav>", table.concat(body, "\n"), "</body></html>\n" }, "\n")
end

return html
