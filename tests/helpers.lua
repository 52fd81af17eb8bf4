-- tests/helpers.lua: shared helpers for the busted specs (`require "helpers"`;
-- tests/run_busted.lua puts tests/ on package.path).
--
--   local h = require "helpers"
--   local dir = h.tmpdir()                      -- removed at exit (h.cleanup)
--   local path = h.vprof(dir .. "/a.vprof", {  -- a capture built with the writer
--     groups = { "MyGroup" },                   -- custom groups after the defaults
--     nodes = { {id = 1, parent = 0, name = "Frame", group = "Game"} },
--     frames = { {tick = 1, [1] = 10000}, ... },  -- node id -> us or {us=, calls=}
--   })
--   local r = h.run("scripts/hitches.lua", path, "--json")  -- {code, stdout, stderr}
--   local doc = h.run_json("scripts/hitches.lua", path)       -- decoded (asserts exit 0)
--   local sample = h.example_sample("dm")   -- examples/gen/dm.lua run into a new directory
--   h.help_mentions("scripts/lag.lua", {"MAD"})  -- --help exits 0 and says each word
--   h.script_refuses("scripts/lag.lua", path, "at byte 4: ...")  -- exit 2, "<path>: at byte 4: ..."
--
-- Hand-built binary files (the debug-trace specs build their bytes with
-- string.pack straight from format-notes.md, never with the writers or
-- readers under test, so these helpers only pack and concatenate):
--   h.vec3({1, 2, 3})                  -- three LE f32
--   h.chunked({elem_bytes, ...})       -- the chunked array: u8 count, elements, while count == 255
--   local elems, counts, pos = h.unchunk(s, pos, "<I4f")  -- and read back: {{u32, f32}, ...}
--   local path = h.write_in(dir, "x.dm", bytes)   -- dir .. "/x.dm"
--   local fifo = h.mkfifo(dir .. "/pipe.dm")   -- a named pipe at that path
--   local cap, msg, code = h.open_bytes(dir, "x.dm", bytes)  -- h.write_in + vp.open
--   local cap = h.open_ok(path, opts)  -- vp.open, failing the test with msg and code on nil
--   local msg = h.open_fails(path, opts, "ETRUNC")  -- vp.open must fail with that code
--   h.refuses(path, opts, "EFORMAT", "at byte 3: ...")  -- ... and the message "<path>: at byte 3: ..."
--   local cap = h.cut_file(path, "ETRUNC", msg)  -- kept with the warning msg; refused by a strict open
--   h.refuses_bytes(dir, "x.dm", bytes, msg, "ETRUNC")  -- h.write_in + h.refuses, strict by default
--   local cap = h.keeps_cut(dir, "x.dm", bytes, {msg .. "; ..."})  -- lenient: truncated, these warnings
--   h.header_cuts(dir, "devt", bytes, {{9, "at byte 8: ..."}})  -- cut there: refused in either mode
--   for _, s in ipairs(h.mutants(bytes, seed)) do ... end  -- 300 damaged copies, the same every run
--   h.each_mutant(dir, "fz.dm", bytes, seed, function(cap) ... end)  -- each that opens, read and closed
--   local r = h.after_gc(function() return open():record(1) end)  -- a child outliving its capture's refs
--   h.has_fields(cap, {format = "dm", record_count = 2})  -- cap.format == "dm", ...
--   h.all(cap:records())               -- an iterator's values as a list
--   h.fields(cap:records(), "time")    -- one field of each, as a list
--   h.slot_fields(cap, "time")         -- one field of each of cap:slots(), false for an empty slot
--   h.same_slots(cap, "records", "time", {1, false, 2})  -- cap:slots() so, cap:records() without the false
--   h.same_file(bytes, path, size)     -- path holds exactly bytes, and size == #bytes
--   h.same_vec({1, 2, 3}, rec.pos)     -- asserts rec.pos == {x = 1, y = 2, z = 3} (4th -> w)
local vp = require "vp"

local h = {}

-- Quoting for the shell and whole-file reads and writes: the docs tools' own
-- (tools/docs_pages.lua; specs run from the top of the tree, as the tools do).
local pages = dofile("tools/docs_pages.lua")

--- The vpscript binary under test: $VPSCRIPT_BIN or ./vpscript.
function h.bin()
  return os.getenv("VPSCRIPT_BIN") or "./vpscript"
end

--- Shell-quote one word.
function h.quote(s)
  return pages.quote(tostring(s))
end

local tmpdirs = {}

--- A fresh temporary directory (removed by h.cleanup()).
function h.tmpdir()
  local p = io.popen("mktemp -d /tmp/vpscript-test.XXXXXX")
  local dir = p:read("l")
  p:close()
  assert(dir and dir ~= "", "mktemp -d failed")
  tmpdirs[#tmpdirs + 1] = dir
  return dir
end

--- Remove every directory made by h.tmpdir().
function h.cleanup()
  for i = #tmpdirs, 1, -1 do
    os.execute("rm -rf " .. h.quote(tmpdirs[i]))
    tmpdirs[i] = nil
  end
end

h.read_file = pages.read

function h.write_file(path, data)
  pages.write(path, data)
  return path
end

--- Run the binary with the given words: {code =, stdout =, stderr =, cmd =}.
-- The environment can be prefixed with opts {env = {NAME = value}, stdin = s}
-- passed as a table as the LAST argument.
function h.run(...)
  local words = table.pack(...)
  local opts = {}
  if type(words[words.n]) == "table" then
    opts = words[words.n]
    words.n = words.n - 1
  end
  local parts = {}
  for k, v in pairs(opts.env or {}) do parts[#parts + 1] = k .. "=" .. h.quote(v) end
  parts[#parts + 1] = h.quote(h.bin())
  for i = 1, words.n do parts[#parts + 1] = h.quote(words[i]) end
  local errf = os.tmpname()
  local cmd = table.concat(parts, " ") .. " 2>" .. h.quote(errf)
  if opts.stdin then
    local inf = os.tmpname()
    h.write_file(inf, opts.stdin)
    cmd = cmd .. " <" .. h.quote(inf)
  else
    cmd = cmd .. " </dev/null"
  end
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, how, code = p:close()
  local err = h.read_file(errf)
  os.remove(errf)
  if how == "signal" then code = 128 + code end
  return { code = code, stdout = out, stderr = err, cmd = cmd }
end

--- Run and decode stdout as JSON; fails the test unless the exit code is 0.
function h.run_json(...)
  local r = h.run(...)
  if r.code ~= 0 then
    error(string.format("%s\nexited %d\nstderr: %s", r.cmd, r.code, r.stderr), 2)
  end
  local cjson = require "cjson"
  local ok, doc = pcall(cjson.decode, r.stdout)
  if not ok then
    error(string.format("%s\nstdout is not JSON (%s):\n%s", r.cmd, doc, r.stdout), 2)
  end
  return doc, r
end

--- `script --help` exits 0 and its stdout holds each of `words` (plain
-- text, not patterns).
function h.help_mentions(script, words)
  local la = require "luassert"
  local r = h.run(script, "--help")
  la.are.equal(0, r.code)
  for _, w in ipairs(words) do la.truthy(r.stdout:find(w, 1, true), script .. " --help does not say: " .. w) end
end

--- `script path` exits 2 and its stderr holds "<path>: msg" (plain text).
function h.script_refuses(script, path, msg)
  local la = require "luassert"
  local r = h.run(script, path)
  la.are.equal(2, r.code)
  la.truthy(r.stderr:find(path .. ": " .. msg, 1, true), r.stderr)
end

--- Run examples/gen/<fmt>.lua into a fresh directory (it must exit 0):
-- the path of the sample it writes there, <dir>/sample.<fmt>.
function h.example_sample(fmt)
  local out = h.tmpdir()
  local r = h.run("examples/gen/" .. fmt .. ".lua", out)
  require("luassert").are.equal(0, r.code, r.stderr)
  return out .. "/sample." .. fmt
end

--- Build a .vprof capture with the VProf writer.
-- spec = {
--   root_id = 0, escape_width = 4, group_base = 0, defaults = true,
--   groups = { "Name" | {name, flags} ... },  -- declared after the 31 defaults
--   nodes = { {id =, parent =, name =, group = name | id}, ... },  -- in order
--   frames = { {tick = n, [node_id] = us | {us =, calls =}, add = {node specs}}, ... },
-- }
-- Nodes listed in `nodes` are declared before the first frame; a frame's
-- `add` list declares nodes in that frame (they appear mid-capture).
-- Returns path, {groups = name -> id}.
function h.vprof(path, spec)
  local w = vp.writer("vprof", path, {
    root_id = spec.root_id or 0,
    escape_width = spec.escape_width or 4,
    group_base = spec.group_base or 0,
  })
  local gids = {}
  if spec.defaults ~= false then
    w:default_groups()
    for i, name in ipairs(h.default_groups) do gids[name] = i - 1 end
  end
  for _, g in ipairs(spec.groups or {}) do
    local name, flags = g, 0
    if type(g) == "table" then name, flags = g[1], g[2] or 0 end
    gids[name] = w:group(name, flags)
  end
  local function add_node(n)
    local gid = n.group or "Unaccounted"
    if type(gid) == "string" then gid = assert(gids[gid], "unknown group " .. gid) end
    w:node(n.parent or spec.root_id or 0, n.name, gid, n.id)
  end
  for _, n in ipairs(spec.nodes or {}) do add_node(n) end
  for _, f in ipairs(spec.frames or {}) do
    for _, n in ipairs(f.add or {}) do add_node(n) end
    local times = {}
    for k, v in pairs(f) do
      if math.type(k) == "integer" then times[k] = v end
    end
    w:frame(f.tick or 0, times)
  end
  w:close()
  return path, gids
end

--- A deterministic random function from seed: rand(n) -> an integer in
-- 0..n-1 (an LCG: the same seed always gives the same sequence).
function h.random(seed)
  return function(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  end
end

--- The hitch rule evaluated frame by frame, as hitches.DEFINITIONS states it
-- (the scripts' and s:hitches' reference): frame times t (ms, NaN a missing
-- value: never a hitch, never in a baseline) and p = {factor, window,
-- min_excess_ms} or {threshold_ms, window}; the hitches as {frame,
-- frame_ms, baseline_ms}.
function h.hitch_definition(t, p)
  local out = {}
  for i = 1, #t do
    local vals = {}
    for j = math.max(1, i - p.window), i - 1 do
      if t[j] == t[j] then vals[#vals + 1] = t[j] end
    end
    table.sort(vals)
    local n, b = #vals, nil
    if n > 0 then b = n % 2 == 1 and vals[(n + 1) // 2] or (vals[n // 2] + vals[n // 2 + 1]) / 2 end
    local hit
    if p.threshold_ms then
      hit = t[i] > p.threshold_ms
    else
      hit = b ~= nil and t[i] >= p.factor * b and t[i] - b >= p.min_excess_ms
    end
    if hit then out[#out + 1] = { frame = i, frame_ms = t[i], baseline_ms = b } end
  end
  return out
end

--- The 31 default budget groups, in ID order (spec table, section 4).
h.default_groups = {
  "Unaccounted", "World Rendering", "Displacement_Rendering", "Game", "Player", "NPCs",
  "Server Animation", "Client_Animation", "Physics", "Static_Prop_Rendering",
  "Other_Model_Rendering", "Fast Path Model Rendering", "Light_Cache", "Brush_Model_Rendering",
  "Shadow_Rendering", "Detail_Prop_Rendering", "Particle/Effect_Rendering", "Ropes",
  "Dynamic_Light_Rendering", "Networking", "Sound", "VGUI", "FileSystem", "Prediction",
  "Interpolation", "Swap_Buffers", "Occlusion", "Overlays", "Tools", "Texture_Cache", "Replay",
}

--- Three little-endian f32 (a vec3 as the format notes lay it out).
function h.vec3(v)
  return string.pack("<fff", v[1], v[2], v[3])
end

--- The chunked array of format-notes.md, written out independently of the
-- readers and writers: blocks of 255 elements while at least 255 are left,
-- then one block of the rest (possibly 0), each block a u8 count followed by
-- its elements (already packed strings).
function h.chunked(elems)
  local out, i, n = {}, 1, #elems
  repeat
    local count = math.min(255, n - i + 1)
    out[#out + 1] = string.char(count)
    for k = i, i + count - 1 do out[#out + 1] = elems[k] end
    i = i + count
  until count < 255
  return table.concat(out)
end

--- The other way: read a chunked array from s at pos, each element by the
-- string.unpack format fmt. Returns the elements (each the list of its
-- values), the block counts as read, and the position after the array.
function h.unchunk(s, pos, fmt)
  local elems, counts = {}, {}
  repeat
    local c
    c, pos = string.unpack("<I1", s, pos)
    counts[#counts + 1] = c
    for _ = 1, c do
      local e = table.pack(string.unpack(fmt, s, pos))
      pos = e[e.n]
      elems[#elems + 1] = { table.unpack(e, 1, e.n - 1) }
    end
  until c ~= 255
  return elems, counts, pos
end

--- Make a FIFO (named pipe) at path; returns the path.
function h.mkfifo(path)
  assert(os.execute("mkfifo " .. h.quote(path)), "mkfifo " .. path)
  return path
end

--- Write bytes to dir/name; returns the path.
function h.write_in(dir, name, bytes)
  return h.write_file(dir .. "/" .. name, bytes)
end

--- Write bytes to dir/name and vp.open it: whatever vp.open returns.
function h.open_bytes(dir, name, bytes)
  return vp.open(h.write_in(dir, name, bytes))
end

--- vp.open that fails the test (with the message and code) when it fails.
function h.open_ok(path, opts)
  local cap, msg, code = vp.open(path, opts)
  assert(cap, tostring(msg) .. " " .. tostring(code))
  return cap
end

--- vp.open(path, opts) must fail with `code`: returns the message, for the
-- caller to check whole or by pattern.
function h.open_fails(path, opts, code)
  local la = require "luassert"
  local cap, msg, c = vp.open(path, opts)
  la.is_nil(cap)
  la.are.equal(code, c)
  return msg
end

--- vp.open(path, opts) must fail with `code` and the message "<path>: msg".
function h.refuses(path, opts, code, msg)
  require("luassert").are.equal(path .. ": " .. msg, h.open_fails(path, opts, code))
end

--- A cut file that a lenient open keeps, truncated, with the one warning
-- msg, and that a strict open refuses with code and msg: returns the
-- lenient open's capture.
function h.cut_file(path, code, msg)
  local la = require "luassert"
  h.refuses(path, { strict = true }, code, msg)
  local cap = h.open_ok(path)
  la.is_true(cap.truncated)
  la.are.same({ msg }, cap.warnings)
  return cap
end

--- Bytes written to dir/name that vp.open refuses with `code` and the
-- message "<path>: msg". opts default to a strict open: it refuses what a
-- lenient one keeps with a warning.
function h.refuses_bytes(dir, name, bytes, msg, code, opts)
  h.refuses(h.write_in(dir, name, bytes), opts or { strict = true }, code, msg)
end

--- A file cut inside its header is refused (ETRUNC) by a lenient and a
-- strict open alike: for each {n, msg} of `cuts`, the first n bytes of
-- full, written to dir/t<n>.<ext>.
function h.header_cuts(dir, ext, full, cuts)
  for _, opts in ipairs({ {}, { strict = true } }) do
    for _, c in ipairs(cuts) do
      h.refuses_bytes(dir, "t" .. c[1] .. "." .. ext, full:sub(1, c[1]), c[2], "ETRUNC", opts)
    end
  end
end

--- Bytes written to dir/name that a lenient open keeps: the capture is
-- truncated and has exactly `warnings`; returns it.
function h.keeps_cut(dir, name, bytes, warnings)
  local la = require "luassert"
  local cap = assert(h.open_bytes(dir, name, bytes))
  la.is_true(cap.truncated)
  la.are.same(warnings, cap.warnings)
  return cap
end

--- The fuzz-like inputs of the reader specs: n (default 300) copies of
-- base, each with 1 to 4 bytes overwritten and then cut at a random length,
-- drawn from a linear congruential generator started at `seed` (so every
-- run reads the same inputs).
function h.mutants(base, seed, n)
  local function rnd(k)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % k
  end
  local list = {}
  for i = 1, n or 300 do
    local b = { base:byte(1, -1) }
    for _ = 1, 1 + rnd(4) do b[1 + rnd(#b)] = rnd(256) end
    list[i] = string.char(table.unpack(b)):sub(1, 1 + rnd(#b))
  end
  return list
end

--- The reader specs' fuzz-like test: each of h.mutants(bytes, seed) is
-- written to dir/name and opened; walk(cap) reads every capture that opens
-- (whatever does not open is passed over), which is then closed; at least
-- one must open.
function h.each_mutant(dir, name, bytes, seed, walk)
  local walked = 0
  for _, s in ipairs(h.mutants(bytes, seed)) do
    local cap = vp.open(h.write_in(dir, name, s))
    if cap then
      walk(cap)
      cap:close()
      walked = walked + 1
    end
  end
  -- a reader that refused every mutant would walk nothing and prove nothing
  require("luassert").is_true(walked > 0, name .. ": no mutant opened")
end

--- make() opens a capture and returns one of its children (a record, a
-- group, ...), so that only the child refers to the capture once make has
-- returned; after two full collections the child is returned, for the
-- caller to show it still reads (a child keeps its capture alive).
function h.after_gc(make)
  local child = make()
  collectgarbage()
  collectgarbage()
  return child
end

--- Every value an iterator yields, as a list.
function h.all(iter)
  local list = {}
  for x in iter do list[#list + 1] = x end
  return list
end

--- Assert that obj[k] is the same as v for every k, v of `expect` (in key
-- order; each failure names its field). A field that must be nil needs
-- its own assert.is_nil: nil cannot stand in a table.
function h.has_fields(obj, expect)
  local la = require "luassert"
  local keys = {}
  for k in pairs(expect) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do la.are.same(expect[k], obj[k], "field " .. k) end
end

--- One field of every value an iterator yields, as a list.
function h.fields(iter, field)
  local list = {}
  for x in iter do list[#list + 1] = x[field] end
  return list
end

--- One field of every slot of cap:slots(), false for an empty slot.
function h.slot_fields(cap, field)
  local list = {}
  for i, x in cap:slots() do list[i] = x and x[field] or false end
  return list
end

--- cap:slots() gives `field` of each slot as `expect` lists it, false for
-- an empty slot, and cap[iter]() the same without the empty slots.
function h.same_slots(cap, iter, field, expect)
  local la = require "luassert"
  la.are.same(expect, h.slot_fields(cap, field))
  local used = {}
  for _, v in ipairs(expect) do
    if v ~= false then used[#used + 1] = v end
  end
  la.are.same(used, h.fields(cap[iter](cap), field))
end

--- The file at path holds exactly the bytes `expect`, the size a writer's
-- close reported.
function h.same_file(expect, path, size)
  local la = require "luassert"
  la.are.equal(#expect, size)
  la.are.equal(expect, h.read_file(path))
end

--- Assert that v is the vector {x, y, z[, w]} given as a list. A required
-- module sees the plain Lua assert (busted gives luassert to the specs
-- only), so luassert is asked for here; it is the same table the specs use.
function h.same_vec(expect, v)
  require("luassert").are.same({ x = expect[1], y = expect[2], z = expect[3], w = expect[4] }, v)
end

--- Find a row in a list by field value.
function h.find(list, field, value)
  for _, row in ipairs(list) do
    if row[field] == value then return row end
  end
  return nil
end

--- Approximate comparison for floating results (exact values are planted in
-- multiples of 4 us, so sums only carry binary rounding error).
function h.near(a, b, eps)
  return type(a) == "number" and type(b) == "number" and math.abs(a - b) <= (eps or 1e-9)
end

--- The vp.error that f(...) raises (fails the test when f returns or raises
-- anything else).
function h.raised(f, ...)
  local la = require "luassert"
  local ok, e = pcall(f, ...)
  la.is_false(ok, "expected an error")
  la.is_true(require("vp.error").is(e), tostring(e))
  return e
end

--- Assert that v is plain data all through: numbers (no NaN or infinity),
-- strings, booleans and tables without metatables (so no JSON null and no
-- userdata). path names v in the message.
function h.assert_plain(v, path)
  local t = type(v)
  if t == "number" then
    assert(v == v and v ~= math.huge and v ~= -math.huge, path .. ": " .. tostring(v))
  elseif t == "table" then
    assert(getmetatable(v) == nil, path .. ": a table with a metatable")
    for k, x in pairs(v) do h.assert_plain(x, path .. "." .. tostring(k)) end
  else
    assert(t == "string" or t == "boolean", path .. ": a " .. t)
  end
end

--- Assert that f(...) raises a vp.error with `code` whose message matches
-- the Lua pattern `pattern` (when given).
function h.raises(code, pattern, f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "no error raised")
  local E = require "vp.error"
  assert(E.is(e), "not a vp.error: " .. tostring(e))
  assert(e.code == code, string.format("code %s, expected %s (%s)", tostring(e.code), code, tostring(e.message)))
  if pattern then
    assert(tostring(e.message):find(pattern), string.format("message %q does not match %q", e.message, pattern))
  end
end

return h
