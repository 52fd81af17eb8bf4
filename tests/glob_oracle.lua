-- glob_oracle.lua: the definition, in Lua, of the globs cap:find matches
-- (bindings/l_vprof.c, in C), which tests/queries_spec.lua holds the C
-- matcher to on thousands of globs: a second implementation kept as the
-- tests' reference, not as a module anything else uses.
--
--   local oracle = require "glob_oracle"
--   local m = oracle.compile("R_Draw*")          -- m(name, path [, rel]) -> boolean
--   print(oracle.glob_pattern("Physics*"))       --> ^Physics[^/]-$
--
-- Globs match the whole name (or path): `*` any run of characters except
-- "/", `**` any run including "/", `?` one character except "/", `[abc]`,
-- `[a-z]` and `[!abc]` a character class (its first character may be "]";
-- a "-" first or last is itself), `\x` the character x itself. A glob with
-- a "/" is matched against the path, both as it is
-- ("Root/CEngine::Frame/...") and relative to the root ("CEngine::Frame/..."),
-- as cap:node accepts paths; without one, against the name. A same-named
-- sibling's path component carries "#2", "#3" (its name does not): a name
-- glob matches that component too, so "Simulate#2" finds the second. Lua
-- patterns (opts.lua) are searched for anywhere in the name, or in the path
-- when they contain a "/", unless anchored with ^ and $. opts.on = "name"
-- or "path" overrides the choice.
local E = require "vp.error"

local oracle = {}

-- Lua's magic characters, escaped where a glob means them literally.
local function literal(c)
  if c:match("[%^%$%(%)%%%.%[%]%*%+%-%?]") then return "%" .. c end
  return c
end

-- A class body as a Lua class: single bytes and ranges "a-z" (a "-" first
-- or last is itself), as the C matcher reads them. Ranges between two
-- alphanumerics stay ranges; any other is spelled out byte by byte.
local function class_pattern(body, neg)
  local parts, k, n = {}, 1, #body
  local function one(b)
    local ch = string.char(b)
    parts[#parts + 1] = ch:match("%w") and ch or ("%" .. ch)
  end
  while k <= n do
    local lo, hi = body:byte(k), body:byte(k)
    if k + 2 <= n and body:sub(k + 1, k + 1) == "-" then
      hi = body:byte(k + 2)
      k = k + 3
    else
      k = k + 1
    end
    if lo < hi and string.char(lo):match("%w") and string.char(hi):match("%w") then
      parts[#parts + 1] = string.char(lo) .. "-" .. string.char(hi)
    else
      for b = lo, hi do one(b) end
    end
  end
  if #parts == 0 then return neg and "[\0-\255]" or "[^\0-\255]" end
  return "[" .. (neg and "^" or "") .. table.concat(parts) .. "]"
end

--- oracle.glob_pattern(glob) -> the anchored Lua pattern the glob means.
-- Raises EUSAGE for a class that is not closed.
function oracle.glob_pattern(glob)
  local out, i, n = { "^" }, 1, #glob
  while i <= n do
    local c = glob:sub(i, i)
    if c == "*" then
      if glob:sub(i + 1, i + 1) == "*" then
        out[#out + 1] = ".-"
        i = i + 2
      else
        out[#out + 1] = "[^/]-"
        i = i + 1
      end
    elseif c == "?" then
      out[#out + 1] = "[^/]"
      i = i + 1
    elseif c == "\\" and i < n then
      out[#out + 1] = literal(glob:sub(i + 1, i + 1))
      i = i + 2
    elseif c == "[" then
      local b = i + 1
      local neg = glob:sub(b, b) == "!"
      if neg then b = b + 1 end
      -- the body is never empty: a "]" right after "[" or "[!" belongs to it
      local close = glob:find("]", b + 1, true)
      if not close then
        E.raise("EUSAGE", "cap:find: '%s': a character class '[' is not closed", glob)
      end
      out[#out + 1] = class_pattern(glob:sub(b, close - 1), neg)
      i = close + 1
    else
      out[#out + 1] = literal(c)
      i = i + 1
    end
  end
  out[#out + 1] = "$"
  return table.concat(out)
end

--- oracle.compile(pattern [, opts]) -> matcher(name, path [, rel]) -> boolean.
-- opts.lua: a Lua pattern instead of a glob; opts.on: "name" or "path"
-- (default: the path when the pattern has a "/"). A name matcher also tries
-- the node's own path component (the name with its "#2"); `rel` is the
-- path relative to the root, tried as well by path matchers.
function oracle.compile(pattern, opts)
  opts = opts or {}
  if type(pattern) ~= "string" or pattern == "" then
    E.raise("EUSAGE", "cap:find: the pattern must be a non-empty string, not %s", tostring(pattern))
  end
  local on = opts.on or (pattern:find("/", 1, true) and "path" or "name")
  if on ~= "name" and on ~= "path" then
    E.raise("EUSAGE", "cap:find: opts.on must be \"name\" or \"path\", not %s", tostring(on))
  end
  local lua = opts.lua and pattern or oracle.glob_pattern(pattern)
  local ok, err = pcall(string.find, "", lua)
  if not ok then
    E.raise("EUSAGE", "cap:find: '%s' is not a valid Lua pattern: %s", pattern, (tostring(err):gsub("^.-: ", "")))
  end
  if on == "name" then
    -- the name, or the node's own path component ("Simulate#2")
    return function(name, path)
      if name:find(lua) then return true end
      local last = path and path:match("[^/]*$")
      return last ~= nil and last ~= name and last:find(lua) ~= nil
    end
  end
  return function(_, path, rel)
    return path:find(lua) ~= nil or (rel ~= nil and rel:find(lua) ~= nil)
  end
end

return oracle
