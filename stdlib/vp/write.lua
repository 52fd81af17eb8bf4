-- vp.write: what the capture writers share (vp.writer(format, path [, opts]);
-- each format's writer is vp.write.<format>): the class every writer is,
-- the file it writes, the checks of the tables handed to it and the debug
-- traces' chunked arrays. The writers are built from specs/format-notes.md
-- and share nothing with the readers but the spec: a round trip through
-- both checks one reading of the spec against another.
--
--   local w = vp.writer("dm", "/tmp/t.dm")    -- vp.write.open("dm", ...)
--   w:record { time = 10 }
--   print(w:tell(), w.bytes, w:close())
--
-- Every writer has the same common members (docs/api.md, vp.writer):
-- w:tell(), w:raw(bytes) -> offset, w:truncate(n), w:data(), w:close() ->
-- bytes, the fields path, closed and bytes, tostring, and __close and __gc
-- (which finish the file as close() does). A writer either writes its file
-- as it goes ("stream": .vprof, .dm, .dw: files that can be large) or builds
-- it in memory and writes it at close ("memory": .devt, .dlag, whose headers
-- hold counts known only at the end); either way the file is created when
-- the writer is opened, so a path that cannot be written fails there.
local write = {}

local pack, concat, move = string.pack, table.concat, table.move

--- The formats with a writer, in vp.formats() order.
write.FORMATS = { "vprof", "devt", "dlag", "dm", "dw" }

-- A streamed file hands its bytes over once this many are pending: few
-- large writes, and little memory whatever the file's size.
local FLUSH_AT = 1 << 20

-- Errors -----------------------------------------------------------------------
-- Inside a writer, problems are raised as plain strings (level 0); the
-- class's methods re-raise them at their caller, as Lua's own library
-- functions do.

--- write.fail(fmt, ...): raise string.format(fmt, ...) for the caller of the
-- writer method that is running.
local function fail(fmt, ...)
  error(select("#", ...) > 0 and fmt:format(...) or fmt, 0)
end
write.fail = fail

-- Files ------------------------------------------------------------------------

-- The file at path created (emptied), open in `mode`.
local function create(path, mode)
  local f, msg = io.open(path, mode)
  if not f then fail("vp.writer: cannot create %s", msg) end
  return f
end

-- A file written as it goes: pieces are put, handed to the file a megabyte
-- at a time; `cut` (w:truncate) is applied when it is closed.
local Stream = {}
Stream.__index = Stream

local function stream_open(path)
  -- w+b: written as it goes, read back by w:data().
  return setmetatable({ f = create(path, "w+b"), path = path, flushed = 0, pend = {}, npend = 0 }, Stream)
end

function Stream:put(s)
  local p = self.pend
  p[#p + 1] = s
  local n = self.npend + #s
  self.npend = n
  if n >= FLUSH_AT then self:flush() end
end

function Stream:size()
  return self.flushed + self.npend
end

function Stream:flush()
  if self.failed then fail("cannot write %s: an earlier write failed", self.path) end
  if self.npend == 0 then return end
  local s = concat(self.pend)
  local ok, err = self.f:write(s)
  if not ok then
    self.failed = true
    fail("cannot write %s: %s", self.path, err)
  end
  self.flushed = self.flushed + #s
  self.pend, self.npend = {}, 0
end

-- The bytes handed over so far, read back from the file, then `tail`.
function Stream:contents(tail)
  self:flush()
  local f = self.f
  local ok, err = f:seek("set")
  local s = ok and f:read("a")
  ok = ok and f:seek("end")
  if not (s and ok) then fail("cannot read back %s: %s", self.path, tostring(err)) end
  return s .. tail
end

-- Put `tail`, cut the file to `cut` bytes when it is longer, close it:
-- the file's size.
function Stream:close(tail, cut)
  local size
  local ok, err = pcall(function()
    self:put(tail)
    self:flush()
    size = self.flushed
    if cut and cut < size then
      -- Lua has no ftruncate: the file is written again, as long as asked.
      local f = self.f
      local head = f:seek("set") and f:read(cut)
      local g, msg = io.open(self.path, "wb")
      local put = head and g and g:write(head)
      if g then g:close() end
      if not put then fail("cannot cut %s to %d bytes: %s", self.path, cut, tostring(msg)) end
      size = cut
    end
  end)
  local closed, cerr = self.f:close()
  if not ok then error(err, 0) end
  if not closed then fail("cannot write %s: %s", self.path, tostring(cerr)) end
  return size
end

-- A file built in memory and written when it is closed.
local Memory = {}
Memory.__index = Memory

local function memory_open(path)
  create(path, "wb"):close()
  return setmetatable({ path = path, parts = {}, n = 0 }, Memory)
end

function Memory:put(s)
  local p = self.parts
  p[#p + 1] = s
  self.n = self.n + #s
end

function Memory:size()
  return self.n
end

-- The bytes put so far.
function Memory:contents()
  local s = concat(self.parts)
  self.parts = { s }
  return s
end

-- Write `bytes` to the file: their count.
function Memory:close(bytes)
  local f, msg = io.open(self.path, "wb")
  if not f then fail("cannot create %s", msg) end
  local ok, err = f:write(bytes)
  local closed, cerr = f:close()
  if not (ok and closed) then fail("cannot write %s: %s", self.path, tostring(err or cerr)) end
  return #bytes
end

-- The class ---------------------------------------------------------------------

local KEY = {} -- a writer table holds its state under this key alone

--- write.classes: {["vp.<format>.writer"] = metatable} of the classes made
-- (each with __methods, as the bindings' classes have: help() and the
-- documentation's spec read them).
write.classes = {}

--- write.class(format, def) -> open(path, opts): the writer class of a
-- format, "vp.<format>.writer". def:
--   stream     true: the file is written as it goes; else built in memory
--   options(opts) -> o       vp.writer's options checked, before the file
--                            is created (default: opts as they are)
--   new(st, o)               set up a new writer's state (st.file is open)
--   methods    {name = function(st, ...)}: the format's methods
--   get(st, key)             the format's fields (nil for none)
--   size(st)                 w:tell() (default: the bytes put so far)
--   raw(st, bytes)           w:raw (default: the bytes put as they are)
--   tail(st, copts)          stream: the bytes closing adds ("" default)
--   finish(st, bytes, copts) memory: the finished file from the bytes put
--   close_keys {...}         the options w:close takes (none by default)
--   close_options(st, t) -> copts   those options checked (an open writer's)
-- copts are w:close's options as close_options gives them, nil for close()
-- without them (and __gc).
function write.class(format, def)
  local name = format .. " writer"
  local tname = "vp." .. format .. ".writer"
  local mt = { __name = tname }
  local methods = {}

  -- The state of an open writer w, or a raise naming what is wrong.
  local function state(w, open)
    local st = type(w) == "table" and getmetatable(w) == mt and rawget(w, KEY)
    if not st then fail("bad self: %s expected, got %s", tname, type(w)) end
    if open and st.closed then fail("%s is closed", name) end
    return st
  end

  local function ending(st, copts)
    local file = st.file
    if def.stream then return file:contents(def.tail and def.tail(st, copts) or "") end
    local bytes = file:contents()
    return def.finish and def.finish(st, bytes, copts) or bytes
  end

  local function cut(st, s)
    if st.cut and st.cut < #s then return s:sub(1, st.cut) end
    return s
  end

  local function finish(st, copts)
    if st.closed then return st.bytes end
    local file = st.file
    if def.stream then
      local tail = def.tail and def.tail(st, copts) or ""
      st.closed = true
      st.bytes = file:close(tail, st.cut)
    else
      local bytes = cut(st, ending(st, copts))
      st.closed = true
      st.bytes = file:close(bytes)
    end
    return st.bytes
  end

  local common = {}
  function common.tell(st) return def.size and def.size(st) or st.file:size() end
  function common.raw(st, bytes)
    if type(bytes) ~= "string" then fail("bad argument #1 to 'raw' (string expected, got %s)", type(bytes)) end
    local at = common.tell(st)
    if def.raw then def.raw(st, bytes) else st.file:put(bytes) end
    return at
  end
  function common.truncate(st, n)
    local v = math.tointeger(n)
    if not v then fail("bad argument #1 to 'truncate' (integer expected, got %s)", type(n)) end
    if v < 0 then fail("bad argument #1 to 'truncate' (size must be >= 0)") end
    st.cut = v
  end
  function common.data(st) return cut(st, ending(st)) end

  -- A method called with its writer: the error of a failing call raised at
  -- the caller (a tail call, so level 2 is the caller's).
  local function rethrow(ok, ...)
    if not ok then error(..., 2) end
    return ...
  end
  local function call(f, open, w, ...)
    return f(state(w, open), ...)
  end
  local function public(f, open)
    return function(w, ...)
      return rethrow(pcall(call, f, open, w, ...))
    end
  end
  for k, f in pairs(common) do methods[k] = public(f, true) end
  for k, f in pairs(def.methods or {}) do methods[k] = public(f, true) end
  local close_keys = def.close_keys
  methods.close = public(function(st, copts)
    if close_keys and copts ~= nil then
      if type(copts) ~= "table" then fail("bad argument #1 to 'close' (table expected, got %s)", type(copts)) end
      write.check_keys(copts, "w:close", close_keys)
      if not st.closed and def.close_options then copts = def.close_options(st, copts) end
    else
      copts = nil
    end
    local ok, r = pcall(finish, st, copts)
    if not ok then fail("%s: %s", name, r) end
    return r
  end, false)

  mt.__methods = methods
  mt.__index = function(w, k)
    local m = methods[k]
    if m then return m end
    local st = state(w)
    if k == "path" then return st.path end
    if k == "closed" then return st.closed == true end
    if k == "bytes" then return st.closed and st.bytes or common.tell(st) end
    if def.get then return def.get(st, k) end
    return nil
  end
  mt.__newindex = function() error(tname .. ": fields are read-only", 2) end
  mt.__tostring = function(w)
    local st = state(w)
    return "<" .. name .. " " .. st.path .. (st.closed and " (closed)" or "") .. ">"
  end
  -- Collected or closed by <close>: finished as close() does; errors are
  -- dropped, as Lua's own files do when collected (nobody is there to see).
  mt.__gc = function(w) pcall(finish, rawget(w, KEY)) end
  mt.__close = mt.__gc
  write.classes[tname] = mt

  return function(path, opts)
    local o = def.options and def.options(opts or {}) or opts or {}
    local st = { path = path, name = name }
    st.file = def.stream and stream_open(path) or memory_open(path)
    if def.new then def.new(st, o) end
    return setmetatable({ [KEY] = st }, mt)
  end
end

--- write.failed(st, fmt, ...): raise "<name> <path>: <message>" for the
-- writer whose state is st: what its file cannot be made to hold (the
-- writer's own message, not its arguments').
function write.failed(st, fmt, ...)
  fail("%s %s: %s", st.name, st.path, select("#", ...) > 0 and fmt:format(...) or fmt)
end

--- write.open(format, path [, opts]) -> writer: vp.writer.
function write.open(format, path, opts)
  if type(format) ~= "string" then fail("bad argument #1 to 'writer' (string expected, got %s)", type(format)) end
  if type(path) ~= "string" then fail("bad argument #2 to 'writer' (string expected, got %s)", type(path)) end
  if opts ~= nil and type(opts) ~= "table" then
    fail("bad argument #3 to 'writer' (table expected, got %s)", type(opts))
  end
  local known = false
  for _, f in ipairs(write.FORMATS) do known = known or f == format end
  if not known then fail("vp.writer: no writer for format '%s'", format) end
  return require("vp.write." .. format).open(path, opts)
end

-- The tables handed to writers ------------------------------------------------------------
-- `what` names the table in messages ("w:record", "dm group"); a key the
-- table does not take raises, so a typo cannot silently write a default.

--- write.to_integer(v) -> the integer v is (a number or a numeric string
-- with an integer value), or nil.
local to_integer = math.tointeger
write.to_integer = to_integer

--- write.to_number(v) -> the number v is (a number or a numeric string), or nil.
local function to_number(v)
  if type(v) == "number" then return v end
  if type(v) == "string" then return tonumber(v) end
  return nil
end
write.to_number = to_number

--- write.keys(list) -> the set of the names in list.
function write.keys(list)
  local set = {}
  for _, k in ipairs(list) do set[k] = true end
  return set
end

--- write.check_keys(t, what, allowed): raise "<what>: unknown field 'k'"
-- for a key of t that is not in the set `allowed`.
function write.check_keys(t, what, allowed)
  for k in pairs(t) do
    if type(k) ~= "string" or not allowed[k] then fail("%s: unknown field '%s'", what, tostring(k)) end
  end
end

--- write.has_any(t, keys) -> whether t has any of the names in the list keys.
function write.has_any(t, keys)
  for _, k in ipairs(keys) do
    if t[k] ~= nil then return true end
  end
  return false
end

--- write.int(t, k, def, lo, hi, what) -> field k of t as an integer in
-- lo..hi; def when absent.
function write.int(t, k, def, lo, hi, what)
  local v = t[k]
  if v == nil then return def end
  local i = to_integer(v)
  if not i then fail("%s: field '%s' must be an integer", what, k) end
  if i < lo or i > hi then fail("%s: field '%s' = %d is out of range", what, k, i) end
  return i
end

--- write.flag(t, k, def, what) -> field k as the byte to write: true 1,
-- false 0, or an integer 0..255 (deliberately odd files); def (a boolean
-- or a byte) when absent.
function write.flag(t, k, def, what)
  local v = t[k]
  if v == nil then v = def end
  if type(v) == "boolean" then return v and 1 or 0 end
  local i = to_integer(v)
  if not i or i < 0 or i > 255 then fail("%s: field '%s' must be a boolean or a byte 0..255", what, k) end
  return i
end

local AXES = { "x", "y", "z", "w" }

--- write.vec(t, k, n, what) -> the n f32 of vector field k, packed:
-- {x=, y=, z=[, w=]} or {a, b, c[, d]}; zeros when absent.
function write.vec(t, k, n, what)
  local v = t[k]
  if v == nil then return ("\0"):rep(4 * n) end
  if type(v) ~= "table" then fail("%s: field '%s' must be a vector table {x=, y=, z=}", what, k) end
  local c = {}
  for i = 1, n do
    local x = v[AXES[i]]
    if x == nil then x = rawget(v, i) end
    local num = x == nil and 0 or to_number(x)
    if not num then fail("%s: field '%s.%s' must be a number", what, k, AXES[i]) end
    c[i] = num
  end
  return pack("<" .. ("f"):rep(n), table.unpack(c, 1, n))
end

--- write.uint(v, who, what, max) -> v as an integer in 0..max.
function write.uint(v, who, what, max)
  local i = to_integer(v)
  if not i then fail("%s: %s must be an integer, got %s", who, what, type(v)) end
  if i < 0 or i > max then fail("%s: %s %d is out of range 0..%d", who, what, i, max) end
  return i
end

--- write.field(t, key, pos) -> t[key], or t[pos] (pos > 0) when key is absent:
-- records given as {key = v} or {v1, v2, ...}.
function write.field(t, key, pos)
  local v = t[key]
  if v == nil and pos > 0 then v = rawget(t, pos) end
  return v
end

--- write.uint_field(t, who, key, pos, max, def) -> write.field as write.uint;
-- def when absent.
function write.uint_field(t, who, key, pos, max, def)
  local v = write.field(t, key, pos)
  if v == nil then return def end
  return write.uint(v, who, key, max)
end

--- write.string(v, n, fname) -> argument n of method fname as a string
-- (numbers are taken as their text, as Lua's own functions take them).
function write.string(v, n, fname)
  if type(v) == "number" then return tostring(v) end
  if type(v) ~= "string" then fail("bad argument #%d to '%s' (string expected, got %s)", n, fname, type(v)) end
  return v
end

--- write.cstr(s) -> s up to its first NUL, then a NUL: a C string.
function write.cstr(s)
  return (s:match("^[^%z]*")) .. "\0"
end

-- Framing (specs/format-notes.md: the debug traces) ---------------------------------------

--- write.bitfield_size(n) -> bytes of a bitfield of n entries: ((n >> 6) + 1) << 3.
function write.bitfield_size(n)
  return ((n >> 6) + 1) << 3
end

--- write.framing(t, who) -> {total =, chunks =} from t.total and t.chunks
-- (t: a table, or nil for the defaults): how to frame one chunked array.
function write.framing(t, who)
  local f = {}
  if type(t) ~= "table" then return f end
  if t.total ~= nil then f.total = write.uint(t.total, who, "total", 0xFFFFFFFF) end
  local chunks = t.chunks
  if chunks == nil then return f end
  if type(chunks) ~= "table" then fail("%s: chunks must be a table, got %s", who, type(chunks)) end
  f.chunks = {}
  for k = 1, #chunks do
    local c = to_integer(rawget(chunks, k))
    if not c or c < 0 or c > 255 then fail("%s: chunks[%d] must be a count byte 0..255", who, k) end
    f.chunks[k] = c
  end
  return f
end

--- write.chunked(elems [, chunks]) -> the packed elements as a chunked
-- array: blocks of 255 while at least 255 are left, then one of the rest
-- (00 when none are), each block a count byte and its elements. chunks
-- lists the count bytes to write instead (broken files): elements fill the
-- blocks in order, a block whose count exceeds the elements left gets only
-- those, and elements left after the last listed block follow uncounted.
function write.chunked(elems, chunks)
  local out, n, i = {}, #elems, 1
  local function block(c, k)
    out[#out + 1] = string.char(c)
    move(elems, i, i + k - 1, #out + 1, out)
    i = i + k
  end
  if not chunks then
    repeat
      local c = math.min(255, n - i + 1)
      block(c, c)
    until c < 255
  else
    for _, c in ipairs(chunks) do block(c, math.min(c, n - i + 1)) end
    move(elems, i, n, #out + 1, out)
  end
  return concat(out)
end

--- write.totaled(elems, f) -> an array that follows its u32 total (a .devt
-- group, a .dlag measurement): f.total (default #elems), then the array as
-- write.chunked frames it with f.chunks.
function write.totaled(elems, f)
  return pack("<I4", f.total or #elems) .. write.chunked(elems, f.chunks)
end

--- write.list(t, who, what, fill) -> {fill(entry) ...}: a list argument
-- (nothing when t is not a table), each entry a table.
function write.list(t, who, what, fill)
  local out = {}
  if type(t) ~= "table" then return out end
  for i = 1, #t do
    local e = rawget(t, i)
    if type(e) ~= "table" then fail("%s: %s %d must be a table", who, what, i) end
    out[i] = fill(e)
  end
  return out
end

return write
