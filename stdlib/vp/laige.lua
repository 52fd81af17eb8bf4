-- vp.laige: models of the laige engine's reports, read in Lua because they
-- are text: the profile report (`--prof-out`, JSON or text; one model
-- whatever the form) and the budget report (`--budget-report`, text).
--
--   local laige = require "vp.laige"
--   local cap, msg, code = laige.open("run.json")   -- or vp.open(path)
--   print(cap.counters.ticks, cap.tick_ms and cap.tick_ms.p99)
--   for name, v in pairs(laige.metrics(cap)) do print(name, v) end
--
-- The specs are ../shared/specs/laige-profiler.md and the "laige reports"
-- section of format-notes.md (which wins). Reading rules:
-- * the model uses one naming for both forms: `tick_ms`, `frame_ms` and a
--   system's `window` (the JSON keys are tick_time_ms, frame_time_ms and
--   window_ms);
-- * an empty window (`n=0` in text, `null` in JSON) is nil, never a table
--   of NaNs; `nan`/`inf` in text are numbers; counts are integers when
--   they are whole numbers, times are floats, in both forms;
-- * unknown keys and lines are kept in an `extra` table, with a warning;
-- * a missing or unknown version, malformed JSON and a text report cut
--   mid-line are errors (`nil, "<path>: line N: ..." | "<path>: at byte N:
--   ...", code`); a newer version is read as far as it is understood, with
--   a warning.
local vp = require "vp"
local cjson = require("cjson").new()

local laige = {}

--- The report version this reader implements.
laige.KNOWN_VERSION = 1

--- Results a budget report uses.
laige.RESULTS = { "PASS", "FAIL", "NO_SAMPLES", "NO_ENTRY" }

local MAX_WARNINGS = 200
local NAN = math.abs(0 / 0) -- fabs clears the sign: prints "nan", not "-nan"
local INF = math.huge

local RESULT_SET = {}
for _, r in ipairs(laige.RESULTS) do RESULT_SET[r] = true end

-- Field schemas: {key, kind}. kind: "int" (a count: integer when whole),
-- "num" (a measurement: always a float), "str", "result".
local COUNTERS = {
  { "ticks", "int" }, { "frames", "int" }, { "draw_calls", "int" },
  { "texture_binds", "int" }, { "net_bytes", "int" },
}
local STATS = {
  { "n", "int" }, { "min", "num" }, { "mean", "num" }, { "p50", "num" },
  { "p95", "num" }, { "p99", "num" }, { "max", "num" },
}
local WORLD = {
  { "entities_alive", "int" }, { "entities_total", "int" }, { "entity_capacity", "int" },
  { "sim_allocs", "int" }, { "systems", "int" },
}
local PROFILE_SYSTEM = {
  { "id", "int" }, { "name", "str" }, { "budget_ms", "num" }, { "runs", "int" },
  { "last_ms", "num" }, { "warns", "int" }, { "errors", "int" },
}
local BUDGET_SYSTEM = {
  { "id", "int" }, { "name", "str" }, { "budget_ms", "num" }, { "runs", "int" },
  { "last_ms", "num" }, { "measured_p99_ms", "num" }, { "result", "result" },
  { "warns", "int" }, { "errors", "int" },
}
local CONTEXT = { { "workload", "str" }, { "build", "str" }, { "machine", "str" }, { "warmup", "int" } }
local FRAMES_INFO = { { "n", "int" }, { "total", "int" } }
local FRAME = {
  { "frame", "int" }, { "ticks", "int" }, { "tick_after", "int" }, { "frame_ms", "num" },
  { "sim_allocs", "int" }, { "overrun_warns", "int" }, { "critical_errors", "int" },
  { "result", "result" },
}
local BUDGET_HEAD = { { "budget", "str" }, { "result", "result" }, { "metric", "str" }, { "unit", "str" } }
local BUDGET_VALUES = { { "after", "num" }, { "before", "num" }, { "target", "num" } }
local OVER_BUDGET = { { "id", "int" }, { "name", "str" }, { "p99_ms", "num" }, { "budget_ms", "num" } }

-- Numbers ------------------------------------------------------------------

local SPECIAL_NUMBERS = {
  nan = NAN, ["+nan"] = NAN, ["-nan"] = NAN,
  inf = INF, ["+inf"] = INF, ["-inf"] = -INF,
  infinity = INF, ["+infinity"] = INF, ["-infinity"] = -INF,
}

-- A report number as text: decimal (with exponent), or nan/inf as the
-- engine prints them. Hex and anything else Lua would also take are not
-- report numbers.
local function parse_number(s)
  local l = s:lower()
  local special = SPECIAL_NUMBERS[l]
  if special then return special end
  if not l:match("^[+-]?%d*%.?%d*e?[+-]?%d*$") or not l:match("%d") then return nil end
  return tonumber(s)
end

local function as_int(x)
  return math.tointeger(x) or (x + 0.0)
end

local function as_num(x)
  return x + 0.0
end

-- Values of unknown keys: numbers when they read as numbers.
local function text_extra_value(s)
  local x = parse_number(s)
  if x then return as_int(x) end
  return s
end

-- JSON values with cjson.null dropped and whole numbers as integers.
local function json_plain(v, depth)
  if v == cjson.null then return nil end
  if type(v) == "number" then return as_int(v) end
  if type(v) ~= "table" or depth > 64 then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = json_plain(x, depth + 1) end
  return out
end

local function group_digits(n)
  if type(n) ~= "number" then return "?" end
  if math.type(n) ~= "integer" then return string.format("%.6g", n) end
  local s = tostring(n)
  local sign, digits = s:match("^(%-?)(%d+)$")
  digits = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return sign .. digits
end

local function plural(n, word)
  return group_digits(n) .. " " .. word .. (n == 1 and "" or "s")
end

-- Errors and warnings --------------------------------------------------------

local fail_mt = {}

local function fail(code, msg)
  error(setmetatable({ code = code, msg = msg }, fail_mt), 0)
end

local function new_ctx(path)
  return { path = path, warnings = {}, nwarn = 0 }
end

-- Every warning but those about unknown keys counts as a sign that a line
-- is incomplete (see the mid-line cut rule in parse_lines).
local function add_warning(ctx, fmt, ...)
  local w = ctx.warnings
  if #w >= MAX_WARNINGS then return end
  if #w == MAX_WARNINGS - 1 then
    w[#w + 1] = "more warnings were suppressed"
  else
    w[#w + 1] = string.format(fmt, ...)
  end
end

local function warn(ctx, fmt, ...)
  ctx.nwarn = ctx.nwarn + 1
  if not ctx.first_line_warning then ctx.first_line_warning = string.format(fmt, ...) end
  add_warning(ctx, fmt, ...)
end

-- A key or section this reader does not know: kept, and said, but not a
-- sign of a cut line (a newer engine may add fields).
local function warn_extra(ctx, fmt, ...)
  add_warning(ctx, fmt, ...)
end

local function short(s)
  s = s:gsub("[%c]", "?")
  if #s > 60 then s = s:sub(1, 57) .. "..." end
  return s
end

-- Field filling --------------------------------------------------------------

-- Convert one raw value (text: a string; JSON: a decoded value) to `kind`.
-- Returns value or nil, complaint.
local function convert(kind, raw, from_json)
  if kind == "str" then
    if type(raw) == "string" then return raw end
    if type(raw) == "number" then return tostring(as_int(raw)), "expected a string" end
    return nil, "expected a string, found " .. type(raw)
  end
  if kind == "result" then
    if type(raw) ~= "string" then return nil, "expected a result, found " .. type(raw) end
    if not RESULT_SET[raw] then
      return raw, "unknown result '" .. short(raw) .. "' (expected PASS, FAIL, NO_SAMPLES or NO_ENTRY)"
    end
    return raw
  end
  local x, complaint
  if type(raw) == "number" then
    x = raw
  elseif type(raw) == "string" then
    x = parse_number(raw)
    if not x then
      return nil, "expected a number, found '" .. short(raw) .. "'"
    end
    if from_json then complaint = "expected a number, found a string" end
  else
    return nil, "expected a number, found " .. type(raw)
  end
  if kind == "int" then return as_int(x), complaint end
  return as_num(x), complaint
end

-- Fill `out` from a source of raw values following `schema`. src:
--   get(key) -> raw value or nil; keys() -> list of the source's keys in a
--   stable order. `where` prefixes warnings ("line 3: counters"). Keys in
--   `skip` are handled by the caller. Missing keys warn unless `quiet`.
local function fill(ctx, where, schema, src, out, from_json, skip, quiet)
  local known = {}
  for _, f in ipairs(schema) do
    local key, kind = f[1], f[2]
    known[key] = true
    local raw = src.get(key)
    if raw == nil then
      if not quiet then warn(ctx, "%s: missing %s", where, key) end
    else
      local v, complaint = convert(kind, raw, from_json)
      if complaint then warn(ctx, "%s: %s: %s", where, key, complaint) end
      out[key] = v
    end
  end
  for _, k in ipairs(src.keys()) do
    if not known[k] and not (skip and skip[k]) then
      out.extra = out.extra or {}
      if from_json then
        out.extra[k] = json_plain(src.get(k), 0)
      else
        out.extra[k] = text_extra_value(src.get(k))
      end
      warn_extra(ctx, "%s: unknown key '%s' kept in extra", where, short(tostring(k)))
    end
  end
  return out
end

-- Text lines -----------------------------------------------------------------

-- Split a line body into groups: the first is the line's own key=value
-- pairs (and bare words), every "name:" token opens a new named group
-- ("window: n=...", "stats: n=..."). A bare word after a key=value pair
-- continues that value with a space (names and machine strings are not
-- quoted by the engine).
local function tokenize(body)
  local groups = { { order = {}, kv = {}, words = {} } }
  local last_key
  for tok in body:gmatch("%S+") do
    local cur = groups[#groups]
    local k, v = tok:match("^([^=]+)=(.*)$")
    if k then
      if cur.kv[k] == nil then cur.order[#cur.order + 1] = k end
      cur.kv[k] = v
      last_key = k
    elseif #tok > 1 and tok:sub(-1) == ":" then
      groups[#groups + 1] = { name = tok:sub(1, -2), order = {}, kv = {}, words = {} }
      last_key = nil
    elseif last_key then
      cur.kv[last_key] = cur.kv[last_key] .. " " .. tok
    else
      cur.words[#cur.words + 1] = tok
    end
  end
  return groups
end

local function text_src(group)
  return {
    get = function(k) return group.kv[k] end,
    keys = function() return group.order end,
  }
end

local function group_is_empty(g)
  return #g.order == 0 and #g.words == 0
end

-- Warn about what a group holds besides key=value pairs.
local function warn_words(ctx, where, g, out)
  if #g.words > 0 then
    out.extra = out.extra or {}
    for _, w in ipairs(g.words) do out.extra[#out.extra + 1] = w end
    warn(ctx, "%s: unexpected '%s' kept in extra", where, short(table.concat(g.words, " ")))
  end
end

-- Stats from a text group: nil for an empty window (n=0).
local function text_stats(ctx, where, g)
  if not g or group_is_empty(g) then
    warn(ctx, "%s: no statistics", where)
    return nil
  end
  local n = g.kv.n and parse_number(g.kv.n)
  if n == 0 then
    -- The engine writes just n=0; anything else (the NaN fields of a
    -- budget block's stats line) says nothing more.
    return nil
  end
  local s = fill(ctx, where, STATS, text_src(g), {}, false)
  warn_words(ctx, where, g, s)
  return s
end

-- Iterate the lines of `data`: yields lineno, line (without the line end;
-- CRLF and a leading BOM removed), terminated (false for a last line
-- without its newline).
local function lines_of(data)
  local pos, n, lineno = 1, #data, 0
  if data:sub(1, 3) == "\239\187\191" then pos = 4 end
  return function()
    if pos > n then return nil end
    lineno = lineno + 1
    local nl = data:find("\n", pos, true)
    local line, terminated
    if nl then
      line, terminated, pos = data:sub(pos, nl - 1), true, nl + 1
    else
      line, terminated, pos = data:sub(pos), false, n + 1
    end
    if line:sub(-1) == "\r" then line = line:sub(1, -2) end
    return lineno, line, terminated
  end
end

-- Check a version value; raises for a missing or unknown one, warns for a
-- newer one. `at` is the location prefix ("line 1" or "at byte 12").
local function check_version(ctx, raw, at)
  local v = type(raw) == "number" and raw or (type(raw) == "string" and parse_number(raw))
  local vi = v and math.tointeger(v)
  if not vi or vi < 1 then
    fail("EVERSION", string.format("%s: unknown report version '%s' (this reader knows version %d)",
      at, short(tostring(type(raw) == "number" and as_int(raw) or raw)), laige.KNOWN_VERSION))
  end
  if vi > laige.KNOWN_VERSION then
    warn(ctx, "%s: report version %d is newer than this reader (version %d): "
      .. "reading the parts it understands", at, vi, laige.KNOWN_VERSION)
  end
  return vi
end

-- Parse the line-oriented forms. `prefix` is "laige-profile" or
-- "laige-budget-report"; handle(lineno, line, body_or_nil, terminated) is
-- called for every non-empty line after the version line (body is the text
-- after the prefix, nil when the line does not carry the prefix).
local function parse_lines(ctx, data, prefix, handle)
  local version
  local last_line, last_terminated, last_nwarn_before = nil, true, 0
  for lineno, line, terminated in lines_of(data) do
    if line:match("%S") then
      local nwarn_before = ctx.nwarn
      ctx.first_line_warning = nil
      local trimmed = line:match("^%s*(.-)%s*$")
      local body
      if trimmed:sub(1, #prefix) == prefix then
        local rest = trimmed:sub(#prefix + 1)
        if rest == "" or rest:match("^%s") then body = rest:match("^%s*(.*)$") end
      end
      if not version then
        local raw = body and body:match("^version=(%S*)$")
        local head = prefix .. " version="
        if not terminated and (raw == "" or (not raw and head:sub(1, #trimmed) == trimmed)) then
          -- the file ends inside its version line
          fail("ETRUNC", string.format("line %d: the report ends in the middle of this line", lineno))
        end
        if not raw then
          fail("EFORMAT", string.format("line %d: expected '%s version=N' as the first line, found '%s'",
            lineno, prefix, short(trimmed)))
        end
        version = check_version(ctx, raw, "line " .. lineno)
      else
        handle(lineno, line, body, terminated)
      end
      last_line, last_terminated, last_nwarn_before = lineno, terminated, nwarn_before
    end
  end
  if not version then
    fail("EFORMAT", string.format("line 1: expected '%s version=N', the file has no text", prefix))
  end
  -- The engine ends every line with a newline: a last line without one
  -- that is also incomplete (a key missing, a number cut short, a word
  -- cut in two) is a file cut mid-line.
  if not last_terminated and ctx.nwarn > last_nwarn_before then
    fail("ETRUNC", string.format("line %d: the report ends in the middle of this line (%s)",
      last_line, ((ctx.first_line_warning or "incomplete"):gsub("^line %d+: ", ""))))
  end
  return version
end

-- Capture classes --------------------------------------------------------------

local closed = setmetatable({}, { __mode = "k" })

local function check_open(cap, what)
  if closed[cap] then error(what .. ": capture is closed", 3) end
end

local Profile = { __name = "vp.laige_profile" }
local Budget = { __name = "vp.laige_budget" }
local profile_methods, budget_methods = {}, {}
Profile.__index = profile_methods
Budget.__index = budget_methods
Profile.__methods = profile_methods
Budget.__methods = budget_methods

local function close(cap)
  closed[cap] = true
end

profile_methods.close = close
budget_methods.close = close
Profile.__close = close
Budget.__close = close

local function window_p99(w)
  return w and w.p99
end

-- A system is over its budget when its window's p99 exceeds the declared
-- budget (the engine's own rule, also for a budget of 0).
local function system_over(sys)
  local p99 = window_p99(sys.window)
  if p99 == nil and sys.measured_p99_ms ~= nil then p99 = sys.measured_p99_ms end
  return p99 ~= nil and sys.budget_ms ~= nil and p99 == p99 and p99 > sys.budget_ms
end
laige.system_over = system_over

--- laige.budget_pct(sys) -> p99 / budget_ms * 100, or nil when either is
-- missing (a budget of 0 gives inf when the p99 is above 0).
function laige.budget_pct(sys)
  local p99 = window_p99(sys.window)
  if p99 == nil then p99 = sys.measured_p99_ms end
  if p99 == nil or sys.budget_ms == nil or p99 ~= p99 then return nil end
  if sys.budget_ms == 0 then return p99 == 0 and 0.0 or INF end
  return p99 / sys.budget_ms * 100
end

-- Profile report ---------------------------------------------------------------

local function new_profile(ctx, path, size, form, version)
  return setmetatable({
    format = "laige-profile",
    path = path,
    size = size,
    form = form,
    version = version,
    warnings = ctx.warnings,
    counters = nil,
    tick_ms = nil,
    frame_ms = nil,
    world = nil,
    systems = {},
    extra = {},
    frame_count = 0,
  }, Profile)
end

local function profile_checks(ctx, cap, missing_fmt)
  for _, k in ipairs({ "counters", "world" }) do
    if cap[k] == nil then warn(ctx, missing_fmt, k) end
  end
  if cap.world and math.type(cap.world.systems) == "integer" and cap.world.systems ~= #cap.systems then
    warn(ctx, "world says %d systems, the report lists %d", cap.world.systems, #cap.systems)
  end
end

local function read_profile_text(ctx, data, path, size)
  local cap = new_profile(ctx, path, size, "text", nil)
  local seen = {}
  local function once(lineno, what)
    if seen[what] then
      warn(ctx, "line %d: a second %s line replaces line %d", lineno, what, seen[what])
    end
    seen[what] = lineno
  end
  cap.version = parse_lines(ctx, data, "laige-profile", function(lineno, line, body)
    local at = "line " .. lineno
    if not body then
      cap.extra[#cap.extra + 1] = line
      warn(ctx, "%s: not a laige-profile line, kept in extra: '%s'", at, short(line))
      return
    end
    local groups = tokenize(body)
    local g1, g2 = groups[1], groups[2]
    local section = group_is_empty(g1) and g2 and g2.name
    if section == "counters" or section == "world" then
      once(lineno, section)
      local where = at .. ": " .. section
      local out = fill(ctx, where, section == "counters" and COUNTERS or WORLD, text_src(g2), {}, false)
      warn_words(ctx, where, g2, out)
      for i = 3, #groups do
        warn(ctx, "%s: unknown section '%s:' ignored", where, short(groups[i].name))
      end
      cap[section] = out
    elseif section == "tick_ms" or section == "frame_ms" then
      once(lineno, section)
      cap[section] = text_stats(ctx, at .. ": " .. section, g2)
    elseif g1.words[1] == "system" then
      local where = at .. ": system"
      table.remove(g1.words, 1)
      local sys = fill(ctx, where, PROFILE_SYSTEM, text_src(g1), {}, false)
      warn_words(ctx, where, g1, sys)
      local w
      for i = 2, #groups do
        local gi = groups[i]
        if gi.name == "window" and not w then
          w = gi
        else
          sys.extra = sys.extra or {}
          local t = {}
          for k, v in pairs(gi.kv) do t[k] = text_extra_value(v) end
          sys.extra[gi.name] = t
          warn_extra(ctx, "%s: unknown section '%s:' kept in extra", where, short(gi.name))
        end
      end
      if w then
        sys.window = text_stats(ctx, where .. " window", w)
      else
        warn(ctx, "%s: missing window", where)
      end
      cap.systems[#cap.systems + 1] = sys
    elseif g1.order[1] == "version" and #g1.order == 1 then
      warn(ctx, "%s: a second version line is ignored", at)
    elseif section and #groups == 2 then
      local t = {}
      for _, k in ipairs(g2.order) do t[k] = text_extra_value(g2.kv[k]) end
      for _, wd in ipairs(g2.words) do t[#t + 1] = wd end
      cap.extra[section] = t
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", at, short(section))
    else
      cap.extra[#cap.extra + 1] = line
      warn(ctx, "%s: unknown line kept in extra: '%s'", at, short(line))
    end
  end)
  for _, k in ipairs({ "tick_ms", "frame_ms" }) do
    if not seen[k] then warn(ctx, "no %s line", k) end
  end
  profile_checks(ctx, cap, "no %s line")
  return cap
end

-- JSON ---------------------------------------------------------------------------

local function line_col(data, offset)
  local line, last_nl = 1, 0
  local i = 1
  while true do
    local nl = data:find("\n", i, true)
    if not nl or nl > offset then break end
    line, last_nl, i = line + 1, nl, nl + 1
  end
  return line, offset - last_nl + 1
end

local function json_src(obj)
  local keys = {}
  for k in pairs(obj) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return {
    get = function(k)
      local v = obj[k]
      if v == cjson.null then return nil end
      return v
    end,
    keys = function() return keys end,
  }
end

local function is_array(t)
  if type(t) ~= "table" then return false end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end

-- JSON stats: nil for null or n == 0.
local function json_stats(ctx, where, v)
  if v == nil then
    warn(ctx, "%s: missing", where)
    return nil
  end
  if v == cjson.null then return nil end
  if type(v) ~= "table" then
    warn(ctx, "%s: expected an object or null, found %s", where, type(v))
    return nil
  end
  if v.n == 0 then return nil end
  return fill(ctx, where, STATS, json_src(v), {}, true)
end

local PROFILE_JSON_KEYS = {
  version = true, counters = true, tick_time_ms = true, frame_time_ms = true,
  world = true, systems = true,
}

local function read_profile_json(ctx, data, path, size)
  local start = 1
  if data:sub(1, 3) == "\239\187\191" then start = 4 end
  local body = data:sub(start)
  local ok, doc = pcall(cjson.decode, body)
  if not ok then
    local msg = tostring(doc)
    local pos = tonumber(msg:match("at character (%d+)")) or 1
    local offset = pos - 1 + (start - 1)
    local code = (msg:find("T_END", 1, true) or msg:find("end of string", 1, true)) and "ETRUNC"
      or "EFORMAT"
    msg = msg:gsub("%s*at character %d+%s*$", ""):gsub("T_END", "the end of the file")
      :gsub("T_(%u+)", function(t) return "'" .. t:lower() .. "'" end)
    msg = msg:sub(1, 1):lower() .. msg:sub(2)
    local line, col = line_col(data, offset)
    fail(code, string.format("at byte %d (line %d, column %d): malformed JSON: %s", offset, line, col, msg))
  end
  if type(doc) ~= "table" or not body:match("^%s*{") then
    fail("EFORMAT", "at byte 0: expected a JSON object (a laige profile report)")
  end
  local vpos = (data:find('"version"%s*:') or 1) - 1
  if doc.version == nil or doc.version == cjson.null then
    fail("EFORMAT", 'at byte 0: the report has no "version" (expected a laige profile report)')
  end
  if type(doc.version) == "string" then
    warn(ctx, 'at byte %d: "version" is a string, expected a number', vpos)
  end
  local version = check_version(ctx, doc.version, "at byte " .. vpos)
  local cap = new_profile(ctx, path, size, "json", version)

  local function object(key)
    local v = doc[key]
    if v == nil then
      warn(ctx, 'no "%s" key', key)
      return nil
    end
    if v == cjson.null then return nil end
    if type(v) ~= "table" or (next(v) ~= nil and is_array(v)) then
      warn(ctx, '"%s": expected an object, found %s', key, type(v) == "table" and "an array" or type(v))
      return nil
    end
    return v
  end

  local counters = object("counters")
  if counters then cap.counters = fill(ctx, "counters", COUNTERS, json_src(counters), {}, true) end
  cap.tick_ms = json_stats(ctx, "tick_time_ms", doc.tick_time_ms)
  cap.frame_ms = json_stats(ctx, "frame_time_ms", doc.frame_time_ms)
  local world = object("world")
  if world then cap.world = fill(ctx, "world", WORLD, json_src(world), {}, true) end

  local systems = doc.systems
  if systems == nil then
    warn(ctx, 'no "systems" key')
  elseif systems ~= cjson.null and not is_array(systems) then
    warn(ctx, '"systems": expected an array, found %s',
      type(systems) == "table" and "an object" or type(systems))
  elseif systems ~= cjson.null then
    for i, s in ipairs(systems) do
      local where = string.format("systems[%d]", i)
      if type(s) ~= "table" then
        warn(ctx, "%s: expected an object, found %s; skipped", where, s == cjson.null and "null" or type(s))
      else
        local sys = fill(ctx, where, PROFILE_SYSTEM, json_src(s), {}, true, { window_ms = true })
        sys.window = json_stats(ctx, where .. ".window_ms", s.window_ms)
        cap.systems[#cap.systems + 1] = sys
      end
    end
  end

  local unknown = {}
  for k in pairs(doc) do
    if not PROFILE_JSON_KEYS[k] then unknown[#unknown + 1] = k end
  end
  table.sort(unknown)
  for _, k in ipairs(unknown) do
    cap.extra[k] = json_plain(doc[k], 0)
    warn_extra(ctx, "unknown key '%s' kept in extra", short(k))
  end
  profile_checks(ctx, cap, 'no "%s" key')
  return cap
end

-- A profile report has windows, not frames: no per-frame times (generic
-- scripts such as hitches.lua say so when this returns nil).
function profile_methods.frame_times(cap)
  check_open(cap, "frame_times")
  return nil
end

function profile_methods.frame(cap, i)
  check_open(cap, "frame")
  error(string.format("frame %s: a laige profile report has no per-frame data", tostring(i)), 2)
end

local function fmt_ms(x)
  if x == nil then return "-" end
  return string.format("%.6g ms", x)
end

local function p50_p99(w)
  if not w then return "no samples" end
  return fmt_ms(w.p50) .. " / " .. fmt_ms(w.p99)
end

function profile_methods.summary(cap)
  check_open(cap, "summary")
  local c, w = cap.counters or {}, cap.world or {}
  local over = 0
  for _, s in ipairs(cap.systems) do
    if system_over(s) then over = over + 1 end
  end
  local rows = {
    { name = "report", value = "laige profile (" .. cap.form .. ")" },
    { name = "version", value = cap.version },
    { name = "ticks", value = c.ticks },
    { name = "frames", value = c.frames },
    { name = "tick p50 / p99", value = p50_p99(cap.tick_ms) },
    { name = "frame p50 / p99", value = p50_p99(cap.frame_ms) },
    { name = "entities alive", value = w.entities_alive },
    { name = "sim allocs", value = w.sim_allocs },
    { name = "systems", value = #cap.systems },
    { name = "systems over budget", value = over },
  }
  local out = {}
  for _, r in ipairs(rows) do
    if r.value ~= nil then out[#out + 1] = r end
  end
  return out
end

function Profile.__tostring(cap)
  local c = cap.counters or {}
  local name = cap.path:match("[^/]*$")
  return string.format("<laige-profile %s: %s, %s, %s>", name,
    c.ticks and plural(c.ticks, "tick") or "? ticks",
    c.frames and plural(c.frames, "frame") or "? frames",
    plural(#cap.systems, "system"))
end

-- Budget report ------------------------------------------------------------------

local function frame_view(cap, i)
  local f = cap.frames[i]
  if not f then return nil end
  local v = { index = i, tick = f.tick_after }
  for k, x in pairs(f) do v[k] = x end
  return v
end

-- cap.frames is a list AND callable as a method: `cap:frames([i [, j]])`
-- iterates like the other captures' frames (1-based, inclusive).
local frames_mt = {
  __call = function(list, cap, i, j)
    if getmetatable(cap) ~= Budget or rawget(cap, "frames") ~= list then
      error("frames: call it as cap:frames([i [, j]])", 2)
    end
    check_open(cap, "frames")
    i = math.max(1, math.tointeger(i) or 1)
    j = math.min(#list, math.tointeger(j) or #list)
    local k = i - 1
    return function()
      k = k + 1
      if k > j then return nil end
      return frame_view(cap, k)
    end
  end,
}

local function new_budget(ctx, path, size)
  return setmetatable({
    format = "laige-budget",
    path = path,
    size = size,
    version = nil,
    warnings = ctx.warnings,
    context = nil,
    frames_info = nil,
    frames = setmetatable({}, frames_mt),
    frame_count = 0,
    budgets = {},
    systems = {},
    over_budget = {},
    overall = nil,
    extra = {},
  }, Budget)
end

local function read_budget_text(ctx, data, path, size)
  local cap = new_budget(ctx, path, size)
  local seen = {}
  local block -- the budget= block being read: {budget, lineno, parts = {}}

  local function once(lineno, what)
    if seen[what] then
      warn(ctx, "line %d: a second %s line replaces line %d", lineno, what, seen[what])
    end
    seen[what] = lineno
  end

  local function end_block()
    if not block then return end
    local b = block.budget
    if b.result ~= "NO_ENTRY" then
      for _, part in ipairs({ "after", "stats", "context" }) do
        if not block.parts[part] then
          warn(ctx, "line %d: budget %s: no %s line", block.lineno, tostring(b.name), part)
        end
      end
    end
    block = nil
  end

  local function extra_section(tbl, g)
    local t = {}
    for _, k in ipairs(g.order) do t[k] = text_extra_value(g.kv[k]) end
    for _, wd in ipairs(g.words) do t[#t + 1] = wd end
    tbl[g.name] = t
  end

  local function budget_head(lineno, trimmed)
    end_block()
    local at = "line " .. lineno
    local groups = tokenize(trimmed)
    local g1 = groups[1]
    local head = fill(ctx, at .. ": budget", BUDGET_HEAD, text_src(g1), {}, false, nil, true)
    local b = { name = head.budget, result = head.result, metric = head.metric, unit = head.unit,
      extra = head.extra }
    local where = at .. ": budget " .. tostring(b.name)
    if b.result == nil then warn(ctx, "%s: missing result", where) end
    if b.result ~= "NO_ENTRY" then
      for _, k in ipairs({ "metric", "unit" }) do
        if b[k] == nil then warn(ctx, "%s: missing %s", where, k) end
      end
    end
    warn_words(ctx, where, g1, b)
    for i = 2, #groups do
      b.extra = b.extra or {}
      extra_section(b.extra, groups[i])
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", where, short(groups[i].name))
    end
    cap.budgets[#cap.budgets + 1] = b
    block = { budget = b, lineno = lineno, parts = {} }
  end

  local function budget_part(lineno, trimmed)
    local b = block.budget
    local at = string.format("line %d: budget %s", lineno, tostring(b.name))
    local groups = tokenize(trimmed)
    local g1, g2 = groups[1], groups[2]
    local section = group_is_empty(g1) and g2 and g2.name
    local part
    if g1.order[1] == "after" and #groups == 1 then
      part = "after"
      local v = fill(ctx, at, BUDGET_VALUES, text_src(g1), {}, false)
      warn_words(ctx, at, g1, v)
      b.after, b.before, b.target = v.after, v.before, v.target
      if v.extra then
        b.extra = b.extra or {}
        for k, x in pairs(v.extra) do b.extra[k] = x end
      end
    elseif section == "stats" and #groups == 2 then
      part = "stats"
      b.stats = text_stats(ctx, at .. " stats", g2)
    elseif section == "context" and #groups == 2 then
      part = "context"
      b.context = fill(ctx, at .. " context", CONTEXT, text_src(g2), {}, false)
      warn_words(ctx, at .. " context", g2, b.context)
    elseif section and #groups == 2 then
      b.extra = b.extra or {}
      extra_section(b.extra, g2)
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", at, short(section))
    else
      b.extra = b.extra or {}
      b.extra[#b.extra + 1] = trimmed
      warn(ctx, "%s: unknown line kept in extra: '%s'", at, short(trimmed))
    end
    if part then
      if block.parts[part] then warn(ctx, "%s: a second %s line replaces the first", at, part) end
      block.parts[part] = true
    end
  end

  local function report_line(lineno, line, body)
    local at = "line " .. lineno
    local groups = tokenize(body)
    local g1, g2 = groups[1], groups[2]
    local section = group_is_empty(g1) and g2 and g2.name
    if section == "context" and #groups == 2 then
      once(lineno, "context")
      cap.context = fill(ctx, at .. ": context", CONTEXT, text_src(g2), {}, false)
      warn_words(ctx, at .. ": context", g2, cap.context)
    elseif section == "frames" and #groups == 2 then
      once(lineno, "frames")
      cap.frames_info = fill(ctx, at .. ": frames", FRAMES_INFO, text_src(g2), {}, false)
      warn_words(ctx, at .. ": frames", g2, cap.frames_info)
    elseif g1.order[1] == "frame" and #groups == 1 then
      local f = fill(ctx, at .. ": frame", FRAME, text_src(g1), {}, false)
      warn_words(ctx, at .. ": frame", g1, f)
      cap.frames[#cap.frames + 1] = f
    elseif g1.words[1] == "system" then
      local where = at .. ": system"
      table.remove(g1.words, 1)
      local sys = fill(ctx, where, BUDGET_SYSTEM, text_src(g1), {}, false)
      warn_words(ctx, where, g1, sys)
      local w
      for i = 2, #groups do
        if groups[i].name == "window" and not w then
          w = groups[i]
        else
          sys.extra = sys.extra or {}
          extra_section(sys.extra, groups[i])
          warn_extra(ctx, "%s: unknown section '%s:' kept in extra", where, short(groups[i].name))
        end
      end
      if w then
        sys.window = text_stats(ctx, where .. " window", w)
      else
        warn(ctx, "%s: missing window", where)
      end
      cap.systems[#cap.systems + 1] = sys
    elseif section == "over_budget" and #groups == 2 then
      seen.over_budget = seen.over_budget or lineno
      if #g2.order == 0 and #g2.words == 1 and g2.words[1] == "none" then
        seen.over_budget_none = lineno
      else
        local o = fill(ctx, at .. ": over_budget", OVER_BUDGET, text_src(g2), {}, false)
        warn_words(ctx, at .. ": over_budget", g2, o)
        cap.over_budget[#cap.over_budget + 1] = o
      end
    elseif g1.order[1] == "overall" and #g1.order == 1 and #groups == 1 then
      once(lineno, "overall")
      local v, complaint = convert("result", g1.kv.overall)
      if complaint then warn(ctx, "%s: overall: %s", at, complaint) end
      cap.overall = v
      warn_words(ctx, at .. ": overall", g1, cap.extra)
    elseif g1.order[1] == "version" and #g1.order == 1 then
      warn(ctx, "%s: a second version line is ignored", at)
    elseif section and #groups == 2 then
      extra_section(cap.extra, g2)
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", at, short(section))
    else
      cap.extra[#cap.extra + 1] = line
      warn(ctx, "%s: unknown line kept in extra: '%s'", at, short(line))
    end
  end

  cap.version = parse_lines(ctx, data, "laige-budget-report", function(lineno, line, body)
    local trimmed = line:match("^%s*(.-)%s*$")
    if body then
      end_block()
      report_line(lineno, line, body)
    elseif trimmed:match("^budget=") then
      budget_head(lineno, trimmed)
    elseif block then
      budget_part(lineno, trimmed)
    else
      cap.extra[#cap.extra + 1] = line
      warn(ctx, "line %d: not a laige-budget-report line, kept in extra: '%s'", lineno, short(line))
    end
  end)
  end_block()

  cap.frame_count = #cap.frames
  for _, k in ipairs({ "context", "frames" }) do
    if not seen[k] then warn(ctx, "no %s line", k) end
  end
  if not seen.over_budget then
    warn(ctx, "no over_budget line: the report may be cut short")
  elseif seen.over_budget_none and #cap.over_budget > 0 then
    warn(ctx, "line %d: over_budget says none but %d systems are listed over budget",
      seen.over_budget_none, #cap.over_budget)
  end
  if not seen.overall then warn(ctx, "no overall line: the report may be cut short") end
  return cap
end

function budget_methods.frame(cap, i)
  check_open(cap, "frame")
  local k = math.tointeger(i)
  if not k or k < 1 or k > #cap.frames then
    error(string.format("frame %s out of range: the report lists %d frames", tostring(i), #cap.frames), 2)
  end
  return frame_view(cap, k)
end

local series_cache = setmetatable({}, { __mode = "k" })

function budget_methods.frame_times(cap)
  check_open(cap, "frame_times")
  local s = series_cache[cap]
  if not s then
    local t = {}
    for i, f in ipairs(cap.frames) do t[i] = f.frame_ms or NAN end
    s = vp.Series(t)
    series_cache[cap] = s
  end
  return s
end

--- Frames whose result is not PASS.
function budget_methods.failed_frames(cap)
  check_open(cap, "failed_frames")
  local out = {}
  for i, f in ipairs(cap.frames) do
    if f.result ~= "PASS" then out[#out + 1] = frame_view(cap, i) end
  end
  return out
end

function budget_methods.summary(cap)
  check_open(cap, "summary")
  local failed_budgets, failed_frames = 0, 0
  for _, b in ipairs(cap.budgets) do
    if b.result ~= "PASS" then failed_budgets = failed_budgets + 1 end
  end
  for _, f in ipairs(cap.frames) do
    if f.result ~= "PASS" then failed_frames = failed_frames + 1 end
  end
  local ctx = cap.context or {}
  local rows = {
    { name = "report", value = "laige budget report" },
    { name = "version", value = cap.version },
    { name = "workload", value = ctx.workload ~= "" and ctx.workload or nil },
    { name = "frames listed", value = #cap.frames },
    { name = "frames total", value = cap.frames_info and cap.frames_info.total },
    { name = "frames failed", value = failed_frames },
    { name = "budgets", value = #cap.budgets },
    { name = "budgets not passed", value = failed_budgets },
    { name = "systems", value = #cap.systems },
    { name = "systems over budget", value = #cap.over_budget },
    { name = "overall", value = cap.overall or "missing" },
  }
  local out = {}
  for _, r in ipairs(rows) do
    if r.value ~= nil then out[#out + 1] = r end
  end
  return out
end

function Budget.__tostring(cap)
  return string.format("<laige-budget %s: %s, %s, %d over budget, overall %s>", cap.path:match("[^/]*$"),
    plural(#cap.frames, "frame"), plural(#cap.budgets, "budget"), #cap.over_budget,
    cap.overall or "missing")
end

-- Opening --------------------------------------------------------------------------

local function read_file(path)
  local f, msg, errno = io.open(path, "rb")
  if not f then
    msg = tostring(msg)
    if msg:sub(1, #path + 2) == path .. ": " then msg = msg:sub(#path + 3) end
    return nil, msg, errno == 2 and "ENOENT" or "EIO"
  end
  local data, rmsg, rerrno = f:read("a")
  f:close()
  if not data then
    if rerrno == 21 then return nil, "is a directory, expected a capture file", "EISDIR" end
    return nil, tostring(rmsg), "EIO"
  end
  if #data == 0 then return nil, "the file is empty", "EEMPTY" end
  return data
end

-- Which form the content is: "json", "profile" (text) or "budget".
local function sniff(data)
  local s = data:sub(1, 4096)
  if s:sub(1, 3) == "\239\187\191" then s = s:sub(4) end
  s = s:match("^%s*(.*)$")
  if s:sub(1, 1) == "{" or s:sub(1, 1) == "[" then return "json" end
  if s:sub(1, #"laige-budget-report") == "laige-budget-report" then return "budget" end
  if s:sub(1, #"laige-profile") == "laige-profile" then return "profile" end
  return nil
end

--- laige.open(path [, opts [, format]]) -> cap | nil, message, code
-- format: "laige-profile" or "laige-budget" (what vp.open detected or was
-- told); nil detects from the content.
function laige.open(path, opts, format)
  if type(path) ~= "string" then error("laige.open: path must be a string", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("laige.open: opts must be a table", 2) end
  format = format or (opts and opts.format)
  if format ~= nil and format ~= "laige-profile" and format ~= "laige-budget" then
    error("laige.open: unknown format '" .. tostring(format) .. "'", 2)
  end
  local data, msg, code = read_file(path)
  if not data then return nil, path .. ": " .. msg, code end
  local form = sniff(data)
  if not format then
    if form == "budget" then
      format = "laige-budget"
    elseif form then
      format = "laige-profile"
    else
      return nil, path .. ": not a laige report (expected 'laige-profile', 'laige-budget-report' "
        .. "or a JSON object)", "EFORMAT"
    end
  end
  local ctx = new_ctx(path)
  local ok, cap = pcall(function()
    if format == "laige-budget" then return read_budget_text(ctx, data, path, #data) end
    if form == "json" then return read_profile_json(ctx, data, path, #data) end
    return read_profile_text(ctx, data, path, #data)
  end)
  if not ok then
    if getmetatable(cap) == fail_mt then return nil, path .. ": " .. cap.msg, cap.code end
    error(cap, 0)
  end
  return cap
end

--- laige.is_capture(x) -> "profile" | "budget" | nil
function laige.kind(x)
  local mt = getmetatable(x)
  if mt == Profile then return "profile" end
  if mt == Budget then return "budget" end
  return nil
end

-- Metrics --------------------------------------------------------------------------

local function put(m, k, v)
  if type(v) == "number" and v == v then m[k] = v end
end

local STAT_KEYS = { "n", "min", "mean", "p50", "p95", "p99", "max" }

local function put_stats(m, prefix, s)
  if not s then return end
  for _, k in ipairs(STAT_KEYS) do put(m, prefix .. "." .. k, s[k]) end
end

local function system_key(sys)
  if type(sys.name) == "string" and sys.name ~= "" then return sys.name end
  return "#" .. tostring(sys.id)
end

local function put_systems(m, systems)
  local over, seen = 0, {}
  for _, sys in ipairs(systems) do
    local key = system_key(sys)
    if not seen[key] then
      seen[key] = true
      local p = "system." .. key
      local w = sys.window
      put(m, p .. ".p99_ms", w and w.p99 or sys.measured_p99_ms)
      if w then
        put(m, p .. ".p50_ms", w.p50)
        put(m, p .. ".p95_ms", w.p95)
        put(m, p .. ".mean_ms", w.mean)
        put(m, p .. ".max_ms", w.max)
      end
      put(m, p .. ".budget_ms", sys.budget_ms)
      put(m, p .. ".budget_pct", laige.budget_pct(sys))
      put(m, p .. ".last_ms", sys.last_ms)
      put(m, p .. ".runs", sys.runs)
      put(m, p .. ".warns", sys.warns)
      put(m, p .. ".errors", sys.errors)
    end
    if system_over(sys) then over = over + 1 end
  end
  put(m, "systems.count", #systems)
  put(m, "systems.over_budget", over)
end

--- laige.metrics(cap) -> {name = number}: the report's values under the
-- metric catalogue's names. A value the report does not have (an empty
-- window, a NaN) is absent, never NaN.
function laige.metrics(cap)
  local kind = laige.kind(cap)
  if not kind then error("laige.metrics: expected a laige profile or budget report", 2) end
  local m = {}
  if kind == "profile" then
    put_stats(m, "tick_ms", cap.tick_ms)
    put_stats(m, "frame_ms", cap.frame_ms)
    for _, f in ipairs(COUNTERS) do put(m, "counters." .. f[1], cap.counters and cap.counters[f[1]]) end
    for _, f in ipairs(WORLD) do put(m, "world." .. f[1], cap.world and cap.world[f[1]]) end
    put_systems(m, cap.systems)
  else
    local s = budget_methods.frame_times(cap)
    if #s > 0 then
      put(m, "frame_ms.n", #s)
      put(m, "frame_ms.min", s:min())
      put(m, "frame_ms.mean", s:mean())
      put(m, "frame_ms.p50", s:percentile(50))
      put(m, "frame_ms.p95", s:percentile(95))
      put(m, "frame_ms.p99", s:percentile(99))
      put(m, "frame_ms.max", s:max())
    end
    local failed = 0
    for _, f in ipairs(cap.frames) do
      if f.result ~= "PASS" then failed = failed + 1 end
    end
    put(m, "frames.listed", #cap.frames)
    put(m, "frames.failed", failed)
    put(m, "frames.total", cap.frames_info and cap.frames_info.total)
    for _, b in ipairs(cap.budgets) do
      if type(b.name) == "string" then
        local p = "budget." .. b.name
        put(m, p .. ".after", b.after)
        put(m, p .. ".before", b.before)
        put(m, p .. ".target", b.target)
        if b.result then put(m, p .. ".pass", b.result == "PASS" and 1 or 0) end
      end
    end
    put_systems(m, cap.systems)
    if cap.overall then put(m, "overall", cap.overall == "PASS" and 1 or 0) end
  end
  return m
end

profile_methods.metrics = laige.metrics
budget_methods.metrics = laige.metrics

return laige
