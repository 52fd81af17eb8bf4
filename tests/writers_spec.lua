-- Every writer has the same common members (docs/architecture.md, "Formats
-- (Lua)"): w:tell(), w:raw(bytes) -> offset, w:truncate(n), w:data(),
-- w:close() -> bytes, and the fields path, closed and bytes; the class is
-- vp.<fmt>.writer. The in-memory writers (devt, dlag) and the streamed ones
-- (vprof, dm, dw) must agree on what each member means.
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
        local w = vp.writer(f, dir .. "/raw." .. f)
        CONTENT[f](w)
        local at = w:tell()
        assert.are.equal(at, w:raw("\1\2\3"))
        assert.are.equal(at + 3, w:tell())
        assert.are.equal(at + 3, w.bytes)
        assert.are.equal("\1\2\3", w:data():sub(at + 1, at + 3))
        w:close()
      end)

      it("gives in w:data() the bytes closing it would write, and stays open", function()
        local path = dir .. "/data." .. f
        local w = vp.writer(f, path)
        CONTENT[f](w)
        local d = w:data()
        assert.are.equal(d, w:data())
        assert.is_false(w.closed)
        CONTENT[f](w) -- the writer goes on after a look
        local d2 = w:data()
        assert.is_true(#d2 > #d)
        assert.are.equal(#d2, w:close())
        assert.are.equal(d2, h.read_file(path))
        local cap = assert(vp.open(path))
        assert.are.equal(f, cap.format)
        cap:close()
      end)

      it("cuts the file with w:truncate(n), in w:data() and at close", function()
        local path = dir .. "/cut." .. f
        local w = vp.writer(f, path)
        CONTENT[f](w)
        local whole = w:data()
        local n = #whole - 3
        w:truncate(n)
        assert.are.equal(whole:sub(1, n), w:data())
        assert.are.equal(n, w:close())
        assert.are.equal(whole:sub(1, n), h.read_file(path))
        -- a cut past the end changes nothing
        local w2 = vp.writer(f, dir .. "/long." .. f)
        CONTENT[f](w2)
        local all = w2:data()
        w2:truncate(#all + 100)
        assert.are.equal(all, w2:data())
        assert.are.equal(#all, w2:close())
      end)

      it("finishes the file when collected", function()
        local path = dir .. "/gc." .. f
        local expect
        do
          local w = vp.writer(f, path)
          CONTENT[f](w)
          expect = w:data()
        end
        collectgarbage()
        collectgarbage()
        assert.are.equal(expect, h.read_file(path))
      end)
    end)
  end
end)
