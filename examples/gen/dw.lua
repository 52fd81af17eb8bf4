-- gen/dw.lua: write OUTDIR/sample.dw, a weapon trace, deterministically
-- (own xorshift32 PRNG with a fixed seed, no math.random, no clock).
--
--   vpscript examples/gen/dw.lua OUTDIR      (or via examples/generate.lua)
--
-- The capture: header 04 00 00 00, max_size 200, 160 bullets in slots 1..160
-- followed by 40 empty slots, last_trace_counter 160. The shots are spread
-- over 60 s of client time from 600,000 (hit times read as ms; the same
-- clock as sample.dm). Three weapons, each with its ammo type and the
-- 136-byte movement block (ray, range, damage per round, template id, slot):
--   template 1001 assault rifle (ammo 11, 25 damage, range 150),
--   template 1002 sniper rifle  (ammo 12, 90 damage, range 600),
--   template 1003 grenade       (ammo 13, 60 damage, range 80),
-- and every tenth bullet a melee swing with ammo_type_id 0 (no movement
-- block). A client list is Spawn at the muzzle, maybe a Bounce, then the
-- terminal hit (Impact on the world, or Posefile_Hit with the entity block
-- on a character, Ragdoll_Hit on a kill); the server's is the same shape
-- 30..80 ms later, plus Validated with the entity block after a character
-- hit and a ragdoll block (3 bone transforms) on a kill.
--
-- Planted disagreements (hitdiff.lua finds exactly these), by bullet number:
--   no_server_data     12 31 77 140        (server list lost)
--   no_client_data     58 99
--   client_only_hit    7 23 45 66 88 111 133 150  (client hit a character,
--                      the server says the bullet hit the wall behind)
--   server_only_hit    19 92 121
--   entity_mismatch    36 104 157          (different character guids)
--   outcome_mismatch   27 73 118 145       (Impact vs Timeout / Detonate)
--   position_mismatch  15 51 84 126 159    (impacts 1.2..3 units apart)
--   not compared       3 139               (no hits on either side)
-- every other bullet agrees (terminal positions within 0.1 units).
local vp = require "vp"

local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("dw.lua", ...)

local _, irand, frand = lib.xorshift32(0x6A09E667)

local T0, SPAN, BULLETS, MAX_SIZE = 600000, 60000, 160, 200

local PLANTED = {}
for kind, list in pairs {
  no_server_data = { 12, 31, 77, 140 },
  no_client_data = { 58, 99 },
  client_only_hit = { 7, 23, 45, 66, 88, 111, 133, 150 },
  server_only_hit = { 19, 92, 121 },
  entity_mismatch = { 36, 104, 157 },
  outcome_mismatch = { 27, 73, 118, 145 },
  position_mismatch = { 15, 51, 84, 126, 159 },
  none = { 3, 139 },
} do
  for _, n in ipairs(list) do PLANTED[n] = kind end
end

local WEAPONS = {
  { template = 1001, ammo = 11, damage = 25, range = 150, slot = 0 },
  { template = 1002, ammo = 12, damage = 90, range = 600, slot = 1 },
  { template = 1003, ammo = 13, damage = 60, range = 80, slot = 2 },
}

-- Characters the player shoots at: entity ids with their controller byte.
local TARGETS = { { id = 0x51A2, ctl = 1 }, { id = 0x51B7, ctl = 1 }, { id = 0x6003, ctl = 2 },
  { id = 0x7110, ctl = 3 } }

local MATERIALS = { 3, 7, 12, 19 } -- physics material ids for world impacts
local INT32_MAX = 0x7fffffff

local function vec(x, y, z) return { x = x, y = y, z = z } end
local function add(a, b, s) return vec(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s) end
local function norm(a)
  local l = math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z)
  return vec(a.x / l, a.y / l, a.z / l)
end

local function guid(t) return (t.id << 8) | t.ctl end

local function identity_bones(n, at)
  local list = {}
  for i = 1, n do
    list[i] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 },
      { at.x, at.y + 0.3 * i, at.z, 1 } }
  end
  return list
end

local function hit(type, time, pos, dir, material, entity)
  return { type = type, time = time, position = pos, direction = dir,
    physics_material = material, entity = entity, unknown_09 = 0 }
end

local function entity_block(t, at)
  local a = frand(0, math.pi)
  return { guid = guid(t), position = vec(at.x, at.y - 0.9, at.z),
    rotation = { x = 0, y = math.sin(a / 2), z = 0, w = math.cos(a / 2) },
    unknown_24 = -1, unknown_25 = 0 }
end

local w = vp.writer("dw", outdir .. "/sample.dw", { header = "\4\0\0\0", max_size = MAX_SIZE })
local used_ids = {}
for n = 1, BULLETS do
  local trace_id
  repeat trace_id = irand(1, 0xFFFFFFFF) until not used_ids[trace_id]
  used_ids[trace_id] = true
  local t = T0 + math.floor((n - 1) * SPAN / BULLETS) + irand(0, 200)
  local melee = n % 10 == 0
  local wp = WEAPONS[irand(1, 3)]
  local muzzle = vec(frand(-40, 40), 1.6 + frand(-0.2, 0.4), frand(-40, 40))
  local dir = norm(vec(frand(-1, 1), frand(-0.15, 0.1), frand(-1, 1)))
  local dist = melee and frand(1, 2) or frand(5, wp.range * 0.6)
  local target_hit = irand(1, 100) <= 45
  local target = TARGETS[irand(1, #TARGETS)]
  local impact = add(muzzle, dir, dist)
  local lat = irand(30, 80)
  local t_hit = t + math.floor(dist * (wp.template == 1003 and 40 or 2))

  local kind = PLANTED[n]
  local client, server = {}, {}
  local function spawn(time) return hit(1, time, muzzle, dir, INT32_MAX) end
  local function world(time, at) return hit(6, time, at, dir, MATERIALS[irand(1, #MATERIALS)]) end
  local function on_char(type, time, at, tg) return hit(type, time, at, dir, 0, entity_block(tg, at)) end

  -- the agreeing shape of this bullet
  client[1] = spawn(t)
  server[1] = spawn(t + lat)
  if not melee and irand(1, 6) == 1 then
    local b = add(muzzle, dir, dist * 0.5)
    client[#client + 1] = hit(2, t + 5, b, dir, MATERIALS[1])
    server[#server + 1] = hit(2, t + lat + 5, add(b, vec(0.02, 0, 0), 1), dir, MATERIALS[1])
  end
  local jitter = vec(frand(-0.05, 0.05), frand(-0.05, 0.05), frand(-0.05, 0.05))
  if target_hit then
    -- a kill hits the ragdoll (type 4, with its bones on the server side)
    local kill = irand(1, 4) == 1
    local ty = kill and 4 or 3
    client[#client + 1] = on_char(ty, t_hit, impact, target)
    local s_at = add(impact, jitter, 1)
    local sh = on_char(ty, t_hit + lat, s_at, target)
    if kill then sh.ragdoll = { guid = guid(target), transforms = identity_bones(3, s_at) } end
    server[#server + 1] = sh
    server[#server + 1] = on_char(10, t_hit + lat + 1, s_at, target)
  else
    client[#client + 1] = world(t_hit, impact)
    server[#server + 1] = world(t_hit + lat, add(impact, jitter, 1))
  end

  -- the planted disagreement
  if kind == "no_server_data" then
    server = {}
  elseif kind == "no_client_data" then
    client = {}
  elseif kind == "none" then
    client, server = {}, {}
  elseif kind == "client_only_hit" then
    local tg = TARGETS[irand(1, #TARGETS)]
    client = { spawn(t), on_char(3, t_hit, impact, tg) }
    server = { spawn(t + lat), world(t_hit + lat, add(impact, dir, 4)) }
  elseif kind == "server_only_hit" then
    local tg = TARGETS[irand(1, #TARGETS)]
    client = { spawn(t), world(t_hit, add(impact, dir, 3)) }
    server = { spawn(t + lat), on_char(4, t_hit + lat, impact, tg), on_char(10, t_hit + lat + 1, impact, tg) }
  elseif kind == "entity_mismatch" then
    local a, b = TARGETS[1], TARGETS[3]
    client = { spawn(t), on_char(3, t_hit, impact, a) }
    server = { spawn(t + lat), on_char(3, t_hit + lat, impact, b), on_char(10, t_hit + lat + 1, impact, b) }
  elseif kind == "outcome_mismatch" then
    client = { spawn(t), world(t_hit, impact) }
    local other = (n % 2 == 1) and 9 or 8 -- Timeout or Detonate
    server = { spawn(t + lat), hit(other, t_hit + lat, add(impact, dir, 0.2), dir, 0) }
  elseif kind == "position_mismatch" then
    local off = frand(1.2, 3)
    client = { spawn(t), world(t_hit, impact) }
    server = { spawn(t + lat), world(t_hit + lat, add(impact, vec(0, 1, 0), off)) }
  end

  for _, h in ipairs(client) do h.trace_id = trace_id end
  for _, h in ipairs(server) do h.trace_id = trace_id end
  local tr = { trace_id = trace_id, unknown_01 = 0, client = client, server = server }
  if not melee then
    tr.ammo_type_id = wp.ammo
    tr.movement = {
      ray_start = muzzle, ray_end = add(muzzle, dir, wp.range), weapon_range = wp.range,
      damage_per_round = wp.damage, weapon_template_id = wp.template, slot_index = wp.slot,
      bullet = 1, unknown_44 = string.pack("<I4", 0x0A3F1000 + n * 0x140),
    }
  end
  w:trace(tr)
end
for _ = BULLETS + 1, MAX_SIZE do w:empty_slot() end
local bytes = w:close { last_trace_counter = BULLETS }
return string.format("sample.dw: %d bullets, %d slots, %d bytes", BULLETS, MAX_SIZE, bytes)
