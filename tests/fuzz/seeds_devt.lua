-- seeds_devt.lua: write a seed corpus for the .devt fuzzer.
--
--   ./vpscript tests/fuzz/seeds_devt.lua DIR
--
-- Small exports built with the writer: the four usual groups, arrays of 0,
-- 254, 255 and 300 events (block boundaries), a wide bitfield, more than
-- four groups, a wrong total, trailing bytes, and broken ones (a block
-- count past the end, a bitfield past the end, truncations).
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local vp = require "vp"

local path = S.file_seeds("seeds_devt.lua", "devt")

local function events(n, t0, type)
  local list = {}
  for i = 1, n do list[i] = { time1 = t0 + 16 * i, time2 = t0 + 16 * i + 1, type = type or (i % 11) } end
  return list
end

local function four(name, opts, sizes, extra)
  local w = vp.writer("devt", path(name), opts)
  for g, n in ipairs(sizes) do w:group(events(n, 1000 * g, g == 1 and 0 or nil)) end
  if extra then extra(w) end
  w:close()
end

four("basic", { time = 5000, graph_duration = 10000, prefix = 11, bitfield = "\255\7\0\0\0\0\0\0" },
  { 40, 20, 6, 9 })
four("empty_groups", { time = 1 }, { 0, 0, 0, 0 })
four("none", {}, {})
four("blocks", { prefix = 70 }, { 254, 255, 300, 1 })
four("wide_bitfield", { prefix = 700 }, { 3, 3, 3, 3 })
four("six_groups", { group_count = 6 }, { 2, 2, 2, 2, 2, 2 })
four("wrong_total", {}, { 5 }, function(w) w:group(events(3, 9), { total = 7 }) end)
four("trailing", {}, { 5, 5, 5, 5 }, function(w) w:raw("\1\2\3\4\5") end)
four("types", {}, { 12 }, function(w) w:group({ { 1, 2, 200 }, { 3, 4, 255 }, { 5, 6, 11 } }) end)
-- broken
four("count_past_end", {}, { 2 }, function(w) w:group(events(2, 5), { chunks = { 200 } }) end)
four("block_255_no_end", {}, {}, function(w) w:group(events(255, 0), { chunks = { 255 } }) end)
four("groups_past_end", { group_count = 1000 }, { 1 })
four("bitfield_past_end", { prefix = 0xFFFF, bitfield = "" }, {})
do
  local w = vp.writer("devt", path("truncated"), {})
  w:group(events(30, 0))
  w:truncate(w:tell() - 4)
  w:close()
end
do
  local w = vp.writer("devt", path("header_only"), {})
  w:truncate(9)
  w:close()
end
