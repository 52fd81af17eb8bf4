-- vp.doc: the one documentation table of the Lua API. Every module in
-- stdlib/vp/doc/*.lua returns a list of classes
--
--   { class = "vp.dw",            -- the metatable __name ("vp" for the module)
--     title = "weapon trace capture",
--     doc = "optional paragraph",
--     members = {
--       { name = "traces", kind = "method", sig = "cap:traces() -> iterator",
--         doc = "one line", example = "for t in cap:traces() do ... end" },
--       { name = "max_size", kind = "field", doc = "one line" } } }
--
-- kind is "function" (module functions), "method", "field" or "operator"
-- (#s, s[i]). The REPL's help() and the API reference in docs/api.md
-- (tools/gen_docs.lua) both read this table, so they cannot drift apart.
-- A function or method whose first argument may be a string that names
-- something in a capture says what, for the REPL's Tab completion: arg =
-- {kind = "path" (a node path), "pattern" (a node name, or a path once it
-- holds a "/") or "group" (a group name), alone = true when it is the
-- only argument (a single completion closes the call)}.
-- The modules write it in a notation, doc.parse's (below), rather than as
-- table constructors: one entry is its signature and its prose.
--
--   local doc = require "vp.doc"
--   doc.classes()            every class, the vp module first
--   doc.class("vp.Series")   one class (also "Series", case-insensitive)
--   doc.find("percentile")   {{class = c, member = m}, ...}
--   doc.of(value)            the class documenting a value, via its metatable
--   doc.problems()           load and schema errors (an empty list when sound)
local doc = {}

local KINDS = { ["function"] = true, method = true, field = true, operator = true }
doc.KINDS = KINDS

-- What a member's string argument may name (its `arg`).
local ARG_KINDS = { path = true, pattern = true, group = true }

-- The notation -----------------------------------------------------------------

--- doc.expand(text [, vars]) -> text with each ${NAME} replaced by the string
-- vars.NAME, and each ${NAME ARG} by vars.NAME(ARG); any other raises.
function doc.expand(text, vars)
  return (text:gsub("%${([%w_]+) ?([^}]*)}", function(name, arg)
    local v = vars and vars[name]
    if type(v) == "function" then
      v = v(arg)
    elseif arg ~= "" then
      v = nil
    end
    if type(v) ~= "string" then error(("${%s%s}: no such text"):format(name, arg ~= "" and " " .. arg or ""), 0) end
    return v
  end))
end

-- The name a signature calls: "open" in "vp.open(path) -> cap", "hop" in
-- "w:hop{address =, ...}".
local function callee(sig)
  return sig:match("^[^({]-([%a_][%w_]*)%s*[({]")
end

--- doc.parse(text [, vars]) -> the list of classes text writes (after
-- doc.expand(text, vars)), in this notation:
--
--   class vp.devt.group: event group of a .devt capture
--     One of the four groups ...          the class's paragraph, wrapped
--   extends vp.writer                     (optional, before the members)
--                                         the class has that class's
--                                         members too (its own replace them)
--   field index                           field NAME [SIG]
--     1-based position in the file        its one line, wrapped
--     > print(g.index)                    its example, each line after "> "
--   operator # #g                         operator NAME SIG
--     number of events in the group
--   method g:events() -> iterator         method SIG, function SIG: the
--     the group's events in file order    name is the one SIG calls
--   method cap:node(path) -> node
--     a node by its path
--     @ arg path alone                    its arg (@ arg KIND [alone])
--
-- A line at the margin starts a class or a member; the indented lines under
-- it are its prose, joined by one space, then its example's lines; blank
-- lines are left out; a line at the margin that ends in "\" goes on on the
-- next. Errors raise "line N: why".
function doc.parse(text, vars)
  local classes, entry, n, held = {}, nil, 0, nil
  local function fail(why) error(("line %d: %s"):format(n, why), 0) end
  local function header(line)
    local kind, rest = line:match("^(%a+)%s+(.-)%s*$")
    if kind == "extends" then
      if not entry or entry ~= classes[#classes] then fail("'extends' belongs under a class, before its members") end
      entry.extends = rest
      return
    end
    if kind == "class" then
      local name, title = rest:match("^(%S+):%s+(.+)$")
      if not name then fail("expected 'class NAME: TITLE'") end
      entry = { class = name, title = title, members = {} }
      classes[#classes + 1] = entry
      return
    end
    if not KINDS[kind] then fail("expected class, function, method, field or operator at the margin") end
    if #classes == 0 then fail("a " .. kind .. " before the first class") end
    local name, sig
    if kind == "function" or kind == "method" then
      name, sig = callee(rest), rest
      if not name then fail("a " .. kind .. "'s signature calls no name: " .. rest) end
    else
      name, sig = rest:match("^(%S+)%s*(.-)$")
      if sig == "" then sig = nil end
    end
    entry = { name = name, kind = kind, sig = sig }
    local members = classes[#classes].members
    members[#members + 1] = entry
  end
  local function body(line)
    if not entry then fail("an indented line before the first class") end
    local code = line:match("^%s*> ?(.*)$")
    local attribute = line:match("^%s*@%s*(.-)%s*$")
    if attribute then
      local kind, alone = attribute:match("^arg%s+(%a+)%s*(%a*)$")
      if not ARG_KINDS[kind] or (alone ~= "" and alone ~= "alone") then
        fail("expected '@ arg path|pattern|group [alone]'")
      end
      if entry.kind ~= "method" and entry.kind ~= "function" then fail("only a function or method has an arg") end
      entry.arg = { kind = kind, alone = alone == "alone" or nil }
    elseif code then
      if entry.members then fail("a class has no example") end
      entry.example = entry.example and (entry.example .. "\n" .. code) or code
    elseif entry.example then
      fail("prose after the example")
    else
      local s = line:match("^%s*(.-)%s*$")
      entry.doc = entry.doc and (entry.doc .. " " .. s) or s
    end
  end
  for line in (doc.expand(text, vars) .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if held then line, held = held .. " " .. line:match("^%s*(.-)$"), nil end
    if line:match("^%S.*\\$") then
      held = line:sub(1, -2):match("^(.-)%s*$")
    elseif line:match("^%S") then
      header(line)
    elseif line:match("%S") then
      body(line)
    end
  end
  if held then fail("the last line ends in \\") end
  return classes
end

--- doc.counted_fields(v, items, thing) -> the notation of the fields of a
-- trace's counted list (a .devt group, a .dlag measurement): its written
-- total, the count present, where the total is and its capture; v is the
-- examples' variable, items what it counts, thing what it is.
function doc.counted_fields(v, items, thing)
  return doc.expand([=[
field total
  the u32 total written before the ${items} (may disagree with count: a warning)
  > print(${v}.total, ${v}.count)
field count
  ${items} actually present (also #${v})
  > print(${v}.count)
field file_offset
  byte offset of the ${thing}'s total in the file
  > print(${v}.file_offset)
field capture
  the capture this ${thing} belongs to
  > print(${v}.capture.path)
]=], { v = v, items = items, thing = thing })
end

--- doc.capture_fields(format, warnings) -> the notation of the fields every
-- capture of a binary format has: format, path, size and its warnings (what
-- they are about).
function doc.capture_fields(format, warnings)
  return doc.expand([=[
field format
  "${format}"
  > print(cap.format)
field path
  the file the capture was opened from
  > print(cap.path)
field size
  file size in bytes
  > print(cap.size)
field warnings
  list of warning strings (${warnings})
  > for _, w in ipairs(cap.warnings) do print(w) end
]=], { format = format, warnings = warnings })
end

-- Module files known to exist, for when lfs is missing and the directory
-- cannot be listed (a spec checks it names every file in stdlib/vp/doc/).
local KNOWN = { "vp", "vprof", "vprof_writer", "devt", "dlag", "dm", "dw", "laige", "metrics", "analyses", "queries",
  "repl", "history", "output", "cli", "pages" }
doc.KNOWN = KNOWN

local function here()
  local src = debug.getinfo(1, "S").source
  if src:sub(1, 1) == "@" then
    return src:sub(2):match("^(.*)/[^/]*$") or "."
  end
  local path = package.searchpath("vp.doc", package.path)
  return path and path:match("^(.*)/[^/]*$") or "."
end

--- doc.dir() -> the directory holding the documentation modules.
function doc.dir()
  return here() .. "/doc"
end

local function module_names(dir)
  local names, seen = {}, {}
  local ok, lfs = pcall(require, "lfs")
  if ok and type(lfs) == "table" then
    local okd, iter, state = pcall(lfs.dir, dir)
    if okd then
      for f in iter, state do
        local n = f:match("^([%w_]+)%.lua$")
        if n and not seen[n] then
          names[#names + 1], seen[n] = n, true
        end
      end
    end
  else
    for _, n in ipairs(KNOWN) do
      local f = io.open(dir .. "/" .. n .. ".lua", "r")
      if f then
        f:close()
        names[#names + 1] = n
      end
    end
  end
  table.sort(names, function(a, b)
    if (a == "vp") ~= (b == "vp") then return a == "vp" end
    return a < b
  end)
  return names
end

local function is_list(t)
  if type(t) ~= "table" then return false end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end

-- What is wrong with one member of class cname, or nil.
local function member_problem(cname, m, mi)
  if type(m) ~= "table" then
    return ("%s member %d: not a table"):format(cname, mi)
  elseif type(m.name) ~= "string" or m.name == "" then
    return ("%s member %d: `name` must be a non-empty string"):format(cname, mi)
  end
  local label = cname .. "." .. m.name
  if not KINDS[m.kind] then
    return ("%s: `kind` must be function, method, field or operator (got %s)"):format(label, tostring(m.kind))
  elseif m.kind ~= "operator" and not m.name:match("^[%a_][%w_]*$") then
    return label .. ": `name` must be a Lua identifier"
  elseif type(m.doc) ~= "string" or m.doc == "" or m.doc:find("\n") then
    return label .. ": `doc` must be one non-empty line"
  elseif m.sig ~= nil and type(m.sig) ~= "string" then
    return label .. ": `sig` must be a string"
  elseif m.kind ~= "field" and type(m.sig) ~= "string" then
    return ("%s: a %s needs `sig`"):format(label, m.kind)
  elseif m.example ~= nil and type(m.example) ~= "string" then
    return label .. ": `example` must be a string"
  elseif m.arg ~= nil and (type(m.arg) ~= "table" or not ARG_KINDS[m.arg.kind]
      or (m.arg.alone ~= nil and m.arg.alone ~= true)) then
    return label .. ": `arg` must be {kind = \"path\"|\"pattern\"|\"group\" [, alone = true]}"
  elseif m.arg ~= nil and m.kind ~= "method" and m.kind ~= "function" then
    return label .. ": only a function or method has an `arg`"
  end
  return nil
end

-- What is wrong with class c (the ci-th) itself, or nil.
local function class_problem(c, ci)
  local cname = type(c) == "table" and c.class
  if type(cname) ~= "string" or cname == "" then
    return ("class %d: `class` must be a non-empty string"):format(ci)
  elseif type(c.title) ~= "string" or c.title == "" then
    return cname .. ": `title` must be a non-empty string"
  elseif c.doc ~= nil and type(c.doc) ~= "string" then
    return cname .. ": `doc` must be a string"
  elseif c.extends ~= nil and type(c.extends) ~= "string" then
    return cname .. ": `extends` must be a class name"
  elseif not is_list(c.members) then
    return cname .. ": `members` must be a list"
  end
  return nil
end

--- doc.validate(list, where) -> {problem, ...}: schema errors of one module's
-- return value (`where` names it in the messages).
function doc.validate(list, where)
  if not is_list(list) or #list == 0 then return { where .. ": must return a non-empty list of classes" } end
  local out = {}
  for ci, c in ipairs(list) do
    local bad = class_problem(c, ci)
    if bad then
      out[#out + 1] = where .. ": " .. bad
    else
      for mi, m in ipairs(c.members) do
        bad = member_problem(c.class, m, mi)
        if bad then out[#out + 1] = where .. ": " .. bad end
      end
    end
  end
  return out
end

local cache

-- Add one module's classes to the loaded state. Classes documented in
-- several modules are merged (a format may add functions to `vp`); a member
-- documented twice is a problem.
local function merge(state, list, name, where)
  state.modules[#state.modules + 1] = name
  for _, c in ipairs(list) do
    local into = state.by_name[c.class]
    if not into then
      into = { class = c.class, title = c.title, doc = c.doc, members = {}, modules = {}, index = {} }
      state.by_name[c.class] = into
      state.classes[#state.classes + 1] = into
    end
    into.extends = into.extends or c.extends
    into.modules[#into.modules + 1] = name
    for _, m in ipairs(c.members) do
      if into.index[m.name] then
        state.problems[#state.problems + 1] = ("%s: %s.%s is documented twice"):format(where, c.class, m.name)
      else
        into.members[#into.members + 1] = m
        into.index[m.name] = m
      end
    end
  end
end

-- Load every module once; a module that fails to load or breaks the schema
-- is a problem, and is left out.
local function load_all()
  if cache then return cache end
  local dir = doc.dir()
  local state = { classes = {}, by_name = {}, modules = {}, problems = {} }
  for _, name in ipairs(module_names(dir)) do
    local where = "vp/doc/" .. name .. ".lua"
    local chunk, err = loadfile(dir .. "/" .. name .. ".lua", "t")
    local ok, list = false, err
    if chunk then ok, list = pcall(chunk) end
    local problems = ok and doc.validate(list, where) or { where .. ": " .. tostring(list) }
    for _, p in ipairs(problems) do state.problems[#state.problems + 1] = p end
    if #problems == 0 then merge(state, list, name, where) end
  end
  -- A class that extends another has its members too, where it does not
  -- document them itself: in its index, not in its list (rendered once).
  for _, c in ipairs(state.classes) do
    if c.extends then
      c.base = state.by_name[c.extends]
      if not c.base then
        state.problems[#state.problems + 1] = ("%s extends %s, which is not documented"):format(c.class, c.extends)
      else
        for _, m in ipairs(c.base.members) do
          if not c.index[m.name] then c.index[m.name] = m end
        end
      end
    end
  end
  cache = state
  return state
end

--- doc.reload(): forget the loaded table (the next call reads the files again).
function doc.reload()
  cache = nil
end

--- doc.classes() -> every class, in module order (vp first).
function doc.classes()
  return load_all().classes
end

--- doc.modules() -> names of the documentation modules that loaded.
function doc.modules()
  return load_all().modules
end

--- doc.problems() -> {message, ...}: modules that failed to load or broke the schema.
function doc.problems()
  return load_all().problems
end

--- doc.class(name) -> class | nil: by exact name, then case-insensitively,
-- then with "vp." in front ("Series" finds vp.Series).
function doc.class(name)
  if type(name) ~= "string" then return nil end
  local s = load_all()
  if s.by_name[name] then return s.by_name[name] end
  local lname = name:lower()
  for _, c in ipairs(s.classes) do
    if c.class:lower() == lname or c.class:lower() == "vp." .. lname then return c end
  end
  return nil
end

--- doc.member(class, name) -> member | nil (class: a class table or name).
function doc.member(class, name)
  if type(class) == "string" then class = doc.class(class) end
  return class and class.index[name] or nil
end

--- doc.fields(class) -> sorted list of the names of members of kind "field".
function doc.fields(class)
  if type(class) == "string" then class = doc.class(class) end
  local out = {}
  for _, m in ipairs(class and class.members or {}) do
    if m.kind == "field" then out[#out + 1] = m.name end
  end
  table.sort(out)
  return out
end

--- doc.of(value) -> class | nil: the class documenting a value: the vp
-- module itself, or the class named by its metatable's __name.
function doc.of(value)
  local ok, vp = pcall(require, "vp")
  if ok and rawequal(value, vp) then return doc.class("vp") end
  local mt = getmetatable(value)
  local name = type(mt) == "table" and rawget(mt, "__name")
  return type(name) == "string" and doc.class(name) or nil
end

--- doc.find(query) -> {{class = c, member = m | nil}, ...}: "Class",
-- "Class.member", "Class:member" or a bare member name (every class that
-- has it), case-insensitive.
function doc.find(query)
  local out = {}
  if type(query) ~= "string" or query == "" then return out end
  local c = doc.class(query)
  if c then return { { class = c } } end
  local cname, mname = query:match("^(.-)[.:]([^.:]+)$")
  if cname and cname ~= "" then
    c = doc.class(cname)
    local m = c and (c.index[mname] or c.index[mname:lower()])
    if m then return { { class = c, member = m } } end
  end
  local lq = query:lower()
  for _, k in ipairs(doc.classes()) do
    for _, m in ipairs(k.members) do
      if m.name:lower() == lq then out[#out + 1] = { class = k, member = m } end
    end
  end
  return out
end

-- Markdown -------------------------------------------------------------------

local function code(s)
  if s:find("`", 1, true) then return "`` " .. s .. " ``" end
  return "`" .. s .. "`"
end

-- Prose may hold `code`; outside it, < and > would be taken for HTML.
local function text(s)
  local parts, i = {}, 0
  for seg in (s .. "`"):gmatch("(.-)`") do
    i = i + 1
    parts[i] = i % 2 == 1 and seg:gsub("<", "&lt;"):gsub(">", "&gt;") or seg
  end
  if i % 2 == 0 then return (s:gsub("<", "&lt;"):gsub(">", "&gt;")) end -- unbalanced backticks
  return table.concat(parts, "`")
end

local KIND_HEADINGS = {
  { "function", "Functions" }, { "operator", "Operators" }, { "method", "Methods" }, { "field", "Fields" },
}

-- The anchor GitHub gives a heading: lower case, punctuation other than '-'
-- and '_' dropped, spaces as '-'.
local function anchor(heading)
  return (heading:lower():gsub("[^%w%s_%-]", ""):gsub("%s", "-"))
end

--- doc.markdown([classes]) -> string: the API reference as Markdown, an
-- index of the classes linking to one section per class with every member,
-- its one-line description and its example. docs/api.md is this text
-- (tools/gen_docs.lua).
function doc.markdown(classes)
  classes = classes or doc.classes()
  local out = {
    "<!-- generated by tools/gen_docs.lua from stdlib/vp/doc/*.lua: edit those files, not this text -->",
    "",
  }
  for _, c in ipairs(classes) do
    out[#out + 1] = "- [" .. code(c.class) .. "](#" .. anchor(c.class .. ": " .. c.title) .. "): " .. text(c.title)
  end
  for _, c in ipairs(classes) do
    out[#out + 1] = ""
    out[#out + 1] = "### " .. code(c.class) .. ": " .. text(c.title)
    if c.doc then
      out[#out + 1] = ""
      out[#out + 1] = text(c.doc)
    end
    if c.base then
      out[#out + 1] = ""
      out[#out + 1] = "Every member of [" .. code(c.base.class) .. "](#" .. anchor(c.base.class .. ": " .. c.base.title)
        .. ") too, unless listed here."
    end
    for _, kh in ipairs(KIND_HEADINGS) do
      local first = true
      for _, m in ipairs(c.members) do
        if m.kind == kh[1] then
          if first then
            out[#out + 1] = ""
            out[#out + 1] = "**" .. kh[2] .. "**"
            out[#out + 1] = ""
            first = false
          end
          out[#out + 1] = "- " .. code(m.sig or m.name) .. ": " .. text(m.doc)
          if m.example then
            out[#out + 1] = ""
            out[#out + 1] = "  ```lua"
            for line in (m.example .. "\n"):gmatch("(.-)\n") do
              out[#out + 1] = line == "" and "" or ("  " .. line)
            end
            out[#out + 1] = "  ```"
            out[#out + 1] = ""
          end
        end
      end
      -- A list item after a code block needs the blank line kept; drop a
      -- trailing one so sections stay compact.
      if out[#out] == "" and not first then out[#out] = nil end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

return doc
