-- vp.laige.read: what the two laige report parsers (vp.laige.text,
-- vp.laige.json) share: the field lists of every record, the report's number
-- syntax, the warning and error rules, and filling a model table from raw
-- values whatever the form. See vp.laige for the reading rules.
local E = require "vp.error"
local jr = require "vp.jsonread"

local read = {}

--- The report version this reader implements.
read.KNOWN_VERSION = 1

--- Results a budget report uses.
read.RESULTS = { "PASS", "FAIL", "NO_SAMPLES", "NO_ENTRY" }

local MAX_WARNINGS = 200
local NAN = math.abs(0 / 0) -- fabs clears the sign: prints "nan", not "-nan"
local INF = math.huge
local NULL = jr.null
read.NAN = NAN

local RESULT_SET = {}
for _, r in ipairs(read.RESULTS) do RESULT_SET[r] = true end

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

-- A report number as text -> value, or nil [, why]: decimal (with an
-- exponent), or nan/inf as printf writes them. Hexadecimal and anything
-- else Lua would also take are not report numbers; a decimal too large for
-- a double (1e999) is refused as "out of range" instead of becoming an
-- infinity nobody wrote.
local function parse_number(s)
  local x = tonumber(s)
  if x then
    if s:find("[xX%s]") then return nil end
    if x == INF or x == -INF then return nil, "out of range" end
    return x
  end
  return SPECIAL_NUMBERS[s:lower()]
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

-- JSON values (vp.jsonread) as plain data: null dropped, whole
-- numbers as integers, a bad number token as the text it was.
local function json_plain(v, depth)
  if v == NULL then return nil end
  if type(v) == "number" then return as_int(v) end
  if type(v) ~= "table" then return v end
  local bad = jr.is_bad(v)
  if bad then return bad end
  if depth > 64 then return nil end
  local out = {}
  for k, x in pairs(v) do out[k] = json_plain(x, depth + 1) end
  return out
end

-- Errors and warnings --------------------------------------------------------

-- A reading error: a vp.error object (code EFORMAT, ETRUNC, EVERSION) whose
-- message the opener prefixes with the path.
local function fail(code, msg)
  error(E.new(code, msg), 0)
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
  if #s > 60 then s = s:sub(1, 57) .. "..." end
  return (s:gsub("%c", "?"))
end

-- Field filling --------------------------------------------------------------

-- Convert one raw value (text: a string; JSON: a jsonread value) to `kind`.
-- Returns value or nil, complaint. The one rule about numbers, for both
-- forms: a value that is not a report number (hex, a JSON NaN, a word) or
-- is out of range (1e999) is a complaint and no value.
local function convert(kind, raw, from_json)
  local bad = from_json and jr.is_bad(raw)
  if bad then
    local x = tonumber(bad)
    if x == INF or x == -INF then return nil, "number out of range: '" .. short(bad) .. "'" end
    local what = (kind == "str" or kind == "result") and "a string" or "a number"
    return nil, "expected " .. what .. ", found '" .. short(bad) .. "'"
  end
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
    local why
    x, why = parse_number(raw)
    if not x then
      if why then return nil, "number out of range: '" .. short(raw) .. "'" end
      return nil, "expected a number, found '" .. short(raw) .. "'"
    end
    if from_json then complaint = "expected a number, found a string" end
  else
    return nil, "expected a number, found " .. type(raw)
  end
  if kind == "int" then return as_int(x), complaint end
  return as_num(x), complaint
end

-- Fill `out` from raw values following `schema`: kv maps a key to its raw
-- value (JSON null is absent), keys lists the source's keys in a stable
-- order. `where` prefixes warnings ("line 3: counters"). Keys in `skip` are
-- handled by the caller. Missing keys warn unless `quiet`.
local known_keys = setmetatable({}, { __mode = "k" }) -- schema -> {key = true}

local function fill(ctx, where, schema, kv, keys, out, from_json, skip, quiet)
  local known = known_keys[schema]
  if not known then
    known = {}
    for _, f in ipairs(schema) do known[f[1]] = true end
    known_keys[schema] = known
  end
  for _, f in ipairs(schema) do
    local key, kind = f[1], f[2]
    local raw = kv[key]
    if raw == nil or raw == NULL then
      if not quiet then warn(ctx, "%s: missing %s", where, key) end
    else
      local v, complaint = convert(kind, raw, from_json)
      if complaint then warn(ctx, "%s: %s: %s", where, key, complaint) end
      out[key] = v
    end
  end
  for _, k in ipairs(keys) do
    if not known[k] and not (skip and skip[k]) then
      out.extra = out.extra or {}
      if from_json then
        out.extra[k] = json_plain(kv[k], 0)
      else
        out.extra[k] = text_extra_value(kv[k])
      end
      warn_extra(ctx, "%s: unknown key '%s' kept in extra", where, short(tostring(k)))
    end
  end
  return out
end

-- Check a version value; raises for a missing or unknown one, warns for a
-- newer one. `at` is the location prefix ("line 1" or "at byte 12").
local function check_version(ctx, raw, at)
  local v = type(raw) == "number" and raw or (type(raw) == "string" and parse_number(raw))
  local vi = v and math.tointeger(v)
  if not vi or vi < 1 then
    fail("EVERSION", string.format("%s: unknown report version '%s' (this reader knows version %d)",
      at, short(tostring(type(raw) == "number" and as_int(raw) or raw)), read.KNOWN_VERSION))
  end
  if vi > read.KNOWN_VERSION then
    warn(ctx, "%s: report version %d is newer than this reader (version %d): "
      .. "reading the parts it understands", at, vi, read.KNOWN_VERSION)
  end
  return vi
end


-- The checks both forms of a profile report get once it is read.
local function profile_checks(ctx, cap, missing_fmt)
  for _, k in ipairs({ "counters", "world" }) do
    if cap[k] == nil then warn(ctx, missing_fmt, k) end
  end
  if cap.world and math.type(cap.world.systems) == "integer" and cap.world.systems ~= #cap.systems then
    warn(ctx, "world says %d systems, the report lists %d", cap.world.systems, #cap.systems)
  end
end


read.COUNTERS, read.STATS, read.WORLD = COUNTERS, STATS, WORLD
read.PROFILE_SYSTEM, read.BUDGET_SYSTEM = PROFILE_SYSTEM, BUDGET_SYSTEM
read.CONTEXT, read.FRAMES_INFO, read.FRAME = CONTEXT, FRAMES_INFO, FRAME
read.BUDGET_HEAD, read.BUDGET_VALUES, read.OVER_BUDGET = BUDGET_HEAD, BUDGET_VALUES, OVER_BUDGET
read.parse_number, read.as_int, read.text_extra_value, read.json_plain = parse_number, as_int, text_extra_value,
  json_plain
read.fail, read.new_ctx, read.warn, read.warn_extra, read.short = fail, new_ctx, warn, warn_extra, short
read.convert, read.fill, read.check_version, read.profile_checks = convert, fill, check_version, profile_checks

return read
