-- vp.laige.json: the parser of the laige profile report's JSON form. It
-- fills the same model as the text form (vp.laige.model): the JSON keys
-- tick_time_ms, frame_time_ms and window_ms are tick_ms, frame_ms and window
-- there. The rules it shares with the text parser are in vp.laige.read.
local read = require "vp.laige.read"
local model = require "vp.laige.model"
local cjson = require("cjson").new()

local json = {}

local fill, warn, warn_extra, short, fail = read.fill, read.warn, read.warn_extra, read.short, read.fail
local check_version, json_plain = read.check_version, read.json_plain
local STATS, COUNTERS, WORLD, PROFILE_SYSTEM = read.STATS, read.COUNTERS, read.WORLD, read.PROFILE_SYSTEM

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

--- json.profile(ctx, data, path, size) -> a profile report read from its
-- JSON form (raises read.fail errors; warnings go to ctx).
function json.profile(ctx, data, path, size)
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
  local cap = model.new_profile(ctx, path, size, "json", version)

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
  read.profile_checks(ctx, cap, 'no "%s" key')
  return cap
end

return json
