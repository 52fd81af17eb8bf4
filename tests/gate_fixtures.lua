-- tests/gate_fixtures.lua: known captures for the compare/check/multi specs,
-- written with the VProf writer (tests/helpers.lua h.vprof), with planted
-- regressions and planted noise.
--
--   local fx = require "gate_fixtures"
--   local a = fx.vprof(dir .. "/a.vprof", {seed = 1})
--   local b = fx.vprof(dir .. "/b.vprof", {seed = 2, physics_us = 2600})  -- slower Physics
--
-- The tree: Root > CEngine::Frame > {Physics, Render, Game, Sound} (+ extra
-- leaves). Per frame each leaf draws its time around its mean from a
-- deterministic PRNG (a sum of three uniforms, so roughly normal); Frame's
-- own time is 800 us; no frame is ever a hitch unless one is planted.
-- Options:
--   seed         PRNG seed (different seeds = the same distribution drawn again)
--   frames       number of frames (default 1200)
--   physics_us   mean Physics time (default 2000)
--   render_us    mean Render time (default 6000)
--   hitches      list of 1-based frames where Game takes +40 ms
--   extra        list of extra leaf names under CEngine::Frame (group Game)
--   group_name   name of the custom group holding "Custom" (default "Custom")
--   sound_spike  a 1-based frame where Sound takes 1 ms more (the draws are
--                unchanged, so with the same seed only that frame differs)
local h = require "helpers"

local fx = {}

--- fx.rng(seed) -> function() -> uniform in [0, 1): a 32-bit xorshift, so
-- captures do not depend on Lua's own generator.
function fx.rng(seed)
  local x = (seed * 2654435761 + 0x9E3779B9) & 0xffffffff
  if x == 0 then x = 1 end
  return function()
    x = x ~ ((x << 13) & 0xffffffff)
    x = x ~ (x >> 17)
    x = x ~ ((x << 5) & 0xffffffff)
    return x / 4294967296
  end
end

--- fx.vprof(path, opts) -> path
function fx.vprof(path, o)
  o = o or {}
  local rnd = fx.rng(o.seed or 1)
  local n = o.frames or 1200
  local hitch = {}
  for _, i in ipairs(o.hitches or {}) do hitch[i] = true end
  local group_name = o.group_name or "Custom"
  local nodes = {
    { id = 1, parent = 0, name = "CEngine::Frame", group = "Unaccounted" },
    { id = 2, parent = 1, name = "Physics", group = "Physics" },
    { id = 3, parent = 1, name = "Render", group = "World Rendering" },
    { id = 4, parent = 1, name = "Game", group = "Game" },
    { id = 5, parent = 1, name = "Sound", group = "Sound" },
    { id = 6, parent = 1, name = "Custom", group = group_name },
  }
  local means = {
    [2] = o.physics_us or 2000, [3] = o.render_us or 6000, [4] = 1500, [5] = 300, [6] = 200,
  }
  for i, name in ipairs(o.extra or {}) do
    local id = 10 + i
    nodes[#nodes + 1] = { id = id, parent = 1, name = name, group = "Game" }
    means[id] = 400
  end
  local function draw(mean)
    -- mean x (0.85 .. 1.15), three uniforms summed: a bell around the mean
    local u = (rnd() + rnd() + rnd()) / 3
    return math.floor(mean * (0.85 + 0.3 * u) / 4 + 0.5) * 4
  end
  local ids = {}
  for id in pairs(means) do ids[#ids + 1] = id end
  table.sort(ids)
  local frames = {}
  for i = 1, n do
    local f = { tick = 1000 + i }
    local sum = 800
    for _, id in ipairs(ids) do
      if id ~= 4 then
        local t = draw(means[id])
        f[id] = t
        sum = sum + t
      end
    end
    if o.sound_spike == i then
      f[5] = f[5] + 1000
      sum = sum + 1000
    end
    local game = draw(means[4])
    if hitch[i] then game = game + 40000 end
    f[4] = game
    sum = sum + game
    f[1] = sum
    f[0] = { us = 0, calls = 1 }
    f[2] = { us = f[2], calls = 2 }
    frames[i] = f
  end
  h.vprof(path, { groups = { group_name }, nodes = nodes, frames = frames })
  return path
end

--- fx.dw(path, {traces = N, disagree = K}) -> path: a weapon trace whose
-- first K traces disagree (client and server terminal hits 2 units apart:
-- position_mismatch) and the other N - K agree (same terminal hit).
function fx.dw(path, o)
  local vp = require "vp"
  local w = vp.writer("dw", path)
  for i = 1, o.traces do
    local p = { x = i, y = 0, z = 0 }
    local q = i <= o.disagree and { x = i, y = 2, z = 0 } or p
    w:trace({ trace_id = i, client = { { type = 6, time = 100, position = p } },
      server = { { type = 6, time = 110, position = q } } })
  end
  w:close()
  return path
end

--- fx.rules(dir, name, text) -> path of a rules file holding `text`.
function fx.rules(dir, name, text)
  return h.write_file(dir .. "/" .. name, text)
end

return fx
