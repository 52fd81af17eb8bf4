-- vp.find: finding the nodes of a capture's tree by name or path, with a
-- glob or a Lua pattern. node.lua resolves its argument with it; it is
-- written so the capture API can take it over unchanged (cap:find and
-- cap:nodes_named, see docs/api.md): it needs only cap:nodes() (every node
-- in pre-order) and each node's `name`, `path` and `parent`.
--
--   local find = require "vp.find"
--   find.nodes(cap, "Physics*")                 -- nodes whose NAME matches
--   find.nodes(cap, "**/NPCs/*/AI_Pathfind")    -- a "/" in it: the PATH
--   find.nodes(cap, "^Lua_", {lua = true})      -- a Lua pattern (string.find)
--   find.named(cap, "AI_Pathfind")              -- every node of that exact name
--   local m = find.compile("R_Draw*")           -- m(name, path) -> boolean
--
-- Globs match the whole name (or path): `*` any run of characters except
-- "/", `**` any run including "/", `?` one character except "/", `[abc]`,
-- `[a-z]` and `[!abc]` a character class, `\x` the character x itself. A
-- glob with a "/" is matched against the path, both as it is
-- ("Root/CEngine::Frame/...") and relative to the root ("CEngine::Frame/..."),
-- as cap:node accepts paths; without one, against the name. A same-named
-- sibling's path component carries "#2", "#3" (its name does not): a name
-- glob matches that component too, so "Simulate#2" finds the second. Lua
-- patterns (opts.lua) are searched for anywhere in the name, or in the path
-- when they contain a "/", unless anchored with ^ and $. opts.on = "name"
-- or "path" overrides the choice. Results keep the capture's pre-order (the
-- engine's sibling order), so they are stable from run to run.
local E = require "vp.error"

local find = {}

-- Lua's magic characters, escaped where a glob means them literally.
local function literal(c)
  if c:match("[%^%$%(%)%%%.%[%]%*%+%-%?]") then return "%" .. c end
  return c
end

--- find.glob_pattern(glob) -> the anchored Lua pattern the glob means.
-- Raises EUSAGE for a class that is not closed.
function find.glob_pattern(glob)
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
      local close = glob:find("]", i + 2, true)
      if not close then
        E.raise("EUSAGE", "vp.find: '%s': a character class '[' is not closed", glob)
      end
      local body = glob:sub(i + 1, close - 1)
      local neg = body:sub(1, 1) == "!"
      if neg then body = body:sub(2) end
      body = body:gsub("[%%%]%^]", "%%%0")
      out[#out + 1] = "[" .. (neg and "^" or "") .. body .. "]"
      i = close + 1
    else
      out[#out + 1] = literal(c)
      i = i + 1
    end
  end
  out[#out + 1] = "$"
  return table.concat(out)
end

--- find.compile(pattern [, opts]) -> matcher(name, path [, rel]) -> boolean.
-- opts.lua: a Lua pattern instead of a glob; opts.on: "name" or "path"
-- (default: the path when the pattern has a "/"). A name matcher also tries
-- the node's own path component (the name with its "#2"); `rel` is the
-- path relative to the root, tried as well by path matchers.
function find.compile(pattern, opts)
  opts = opts or {}
  if type(pattern) ~= "string" or pattern == "" then
    E.raise("EUSAGE", "vp.find: the pattern must be a non-empty string, not %s", tostring(pattern))
  end
  local on = opts.on or (pattern:find("/", 1, true) and "path" or "name")
  if on ~= "name" and on ~= "path" then
    E.raise("EUSAGE", "vp.find: opts.on must be \"name\" or \"path\", not %s", tostring(on))
  end
  local lua = opts.lua and pattern or find.glob_pattern(pattern)
  local ok, err = pcall(string.find, "", lua)
  if not ok then
    E.raise("EUSAGE", "vp.find: '%s' is not a valid Lua pattern: %s", pattern, (tostring(err):gsub("^.-: ", "")))
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

-- The path below the root ("CEngine::Frame/X" for "Root/CEngine::Frame/X").
local function relative(node, root_prefix)
  local p = node.path
  if root_prefix and p:sub(1, #root_prefix) == root_prefix then return p:sub(#root_prefix + 1) end
  return nil
end

--- find.nodes(cap, pattern [, opts]) -> {node, ...}: every node the pattern
-- matches, in the capture's pre-order; {} when none does.
function find.nodes(cap, pattern, opts)
  local match = find.compile(pattern, opts)
  local out, prefix = {}, nil
  for n in cap:nodes() do
    if n.parent == nil then prefix = n.path .. "/" end
    if match(n.name, n.path, relative(n, prefix)) then out[#out + 1] = n end
  end
  return out
end

--- find.named(cap, name) -> {node, ...}: every node whose name is exactly
-- `name`, wherever it is in the tree, in pre-order.
function find.named(cap, name)
  local out = {}
  for n in cap:nodes() do
    if n.name == name then out[#out + 1] = n end
  end
  return out
end

return find
