-- seeds_dw.lua: write a seed corpus for the .dw fuzzer.
--
--   ./vpscript tests/fuzz/seeds_dw.lua DIR
--
-- Small weapon traces built with the writer, one per feature the parser
-- must handle: empty slots, the movement block, entity and ragdoll blocks,
-- every hit type, a wrapped footer, and broken files (no footer, a
-- truncated slot, a bad used byte, a count past the end).
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local vp = require "vp"

local path = S.file_seeds("seeds_dw.lua", "dw")

local function hit(t, k)
  return {
    type = t, time = 1000 + k, position = { x = k, y = 2 * k, z = 0.5 },
    direction = { x = 0, y = 1, z = 0 }, physics_material = t == 1 and 0x7fffffff or 12,
  }
end

local function full(w, id, with_movement)
  w:trace {
    trace_id = id, ammo_type_id = with_movement and 3 or 0,
    movement = with_movement and {
      ray_start = { x = 1, y = 2, z = 3 }, ray_end = { x = 4, y = 5, z = 6 },
      weapon_range = 100, damage_per_round = 25, weapon_template_id = 42, slot_index = 1,
      bullet = 1, unknown_44 = "\1\2\3\4",
    } or nil,
    client = {
      hit(1, 1), hit(2, 2),
      { type = 3, time = 1003, entity = { entity_id = 77, controller = 2, rotation = { w = 1 } } },
    },
    server = {
      hit(1, 1),
      { type = 4, time = 1004, entity = { guid = 0x4d02 },
        ragdoll = { guid = 0x4d02, transforms = {
          { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } },
        } } },
      hit(10, 5),
    },
  }
end

local w = vp.writer("dw", path("basic"), { header = "\0\0\0\1", max_size = 4 })
full(w, 0x11111111, true)
w:empty_slot()
full(w, 0x22222222, false)
w:empty_slot()
w:close()

w = vp.writer("dw", path("types"), { header = "\3\0\0\0", max_size = 12 })
for t = 0, 12 do
  w:trace { trace_id = t, client = { hit(t, t) }, server = { hit((t + 1) % 13, t) } }
end
w:close { last_trace_counter = 1 }

w = vp.writer("dw", path("empty"), { max_size = 8 })
for _ = 1, 8 do w:empty_slot() end
w:close { last_trace_counter = 0 }

w = vp.writer("dw", path("nofooter"), { max_size = 2 })
full(w, 5, true)
w:close { footer = false }

w = vp.writer("dw", path("badused"), { max_size = 2 })
full(w, 6, false)
w:raw("\2")
w:close()

w = vp.writer("dw", path("overcount"), { max_size = 1 })
w:trace { trace_id = 7, client_count = 200, client = { hit(6, 1) } }
w:close()

-- A truncated copy of the basic file.
S.cut(path("basic"), path("cut"), #S.read(path("basic")) // 2)
