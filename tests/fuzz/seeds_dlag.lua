-- seeds_dlag.lua: write a seed corpus for the .dlag fuzzer.
--
--   ./vpscript tests/fuzz/seeds_dlag.lua DIR
--
-- Small exports built with the writer: measurements with 0, 254, 255 and
-- 300 samples, graph states empty and not, traceroute host on and off,
-- tail records 0, 1 and several, and broken ones (a count past the end, a
-- bitfield past the end, a host without NUL, a torn tail record,
-- truncations).
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local vp = require "vp"

local path = S.file_seeds("seeds_dlag.lua", "dlag")

local function samples(n, base)
  local s = {}
  for i = 1, n do s[i] = { value = base + (i % 7) * 0.5, time = 1000 + 200 * i, unknown = i % 3 } end
  return s
end

local function gen(name, opts, build)
  local w = vp.writer("dlag", path(name), opts)
  build(w)
  w:close()
end

gen("basic", { time = 77 }, function(w)
  for k = 1, 12 do w:measurement(samples(k % 4 * 3, k)) end
  w:graph_states({ { measurement_count = 12, bitfield = "\255\0\0\0\0\0\0\0", offset = { 0, 1, 2, 3 },
    scale = { 1, 1, 1, 1 }, print_titles = 1 } })
  w:traceroute_host("gss.example.net")
  w:hop { address = "10.0.0.1", name = "gw", samples = samples(3, 2), unknown_u8_1 = 1,
    unknown_u32 = 7, unknown_floats = { 1, 2, 3, 4 }, unknown_u8_2 = 9 }
  w:hop { address = "10.0.0.2", name = "next", samples = samples(1, 9) }
end)
gen("minimal", {}, function() end)
gen("blocks", {}, function(w)
  w:measurement(samples(0, 1))
  w:measurement(samples(254, 1))
  w:measurement(samples(255, 1))
  w:measurement(samples(300, 1))
end)
gen("many", {}, function(w)
  for _ = 1, 80 do w:measurement(samples(1, 3)) end
  local gs = {}
  for i = 1, 6 do gs[i] = { measurement_count = 80 * i, scale = { 1, 2, 3, 4 } } end
  w:graph_states(gs)
end)
gen("hops_only", {}, function(w)
  w:traceroute_host("")
  for i = 1, 4 do w:hop { address = { 192, 168, 0, i }, name = "h" .. i, samples = samples(i, i) } end
end)
gen("wrong_total", {}, function(w) w:measurement(samples(4, 1), { total = 9 }) end)
-- broken
gen("count_past_end", {}, function(w) w:measurement(samples(2, 1), { chunks = { 100 } }) end)
gen("measurements_past_end", { measurement_count = 100000 }, function(w) w:measurement(samples(1, 1)) end)
gen("bitfield_past_end", {}, function(w)
  w:graph_states({ { measurement_count = 0xFFFF, bitfield = "" } })
end)
gen("host_no_nul", { complete = false }, function(w)
  w:graph_states({})
  w:traceroute_host("gss.example", { nul = false })
end)
gen("torn_hop", {}, function(w)
  w:hop { address = "1.2.3.4", name = "ok" }
  w:raw("\1\2\3\4\5")
end)
gen("truncated", {}, function(w)
  w:measurement(samples(20, 1))
  w:truncate(w:tell() - 5)
end)
