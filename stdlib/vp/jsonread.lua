-- vp.jsonread: the JSON reader: strict, with the key order, the duplicate
-- keys and the offset of every error, in linear time whatever the input.
-- The laige profile report's reader (vp.laige.json) and vp.json.decode read
-- with it; detecting a laige JSON report is a scan of its top-level keys in
-- C (core/registry.c), which sees the file's first bytes before any Lua.
--
--   local jr = require "vp.jsonread"
--   local ok, doc = pcall(jr.decode, data, start)  -- start: first byte to read
--   doc.value            -- the document: tables, strings, numbers, booleans,
--                        -- jr.null for null, jr.bad(...) objects (below)
--   doc.keys[obj]        -- an object's keys in document order (nil: an array)
--   doc.duplicates       -- { {offset =, key =, where = "systems[2]"}, ... }
--   -- a failure raises {offset = N (0-based), message = "...", truncated = bool}
--
-- Why not lua-cjson: it cannot tell a repeated key (the last value silently
-- wins), it takes NaN, Infinity and hex numbers (0x10 as 16) as numbers,
-- and it gives no way to keep the key order. This reader follows RFC 8259
-- with two differences, both so that the report's reader can apply its one
-- rule about numbers (docs/laige.md) instead of failing the whole file:
-- * a bare token where a value belongs that looks like a number but is not
--   a JSON number (`NaN`, `Infinity`, `-inf`, `0x10`, `+1`, `.5`, `01`,
--   `1.`) is read as a "bad number" object, jr.bad(token); the report's
--   reader warns about it and leaves the field out;
-- * a number too large for a double (1e999) is a bad-number object too, so
--   the warning can quote it; the report's reader warns about it and leaves
--   the field out.
--
-- Every step is a string.find anchored at the current byte, so the time is
-- linear in the input; nesting is kept on an explicit stack (depth at most
-- jr.MAX_DEPTH) instead of Lua recursion.
local jr = {}

jr.MAX_DEPTH = 512

--- jr.null: the value of a JSON null.
jr.null = setmetatable({}, { __name = "vp.jsonread.null", __tostring = function() return "null" end })

local Bad = { __name = "vp.jsonread.bad" }
Bad.__tostring = function(b) return b.token end

--- jr.bad(token) -> a bad-number object; jr.is_bad(v) -> its token or nil.
function jr.bad(token)
  return setmetatable({ token = token }, Bad)
end

function jr.is_bad(v)
  return getmetatable(v) == Bad and v.token or nil
end

local NULL = jr.null
local byte, sub, find, match = string.byte, string.sub, string.find, string.match
local concat = table.concat

local SIMPLE_ESCAPES = {
  [34] = '"', [92] = "\\", [47] = "/", [98] = "\b", [102] = "\f", [110] = "\n", [114] = "\r", [116] = "\t",
}

-- A JSON number (RFC 8259 section 6), or nil.
local function json_number(tok)
  local int, frac, exp = match(tok, "^%-?(%d+)(%.?%d*)([eE]?[+-]?%d*)$")
  if not int then return nil end
  if #int > 1 and byte(int, 1) == 48 then return nil end -- a leading zero
  if frac == "." then return nil end
  if exp ~= "" and not find(exp, "^[eE][+-]?%d+$") then return nil end
  return tonumber(tok)
end

-- Bare words that are (misspelled) numbers rather than garbage.
local NUMBER_WORDS = { nan = true, inf = true, infinity = true }

local Raw = { __name = "vp.jsonread.raw" }

--- jr.raw_text(v) -> the JSON text of a value read raw (opts.keep below), or nil.
function jr.raw_text(v)
  return getmetatable(v) == Raw and v.text or nil
end

--- jr.decode(data [, start [, opts]]) -> {value, keys, duplicates}; raises on
-- malformed input (see the top of this file). opts.keep: a set of the
-- top-level object's keys whose values are built; any other key's value is
-- checked just as strictly but kept as its JSON text (jr.raw_text), so a
-- key nobody reads costs the bytes it has, not a table per bracket.
function jr.decode(data, start, opts)
  local keep = opts and opts.keep
  local n = #data
  local keys, duplicates = {}, {}
  local stack, depth = {}, 0

  local function fail(pos, msg)
    error({ offset = pos - 1, message = msg, truncated = false }, 0)
  end
  local function eof(what)
    error({ offset = n, message = "expected " .. what .. " but found the end of the file", truncated = true }, 0)
  end
  local function found(pos)
    local c = sub(data, pos, pos)
    if c == "" then return "the end of the file" end
    if c:find("%c") then return string.format("byte 0x%02X", byte(c)) end
    return "'" .. c .. "'"
  end
  -- Where in the document the innermost container is ("systems[2].window_ms").
  local function where()
    local parts = {}
    for i = 1, depth - 1 do
      local f = stack[i]
      if f.obj then
        parts[#parts + 1] = (i > 1 and "." or "") .. f.key
      else
        parts[#parts + 1] = "[" .. (f.count + 1) .. "]"
      end
    end
    return concat(parts)
  end

  local function read_string(pos)
    local i, parts = pos + 1, nil
    while true do
      local j = find(data, '["\\%z\1-\31]', i)
      if not j then eof("the end of a string") end
      local c = byte(data, j)
      if c == 34 then
        if parts then
          parts[#parts + 1] = sub(data, i, j - 1)
          return concat(parts), j + 1
        end
        return sub(data, i, j - 1), j + 1
      elseif c == 92 then
        parts = parts or {}
        parts[#parts + 1] = sub(data, i, j - 1)
        local e = byte(data, j + 1)
        if not e then eof("an escape") end
        local simple = SIMPLE_ESCAPES[e]
        if simple then
          parts[#parts + 1] = simple
          i = j + 2
        elseif e == 117 then -- \uXXXX, surrogate pairs joined
          local hex = match(data, "^%x%x%x%x", j + 2)
          if not hex then
            if j + 5 > n then eof("four hex digits") end
            fail(j, "expected four hex digits after \\u")
          end
          local cp = tonumber(hex, 16)
          i = j + 6
          if cp >= 0xD800 and cp <= 0xDBFF then
            local lo = match(data, "^\\u(%x%x%x%x)", i)
            local lv = lo and tonumber(lo, 16)
            if lv and lv >= 0xDC00 and lv <= 0xDFFF then
              cp = 0x10000 + (cp - 0xD800) * 0x400 + (lv - 0xDC00)
              i = i + 6
            else
              cp = 0xFFFD -- a lone surrogate
            end
          elseif cp >= 0xDC00 and cp <= 0xDFFF then
            cp = 0xFFFD
          end
          parts[#parts + 1] = utf8.char(cp)
        else
          fail(j, "invalid escape '\\" .. string.char(e) .. "' in a string")
        end
      else
        fail(j, string.format("control character 0x%02X in a string (escape it)", c))
      end
    end
  end

  -- A value that is not a string or a container: a literal, a number or a
  -- bad-number token.
  local function read_token(pos)
    local s, e = find(data, "^[%w%.%+%-]+", pos)
    if not s then fail(pos, "expected a value but found " .. found(pos)) end
    local tok = sub(data, s, e)
    if tok == "true" then return true, e + 1 end
    if tok == "false" then return false, e + 1 end
    if tok == "null" then return NULL, e + 1 end
    local x = json_number(tok)
    if x and x ~= math.huge and x ~= -math.huge then return x, e + 1 end
    local first = byte(tok, 1)
    local word = tok:gsub("^[+-]", ""):lower()
    if (first >= 48 and first <= 57) or first == 43 or first == 45 or first == 46 or NUMBER_WORDS[word] then
      return jr.bad(tok), e + 1
    end
    if e == n then eof("a value") end -- a literal cut short
    fail(pos, "expected a value but found '" .. (#tok > 20 and tok:sub(1, 17) .. "..." or tok) .. "'")
  end

  local pos = start or 1
  local state = "value" -- "value", "key", "after"
  local v, root
  local raw_at -- where the raw value being read started (opts.keep)
  while true do
    if state == "value" then
      pos = find(data, "[^ \t\r\n]", pos)
      if not pos then eof("a value") end
      local c = byte(data, pos)
      if keep and depth == 1 and not raw_at and keys[stack[1].t] and not keep[stack[1].key] then
        raw_at = pos -- a value of a key nobody reads: checked, kept as text
      end
      if c == 123 or c == 91 then -- { or [
        if depth >= jr.MAX_DEPTH then fail(pos, "nesting deeper than " .. jr.MAX_DEPTH .. " levels") end
        -- while raw, a container is a frame without a table (t = false; obj says which)
        local t = not raw_at and {} or false
        if t and c == 123 then keys[t] = {} end
        depth = depth + 1
        local f = stack[depth] -- frames are reused: a deep document makes no garbage per bracket
        if f then
          f.t, f.obj, f.count, f.key, f.key_at = t, c == 123, 0, nil, nil
        else
          stack[depth] = { t = t, obj = c == 123, count = 0, key = nil }
        end
        pos = find(data, "[^ \t\r\n]", pos + 1)
        if not pos then eof(c == 123 and "a key or '}'" or "a value or ']'") end
        local close = byte(data, pos)
        if close == (c == 123 and 125 or 93) then
          depth = depth - 1
          v, pos, state = t, pos + 1, "after"
        elseif c == 123 then
          state = "key"
        end
      elseif c == 34 then
        v, pos = read_string(pos)
        state = "after"
      else
        v, pos = read_token(pos)
        state = "after"
      end
    elseif state == "key" then
      pos = find(data, "[^ \t\r\n]", pos)
      if not pos then eof("a key") end
      if byte(data, pos) ~= 34 then fail(pos, "expected a key (a string) but found " .. found(pos)) end
      local key_at = pos
      local key
      key, pos = read_string(pos)
      pos = find(data, "[^ \t\r\n]", pos)
      if not pos then eof("':'") end
      if byte(data, pos) ~= 58 then fail(pos, "expected ':' after a key but found " .. found(pos)) end
      local f = stack[depth]
      f.key, f.key_at = key, key_at
      pos, state = pos + 1, "value"
    else -- "after": v is complete
      if depth == 0 then
        root = v
        break
      end
      if raw_at and depth == 1 then -- the raw value is complete
        v = setmetatable({ text = sub(data, raw_at, pos - 1) }, Raw)
        raw_at = nil
      end
      local f = stack[depth]
      local t = f.t
      local is_obj = f.obj
      if t and is_obj then -- (no table: inside a raw value, nothing is kept)
        local k = f.key
        if t[k] ~= nil then
          duplicates[#duplicates + 1] = { offset = f.key_at - 1, key = k, where = where() }
        else
          local list = keys[t]
          list[#list + 1] = k
        end
        t[k] = v
      elseif t then
        f.count = f.count + 1
        t[f.count] = v
      end
      pos = find(data, "[^ \t\r\n]", pos)
      if not pos then eof(is_obj and "',' or '}'" or "',' or ']'") end
      local c = byte(data, pos)
      if c == 44 then
        pos = pos + 1
        state = is_obj and "key" or "value"
      elseif c == (is_obj and 125 or 93) then
        depth = depth - 1
        v, pos = t, pos + 1
      else
        fail(pos, string.format("expected ',' or '%s' but found %s", is_obj and "}" or "]", found(pos)))
      end
    end
  end
  pos = find(data, "[^ \t\r\n]", pos)
  if pos then fail(pos, "expected the end of the file after the document but found " .. found(pos)) end
  return { value = root, keys = keys, duplicates = duplicates }
end

return jr
