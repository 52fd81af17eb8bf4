-- tests/hostile/cases.lua: the crafted inputs of issue 15, built from the
-- format specs (specs/format-notes.md, laige-profiler.md) byte by byte, never
-- committed: the specs (tests/hostile/*_spec.lua) and the resource table
-- (tests/hostile/measure.sh) generate them into a temporary directory.
--
--   local cases = require "hostile.cases"      -- tests/ on package.path
--   local path = cases.write(dir, "dlag_empty_measurements", {n = 200000})
--   for _, c in ipairs(cases.list) do print(c.name, c.ext, c.about) end
--
-- Each case takes a size parameter `n` (its default is the size issue 15
-- measured: 4 M records, a 100,000-deep chain, ...; specs pass a smaller one
-- that still shows the fault) and writes the file with a streaming writer,
-- so generating a 20 MB file never holds more than one block in memory.
-- The binary trace cases follow format-notes.md; the VProf ones use the
-- VProf writer (a reader's own writer is fine for the deep chains, whose
-- framing is ordinary); the laige text cases follow laige-profiler.md.
local cases = { list = {}, by_name = {} }

local pack, rep = string.pack, string.rep

local function add(name, ext, about, default_n, gen)
  local c = { name = name, ext = ext, about = about, n = default_n, gen = gen }
  cases.list[#cases.list + 1] = c
  cases.by_name[name] = c
end

-- A chunked array (format-notes.md) of n elements produced by elem(i)
-- (0-based), written block by block: u8 count (255 while full), elements.
local function chunked(out, n, elem)
  local i = 0
  repeat
    local k = math.min(n - i, 255)
    local buf = {}
    for j = 1, k do buf[j] = elem(i + j - 1) end
    out:write(string.char(k), table.concat(buf))
    i = i + k
  until k < 255
end

-- The same for n identical elements: one string per full block.
local function chunked_same(out, n, elem)
  local full = string.char(255) .. rep(elem, 255)
  local blocks = n // 255
  for _ = 1, blocks do out:write(full) end
  local k = n - blocks * 255
  out:write(string.char(k), rep(elem, k))
end

-- n copies of the string `one`, written 4,096 at a time.
local function write_rep(out, one, n)
  local block = rep(one, 4096)
  for _ = 1, n // 4096 do out:write(block) end
  out:write(rep(one, n % 4096))
end

-- n records made by rec(i) (0-based), written 4,096 at a time.
local function write_each(out, n, rec)
  for k = 0, n - 1, 4096 do
    local buf = {}
    for j = k, math.min(k + 4095, n - 1) do buf[#buf + 1] = rec(j) end
    out:write(table.concat(buf))
  end
end

local function devt_header(out, groups)
  -- time, unknown, graph_duration, prefix 0 and its 8-byte bitfield, count
  out:write(pack("<I4I4I4I2", 1000, 0, 16, 0), rep("\0", 8), pack("<I4", groups))
end

-- ---- .dlag ------------------------------------------------------------

add("dlag_empty_measurements", "dlag",
  "n measurements without samples (5 bytes each): lag.lua built a row, two Series and a cached "
    .. "userdata per measurement (4.5 GB for 4 M)", 4000000,
  function(out, n)
    out:write(pack("<I4I4", 7, n))
    write_rep(out, pack("<I4B", 0, 0), n)
    out:write("\0", "\0") -- no graph states, traceroute off
  end)

add("dlag_one_sample_each", "dlag",
  "n measurements of one sample each (17 bytes): every one has statistics and a spike rule",
  1000000,
  function(out, n)
    out:write(pack("<I4I4", 7, n))
    write_each(out, n, function(j) return pack("<I4B fI4I4", 1, 1, (j % 97) * 1.5, j, 0) end)
    out:write("\0", "\0")
  end)

add("dlag_spiky_samples", "dlag",
  "one measurement of n samples, every tenth a spike above p50 + 5 x MAD (MAD 0): the spike list",
  1500000,
  function(out, n)
    out:write(pack("<I4I4I4", 7, 1, n))
    chunked(out, n, function(i)
      return pack("<fI4I4", (i % 10 == 0) and 100.0 + i % 7 or 1.0, i, 0)
    end)
    out:write("\0", "\0")
  end)

-- ---- .devt ------------------------------------------------------------

add("devt_many_groups", "devt",
  "n empty groups (5 bytes each): info.lua printed a row per group (104 MB for 4 M) and took 3.3 GB",
  4000000,
  function(out, n)
    devt_header(out, n)
    write_rep(out, pack("<I4B", 0, 0), n)
  end)

add("devt_groups_one_event", "devt",
  "n groups of one event each (14 bytes): a (group, type) bucket per group in events.lua",
  1400000,
  function(out, n)
    devt_header(out, n)
    write_each(out, n, function(j) return pack("<I4B I4I4B", 1, 1, j, j, j % 11) end)
  end)

add("devt_many_events", "devt",
  "n events in the frames group (9 bytes each): events.lua kept a table per event",
  2000000,
  function(out, n)
    devt_header(out, 4)
    out:write(pack("<I4", n))
    chunked(out, n, function(i) return pack("<I4I4B", i * 16 + (i % 5), i, (i % 3 == 0) and 0 or 1) end)
    for _ = 2, 4 do out:write(pack("<I4B", 0, 0)) end
  end)

-- ---- .dm --------------------------------------------------------------

add("dm_empty_records", "dm",
  "n empty records (1 byte each): one record array of 4 M slots", 4000000,
  function(out, n) chunked_same(out, n, "\0") end)

-- A group of 45 bytes (no extended block) for record i.
local function dm_group(i)
  return pack("<I2 fff ffff fff I2 B", i % 65536, i * 0.5, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0)
end

add("dm_records_one_group", "dm",
  "n records of one group each (54 bytes): movement.lua kept a sample table per record", 400000,
  function(out, n)
    chunked(out, n, function(i) return pack("<BI4I4", 1, i * 16, 1) .. dm_group(i) end)
  end)

-- ---- .dw --------------------------------------------------------------

local function dw_file(out, n, slot)
  out:write("\1\2\3\4", string.char(255))
  write_each(out, n, slot)
  out:write(pack("<I4", n))
end

add("dw_empty_slots", "dw", "n empty slots (1 byte each)", 4000000,
  function(out, n) dw_file(out, n, function() return "\0" end) end)

add("dw_empty_traces", "dw",
  "n traces without hits (12 bytes each): hitdiff.lua built two hit lists per trace", 4000000,
  function(out, n) dw_file(out, n, function(i) return pack("<BBI4I4BB", 1, 0, i, 0, 0, 0) end) end)

-- A hit of 41 bytes (no entity, no ragdoll).
local function dw_hit(kind, id, t)
  return pack("<BI4I4I2 fff fff I4 BB", kind, id, t, 0, id * 1.0, 0, 0, 1, 0, 0, 0, 0, 0)
end

add("dw_client_only", "dw",
  "n traces with one client Impact and no server hit (53 bytes): a detail row per trace", 400000,
  function(out, n)
    dw_file(out, n, function(i) return pack("<BBI4I4B", 1, 0, i, 0, 1) .. dw_hit(6, i, i) .. "\0" end)
  end)

-- ---- VProf ----------------------------------------------------------------

local function vprof_chain(path, n, group_of)
  local vp = require "vp"
  local w = vp.writer("vprof", path)
  w:default_groups()
  local hidden = { w:group("HiddenA", 0x8000), w:group("HiddenB", 0x8000) }
  group_of = group_of or function(i) return hidden[i % 2 + 1] end
  local parent = w.root_id
  local t = {}
  for i = 1, n do
    parent = w:node(parent, "d" .. i, group_of(i))
    if i % 1000 == 0 or i == n then t[parent] = 4 end
  end
  w:frame(1, t)
  w:frame(2, t)
  return w:close()
end

add("vprof_deep_chain", "vprof",
  "a chain of n nodes, each the child of the last: a full path per node is O(n^2) bytes", 100000,
  function(_, n, path) vprof_chain(path, n, function(i) return i % 31 end) end)

add("vprof_hidden_chain", "vprof",
  "a chain of n nodes in hidden groups: budget.lua --fold-hidden walked to the root per node", 100000,
  function(_, n, path)
    -- The chain alternates two hidden groups: every node folds to the root.
    vprof_chain(path, n)
  end)

-- The bombs of issue 27's resource target (tests/hostile/resources_spec.lua).

add("vprof_many_groups", "vprof",
  "n declared budget groups (about 11 bytes each) that no node uses, and 600 frames of a small tree: "
    .. "report.lua and plot --chart budget allocated columns x declared groups (7.6 GB for 10.9 MB)", 1000000,
  function(_, n, path)
    local vp = require "vp"
    local w = vp.writer("vprof", path)
    w:default_groups()
    for i = 1, n do w:group("G" .. i) end
    local a = w:node(w.root_id, "A", 1)
    local b = w:node(a, "B", 2)
    for i = 1, 600 do w:frame(i, { [a] = 1000 + i % 7, [b] = 400 + i % 5 }) end
    w:close()
  end)

add("vprof_long_names_chain", "vprof",
  "a chain of n nodes named with 1,500 bytes each, every tenth with self time: export --to folded kept "
    .. "every stack's full text (2.9 GB for 1.5 MB at n = 1000)", 1000,
  function(_, n, path)
    local vp = require "vp"
    local w = vp.writer("vprof", path)
    w:default_groups()
    local parent, t = w.root_id, {}
    for i = 1, n do
      parent = w:node(parent, string.format("%06d", i) .. rep("n", 1494), i % 31)
      if i % 10 == 0 then t[parent] = 40 end
    end
    w:frame(1, t)
    w:frame(2, t)
    w:close()
  end)

add("vprof_huge_name", "vprof",
  "one node whose name is n bytes, in a group of an n-byte name", 4000000,
  function(_, n, path)
    local vp = require "vp"
    local w = vp.writer("vprof", path)
    w:default_groups()
    local g = w:group(rep("g", n))
    local a = w:node(w.root_id, rep("x", n), g)
    for i = 1, 20 do w:frame(i, { [a] = 1000 + i }) end
    w:close()
  end)

add("vprof_many_nodes", "vprof",
  "n nodes in a tree where each inner node has 100 children, every node with time (its own plus its "
    .. "children's) in each of 4 frames: tree, folded, compare and node took 30-50x the file", 200000,
  function(_, n, path)
    local vp = require "vp"
    local w = vp.writer("vprof", path)
    w:default_groups()
    local ids, parent_of, own = { w.root_id }, {}, {}
    for i = 1, n do
      parent_of[i] = (i - 1) // 100 -- an index into ids: 0 is the root
      ids[i + 1] = w:node(ids[parent_of[i] + 1], "n" .. i, i % 31)
      own[i] = 4 + 4 * (i % 3)
    end
    local t = {}
    for i = n, 1, -1 do -- children come after their parents: their totals are done first
      local us = own[i] + (t[ids[i + 1]] or 0)
      t[ids[i + 1]] = us
      if parent_of[i] > 0 then t[ids[parent_of[i] + 1]] = (t[ids[parent_of[i] + 1]] or 0) + us end
    end
    for f = 1, 4 do w:frame(f, t) end
    w:close()
  end)

add("vprof_many_groups_used", "vprof",
  "n budget groups, each with one node of its own and time in every frame (60 frames): compare on a "
    .. "100,000-group capture took 865 MB and 29 s", 100000,
  function(_, n, path)
    local vp = require "vp"
    local w = vp.writer("vprof", path)
    w:default_groups()
    local t = {}
    for i = 1, n do t[w:node(w.root_id, "n" .. i, w:group("G" .. i))] = 4 * (1 + i % 5) end
    for f = 1, 60 do w:frame(f, t) end
    w:close()
  end)

-- ---- names that inject (issue 27) -----------------------------------------

--- Names that try to inject: terminal sequences (an OSC title, CSI, BEL, a
-- C1 CSI), line breaks that forge a CI log command, a carriage return that
-- overwrites a line, invalid UTF-8, Markdown (backticks, a heading, HTML, a
-- link, a table pipe) and spreadsheet formulas.
cases.HOSTILE_NAMES = {
  "osc\27]0;pwned\7title", "csi\27[2J\27[Hclear", "c1\194\155" .. "31mred", "bell\7",
  "forged\n::error::ALL GATES PASSED", "cr\roverwritten", "bad\255\254utf8", "tab\tbed",
  "tick`s` and ``more``", "`\n# ALL GATES PASSED\n`", "<img src=x onerror=alert(1)>", "[click](http://evil.example)",
  "pipe|in|name", "=HYPERLINK(\"http://evil.example\")", "+1+2", "-3+4", "@SUM(A1)", "\tlead tab",
}

--- cases.named_vprof(path, names [, slower]) -> path: the tree Root > A >
-- each of `names`, each node in a budget group of its own name (node i
-- takes 100 + i us a frame, times `slower`), 40 frames, and a hitch in
-- frame 30 caused by the last name.
function cases.named_vprof(path, names, slower)
  local vp = require "vp"
  local k = slower or 1
  local w = vp.writer("vprof", path)
  w:default_groups()
  local a = w:node(w.root_id, "A", 1)
  local t, last = { [a] = 1000 * k }, nil
  for i, name in ipairs(names) do
    last = w:node(a, name, w:group(name))
    t[last] = (100 + i) * k
  end
  local hitch = {}
  for id, us in pairs(t) do hitch[id] = us end
  if last then hitch[last], hitch[a] = 40000, 41000 end
  for i = 1, 40 do w:frame(i, i == 30 and hitch or t) end
  w:close()
  return path
end

add("vprof_hostile_names", "vprof",
  "a node and a budget group named each of cases.HOSTILE_NAMES (n: the times' multiplier): names reached "
    .. "text, CSV and Markdown output raw", 1,
  function(_, n, path) cases.named_vprof(path, cases.HOSTILE_NAMES, n) end)

add("vprof_plain_names", "vprof",
  "vprof_hostile_names with plain names (name1, name2, ...): the shape the hostile one must keep", 1,
  function(_, n, path)
    local plain = {}
    for i = 1, #cases.HOSTILE_NAMES do plain[i] = "name" .. i end
    cases.named_vprof(path, plain, n)
  end)

-- ---- laige text -----------------------------------------------------------

add("laige_trailing_spaces", "txt",
  "a laige profile line with n spaces before its last character: the trim pattern "
    .. "'^%s*(.-)%s*$' backtracked, O(n^2) (72 s for 100 KB)", 100000,
  function(out, n)
    out:write("laige-profile version=1\n",
      "laige-profile counters: ticks=1 frames=1 draw_calls=0 texture_binds=0 net_bytes=0", rep(" ", n),
      "x\n")
  end)

add("laige_bare_words", "txt",
  "a laige line of a key=value pair and n bare words after it: each word was appended to the "
    .. "value with '..', O(n^2) (over 150 s for a 2 MB line)", 1000000,
  function(out, n)
    out:write("laige-profile version=1\n", "laige-profile counters: ticks=1 ", rep("w ", n), "\n")
  end)

add("laige_many_systems", "txt",
  "a laige text profile of n system lines (~190 bytes each): 1.48 GB and 92 s for 200 MB", 1000000,
  function(out, n)
    out:write("laige-profile version=1\n",
      "laige-profile counters: ticks=600 frames=600 draw_calls=0 texture_binds=0 net_bytes=0\n",
      "laige-profile tick_ms: n=4 min=1 mean=2 p50=2 p95=3 p99=3 max=3\n",
      "laige-profile frame_ms: n=4 min=1 mean=2 p50=2 p95=3 p99=3 max=3\n",
      "laige-profile world: entities_alive=1 entities_total=1 entity_capacity=1 sim_allocs=0 systems=", n, "\n")
    write_each(out, n, function(j)
      return string.format("laige-profile system id=%d name=Sys%d budget_ms=0.5 runs=600 last_ms=0.2 "
        .. "warns=0 errors=0 window: n=8 min=0.1 mean=0.2 p50=0.2 p95=0.3 p99=0.3 max=0.4\n", j + 1, j + 1)
    end)
  end)

add("laige_json_numbers", "json",
  "a laige JSON profile whose numbers are NaN, Infinity, 0x10 and 1e999, and a duplicate key "
    .. "(n is unused): accepted silently where the text reader rejects them", 1,
  function(out)
    out:write('{"version": 1, "version": 1, "counters": {"ticks": NaN, "frames": Infinity, ',
      '"draw_calls": 0x10, "texture_binds": 1e999, "net_bytes": 0}}\n')
  end)

add("laige_deep_json", "json",
  "a laige JSON profile with an unknown key holding about n bytes of arrays nested 500 deep: the "
    .. "reader took 66x the file (1.3 GB for 20 MB)", 20000000,
  function(out, n)
    out:write('{"version": 1, "counters": {"ticks": 1, "frames": 1, "draw_calls": 0, "texture_binds": 0, ',
      '"net_bytes": 0}, "extra": [')
    local one = rep("[", 500) .. "1" .. rep("]", 500)
    local k = math.max(1, n // (#one + 1))
    for i = 1, k do out:write(i > 1 and "," or "", one) end
    out:write("]}\n")
  end)

--- cases.write(dir, name, opts) -> path: generate case `name` into dir
-- (file name "<name>.<ext>"), size opts.n (the case's default when absent).
function cases.write(dir, name, opts)
  local c = assert(cases.by_name[name], "no hostile case " .. tostring(name))
  local n = (opts and opts.n) or c.n
  local path = dir .. "/" .. name .. "." .. c.ext
  if c.ext == "vprof" then
    c.gen(nil, n, path)
  else
    local out = assert(io.open(path, "wb"))
    c.gen(out, n, path)
    assert(out:close())
  end
  return path
end

return cases
