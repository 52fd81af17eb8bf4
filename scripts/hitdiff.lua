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
--   --json, --csv, --help
--
-- JSON (one document; absent values are null):
--   { file, format = "dw", traces, compared, not_compared, agree, disagree,
--     rate_pct,                       -- 100 * disagree / compared
--     tolerance,
--     by_kind = { no_server_data, no_client_data, client_only_hit,
--                 server_only_hit, entity_mismatch, outcome_mismatch,
--                 position_mismatch, agree },          -- counts, all eight
--     details = [ { trace_id, kind, client, server, distance, index, slot,
--                   client_hits, server_hits, weapon_template_id,
--                   ammo_type_id } ],  -- every compared trace that disagrees
--         client/server: the side's terminal hit { type, type_name, time,
--                   position = {x, y, z}, guid, entity_id, controller } or null
--     by_weapon = [ { weapon_template_id, traces, compared, agree, disagree,
--                     rate_pct, by_kind } ],   -- traces with a movement block
--     by_ammo   = [ { ammo_type_id, ... same ... } ],
--     terminal_dt = { pairs, mean, p95, min, max, mean_abs, p95_abs } }
-- --csv prints the details table.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local hitdiff = require "vp.hitdiff"

local DESCRIPTION = [[
Per trace (bullet), with C the client's hits and S the server's, the first
rule that matches decides:
  1. C and S both empty: not compared;
  2. no_server_data: S is empty; no_client_data: C is empty;
  3. client_only_hit: C has a character hit, S has none;
  4. server_only_hit: S has a character hit, C has none;
  5. entity_mismatch: both hit a character, both name an entity guid, and
     the guids differ;
  6. outcome_mismatch: the terminal types differ;
  7. position_mismatch: the terminal positions are more than --tolerance
     apart (Euclidean distance, world units);
  8. agree.
Definitions:
  character hit  type 3 Posefile_Hit, 4 Ragdoll_Hit or 10 Validated.
  terminal hit   a side's last hit of type 3, 4, 5, 6, 8 or 9 (Posefile_Hit,
                 Ragdoll_Hit, Ragdoll_Miss, Impact, Detonate, Timeout). A
                 side without one has terminal type "none".
  entity guid    of a side: the guid of the entity block of its last
                 character hit that has one.
  compared       traces not caught by rule 1; disagree = compared - agree;
                 rate = 100 * disagree / compared (null when nothing was
                 compared).
  by weapon/ammo the same counts over the traces that carry the 136-byte
                 movement block (ammo_type_id != 0), keyed by its
                 weapon_template_id and by the trace's ammo_type_id.
  terminal dt    over compared traces where both sides have a terminal hit:
                 server terminal time - client terminal time, in the hit
                 records' time unit (read as ms); mean and p95 (nearest
                 rank) of the signed value and of its magnitude.]]

local SPEC = {
  name = "hitdiff.lua",
  summary = "Client/server hit disagreement per bullet of a .dw weapon trace.",
  description = DESCRIPTION,
  options = {
    { "--tolerance", type = "number", default = hitdiff.DEFAULT_TOLERANCE, min = 0, metavar = "X",
      help = "terminal positions further apart than X are a position_mismatch" },
    { "--details", type = "flag", help = "list every disagreeing trace with both terminal hits" },
  },
  positional = { { "CAPTURE", help = "a .dw weapon trace" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open(path)
if cap.format ~= "dw" then
  cli.fail(2, "%s: hitdiff.lua reads .dw weapon traces; this is a %s capture", path,
    tostring(cap.format))
end

local ok, res = pcall(hitdiff.analyze, cap, { tolerance = opts.tolerance })
if not ok then cli.fail(2, "%s", tostring(res)) end

local function null(v)
  if v == nil or v ~= v then return cli.null end
  return v
end

local function side_json(s)
  if not s then return cli.null end
  return {
    type = s.type, type_name = s.type_name, time = s.time, position = s.position,
    guid = null(s.guid), entity_id = null(s.entity_id), controller = null(s.controller),
  }
end

local details = cli.array()
for i, d in ipairs(res.details) do
  details[i] = {
    trace_id = d.trace_id, kind = d.kind, client = side_json(d.client), server = side_json(d.server),
    distance = null(d.distance), index = d.index, slot = d.slot, client_hits = d.client_hits,
    server_hits = d.server_hits, weapon_template_id = null(d.weapon_template_id),
    ammo_type_id = d.ammo_type_id,
  }
end

local function breakdown_json(list, key)
  local out = cli.array()
  for i, b in ipairs(list) do
    out[i] = {
      [key] = b[key], traces = b.traces, compared = b.compared, agree = b.agree,
      disagree = b.disagree, rate_pct = null(b.rate_pct), by_kind = b.by_kind,
    }
  end
  return out
end

local dt = res.terminal_dt
local doc = {
  file = cap.path or path, format = "dw", traces = res.traces, compared = res.compared,
  not_compared = res.not_compared, agree = res.agree, disagree = res.disagree,
  rate_pct = null(res.rate_pct), tolerance = res.tolerance, by_kind = res.by_kind,
  details = details,
  by_weapon = breakdown_json(res.by_weapon, "weapon_template_id"),
  by_ammo = breakdown_json(res.by_ammo, "ammo_type_id"),
  terminal_dt = {
    pairs = dt.pairs, mean = null(dt.mean), p95 = null(dt.p95), min = null(dt.min),
    max = null(dt.max), mean_abs = null(dt.mean_abs), p95_abs = null(dt.p95_abs),
  },
}

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
  }
end

local dt_text = "-"
if dt.pairs > 0 then
  dt_text = string.format("mean %s, p95 %s (|dt| mean %s, p95 %s) over %s pairs",
    fmt.number(dt.mean, 2), fmt.number(dt.p95, 2), fmt.number(dt.mean_abs, 2),
    fmt.number(dt.p95_abs, 2), fmt.int(dt.pairs))
end

local model = {
  json = doc,
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
  max_width = 160,
  csv = {
    rows = detail_rows,
    columns = {
      { key = "trace", csv = "index" }, { key = "trace_id_num", csv = "trace_id" },
      { key = "kind" }, { key = "distance" }, { key = "dt" },
      { key = "client_type" }, { key = "client_x" }, { key = "client_y" }, { key = "client_z" },
      { key = "client_entity" },
      { key = "server_type" }, { key = "server_x" }, { key = "server_y" }, { key = "server_z" },
      { key = "server_entity" },
    },
  },
}
report.emit(opts, model)
cap:close()
