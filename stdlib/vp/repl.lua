-- vp.repl: the Lua side of the vpscript REPL (`vpscript -i [captures...]`):
-- the pretty printer for results, Tab completion candidates, help() and the
-- error display. The host (program/repl.c) does the line editing and calls
--   repl.start(env, files)     open the captures, install help() and `repl`
--   repl.show(...)             print a statement's results
--   repl.complete(line)        -> start, candidates (Tab)
--   repl.error_text(msg)       message and a short traceback
-- In the REPL the module is the global `repl`: `repl.depth = 5` shows
-- nested tables deeper, `repl.items = 200` longer ones (repl.width,
-- repl.string_len likewise). Everything here is plain Lua and can be used
-- from scripts too, e.g. `print(require("vp.repl").format(t))`.
--
-- One module per job, beside this one: vp.repl.format (the pretty
-- printer), vp.repl.describe (captures, nodes, frames and groups with
-- their key timings; the hints under a value), vp.repl.complete (Tab),
-- vp.repl.help (help's texts), vp.repl.errors (the error display). They
-- take the settings and the environment from here.
local format = require "vp.repl.format"
local describe = require "vp.repl.describe"
local complete = require "vp.repl.complete"
local help = require "vp.repl.help"
local errors = require "vp.repl.errors"

local repl = {}

-- settings -----------------------------------------------------------------

repl.defaults = { depth = 3, items = 50, width = 78, string_len = 200 }

-- The settings in use: opts' (repl.format's), else repl.depth etc. as the
-- user set them, else the defaults.
local function settings(opts)
  local s = {}
  for k in pairs(repl.defaults) do
    local v = opts and opts[k]
    if v == nil then v = rawget(repl, k) end
    if math.type(v) ~= "integer" or v < 0 then v = repl.defaults[k] end
    s[k] = v
  end
  return s
end

-- The environment the REPL's chunks run in (repl.start's), else _G.
local function env_of()
  return repl.env or _G
end

-- pretty printer -----------------------------------------------------------

--- repl.natural_less(a, b) -> boolean: strings in the order people count:
-- runs of digits compare as numbers ("group 2" before "group 10"), the rest
-- byte by byte; equal numbers with more leading zeros come later.
repl.natural_less = format.natural_less

--- repl.format(value [, opts]) -> string, cut: a readable rendering; tables
-- with their keys in natural order (numbers first, "x2" before "x10"),
-- `depth` and `items` limits, `<cycle>` where a table contains itself;
-- captures, nodes, frames and groups with their key timings
-- (repl.describe), other userdata through __tostring. opts: depth, items,
-- width, string_len (default: repl.depth etc., else repl.defaults). cut is
-- nil, or {depth = true} when a table was shown as {...}, {items = true}
-- when one was shortened (both may be set).
function repl.format(value, opts)
  return format.format(value, settings(opts))
end

--- repl.cut_hint(cut) -> string | nil: the line the REPL prints after a
-- value that was cut, naming the setting that shows more.
function repl.cut_hint(cut)
  return describe.cut_hint(cut, settings())
end

--- repl.show(...): print values the way the REPL shows results, then a
-- hint when something was cut (repl.cut_hint).
function repl.show(...)
  local n = select("#", ...)
  local parts, multi, cut = {}, false, nil
  for i = 1, n do
    local c
    parts[i], c = repl.format((select(i, ...)))
    if c then
      cut = cut or {}
      for k in pairs(c) do cut[k] = true end
    end
    if parts[i]:find("\n") then multi = true end
  end
  io.stdout:write(table.concat(parts, multi and "\n" or "\t"), "\n")
  if n == 1 and (...) == nil then
    local missing = repl.nil_hint(repl.source)
    if missing then io.stdout:write(missing, "\n") end
  end
  local totals = n == 1 and repl.totals_hint((...))
  if totals then io.stdout:write(totals, "\n") end
  local hint = repl.cut_hint(cut)
  if hint then io.stdout:write(hint, "\n") end
  io.stdout:flush()
end

-- key timings and hints ----------------------------------------------------

--- repl.describe(value) -> string: how the REPL shows a userdata: a VProf
-- capture with its counts (groups as cap.group_count, and how many have
-- nodes) and frame times; a node with its time, self time and calls per
-- frame, its peak and group; a frame with how it compares with the median
-- frame and the node with the most self time; a group with its self time
-- per frame. Anything else (or a closed capture) through __tostring.
repl.describe = describe.describe

--- repl.source: the chunk the REPL runs (set by the vpscript REPL before
-- each one), which repl.show and repl.error_text read to name a lookup
-- that found nothing.
repl.source = nil

--- repl.totals_hint(v) -> string | nil: under a node's totals (a row of
-- cap:totals, or the list of them) the line that names
-- them apart from the per-frame figures the node's own line shows.
repl.totals_hint = describe.totals_hint

--- repl.nil_hint(src [, name]) -> string | nil: what the REPL says under a
-- nil it shows, or an "attempt to index a nil value" it reports, when a
-- lookup in src found nothing: the missing key, group or node and the
-- nearest names there are (vp.near).
function repl.nil_hint(src, name)
  return describe.nil_hint(src, name, env_of())
end

-- errors -------------------------------------------------------------------

--- repl.error_text(msg) -> string: the message with a short traceback: the
-- interpreter's own frames dropped, at most `max` frames, and none at all
-- when the error was raised directly at the prompt. Indexing a nil that a
-- lookup of repl.source gave adds what was missing and the nearest names
-- (repl.nil_hint); indexing a nil global says it is nil.
function repl.error_text(msg, max)
  return errors.text(msg, max, repl.source, env_of())
end

-- completion ---------------------------------------------------------------

--- repl.complete(line [, env]) -> start, candidates: completions for the
-- text before the cursor. `start` is the 1-based position where the word
-- being completed begins; each candidate replaces line:sub(start).
-- Completes globals and keywords, `a.b.c` fields and `obj:method` names
-- (through metatables); inside the open string a method takes, what its
-- documentation says the string names (vp.doc: the member's arg): node
-- paths (cap:node("Root/CE<Tab>, cap:series(", fr:time_ms(", cap:find("
-- once it holds a "/"), node names (cap:find(" before any "/") or group
-- names (cap:group("); file names in any other string.
function repl.complete(line, env)
  return complete.complete(line, env or _G)
end

-- help ---------------------------------------------------------------------

--- repl.help_text([x]) -> string: what help(x) prints (names resolve in _G).
function repl.help_text(...)
  return help.text(_G, settings(), select("#", ...), (...))
end

-- start --------------------------------------------------------------------

--- repl.start(env, files): install help() and `repl` (this module, for
-- repl.depth and the other settings) in env and open each file as
-- env.cap (one file) or env.cap1, env.cap2, ... (several; env.cap is then
-- the first that opened). One line per file says what was opened; a file
-- that does not open is reported and the REPL starts anyway.
function repl.start(env, files)
  env.help = function(...)
    io.stdout:write(help.text(env, settings(), select("#", ...), (...)), "\n")
  end
  env.repl = repl
  repl.env = env
  local vp = require "vp"
  local several = #files > 1
  for i, path in ipairs(files) do
    local ok, cap, msg = pcall(vp.open, path)
    if not ok then cap, msg = nil, cap end
    if not cap then
      msg = tostring(msg or "cannot open")
      if msg:sub(1, #path) ~= path then msg = path .. ": " .. msg end
      io.stderr:write("vpscript: ", msg, "\n")
    else
      local name = several and ("cap" .. i) or "cap"
      local also = ""
      env[name] = cap
      if several and rawget(env, "cap") == nil then
        env.cap = cap
        also = "  (also cap)"
      end
      io.stdout:write(name, " = ", repl.describe(cap), also, "\n")
      for _, w in ipairs(cap.warnings or {}) do io.stderr:write("warning: ", tostring(w), "\n") end
    end
  end
  io.stdout:flush()
end

return repl
