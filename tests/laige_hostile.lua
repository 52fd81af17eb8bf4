-- tests/laige_hostile.lua: crafted laige reports, built by code (never
-- committed as files), for the specs that hold the laige readers to linear
-- time and bounded memory (issue 15) and to structure-based detection
-- (issue 11). Each function returns the file's bytes.
--
--   local lh = require "laige_hostile"
--   lh.inner_blanks(100000)       -- a counters line with 100 KB of blanks inside
--   lh.dotted_name(700000)        -- a system name of bare words: "x .. .. .." (~2 MB)
--   lh.many_sections(700000)      -- a system line of 700,000 "a:" sections (~2 MB)
--   lh.profile_text(20e6)         -- a text profile of about that many bytes of system lines
--   lh.sorted_json(60)            -- a JSON profile, keys sorted, "version" after 4 KiB
local lh = {}

--- A counters line whose pairs are separated by `n` blanks: the old trim
-- pattern backtracked over the run for every byte of it.
function lh.inner_blanks(n)
  return "laige-profile version=1\nlaige-profile counters: ticks=1" .. string.rep(" ", n)
    .. "frames=2 draw_calls=0 texture_binds=0 net_bytes=0\n"
end

--- A system line whose name goes on for `n` bare words: each used to copy
-- the whole name again.
function lh.dotted_name(n)
  return "laige-profile version=1\nlaige-profile system id=1 name=x" .. string.rep(" ..", n)
    .. " budget_ms=1 runs=1 last_ms=0.5 warns=0 errors=0 window: n=0\n"
end

--- A system line with `n` sections ("a: a: a: ..."): four tables each
-- once, 150 times the file in memory.
function lh.many_sections(n)
  return "laige-profile version=1\nlaige-profile system id=1 name=x budget_ms=1 runs=1 last_ms=0.5 warns=0 "
    .. "errors=0 window: n=0" .. string.rep(" a:", n) .. "\n"
end

local SYSTEM = "laige-profile system id=%d name=Sys%d budget_ms=0.5 runs=600 last_ms=0.200349 warns=0 "
  .. "errors=0 window: n=128 min=0.159705 mean=0.20939 p50=0.209325 p95=0.246541 p99=0.257326 max=0.263118\n"

--- A complete text profile whose system lines make it about `bytes` long.
function lh.profile_text(bytes)
  local head = table.concat({
    "laige-profile version=1",
    "laige-profile counters: ticks=600 frames=600 draw_calls=0 texture_binds=0 net_bytes=0",
    "laige-profile tick_ms: n=512 min=2.4 mean=3.2 p50=3.2 p95=3.6 p99=5.9 max=7.0",
    "laige-profile frame_ms: n=256 min=3.4 mean=4.0 p50=4.0 p95=4.5 p99=4.7 max=4.8",
  }, "\n") .. "\n"
  local out, size, i = { head }, #head, 0
  while size < bytes do
    i = i + 1
    local line = string.format(SYSTEM, i, i)
    out[#out + 1] = line
    size = size + #line
  end
  out[#out + 1] = string.format("laige-profile world: entities_alive=0 entities_total=0 entity_capacity=1 "
    .. "sim_allocs=0 systems=%d\n", i)
  return table.concat(out), i
end

--- A JSON profile written with sorted keys (as json.dumps(sort_keys=True)
-- writes it) and `nsystems` systems: "counters" comes first, "version"
-- last, after the systems, far beyond the first 4 KiB.
function lh.sorted_json(nsystems)
  local function stats(n)
    return string.format('{"max": 0.3, "mean": 0.2, "min": 0.1, "n": %d, "p50": 0.2, "p95": 0.25, "p99": 0.28}', n)
  end
  local systems = {}
  for i = 1, nsystems do
    systems[i] = string.format('{"budget_ms": 0.5, "errors": 0, "id": %d, "last_ms": 0.2, "name": "System%02d", '
      .. '"runs": 600, "warns": 0, "window_ms": %s}', i, i, stats(128))
  end
  return '{"counters": {"draw_calls": 0, "frames": 600, "net_bytes": 0, "texture_binds": 0, "ticks": 600}, '
    .. '"frame_time_ms": ' .. stats(256) .. ', "systems": [' .. table.concat(systems, ", ") .. '], '
    .. '"tick_time_ms": ' .. stats(512) .. ', "version": 1, "world": {"entities_alive": 0, '
    .. '"entities_total": 0, "entity_capacity": 1, "sim_allocs": 0, "systems": ' .. nsystems .. '}}\n'
end

return lh
