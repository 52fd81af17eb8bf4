-- hitdiff.lua: client/server hit disagreement per bullet of a weapon trace (.dw)
--
-- Every used slot of a .dw holds one bullet with the client's and the
-- server's hit records side by side. This script classifies each bullet by
-- the first rule that matches (see DESCRIPTION, printed by --help, and
-- stdlib/vp/hitdiff.lua), counts the kinds, breaks them down by weapon
-- template and ammo type where the movement block is present, and measures
-- the time between the two sides' terminal hits.
--
-- usage: vpscript hitdiff.lua [options] CAPTURE...   (several files or directories: one run each,
--        see vp.multi; --json then prints one document per line)
--   --tolerance X   terminal positions further apart than X disagree (0.5)
--   --details       list every disagreeing trace in the text output
--   --max-details N disagreeing traces listed (1,000; all are counted; 0 = all)
--   --json, --csv, --help
--
-- JSON: hitdiff.schema (stdlib/vp/hitdiff.lua), one document; absent
-- values are null:
--   { file, format = "dw", traces, compared, not_compared, agree, disagree,
--     rate_pct,                       -- 100 * disagree / compared
--     tolerance,
--     by_kind = { no_server_data, no_client_data, client_only_hit,
--                 server_only_hit, entity_mismatch, outcome_mismatch,
--                 position_mismatch, agree },          -- counts, all eight
--     details = [ { trace_id, kind, client, server, distance, index, slot,
--                   client_hits, server_hits, weapon_template_id,
--                   ammo_type_id } ],  -- every compared trace that disagrees
--                                      -- (the first --max-details)
--     unlisted_details,                -- the disagreeing traces not listed
--         client/server: the side's terminal hit { type, type_name, time,
--                   position = {x, y, z}, guid, entity_id, controller } or null
--     by_weapon = [ { weapon_template_id, traces, compared, agree, disagree,
--                     rate_pct, by_kind } ],   -- traces with a movement block
--     by_ammo   = [ { ammo_type_id, ... same ... } ],
--     terminal_dt = { pairs, mean, p95, min, max, mean_abs, p95_abs } }
-- --csv prints the details table.
-- The analysis is stdlib/vp/hitdiff.lua (hitdiff.analyze, which the metric
-- catalogue uses too); this script parses the options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local hitdiff = require "vp.hitdiff"

local SPEC = {
  name = "hitdiff.lua",
  schema = hitdiff.schema, -- printed by --help
  formats = { "dw" },
  summary = "Client/server hit disagreement per bullet of a .dw weapon trace.",
  description = hitdiff.DEFINITIONS,
  options = {
    { "--tolerance", type = "number", default = hitdiff.DEFAULT_TOLERANCE, min = 0, metavar = "X",
      help = "terminal positions further apart than X are a position_mismatch" },
    { "--details", type = "flag", help = "list every disagreeing trace with both terminal hits" },
    { "--max-details", type = "integer", default = hitdiff.DEFAULTS.max_details, min = 0, metavar = "N",
      help = "disagreeing traces listed (text, CSV and JSON; all are counted; 0 = all)" },
  },
  positional = { { "CAPTURE", help = "a .dw weapon trace" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open_as(path, opts, "dw")

local res = cli.run(hitdiff.analyze, cap, { tolerance = opts.tolerance, max_details = opts.max_details,
  file = path })
local dt = res.terminal_dt

-- Text --------------------------------------------------------------------

local kind_rows = {}
for _, k in ipairs(hitdiff.KINDS) do
  local n = res.by_kind[k]
  kind_rows[#kind_rows + 1] = {
    kind = k, count = n, share = res.compared > 0 and 100 * n / res.compared or nil,
  }
end

local function rate_text(v) return v and fmt.pct(v) or "-" end

local function breakdown_rows(list, key)
  local rows = {}
  for _, b in ipairs(list) do
    local worst, wn = nil, 0
    for _, k in ipairs(hitdiff.KINDS) do
      if k ~= "agree" and b.by_kind[k] > wn then worst, wn = k, b.by_kind[k] end
    end
    rows[#rows + 1] = {
      id = b[key], traces = b.traces, compared = b.compared, disagree = b.disagree,
      rate_pct = b.rate_pct, top = worst and string.format("%s (%d)", worst, wn) or "-",
    }
  end
  return rows
end

local breakdown_cols = {
  { key = "id", title = "id" },
  { key = "traces", title = "traces", format = fmt.int },
  { key = "compared", title = "compared", format = fmt.int },
  { key = "disagree", title = "disagree", format = fmt.int },
  { key = "rate_pct", title = "rate", format = rate_text, align = "right" },
  { key = "top", title = "most common disagreement", align = "left" },
}

local function hit_text(s)
  if not s then return "-" end
  local p = s.position
  local txt = string.format("%s (%s, %s, %s)", s.type_name, fmt.number(p.x, 2), fmt.number(p.y, 2),
    fmt.number(p.z, 2))
  if s.entity_id then txt = txt .. string.format(" entity %d:%d", s.entity_id, s.controller) end
  return txt
end

local detail_rows = {}
for _, d in ipairs(res.details) do
  detail_rows[#detail_rows + 1] = {
    trace = d.index, trace_id = string.format("%08x", d.trace_id), kind = d.kind,
    client = hit_text(d.client), server = hit_text(d.server), distance = d.distance,
    dt = (d.client and d.server) and (d.server.time - d.client.time) or nil,
    -- CSV: raw values
    trace_id_num = d.trace_id,
    client_type = d.client and d.client.type, server_type = d.server and d.server.type,
    client_x = d.client and d.client.position.x, client_y = d.client and d.client.position.y,
    client_z = d.client and d.client.position.z, client_entity = d.client and d.client.entity_id,
    server_x = d.server and d.server.position.x, server_y = d.server and d.server.position.y,
    server_z = d.server and d.server.position.z, server_entity = d.server and d.server.entity_id,
  }
end

local sections = {
  { title = "traces by kind (share of compared traces)", rows = kind_rows, empty = "no traces",
    columns = {
      { key = "kind", title = "kind", align = "left" },
      { key = "count", title = "traces", format = fmt.int },
      { key = "share", title = "share", format = rate_text, align = "right" },
    } },
}
if #res.by_weapon > 0 then
  local cols = {}
  for i, c in ipairs(breakdown_cols) do cols[i] = c end
  cols[1] = { key = "id", title = "weapon template" }
  sections[#sections + 1] = { title = "by weapon template (traces with a movement block)",
    rows = breakdown_rows(res.by_weapon, "weapon_template_id"), columns = cols }
  local acols = {}
  for i, c in ipairs(breakdown_cols) do acols[i] = c end
  acols[1] = { key = "id", title = "ammo type" }
  sections[#sections + 1] = { title = "by ammo type (traces with a movement block)",
    rows = breakdown_rows(res.by_ammo, "ammo_type_id"), columns = acols }
end
if opts.details then
  sections[#sections + 1] = {
    title = "disagreeing traces (terminal hits: type (x, y, z) entity id:controller)",
    rows = detail_rows, empty = "none",
    columns = {
      { key = "trace", title = "#" },
      { key = "trace_id", title = "trace id", align = "left" },
      { key = "kind", title = "kind", align = "left" },
      { key = "client", title = "client", align = "left" },
      { key = "server", title = "server", align = "left" },
      { key = "distance", title = "dist", format = function(v) return fmt.number(v, 2) end,
        align = "right" },
      { key = "dt", title = "dt", format = fmt.value, align = "right" },
    },
    notes = res.unlisted_details > 0 and { string.format("  (%s more; --max-details N lists more, 0 all)",
      fmt.int(res.unlisted_details)) } or nil,
  }
end

local dt_text = "-"
if dt.pairs > 0 then
  dt_text = string.format("mean %s, p95 %s (|dt| mean %s, p95 %s) over %s pairs",
    fmt.number(dt.mean, 2), fmt.number(dt.p95, 2), fmt.number(dt.mean_abs, 2),
    fmt.number(dt.p95_abs, 2), fmt.int(dt.pairs))
end

local model = {
  json = res,
  schema = hitdiff.schema,
  title = string.format("hitdiff: %s", cap.path or path),
  header = {
    { "traces", fmt.int(res.traces) },
    { "compared", string.format("%s (%s with no hits on either side)", fmt.int(res.compared),
      fmt.int(res.not_compared)) },
    { "agree", fmt.int(res.agree) },
    { "disagree", string.format("%s (%s)", fmt.int(res.disagree), rate_text(res.rate_pct)) },
    { "tolerance", fmt.number(res.tolerance) },
    { "terminal dt (server - client)", dt_text },
  },
  notes = (not opts.details and res.disagree > 0)
    and { "\n(--details lists the " .. fmt.int(res.disagree) .. " disagreeing traces)" } or nil,
  sections = sections,
  csv = {
    rows = detail_rows,
    columns = {
      { key = "trace", csv = "index" }, { key = "trace_id_num", csv = "trace_id" },
      "kind", "distance", "dt", "client_type", "client_x", "client_y", "client_z", "client_entity", "server_type",
      "server_x", "server_y", "server_z", "server_entity",
    },
  },
}
report.emit(opts, model)
cap:close()
