-- vp.html: report.lua's page (an output module): one self-contained HTML
-- file drawing vp.overview's data: inline SVG (vp.svg) and tables, inline
-- CSS, no script, no request to anywhere: it opens offline, with
-- JavaScript off, and prints. The same data always gives the same bytes
-- (no date, no random ids).
--
--   local html = require "vp.html"
--   io.write(html.report(require("vp.overview").analyze(cap)))
local fmt = require "vp.fmt"
local svg = require "vp.svg"

local html = {}

html.esc = svg.esc

local CSS = [[
body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222;line-height:1.4}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
.meta{color:#666;margin-top:0}nav a{margin-right:12px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.worse{color:#b22}.better{color:#282}.note{color:#666;font-size:13px}
svg.vp-chart{display:block;max-width:100%;height:auto;margin:8px 0}
ul.causes{margin:0;padding-left:16px}]]

--- html.table(columns, rows) -> string: columns = [{key, title, format =
-- function, num = true}]; a nil value prints "-".
function html.table(columns, rows)
  local out = { "<table><thead><tr>" }
  for _, c in ipairs(columns) do
    out[#out + 1] = string.format('<th%s>%s</th>', c.num and ' class="n"' or "", html.esc(c.title))
  end
  out[#out + 1] = "</tr></thead><tbody>"
  for _, r in ipairs(rows) do
    out[#out + 1] = "<tr>"
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

local function ms(v) return fmt.ms(v) end
local function fixed2(v) return fmt.fixed(v, 2) end

local function section(out, id, title, body)
  out[#out + 1] = string.format('<section id="%s"><h2>%s</h2>\n%s\n</section>', id, html.esc(title), body)
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

--- html.report(doc [, opts]) -> string: the page for vp.overview's result.
-- opts.title overrides the heading.
function html.report(d, opts)
  opts = opts or {}
  local name = tostring(d.file or "capture"):match("[^/]*$")
  local out, nav = {}, {}
  local body = {}
  local range = d.frame_range and string.format("frames %s..%s", fmt.int(d.frame_range.first),
    fmt.int(d.frame_range.last)) or "no frames"
  local function add(id, title, content)
    nav[#nav + 1] = string.format('<a href="#%s">%s</a>', id, html.esc(title))
    section(body, id, title, content)
  end

  local sum = {}
  for i, r in ipairs(d.summary or {}) do
    sum[i] = { name = r.name, value = type(r.value) == "number" and fmt.number(r.value, 4) or r.value }
  end
  add("summary", "Summary", html.table({ { key = "name", title = "" }, { key = "value", title = "" } }, sum))

  if d.frametime then
    add("frametime", "Frame time", svg.frametime(d.frametime) .. string.format(
      '<p class="note">Each pixel column spans the fastest to the slowest of its frames, so no hitch is '
      .. 'averaged away. Worst frame: %s ms (frame %s). Hitches (red, %d): %s.</p>', fmt.ms(d.frametime.max_ms),
      fmt.int(d.frametime.max_frame), d.hitch_count or 0, html.esc(d.rule or "")))
  end
  if d.distribution then
    local m = d.distribution.marks
    add("distribution", "Distribution", svg.histogram(d.distribution) .. svg.percentiles({
      { name = name, curve = d.distribution.curve } }, { title = "Frame time by percentile" })
      .. string.format('<p class="note">%s, %s, %s; %s, %s: the mean of the slowest 1 %% and 0.1 %% of frames.</p>',
        html.esc(svg.mark_label("p50", m.p50)), html.esc(svg.mark_label("p95", m.p95)),
        html.esc(svg.mark_label("p99", m.p99)), html.esc(m.low_1pct_ms and svg.mark_label("1 % low", m.low_1pct_ms)
          or "1 % low -"), html.esc(m.low_01pct_ms and svg.mark_label("0.1 % low", m.low_01pct_ms) or "0.1 % low -")))
  end
  if d.budget and #d.budget.groups > 0 then add("budget", "Budget groups", svg.budget(d.budget)) end
  if d.top then
    add("top", "Top nodes (self time)", html.table({
      { key = "self_ms_per_frame", title = "self ms/frame", format = ms, num = true },
      { key = "ms_per_frame", title = "ms/frame", format = ms, num = true },
      { key = "calls_per_frame", title = "calls/frame", format = fixed2, num = true },
      { key = "peak_ms", title = "peak ms", format = ms, num = true },
      { key = "peak_frame", title = "peak frame", num = true },
      { key = "group", title = "group" }, { key = "path", title = "path" } }, d.top))
  end
  if d.hitches then
    local note = (d.hitch_count or 0) > #d.hitches and string.format(
      '<p class="note">The %d largest of %d hitches (by excess over the baseline), in frame order.</p>',
      #d.hitches, d.hitch_count) or ""
    add("hitches", string.format("Hitches (%d)", d.hitch_count or 0), note .. html.table({
      { key = "frame", title = "frame", num = true }, { key = "tick", title = "tick", num = true },
      { key = "frame_ms", title = "frame ms", format = ms, num = true },
      { key = "baseline_ms", title = "baseline ms", format = ms, num = true },
      { key = "causes", title = "causes (excess over each one's own baseline)", raw = causes_cell } }, d.hitches))
  end
  local b = d.baseline
  if b then
    local content = ""
    if b.curve then
      content = svg.percentiles({ { name = "baseline: " .. tostring(b.file):match("[^/]*$"), curve = b.curve },
        { name = name, curve = b.curve_new } }, { title = "Frame time by percentile: baseline and capture" })
    end
    content = content .. html.table({
      { key = "metric", title = "metric" },
      { key = "a", title = "baseline", format = function(v) return fmt.number(v) end, num = true },
      { key = "b", title = "capture", format = function(v) return fmt.number(v) end, num = true },
      { key = "change_pct", title = "change %", format = function(v) return (v > 0 and "+" or "") ..
        fmt.fixed(v, 1) end, num = true },
      { key = "significant", title = "significant", format = function(v) return v and "yes" or "no" end },
      { key = "direction", title = "", raw = function(v)
        return string.format('<span class="%s">%s</span>', html.esc(v or ""), html.esc(v or "-")) end },
    }, b.metrics)
    add("baseline", "Against the baseline", content)
  end
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
  out[#out + 1] = "</body></html>\n"
  return table.concat(out, "\n")
end

return html
