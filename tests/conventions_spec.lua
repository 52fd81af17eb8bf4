-- The conventions of docs/architecture.md, "Formats (Lua)", held across
-- formats. Every writer has the same common members: w:tell(),
-- w:raw(bytes) -> offset, w:truncate(n), w:data(), w:close() -> bytes, and
-- the fields path, closed and bytes; the class is vp.<fmt>.writer. The
-- in-memory writers (devt, dlag) and the streamed ones (vprof, dm, dw) must
-- agree on what each member means. Every trace capture has #cap,
-- __tostring, close/__close/__gc, summary() and truncated; its children
-- __tostring, __eq (the same record of the same capture) and totable(); its
-- flags are booleans; an index out of range raises naming the range.
local vp = require "vp"
local h = require "helpers"

-- A little valid content per format, written through its own methods.
local CONTENT = {
  vprof = function(w)
    w:default_groups()
    local id = w:node(0, "Frame", 3)
    w:frame(1, { [id] = 1000 })
  end,
  devt = function(w) w:group({ { 1, 2, 0 }, { 3, 4, 1 } }) end,
  dlag = function(w) w:measurement({ { 1.5, 10, 0 } }) end,
  dm = function(w)
    w:record { time = 1 }
    w:empty()
  end,
  dw = function(w)
    w:trace { trace_id = 1 }
    w:empty_slot()
  end,
}
local FORMATS = { "vprof", "devt", "dlag", "dm", "dw" }

describe("every writer", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  for _, f in ipairs(FORMATS) do
    -- A writer of dir/<name>.<f> that has had CONTENT written once; and its path.
    local function filled(name)
      local path = dir .. "/" .. name .. "." .. f
      local w = vp.writer(f, path)
      CONTENT[f](w)
      return w, path
    end

    describe(f, function()
      it("is class vp." .. f .. ".writer with path, closed, bytes and tostring", function()
        local path = dir .. "/fields." .. f
        local w = vp.writer(f, path)
        assert.are.equal("vp." .. f .. ".writer", getmetatable(w).__name)
        assert.are.equal(path, w.path)
        assert.is_false(w.closed)
        assert.are.equal("<" .. f .. " writer " .. path .. ">", tostring(w))
        CONTENT[f](w)
        assert.are.equal(w:tell(), w.bytes)
        local size = w:close()
        assert.is_true(w.closed)
        assert.are.equal(size, w.bytes)
        assert.are.equal(#h.read_file(path), size)
        assert.are.equal(size, w:close()) -- again: the size, nothing written
        assert.are.equal("<" .. f .. " writer " .. path .. " (closed)>", tostring(w))
        for _, name in ipairs({ "tell", "data" }) do
          assert.has_error(function() w[name](w) end, f .. " writer is closed")
        end
        assert.has_error(function() w:raw("x") end, f .. " writer is closed")
        assert.has_error(function() w:truncate(1) end, f .. " writer is closed")
      end)

      it("tells where raw bytes land and returns that offset", function()
        local w = filled("raw")
        local at = w:tell()
        assert.are.equal(at, w:raw("\1\2\3"))
        assert.are.equal(at + 3, w:tell())
        assert.are.equal(at + 3, w.bytes)
        assert.are.equal("\1\2\3", w:data():sub(at + 1, at + 3))
        w:close()
      end)

      it("gives in w:data() the bytes closing it would write, and stays open", function()
        local w, path = filled("data")
        local d = w:data()
        assert.are.equal(d, w:data())
        assert.is_false(w.closed)
        CONTENT[f](w) -- the writer goes on after a look
        local d2 = w:data()
        assert.is_true(#d2 > #d)
        h.same_file(d2, path, w:close())
        local cap = assert(vp.open(path))
        assert.are.equal(f, cap.format)
        cap:close()
      end)

      it("cuts the file with w:truncate(n), in w:data() and at close", function()
        local w, path = filled("cut")
        local whole = w:data()
        local n = #whole - 3
        w:truncate(n)
        assert.are.equal(whole:sub(1, n), w:data())
        h.same_file(whole:sub(1, n), path, w:close())
        -- a cut past the end changes nothing
        local w2 = filled("long")
        local all = w2:data()
        w2:truncate(#all + 100)
        assert.are.equal(all, w2:data())
        assert.are.equal(#all, w2:close())
      end)

      it("finishes the file when collected", function()
        local path = dir .. "/gc." .. f
        local expect
        do
          local w = filled("gc")
          expect = w:data()
        end
        collectgarbage()
        collectgarbage()
        assert.are.equal(expect, h.read_file(path))
      end)
    end)
  end
end)

-- Per trace format: content with two children, how to reach child i, its
-- class, what #cap counts, and the flags (booleans) of a child's totable().
local CAPTURES = {
  devt = {
    write = function(w) w:group({ { 1, 2, 0 } }) w:group({ { 3, 4, 1 } }) end,
    child = function(cap, i) return cap:group(i) end, what = "group", class = "vp.devt.group",
    len = "event_count", flags = function(t) return { t.events[1].type_uncertain } end,
  },
  dlag = {
    write = function(w) w:measurement({ { 1, 1, 0 } }) w:measurement({}) end,
    child = function(cap, i) return cap:measurement(i) end, what = "measurement",
    class = "vp.dlag.measurement", len = "measurement_count", flags = function() return {} end,
  },
  dm = {
    write = function(w)
      w:record { time = 1, groups = { [0] = { velocity = { 1, 0, 0 } } } }
      w:empty()
      w:record { time = 2 }
    end,
    child = function(cap, i) return cap:record(i) end, what = "record", class = "vp.dm.record",
    len = "record_count",
    flags = function(t) return { t.used, t.groups[1].have_ext, t.groups[1].have_collision } end,
  },
  dw = {
    write = function(w)
      w:trace { trace_id = 1, client = { { type = "Impact", entity = { guid = 5 } } } }
      w:empty_slot()
      w:trace { trace_id = 2 }
    end,
    child = function(cap, i) return cap:trace(i) end, what = "trace", class = "vp.dw.trace",
    len = "trace_count",
    flags = function(t) return { t.used, t.has_movement, t.client[1].have_entity, t.client[1].have_ragdoll } end,
  },
}

describe("every trace capture", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  for _, f in ipairs({ "devt", "dlag", "dm", "dw" }) do
    local c = CAPTURES[f]
    local function open()
      local path = dir .. "/conv." .. f
      local w = vp.writer(f, path)
      c.write(w)
      w:close()
      return h.open_ok(path), path
    end

    describe(f, function()
      it("has the capture members", function()
        local cap, path = open()
        assert.are.equal(f, cap.format)
        assert.are.equal(path, cap.path)
        assert.is_number(cap.size)
        assert.are.same({}, cap.warnings)
        assert.is_false(cap.truncated)
        assert.are.equal(cap[c.len], #cap)
        assert.matches("^<" .. f .. " conv%." .. f .. ": ", tostring(cap))
        local rows = cap:summary()
        assert.is_true(#rows > 0)
        for _, r in ipairs(rows) do assert.is_string(r.name) end
        cap:close()
        cap:close()
        assert.are.equal("<" .. f .. " conv." .. f .. ": closed>", tostring(cap))
      end)

      it("has children with __tostring, __eq and totable, and boolean flags", function()
        local cap = open()
        local a, b = c.child(cap, 1), c.child(cap, 2)
        assert.are.equal(c.class, getmetatable(a).__name)
        assert.matches("^<" .. f .. " ", tostring(a))
        assert.is_true(a == c.child(cap, 1))
        assert.is_false(a == b)
        local t = a:totable()
        assert.is_table(t)
        for _, flag in ipairs(c.flags(t)) do assert.is_boolean(flag) end
        local n = cap[c.len]
        if f == "devt" then n = cap.group_count end
        assert.has_error(function() c.child(cap, n + 1) end,
          c.what .. " " .. (n + 1) .. " is out of range 1.." .. n)
        cap:close()
        assert.has_error(function() return a:totable() end, "capture is closed")
      end)

      it("closes with <close> and when collected", function()
        local child
        do
          local cap <close> = open()
          child = c.child(cap, 1)
        end
        assert.has_error(function() return tostring(child) end, "capture is closed")
        local kept = c.child(open(), 1)
        collectgarbage()
        collectgarbage()
        assert.is_table(kept:totable()) -- a child keeps its capture alive
      end)
    end)
  end

  it("iterates the slots of .dm and .dw alike: i, record | false", function()
    for _, f in ipairs({ "dm", "dw" }) do
      local path = dir .. "/slots." .. f
      local w = vp.writer(f, path)
      CAPTURES[f].write(w)
      w:close()
      local cap = h.open_ok(path)
      local seen = {}
      for i, r in cap:slots() do seen[#seen + 1] = r and (i .. ":" .. r.index) or (i .. ":false") end
      assert.are.same({ "1:1", "2:false", "3:2" }, seen, f)
      cap:close()
    end
  end)
end)

-- One rule for an index out of range, whatever the format (docs/api.md,
-- "Indexes, ranges and lookups"): it raises "<what> N is out of range 1..M";
-- a lookup by name, path or id that finds nothing returns nil.
describe("an index out of range", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  local function open(f)
    local path = dir .. "/range." .. f
    local w = vp.writer(f, path)
    if f == "vprof" then
      w:default_groups()
      local id = w:node(0, "Frame", 3)
      w:frame(1, { [id] = 1000 })
      w:frame(2, { [id] = 2000 })
    else
      CAPTURES[f].write(w)
    end
    w:close()
    return h.open_ok(path)
  end

  it("raises naming the range in every format, frames and frame ranges of VProf included", function()
    local cap = open("vprof")
    for _, i in ipairs({ 0, 3, 99999, -1 }) do
      assert.has_error(function() cap:frame(i) end, "frame " .. i .. " is out of range 1..2")
    end
    assert.has_error(function() cap:frames(1, 3) end, "frame 3 is out of range 1..2")
    assert.has_error(function() cap:totals(0, 1) end, "frame 0 is out of range 1..2")
    assert.is_nil(cap:node("Root/Nope"))
    assert.is_nil(cap:node(12345))
    assert.is_nil(cap:group("Nope"))
    cap:close()
    for _, f in ipairs({ "devt", "dlag", "dm", "dw" }) do
      local c = CAPTURES[f]
      local tc = open(f)
      assert.has_error(function() c.child(tc, 99999) end, c.what .. " 99999 is out of range 1..2")
      tc:close()
    end
    local budget = h.open_ok("examples/laige/budget_fail.txt")
    assert.has_error(function() budget:frame(99999) end, "frame 99999 is out of range 1..120")
    budget:close()
  end)
end)
