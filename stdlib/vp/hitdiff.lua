-- vp.hitdiff: client/server hit disagreement over a weapon trace (.dw).
--
--   local hitdiff = require "vp.hitdiff"
--   local kind, info = hitdiff.classify(client_hits, server_hits, 0.5)
--   local doc = hitdiff.analyze(cap, {tolerance = 0.5})   -- plain data (hitdiff.schema)
--
-- The rules (DESIGN.md "Hit disagreement"), per trace, with C the client's
-- hits and S the server's; the first rule that matches decides:
--   1. C and S both empty: not compared;
--   2. no_server_data (S empty), no_client_data (C empty);
--   3. client_only_hit: C has a character hit, S has none;
--   4. server_only_hit: S has a character hit, C has none;
--   5. entity_mismatch: both hit a character, both name an entity guid, and
--      the guids differ;
--   6. outcome_mismatch: the terminal types differ;
--   7. position_mismatch: the terminal positions are more than `tolerance`
--      apart;
--   8. agree.
-- A character hit is a hit of type 3 Posefile_Hit, 4 Ragdoll_Hit or
-- 10 Validated. The terminal hit of a side is its last hit of type 3, 4, 5,
-- 6, 8 or 9. The entity guid a side names is the guid of the entity block of
-- its last character hit that has one. A side without a terminal hit has the
-- terminal type "none" (different from every type); when neither side has
-- one, rule 7 has no positions to compare and the trace agrees.
local E = require "vp.error"
local stats = require "vp.stats"

local hitdiff = {}

hitdiff.KINDS = {
  "no_server_data", "no_client_data", "client_only_hit", "server_only_hit",
  "entity_mismatch", "outcome_mismatch", "position_mismatch", "agree",
}

local BY_KIND = "{" .. table.concat(hitdiff.KINDS, ", ") .. "}"
local SIDE = "{type, type_name, time, position: {x, y, z}, guid, entity_id, controller}"
local COUNTS = "traces, compared, agree, disagree, rate_pct, by_kind: " .. BY_KIND

--- The shape of hitdiff.analyze's result (and of `hitdiff.lua --json`).
hitdiff.schema = "{file, format, traces, compared, not_compared, agree, disagree, rate_pct, tolerance, "
  .. "by_kind: " .. BY_KIND .. ", unlisted_details, details: [{trace_id, kind, client: " .. SIDE .. ", server: " .. SIDE
  .. ", distance, index, slot, client_hits, server_hits, weapon_template_id, ammo_type_id}], "
  .. "by_weapon: [{weapon_template_id, " .. COUNTS .. "}], by_ammo: [{ammo_type_id, " .. COUNTS .. "}], "
  .. "terminal_dt: {pairs, mean, p95, min, max, mean_abs, p95_abs}}"

--- Every rule and definition, as hitdiff.lua's --help prints them.
hitdiff.DEFINITIONS = [[
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
                 rank) of the signed value and of its magnitude.
  details        every disagreeing trace is counted; the first 1,000 in
                 file order are listed (unlisted_details counts the rest).]]

local CHARACTER = { [3] = true, [4] = true, [10] = true }
local TERMINAL = { [3] = true, [4] = true, [5] = true, [6] = true, [8] = true, [9] = true }
hitdiff.CHARACTER_TYPES = { 3, 4, 10 }
hitdiff.TERMINAL_TYPES = { 3, 4, 5, 6, 8, 9 }
hitdiff.DEFAULT_TOLERANCE = 0.5

--- Parameter defaults; max_details: disagreeing traces listed in details
-- (the first in file order; every one is counted), 0 for all.
hitdiff.DEFAULTS = { tolerance = hitdiff.DEFAULT_TOLERANCE, max_details = 1000 }

--- hitdiff.is_character(hit) -> boolean
function hitdiff.is_character(h)
  return CHARACTER[h.type] == true
end

--- hitdiff.terminal(hits) -> the last hit of a terminal type, or nil.
function hitdiff.terminal(hits)
  for i = #hits, 1, -1 do
    if TERMINAL[hits[i].type] then return hits[i] end
  end
  return nil
end

--- hitdiff.character_guid(hits) -> has_character, guid|nil: whether any hit
-- is a character hit, and the entity guid of the last one with an entity block.
function hitdiff.character_guid(hits)
  local any, guid = false, nil
  for _, h in ipairs(hits) do
    if CHARACTER[h.type] then
      any = true
      if h.entity then guid = h.entity.guid end
    end
  end
  return any, guid
end

--- hitdiff.distance(a, b) -> Euclidean distance of two {x, y, z} tables.
function hitdiff.distance(a, b)
  local dx, dy, dz = a.x - b.x, a.y - b.y, a.z - b.z
  return math.sqrt(dx * dx + dy * dy + dz * dz)
end

--- hitdiff.classify(C, S, tolerance) -> kind|nil, info
-- C, S: lists of hit tables (as trace:hit_list() returns). kind is nil for
-- rule 1 (not compared). info = {client = terminal hit|nil, server = ...,
-- distance = number|nil, client_guid, server_guid}.
function hitdiff.classify(C, S, tolerance)
  tolerance = tolerance or hitdiff.DEFAULT_TOLERANCE
  local tc, ts = hitdiff.terminal(C), hitdiff.terminal(S)
  local info = { client = tc, server = ts }
  if tc and ts then info.distance = hitdiff.distance(tc.position, ts.position) end
  if #C == 0 and #S == 0 then return nil, info end
  if #S == 0 then return "no_server_data", info end
  if #C == 0 then return "no_client_data", info end
  local c_char, c_guid = hitdiff.character_guid(C)
  local s_char, s_guid = hitdiff.character_guid(S)
  info.client_guid, info.server_guid = c_guid, s_guid
  if c_char and not s_char then return "client_only_hit", info end
  if s_char and not c_char then return "server_only_hit", info end
  if c_char and s_char and c_guid ~= nil and s_guid ~= nil and c_guid ~= s_guid then
    return "entity_mismatch", info
  end
  local c_type = tc and tc.type or "none"
  local s_type = ts and ts.type or "none"
  if c_type ~= s_type then return "outcome_mismatch", info end
  if info.distance and info.distance > tolerance then return "position_mismatch", info end
  return "agree", info
end

local function new_counts()
  local by_kind = {}
  for _, k in ipairs(hitdiff.KINDS) do by_kind[k] = 0 end
  return { traces = 0, compared = 0, agree = 0, disagree = 0, by_kind = by_kind }
end

local function count(c, kind)
  c.traces = c.traces + 1
  if kind then
    c.compared = c.compared + 1
    c.by_kind[kind] = c.by_kind[kind] + 1
    if kind == "agree" then c.agree = c.agree + 1 else c.disagree = c.disagree + 1 end
  end
end

local function rate(c)
  if c.compared == 0 then return nil end
  return 100 * c.disagree / c.compared
end
hitdiff.rate = rate

-- A terminal hit as the JSON shows it.
local function side_doc(h)
  if not h then return nil end
  local e = h.entity
  return {
    type = h.type, type_name = h.type_name, time = h.time,
    position = { x = h.position.x, y = h.position.y, z = h.position.z },
    guid = e and e.guid or nil, entity_id = e and e.entity_id or nil,
    controller = e and e.controller or nil,
  }
end
hitdiff.side_doc = side_doc

--- hitdiff.analyze(cap, params) -> result
-- params (all optional): tolerance (default 0.5), max_details (1000: the
-- disagreeing traces listed, unlisted_details counting the rest; 0 = all),
-- file (the name used when cap.path is unset). result (plain data, nil where absent; shaped as
-- hitdiff.schema): {file, format = "dw", traces, compared, not_compared,
-- agree, disagree, rate_pct, tolerance, by_kind, details, by_weapon,
-- by_ammo, terminal_dt}. Raises a vp.error (EINPUT: a capture of another
-- format; EUSAGE: a bad tolerance), and the reader's error on a corrupt
-- capture (the iterators raise it).
function hitdiff.analyze(cap, params)
  params = params or {}
  E.check_format(cap, "dw", "vp.hitdiff")
  local tol = params.tolerance or hitdiff.DEFAULT_TOLERANCE
  E.check_number(tol, "tolerance", "vp.hitdiff")
  local max_details = params.max_details or hitdiff.DEFAULTS.max_details
  E.check_count(max_details, "max_details", "vp.hitdiff")
  local unlisted = 0
  local total = new_counts()
  local details = {}
  -- Counts by weapon template and by ammo type: {[id] = counts}, ids = {id...}.
  local weapons, ammos = { by = {}, ids = {} }, { by = {}, ids = {} }
  local dts = {}
  local function count_in(b, id, kind)
    local c = b.by[id]
    if not c then
      c = new_counts()
      b.by[id] = c
      b.ids[#b.ids + 1] = id
    end
    count(c, kind)
  end
  for t in cap:traces() do
    local C, S = t:hit_list("client"), t:hit_list("server")
    local kind, info = hitdiff.classify(C, S, tol)
    count(total, kind)
    local mv = t.movement
    if mv then
      count_in(weapons, mv.weapon_template_id, kind)
      count_in(ammos, t.ammo_type_id, kind)
    end
    if kind and info.client and info.server then
      dts[#dts + 1] = info.server.time - info.client.time
    end
    if kind and kind ~= "agree" and max_details > 0 and #details >= max_details then
      unlisted = unlisted + 1
    elseif kind and kind ~= "agree" then
      details[#details + 1] = {
        trace_id = t.trace_id, index = t.index, slot = t.slot, kind = kind,
        client = side_doc(info.client), server = side_doc(info.server),
        distance = stats.defined(info.distance),
        client_hits = #C, server_hits = #S,
        weapon_template_id = mv and mv.weapon_template_id or nil,
        ammo_type_id = t.ammo_type_id,
      }
    end
  end

  local function breakdown(b, key)
    table.sort(b.ids)
    local list = {}
    for _, id in ipairs(b.ids) do
      local c = b.by[id]
      list[#list + 1] = {
        [key] = id, traces = c.traces, compared = c.compared, agree = c.agree,
        disagree = c.disagree, rate_pct = rate(c), by_kind = c.by_kind,
      }
    end
    return list
  end

  local terminal_dt = { pairs = #dts }
  if #dts > 0 then
    local abs = {}
    for i, d in ipairs(dts) do abs[i] = math.abs(d) end
    terminal_dt.mean = stats.mean(dts)
    terminal_dt.p95 = stats.percentile(dts, 95)
    terminal_dt.min = stats.min(dts)
    terminal_dt.max = stats.max(dts)
    terminal_dt.mean_abs = stats.mean(abs)
    terminal_dt.p95_abs = stats.percentile(abs, 95)
  end

  return {
    file = cap.path or params.file, format = "dw",
    traces = total.traces, compared = total.compared,
    not_compared = total.traces - total.compared,
    agree = total.agree, disagree = total.disagree, rate_pct = rate(total),
    tolerance = tol, by_kind = total.by_kind, unlisted_details = unlisted, details = details,
    by_weapon = breakdown(weapons, "weapon_template_id"),
    by_ammo = breakdown(ammos, "ammo_type_id"),
    terminal_dt = terminal_dt,
  }
end

return hitdiff
