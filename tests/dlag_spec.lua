-- The .dlag (lag profiler) model through the real bindings, its writer, and
-- lag.lua. Reader tests build their files by hand with string.pack from
-- specs/format-notes.md, so they do not lean on the writer; writer tests
-- decode the writer's bytes by hand, so they do not lean on the reader.
local vp = require "vp"
local h = require "helpers"
local cjson = require "cjson"

local dir

local function sample(v, t, u) return string.pack("<fI4I4", v, t, u or 0) end

local function seq(n, t0)
  local s = {}
  for i = 1, n do s[i] = sample(i * 0.5, t0 + i, i % 5) end
  return s
end

local function meas(samples, total) return string.pack("<I4", total or #samples) .. h.chunked(samples) end

local function gstate(o)
  local n = o.count or 0
  local bits = o.bitfield or string.rep("\0", ((n >> 6) + 1) << 3)
  local off, sc = o.offset or { 0, 0, 0, 0 }, o.scale or { 0, 0, 0, 0 }
  return string.pack("<I2", n) .. bits .. string.pack("<ffff", off[1], off[2], off[3], off[4])
    .. string.pack("<ffff", sc[1], sc[2], sc[3], sc[4]) .. string.pack("<I1I1", o.print_titles or 0, o.unknown or 0)
end

local function hop(o)
  local a, f = o.address or { 0, 0, 0, 0 }, o.floats or { 0, 0, 0, 0 }
  return string.pack("<I1I1I1I1", a[1], a[2], a[3], a[4]) .. h.chunked(o.samples or {}) .. (o.name or "") .. "\0"
    .. string.pack("<I1I4ffffI1", o.u8a or 0, o.u32 or 0, f[1], f[2], f[3], f[4], o.u8b or 0)
end

-- o = {time, count, measurements = {bytes}, states = {bytes}, host, hops = {bytes}, tail}
local function dlag(o)
  local m = o.measurements or {}
  return string.pack("<I4I4", o.time or 0, o.count or #m) .. table.concat(m)
    .. h.chunked(o.states or {}) .. (o.host or "") .. "\0" .. table.concat(o.hops or {}) .. (o.tail or "")
end

describe("dlag", function()
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  describe("capture", function()
    it("exposes every field of a minimal file", function()
      local bytes = dlag({ time = 4242 })
      assert.are.equal(10, #bytes) -- time, count 0, graph states 00, host ""
      local path = h.write_in(dir, "min.dlag", bytes)
      local cap = assert(vp.open(path))
      h.has_fields(cap, {
        format = "dlag", path = path, size = 10, warnings = {}, time = 4242, measurement_count = 0,
        sample_count = 0, graph_state_count = 0, traceroute_host = "", hop_count = 0, trailing_bytes = 0,
        truncated = false,
      })
      assert.are.equal(0, #cap)
      for _, iter in ipairs({ cap:measurements(), cap:graph_states(), cap:hops() }) do
        assert.is_nil(iter())
      end
      assert.has_error(function() cap:measurement(1) end, "measurement 1 is out of range: there are none")
      assert.has_error(function() cap:graph_state(1) end, "graph state 1 is out of range: there are none")
      assert.has_error(function() cap:hop(1) end, "hop 1 is out of range: there are none")
      assert.is_nil(cap:measurement("Client Frame"))
      cap:close()
    end)

    it("reads measurements, their samples and Series", function()
      local bytes = dlag({ time = 1, measurements = {
        meas({ sample(1.5, 1000, 7), sample(-3.75, 1200, 0xFFFFFFFF), sample(0.25, 1100, 0) }),
        meas({}),
        meas({ sample(2, 5, 1) }),
      } })
      local cap = assert(h.open_bytes(dir, "meas.dlag", bytes))
      assert.are.equal(3, cap.measurement_count)
      assert.are.equal(4, cap.sample_count)
      local m = cap:measurement(1)
      assert.are.equal(1, m.index)
      assert.are.equal("Client Frame", m.name)
      assert.are.equal(0, m.page)
      assert.are.equal(3, m.total)
      assert.are.equal(3, m.count)
      assert.are.equal(3, #m)
      assert.are.equal(8, m.file_offset)
      assert.are.equal(cap, m.capture)
      assert.are.equal(m, cap:measurement("Client Frame"))
      assert.are.same({ index = 2, value = -3.75, time = 1200, unknown = 0xFFFFFFFF }, m:sample(2))
      assert.has_error(function() m:sample(4) end, "sample 4 is out of range 1..3")
      assert.has_error(function() m:sample(0) end, "sample 0 is out of range 1..3")
      assert.are.equal(3, #cap)
      assert.are.same({ index = 1, name = "Client Frame", page = 0, total = 3, count = 3, file_offset = 8,
        samples = { m:sample(1), m:sample(2), m:sample(3) } }, m:totable())
      assert.are_not.equal(m, cap:measurement(2))
      local got = {}
      for s in m:samples() do got[#got + 1] = { s.index, s.value, s.time, s.unknown } end
      assert.are.same({ { 1, 1.5, 1000, 7 }, { 2, -3.75, 1200, 0xFFFFFFFF }, { 3, 0.25, 1100, 0 } }, got)
      assert.are.same({ 1.5, -3.75, 0.25 }, m:values():totable())
      assert.are.same({ 1000, 1200, 1100 }, m:times():totable())
      local m2 = cap:measurement(2)
      assert.are.equal("Server Frame", m2.name)
      assert.are.equal(8 + 4 + 1 + 36, m2.file_offset)
      assert.are.equal(0, #m2:values())
      assert.is_nil(m2:samples()())
      local idx = {}
      for x in cap:measurements() do idx[#idx + 1] = x.index end
      assert.are.same({ 1, 2, 3 }, idx)
      cap:close()
    end)

    it("names measurements by position from the 73-entry table, then measurement_N", function()
      local ms = {}
      for i = 1, 75 do ms[i] = meas({ sample(i, i) }) end
      local cap = assert(h.open_bytes(dir, "names.dlag", dlag({ measurements = ms })))
      local expect = { [1] = "Client Frame", [8] = "Socket RTT", [9] = "Packet Downloss",
        [16] = "Client Lateness", [17] = "Server Lateness", [44] = "Total Objects", [56] = "Raia Frame",
        [59] = "Total Objects", [64] = "Movement Correction Length", [72] = "MPH", [73] = "RPM",
        [74] = "measurement_74", [75] = "measurement_75" }
      for i, name in pairs(expect) do assert.are.equal(name, cap:measurement(i).name) end
      for i, page in pairs({ [1] = 0, [8] = 0, [9] = 1, [16] = 1, [17] = 2, [64] = 7, [65] = 8, [72] = 8,
        [73] = 9 }) do
        assert.are.equal(page, cap:measurement(i).page)
      end
      assert.are.equal(8, cap:measurement("Socket RTT").index)
      assert.are.equal(8, cap:measurement("socket rtt").index)
      assert.are.equal(44, cap:measurement("Total Objects").index) -- the first; 59 by index
      assert.are.equal(74, cap:measurement("measurement_74").index)
      assert.is_nil(cap:measurement("measurement_76"))
      assert.is_nil(cap:measurement("measurement_"))
      assert.is_nil(cap:measurement("No Such Thing"))
      assert.has_error(function() cap:measurement(76) end, "measurement 76 is out of range 1..75")
      assert.are.equal(73, cap:measurement(73):values()[1])
      cap:close()
    end)

    for _, n in ipairs({ 0, 1, 254, 255, 256, 300 }) do
      it("reads a chunked array of exactly " .. n .. " samples (measurement and tail record)", function()
        local bytes = dlag({ measurements = { meas(seq(n, 100)), meas({ sample(9, 9) }) },
          hops = { hop({ address = { 1, 2, 3, 4 }, samples = seq(n, 500), name = "x" }) } })
        local cap = assert(h.open_bytes(dir, "s" .. n .. ".dlag", bytes))
        assert.are.same({}, cap.warnings)
        local m = cap:measurement(1)
        assert.are.equal(n, #m)
        local i = 0
        for s in m:samples() do
          i = i + 1
          assert.are.same({ i * 0.5, 100 + i, i % 5 }, { s.value, s.time, s.unknown })
        end
        assert.are.equal(n, i)
        local v = m:values()
        assert.are.equal(n, #v)
        if n > 0 then assert.are.equal(n * 0.5, v[n]) end
        assert.are.equal(9, cap:measurement(2):sample(1).value)
        local hp = cap:hop(1)
        assert.are.equal(n, #hp)
        assert.are.equal("x", hp.name)
        if n > 0 then assert.are.equal(500 + n, hp:sample(n).time) end
        assert.are.equal(n, #hp:times())
        cap:close()
      end)
    end

    it("reads graph states: none, one and 255 (a full block)", function()
      local cap = assert(h.open_bytes(dir, "gs0.dlag", dlag({ states = {} })))
      assert.are.equal(0, cap.graph_state_count)
      cap:close()
      local one = gstate({ count = 72, bitfield = "\255\1" .. string.rep("\0", 13) .. "\128",
        offset = { 1, 2.5, -3, 4 }, scale = { 0.5, 1, 2, 8 }, print_titles = 1, unknown = 200 })
      local path = h.write_in(dir, "gs1.dlag", dlag({ measurements = { meas({}) }, states = { one }, host = "h" }))
      cap = assert(vp.open(path))
      assert.are.equal(1, cap.graph_state_count)
      local gs = cap:graph_state(1)
      assert.are.equal(1, gs.index)
      assert.are.equal(72, gs.measurement_count)
      assert.are.equal(16, #gs.bitfield)
      assert.are.same({ 0, 1, 2, 3, 4, 5, 6, 7, 8, 127 }, gs.bits)
      assert.are.same({ x = 1, y = 2.5, z = -3, w = 4 }, gs.offset)
      assert.are.same({ x = 0.5, y = 1, z = 2, w = 8 }, gs.scale)
      assert.is_true(gs.print_titles)
      assert.are.equal(200, gs.unknown)
      assert.are.equal(8 + 5 + 1, gs.file_offset)
      assert.are.equal("h", cap.traceroute_host)
      assert.has_error(function() cap:graph_state(2) end, "graph state 2 is out of range 1..1")
      cap:close()
      local many = {}
      for i = 1, 255 do many[i] = gstate({ count = i, print_titles = i % 2 }) end
      cap = assert(h.open_bytes(dir, "gs255.dlag", dlag({ states = many, host = "after" })))
      assert.are.equal(255, cap.graph_state_count)
      local n = 0
      for g in cap:graph_states() do
        n = n + 1
        assert.are.equal(n, g.measurement_count)
        assert.are.equal(((n >> 6) + 1) << 3, #g.bitfield)
        assert.are.equal(n % 2 == 1, g.print_titles)
      end
      assert.are.equal(255, n)
      assert.are.equal("after", cap.traceroute_host)
      cap:close()
    end)

    it("reads the traceroute host on and off, and 0, 1 or several tail records", function()
      local cap = assert(h.open_bytes(dir, "off.dlag", dlag({ host = "" })))
      assert.are.equal("", cap.traceroute_host)
      assert.are.equal(0, cap.hop_count)
      cap:close()
      local h1 = hop({ address = { 10, 0, 0, 1 }, samples = { sample(1.25, 100, 3) }, name = "gw.lan", u8a = 7,
        u32 = 0xCAFEBABE, floats = { 1, -2, 0.5, 1024 }, u8b = 9 })
      local path = h.write_in(dir, "one.dlag", dlag({ host = "gss.example.net", hops = { h1 } }))
      cap = assert(vp.open(path))
      assert.are.equal("gss.example.net", cap.traceroute_host)
      assert.are.equal(1, cap.hop_count)
      local hp = cap:hop(1)
      assert.are.equal(1, hp.index)
      assert.are.equal("10.0.0.1", hp.address)
      assert.are.same({ 10, 0, 0, 1 }, hp.address_bytes)
      assert.are.equal("gw.lan", hp.name)
      assert.are.equal(7, hp.unknown_u8_1)
      assert.are.equal(0xCAFEBABE, hp.unknown_u32)
      assert.are.same({ 1, -2, 0.5, 1024 }, hp.unknown_floats)
      assert.are.equal(9, hp.unknown_u8_2)
      assert.are.equal(1, hp.count)
      assert.are.equal(8 + 1 + 16, hp.file_offset)
      assert.are.same({ index = 1, value = 1.25, time = 100, unknown = 3 }, hp:sample(1))
      assert.are.equal(hp, cap:hop(1))
      assert.has_error(function() cap:hop(2) end, "hop 2 is out of range 1..1")
      assert.are.same({ index = 1, address = "10.0.0.1", address_bytes = { 10, 0, 0, 1 }, name = "gw.lan",
        unknown_u8_1 = 7, unknown_u32 = 0xCAFEBABE, unknown_floats = { 1, -2, 0.5, 1024 }, unknown_u8_2 = 9,
        count = 1, file_offset = 25, samples = { hp:sample(1) } }, hp:totable())
      cap:close()
      local hops = {}
      for i = 1, 5 do hops[i] = hop({ address = { 192, 168, 0, i }, name = "h" .. i, samples = seq(i, 0) }) end
      cap = assert(h.open_bytes(dir, "five.dlag", dlag({ host = "x", hops = hops })))
      assert.are.equal(5, cap.hop_count)
      local got = {}
      for x in cap:hops() do got[#got + 1] = x.address .. " " .. x.name .. " " .. #x end
      assert.are.same({ "192.168.0.1 h1 1", "192.168.0.2 h2 2", "192.168.0.3 h3 3", "192.168.0.4 h4 4",
        "192.168.0.5 h5 5" }, got)
      assert.are.same({}, cap.warnings)
      cap:close()
    end)
  end)

  describe("tolerated with a warning", function()
    it("a total that disagrees with the samples present", function()
      local cap = assert(h.open_bytes(dir, "tot.dlag", dlag({ measurements = { meas({}), meas(seq(2, 0), 5) } })))
      assert.are.same({ "at byte 13: measurement 2 total says 5 samples, the array holds 2" }, cap.warnings)
      assert.are.equal(5, cap:measurement(2).total)
      assert.are.equal(2, #cap:measurement(2))
      cap:close()
    end)

    it("a torn tail record: the complete ones are kept", function()
      local good = hop({ address = { 1, 1, 1, 1 }, name = "a" })
      local bytes = dlag({ hops = { good }, tail = "\9\9\9\9\9" })
      local cap = assert(h.open_bytes(dir, "torn.dlag", bytes))
      local at = 10 + #good
      assert.are.same({ "at byte " .. (at + 4) .. ": block count 9 of tail record 2 samples needs at least "
        .. "108 bytes, only 0 left; the last 5 bytes (from byte " .. at .. ") were ignored" }, cap.warnings)
      assert.are.equal(1, cap.hop_count)
      assert.are.equal(5, cap.trailing_bytes)
      assert.is_true(cap.truncated)
      assert.are.equal("1.1.1.1", cap:hop(1).address)
      cap:close()
      -- a file that ends inside a record: a strict open refuses it
      local path = h.write_in(dir, "torn.dlag", bytes)
      local s, msg, code = vp.open(path, { strict = true })
      assert.is_nil(s)
      assert.are.equal(path .. ": at byte " .. (at + 4) .. ": block count 9 of tail record 2 samples needs at "
        .. "least 108 bytes, only 0 left", msg)
      assert.are.equal("ETRUNC", code)
    end)

    it("a tail record whose string has no NUL", function()
      local bytes = dlag({ host = "t" }) .. "\1\2\3\4\0" .. "no-terminator"
      local cap = assert(h.open_bytes(dir, "nonul.dlag", bytes))
      assert.are.same({ "at byte 16: expected the NUL-terminated name of tail record 1, no NUL in the 13 "
        .. "bytes left; the last 18 bytes (from byte 11) were ignored" }, cap.warnings)
      assert.are.equal(0, cap.hop_count)
      assert.are.equal(18, cap.trailing_bytes)
      assert.is_true(cap.truncated)
      assert.are.equal("t", cap.traceroute_host)
      cap:close()
    end)
  end)

  describe("bad input", function()
    -- A strict open refuses what a lenient one keeps with a warning (and
    -- every complete record): the one warning is msg and what was kept.
    local function fails(...) h.refuses_bytes(dir, ...) end
    local function cut(name, bytes, msg, kept)
      return h.keeps_cut(dir, name, bytes, { msg .. "; the file is truncated: kept " .. kept })
    end

    it("a measurement count claiming more than the bytes left", function()
      local bytes = string.pack("<I4I4", 0, 1000) .. "\0\0\0\0\0\0\0"
      fails("mcount.dlag", bytes,
        "at byte 4: measurement count 1000 needs at least 5000 bytes (5 per measurement), only 7 left",
        "ELIMIT")
      local cap = cut("mcount.dlag", bytes, "at byte 13: expected the u32 total of measurement 2 (4 bytes), "
        .. "only 2 left before the end of the file", "1 measurement (0 complete samples) and 0 graph states")
      assert.are.equal(1, cap.measurement_count)
      assert.are.equal(0, #cap:measurement(1))
      assert.is_nil(cap.traceroute_host)
      cap:close()
    end)

    it("a block count claiming more samples than the bytes left", function()
      local bytes = string.pack("<I4I4I4", 0, 1, 50) .. "\50" .. sample(1, 1) .. "\0\0"
      local msg = "at byte 12: block count 50 of measurement 1 (Client Frame) samples needs at least 600 bytes, "
        .. "only 14 left"
      fails("scount.dlag", bytes, msg, "ETRUNC")
      local cap = cut("scount.dlag", bytes, msg, "1 measurement (1 complete sample) and 0 graph states")
      local m = cap:measurement(1)
      assert.are.equal(50, m.total)
      assert.are.equal(1, #m)
      assert.are.same({ index = 1, value = 1, time = 1, unknown = 0 }, m:sample(1))
      assert.are.equal(0, cap.graph_state_count)
      cap:close()
    end)

    it("a graph-state block count claiming more than the bytes left", function()
      local bytes = string.pack("<I4I4", 0, 0) .. "\3" .. gstate({ count = 5 }) .. "\0"
      fails("gcount.dlag", bytes, "at byte 8: block count 3 of graph states needs at least 132 bytes, "
        .. "only 45 left", "ETRUNC")
      local cap = cut("gcount.dlag", bytes, "at byte 53: expected the u16 measurement_count of graph state 2 "
        .. "(2 bytes), only 1 left before the end of the file", "0 measurements (0 complete samples) and 1 graph state")
      assert.are.equal(1, cap.graph_state_count)
      assert.are.equal(5, cap:graph_state(1).measurement_count)
      assert.is_nil(cap.traceroute_host)
      cap:close()
    end)

    it("a graph-state bitfield size past the end", function()
      local bytes = string.pack("<I4I4", 0, 0) .. "\1" .. string.pack("<I2", 0xFFFF) .. string.rep("\0", 42)
      local msg = "at byte 11: graph state 1 bitfield: a bitfield of 65535 entries needs 8192 bytes, only 42 left"
      fails("gbits.dlag", bytes, msg, "ETRUNC")
      cut("gbits.dlag", bytes, msg, "0 measurements (0 complete samples) and 0 graph states"):close()
    end)

    it("a traceroute host without its NUL", function()
      local bytes = string.pack("<I4I4", 0, 0) .. "\0" .. "gss.example"
      local msg = "at byte 9: expected the NUL-terminated traceroute host, no NUL in the 11 bytes left"
      fails("host.dlag", bytes, msg, "ETRUNC")
      local cap = cut("host.dlag", bytes, msg, "0 measurements (0 complete samples) and 0 graph states")
      assert.is_nil(cap.traceroute_host)
      assert.are.equal(0, cap.hop_count)
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[r.name] = r.value end
      assert.are.equal("(missing)", rows.traceroute_host)
      assert.is_true(rows.truncated)
      cap:close()
    end)

    it("a full block of 255 samples without the count byte that must follow", function()
      local bytes = string.pack("<I4I4I4", 0, 1, 255) .. "\255" .. table.concat(seq(255, 0))
      local msg = "at byte " .. #bytes .. ": expected the count byte of a block of measurement 1 (Client Frame) "
        .. "samples (element 256), found the end of the file"
      fails("noend.dlag", bytes, msg, "ETRUNC")
      local cap = cut("noend.dlag", bytes, msg, "1 measurement (255 complete samples) and 0 graph states")
      assert.are.equal(255, #cap:measurement(1))
      assert.are.equal(255, cap:measurement(1):sample(255).time)
      cap:close()
    end)

    it("a file cut inside the header fails in either mode", function()
      local full = dlag({ time = 3, measurements = { meas(seq(3, 0)) } })
      h.header_cuts(dir, "dlag", full, {
        { 3, "at byte 0: expected the u32 time (4 bytes), only 3 left before the end of the file" },
        { 6, "at byte 4: expected the u32 measurement count (4 bytes), only 2 left before the end of the file" },
      })
    end)

    it("a file cut after the header: strict refuses, lenient keeps every complete record", function()
      local full = dlag({ time = 3, measurements = { meas(seq(3, 0)), meas(seq(2, 0)) }, host = "abc" })
      -- the count is checked against the bytes left before anything is read
      fails("t10.dlag", full:sub(1, 10), "at byte 4: measurement count 2 needs at least 10 bytes (5 per "
        .. "measurement), only 2 left", "ELIMIT")
      cut("t10.dlag", full:sub(1, 10), "at byte 8: expected the u32 total of measurement 1 (4 bytes), only 2 "
        .. "left before the end of the file", "0 measurements (0 complete samples) and 0 graph states"):close()
      local t28 = string.pack("<I4I4", 0, 2) .. meas({ sample(1, 1) }) .. "\0\0\0"
      local msg = "at byte 25: expected the u32 total of measurement 2 (4 bytes), only 3 left before the end of "
        .. "the file"
      fails("t28.dlag", t28, msg, "ETRUNC")
      cut("t28.dlag", t28, msg, "1 measurement (1 complete sample) and 0 graph states"):close()
      -- measurement 2's block count is at 8 + 4 + 1 + 36 + 4 = 53
      msg = "at byte 53: block count 2 of measurement 2 (Server Frame) samples needs at least 24 bytes, only 6 left"
      fails("t60.dlag", full:sub(1, 60), msg, "ETRUNC")
      local cap = cut("t60.dlag", full:sub(1, 60), msg, "2 measurements (3 complete samples) and 0 graph states")
      assert.are.equal(2, cap.measurement_count)
      assert.are.equal(2, cap:measurement(2).total)
      assert.are.equal(0, #cap:measurement(2))
      assert.are.same({ 0.5, 1, 1.5 }, cap:measurement(1):values():totable())
      cap:close()
      msg = "at byte 78: expected the count byte of a block of graph states (element 1), found the end of the file"
      fails("t78.dlag", full:sub(1, 78), msg, "ETRUNC")
      cut("t78.dlag", full:sub(1, 78), msg, "2 measurements (5 complete samples) and 0 graph states"):close()
      msg = "at byte 79: expected the NUL-terminated traceroute host, no NUL in the 2 bytes left"
      fails("t81.dlag", full:sub(1, 81), msg, "ETRUNC")
      cap = cut("t81.dlag", full:sub(1, 81), msg, "2 measurements (5 complete samples) and 0 graph states")
      assert.is_nil(cap.traceroute_host)
      assert.matches(", truncated, with warnings>$", tostring(cap))
      cap:close()
      -- the whole file: nothing to refuse
      cap = h.open_ok(h.write_in(dir, "whole.dlag", full), { strict = true })
      assert.is_false(cap.truncated)
      assert.are.equal("abc", cap.traceroute_host)
      cap:close()
    end)
  end)

  describe("lifetimes", function()
    it("raises 'capture is closed' for children and iterators used after close", function()
      local cap = assert(h.open_bytes(dir, "life.dlag", dlag({ measurements = { meas(seq(3, 0)) },
        states = { gstate({}) }, hops = { hop({ samples = seq(2, 0) }) } })))
      local m, hp = cap:measurement(1), cap:hop(1)
      local its = { cap:measurements(), cap:graph_states(), cap:hops(), m:samples(), hp:samples() }
      cap:close()
      cap:close()
      for _, it in ipairs(its) do assert.has_error(it, "capture is closed") end
      assert.has_error(function() return m.name end, "capture is closed")
      assert.has_error(function() return #m end, "capture is closed")
      assert.has_error(function() return m:values() end, "capture is closed")
      assert.has_error(function() return hp.address end, "capture is closed")
      assert.has_error(function() return hp:times() end, "capture is closed")
      assert.has_error(function() return cap:measurement(1) end, "capture is closed")
      assert.are.equal("<dlag life.dlag: closed>", tostring(cap))
    end)

    it("a measurement keeps its capture alive", function()
      local m = h.after_gc(function()
        return assert(h.open_bytes(dir, "alive.dlag", dlag({ measurements = { meas(seq(3, 0)) } }))):measurement(1)
      end)
      assert.are.equal(3, #m)
      assert.are.equal(1.5, m:sample(3).value)
      assert.are.equal("dlag", m.capture.format)
    end)
  end)

  describe("summary and tostring", function()
    it("gives info.lua its rows and one-line descriptions", function()
      local path = h.write_in(dir, "sum.dlag", dlag({ time = 8,
        measurements = { meas(seq(2, 0)), meas({}), meas(seq(1, 0), 4) },
        states = { gstate({}) }, host = "gss", hops = { hop({ address = { 8, 8, 4, 4 }, name = "dns" }) } }))
      local cap = assert(vp.open(path))
      local rows = {}
      for _, r in ipairs(cap:summary()) do rows[#rows + 1] = r.name .. "=" .. tostring(r.value) end
      assert.are.same({ "time=8", "measurements=3", "measurements_with_samples=2", "samples=3", "graph_states=1",
        "traceroute_host=gss", "hops=1", "warnings=1" }, rows)
      assert.are.equal("<dlag sum.dlag: 3 measurements, 3 samples, 1 graph states, 1 hops, with warnings>",
        tostring(cap))
      assert.are.equal("<dlag measurement 1 Client Frame (page 0): 2 samples>", tostring(cap:measurement(1)))
      assert.are.equal('<dlag hop 1 8.8.4.4 "dns": 0 samples>', tostring(cap:hop(1)))
      cap:close()
    end)
  end)

  describe("writer", function()
    local function wpath(name) return dir .. "/w_" .. name .. ".dlag" end

    it("completes a file with nothing in it", function()
      local w = vp.writer("dlag", wpath("empty"), { time = 5 })
      assert.are.equal(10, w:close())
      assert.are.equal(string.pack("<I4I4", 5, 0) .. "\0\0", h.read_file(wpath("empty")))
    end)

    it("frames 0, 254, 255 and 300 samples by the exact rule and counts measurements", function()
      local w = vp.writer("dlag", wpath("blocks"), {})
      local sizes = { 0, 254, 255, 300 }
      for _, n in ipairs(sizes) do
        local s = {}
        for i = 1, n do s[i] = { value = i / 4, time = i, unknown = 7 } end
        w:measurement(s)
      end
      local bytes = w:data()
      w:close()
      local time, count, pos = string.unpack("<I4I4", bytes)
      assert.are.equal(0, time)
      assert.are.equal(4, count)
      for _, n in ipairs(sizes) do
        local total
        total, pos = string.unpack("<I4", bytes, pos)
        assert.are.equal(n, total)
        local got, counts
        got, counts, pos = h.unchunk(bytes, pos, "<fI4I4")
        for i, e in ipairs(got) do assert.are.same({ i / 4, i, 7 }, e) end
        assert.are.equal(n, #got)
        local expect = ({ [0] = { 0 }, [254] = { 254 }, [255] = { 255, 0 }, [300] = { 255, 45 } })[n]
        assert.are.same(expect, counts)
      end
      assert.are.equal("\0\0", bytes:sub(pos)) -- empty graph states, empty host
    end)

    it("writes graph states, the host and tail records byte for byte", function()
      local w = vp.writer("dlag", wpath("full"), { time = 1 })
      w:measurement({ { 1.5, 2, 3 } })
      w:graph_states({ { measurement_count = 64, bitfield = "AB", offset = { x = 1, y = 2, z = 3, w = 4 },
        scale = { 5, 6, 7, 8 }, print_titles = 1, unknown = 2 }, { measurement_count = 3 } })
      w:traceroute_host("host")
      w:hop { address = "10.1.2.3", samples = { { value = 0.5, time = 9, unknown = 1 } }, name = "n",
        unknown_u8_1 = 4, unknown_u32 = 5, unknown_floats = { 6, 7, 8, 9 }, unknown_u8_2 = 10 }
      w:hop { address = { 1, 2, 3, 4 } }
      local s = w:data()
      w:close()
      local expect = string.pack("<I4I4", 1, 1) .. string.pack("<I4", 1) .. "\1" .. string.pack("<fI4I4", 1.5, 2, 3)
        .. "\2" .. string.pack("<I2", 64) .. "AB" .. string.pack("<ffffffffI1I1", 1, 2, 3, 4, 5, 6, 7, 8, 1, 2)
        .. string.pack("<I2", 3) .. string.rep("\0", 8) .. string.rep("\0", 32) .. "\0\0"
        .. "host\0"
        .. "\10\1\2\3" .. "\1" .. string.pack("<fI4I4", 0.5, 9, 1) .. "n\0" .. string.pack("<I1I4ffffI1", 4, 5, 6, 7,
          8, 9, 10)
        .. "\1\2\3\4" .. "\0" .. "\0" .. string.pack("<I1I4ffffI1", 0, 0, 0, 0, 0, 0, 0)
      assert.are.equal(expect, s)
    end)

    it("builds broken files: counts, totals, block counts, a host without NUL, raw bytes, cuts", function()
      local w = vp.writer("dlag", wpath("broken"), { measurement_count = 7, complete = false })
      w:measurement({ { 1, 1, 1 } }, { total = 9, chunks = { 100 } })
      w:graph_states({})
      w:traceroute_host("abc", { nul = false })
      w:raw("\255")
      assert.are.equal(string.pack("<I4I4", 0, 7) .. string.pack("<I4", 9) .. "\100" .. string.pack("<fI4I4", 1, 1, 1)
        .. "\0" .. "abc" .. "\255", w:data())
      w:truncate(6)
      assert.are.equal(6, #w:data())
      assert.are.equal(6, w:close())
      -- parts in file order: a measurement after the graph states is refused
      local w2 = vp.writer("dlag", wpath("order"), {})
      w2:traceroute_host("h") -- completes the empty graph-state array
      assert.has_error(function() w2:measurement({}) end)
      assert.has_error(function() w2:graph_states({}) end)
      assert.are.equal(string.pack("<I4I4", 0, 0) .. "\0h\0", w2:data())
      w2:close()
      assert.has_error(function() w2:raw("x") end, "dlag writer is closed")
    end)

    it("round-trips through the reader", function()
      local w = vp.writer("dlag", wpath("rt"), { time = 99 })
      for k = 1, 10 do w:measurement({ { value = k, time = k * 100, unknown = 0 } }) end
      w:graph_states({ { measurement_count = 10, scale = { 1, 1, 1, 1 } } })
      w:traceroute_host("gss")
      w:hop { address = "127.0.0.1", name = "lo", samples = { { 1, 2, 3 } } }
      w:close()
      local cap = assert(vp.open(wpath("rt")))
      assert.are.same({}, cap.warnings)
      assert.are.equal(10, cap.measurement_count)
      assert.are.equal(8, cap:measurement("Socket RTT"):sample(1).value)
      assert.are.equal(1, cap:graph_state(1).scale.w)
      assert.are.equal("127.0.0.1", cap:hop(1).address)
      cap:close()
    end)
  end)

  describe("lag.lua", function()
    -- Planted: Client Frame 16, 17, 16, 18, 16, 90 (p50 16, MAD 0.5, threshold
    -- 18.5: one spike); Socket RTT 40, 40, 400, 40 (MAD 0, threshold 40: one
    -- spike); 2..7 and 9 empty; one hop.
    local function planted()
      local ms = {}
      for i = 1, 9 do ms[i] = meas({}) end
      local cf = {}
      for i, v in ipairs({ 16, 17, 16, 18, 16, 90 }) do cf[i] = sample(v, 800 + 200 * i, i) end
      ms[1] = meas(cf)
      ms[8] = meas({ sample(40, 10, 0), sample(40, 20, 0), sample(400, 30, 0), sample(40, 40, 0) })
      return h.write_in(dir, "planted.dlag", dlag({ time = 77, measurements = ms, host = "gss",
        hops = { hop({ address = { 10, 0, 0, 1 }, name = "gw", samples = { sample(1.5, 1), sample(2.5, 2) } }) } }))
    end

    it("prints per-measurement statistics, ping and loss first, and the spikes as JSON", function()
      local path = planted()
      local doc = h.run_json("scripts/lag.lua", path, "--json")
      h.has_fields(doc, { file = path, format = "dlag", time = 77, k = 5, measurement_count = 9, samples = 10,
        traceroute_host = "gss", hop_count = 1 })
      local net = {}
      for _, r in ipairs(doc.network) do net[#net + 1] = r.name end
      assert.are.same({ "Socket RTT", "Packet Downloss", "Local Gateway", "Local Gateway dropped", "The Internets",
        "The Internets dropped" }, net)
      assert.are.equal(9, #doc.measurements)
      local cf = doc.measurements[1]
      assert.are.equal("Client Frame", cf.name)
      assert.are.equal(0, cf.page)
      assert.are.equal(6, cf.samples)
      assert.are.equal(6, cf.total)
      assert.are.same({ 16, 90, 16, 90 }, { cf.min, cf.max, cf.p50, cf.p95 })
      assert.is_true(h.near(cf.mean, 173 / 6))
      assert.are.same({ 1000, 2000, 1000 }, { cf.first_time, cf.last_time, cf.time_span })
      assert.are.same({ 0.5, 18.5, 1 }, { cf.mad, cf.threshold, cf.spikes })
      local rtt = doc.network[1]
      assert.are.equal(8, rtt.index)
      assert.are.same({ 40, 400, 40, 400, 130 }, { rtt.min, rtt.max, rtt.p50, rtt.p95, rtt.mean })
      assert.are.same({ 0, 40, 1, 30 }, { rtt.mad, rtt.threshold, rtt.spikes, rtt.time_span })
      local loss = doc.measurements[9]
      assert.are.equal("Packet Downloss", loss.name)
      assert.are.equal(0, loss.samples)
      assert.are.equal(cjson.null, loss.mean)
      assert.are.equal(cjson.null, loss.p95)
      assert.are.equal(0, loss.spikes)
      assert.are.equal(2, #doc.spikes)
      assert.are.same({ index = 1, name = "Client Frame", sample = 6, time = 2000, value = 90, threshold = 18.5 },
        doc.spikes[1])
      assert.are.same({ index = 8, name = "Socket RTT", sample = 3, time = 30, value = 400, threshold = 40 },
        doc.spikes[2])
      assert.are.same({ { index = 1, address = "10.0.0.1", name = "gw", samples = 2, mean = 2, max = 2.5 } }, doc.hops)
    end)

    it("takes --k", function()
      local doc = h.run_json("scripts/lag.lua", planted(), "--json", "--k", "200")
      assert.are.equal(200, doc.k)
      assert.are.equal(116, doc.measurements[1].threshold)
      assert.are.equal(1, #doc.spikes)
      assert.are.equal("Socket RTT", doc.spikes[1].name)
    end)

    it("prints one series with --measurement", function()
      local doc = h.run_json("scripts/lag.lua", planted(), "--json", "--measurement", "socket rtt")
      assert.are.equal(8, doc.measurement.index)
      assert.are.equal("Socket RTT", doc.measurement.name)
      assert.are.equal(1, doc.measurement.spikes)
      local got = {}
      for _, s in ipairs(doc.samples) do
        got[#got + 1] = string.format("%d:%d:%g:%s", s.index, s.time, s.value, tostring(s.spike))
      end
      assert.are.same({ "1:10:40:false", "2:20:40:false", "3:30:400:true", "4:40:40:false" }, got)
      local by_index = h.run_json("scripts/lag.lua", planted(), "--json", "--measurement", "1")
      assert.are.equal("Client Frame", by_index.measurement.name)
      local r = h.run("scripts/lag.lua", planted(), "--measurement", "RPM")
      assert.are.equal(2, r.code)
      assert.truthy(r.stderr:find("no measurement 'RPM'", 1, true))
      r = h.run("scripts/lag.lua", planted(), "--measurement", "99")
      assert.are.equal(2, r.code)
      assert.truthy(r.stderr:find("no measurement '99' (the file has 9;", 1, true))
    end)

    it("prints readable tables, ping and loss first", function()
      local r = h.run("scripts/lag.lua", planted())
      assert.are.equal(0, r.code)
      local ping = r.stdout:find("ping and loss", 1, true)
      local all = r.stdout:find("measurements with samples", 1, true)
      assert.truthy(ping and all and ping < all)
      assert.truthy(r.stdout:find("spikes (2)", 1, true))
      assert.truthy(r.stdout:find("10.0.0.1", 1, true))
    end)

    it("reads a cut export: every complete record, a warning naming the offset, exit 0", function()
      local whole = h.read_file(planted())
      -- cut inside the tail record (the hop): the measurements are whole
      local path = h.write_in(dir, "cut_planted.dlag", whole:sub(1, #whole - 3))
      local doc, r = h.run_json("scripts/lag.lua", path, "--json")
      assert.truthy(r.stderr:find("were ignored", 1, true))
      assert.are.equal(10, doc.samples)
      assert.are.equal(0, doc.hop_count)
      -- cut inside the measurements: those before the cut are kept
      path = h.write_in(dir, "cut_planted2.dlag", whole:sub(1, 60))
      doc, r = h.run_json("scripts/lag.lua", path, "--json")
      assert.truthy(r.stderr:find("the file is truncated: kept 1 measurement (3 complete samples)", 1, true))
      assert.are.equal(1, doc.measurement_count)
    end)

    it("states its definitions in --help and fails clearly on bad input", function()
      h.help_mentions("scripts/lag.lua", { "MAD", "positional" })
      h.script_refuses("scripts/lag.lua", h.write_in(dir, "bad.dlag", string.pack("<I4", 0) .. "\1\2"),
        "at byte 4: expected the u32 measurement count")
    end)
  end)
end)
