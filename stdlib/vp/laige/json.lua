-- vp.laige.json: the parser of the laige profile report's JSON form. It
-- fills the same model as the text form (vp.laige.model): the JSON keys
-- tick_time_ms, frame_time_ms and window_ms are tick_ms, frame_ms and window
-- there. The rules it shares with the text parser are in vp.laige.read.
local read = require "vp.laige.read"
local model = require "vp.laige.model"
local jr = require "vp.jsonread"

local json = {}

local fill, warn, warn_extra, short, fail = read.fill, read.warn, read.warn_extra, read.short, read.fail
local check_version, json_plain = read.check_version, read.json_plain
local STATS, COUNTERS, WORLD, PROFILE_SYSTEM = read.STATS, read.COUNTERS, read.WORLD, read.PROFILE_SYSTEM
local NULL = jr.null

-- The JSON text of unknown keys' values decoded into cap.extra, at most.
local EXTRA_BYTES = 1 << 20

-- The top-level keys of a profile report (the others go to cap.extra).
local PROFILE_JSON_KEYS = {
  version = true, counters = true, tick_time_ms = true, frame_time_ms = true,
  world = true, systems = true,
}

-- Line and column (1-based) of a 0-based byte offset, in one pass.
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

--- json.profile(ctx, data, path, size) -> a profile report read from its
-- JSON form (raises read.fail errors; warnings go to ctx).
function json.profile(ctx, data, path, size)
  local start = 1
  if data:sub(1, 3) == "\239\187\191" then start = 4 end
  local ok, parsed = pcall(jr.decode, data, start, { keep = PROFILE_JSON_KEYS })
  if not ok then
    if type(parsed) ~= "table" then error(parsed, 0) end
    local line, col = line_col(data, parsed.offset)
    fail(parsed.truncated and "ETRUNC" or "EFORMAT", string.format("at byte %d (line %d, column %d): "
      .. "malformed JSON: %s", parsed.offset, line, col, parsed.message))
  end
  local doc, keys = parsed.value, parsed.keys
  if type(doc) ~= "table" or not keys[doc] then
    fail("EFORMAT", "at byte 0: expected a JSON object (a laige profile report)")
  end
  for _, d in ipairs(parsed.duplicates) do
    warn(ctx, "at byte %d: %sduplicate key '%s': the last value is kept", d.offset,
      d.where ~= "" and (d.where .. ": ") or "", short(d.key))
  end

  -- An object's fields: nil for a missing key or null; otherwise the value,
  -- and whether it is an object (keys known) or an array.
  local function is_object(v) return type(v) == "table" and keys[v] ~= nil end
  local function is_array(v) return type(v) == "table" and keys[v] == nil and not jr.is_bad(v) end
  local function kind_of(v)
    if v == NULL then return "null" end
    if is_object(v) then return "an object" end
    if is_array(v) then return "an array" end
    if jr.is_bad(v) then return "'" .. short(jr.is_bad(v)) .. "'" end
    return type(v)
  end

  -- v when it is an object; nil for null, and with a warning for nothing
  -- (missing) or anything else (expected).
  local function an_object(v, missing, expected, ...)
    if v == nil then
      warn(ctx, missing, ...)
      return nil
    end
    if v == NULL then return nil end
    if not is_object(v) then
      local args = table.pack(...)
      args[args.n + 1] = kind_of(v)
      warn(ctx, expected, table.unpack(args, 1, args.n + 1))
      return nil
    end
    return v
  end

  -- JSON stats: nil for null or n == 0.
  local function json_stats(where, v)
    v = an_object(v, "%s: missing", "%s: expected an object or null, found %s", where)
    if not v or v.n == 0 then return nil end
    return fill(ctx, where, STATS, v, keys[v], {}, true)
  end

  local vpos = (data:find('"version"', start, true) or 1) - 1
  if doc.version == nil or doc.version == NULL then
    fail("EFORMAT", 'at byte 0: the report has no "version" (expected a laige profile report)')
  end
  if type(doc.version) == "string" then
    warn(ctx, 'at byte %d: "version" is a string, expected a number', vpos)
  end
  local version = check_version(ctx, doc.version, "at byte " .. vpos)
  local cap = model.new_profile(ctx, path, size, "json", version)

  -- A missing counters or world is warned about once, by read.profile_checks.
  local function object(key)
    if doc[key] == nil then return nil end
    return an_object(doc[key], 'no "%s" key', '"%s": expected an object, found %s', key)
  end

  local counters = object("counters")
  if counters then cap.counters = fill(ctx, "counters", COUNTERS, counters, keys[counters], {}, true) end
  cap.tick_ms = json_stats("tick_time_ms", doc.tick_time_ms)
  cap.frame_ms = json_stats("frame_time_ms", doc.frame_time_ms)
  local world = object("world")
  if world then cap.world = fill(ctx, "world", WORLD, world, keys[world], {}, true) end

  local systems = doc.systems
  if systems == nil then
    warn(ctx, 'no "systems" key')
  elseif systems ~= NULL and not is_array(systems) then
    warn(ctx, '"systems": expected an array, found %s', kind_of(systems))
  elseif systems ~= NULL then
    for i, s in ipairs(systems) do
      local where = string.format("systems[%d]", i)
      if not is_object(s) then
        warn(ctx, "%s: expected an object, found %s; skipped", where, kind_of(s))
      else
        local sys = fill(ctx, where, PROFILE_SYSTEM, s, keys[s], {}, true, { window_ms = true })
        sys.window = json_stats(where .. ".window_ms", s.window_ms)
        cap.systems[#cap.systems + 1] = sys
      end
    end
  end

  -- An unknown key's value was read as its JSON text: decoded here while the
  -- unknown values stay within EXTRA_BYTES of text together (a table per
  -- bracket costs some 60 bytes: 20 MB of nested arrays took 1.3 GB), kept as
  -- the text beyond that, with a warning either way.
  local budget = EXTRA_BYTES
  for _, k in ipairs(keys[doc]) do
    if not PROFILE_JSON_KEYS[k] then
      local text = jr.raw_text(doc[k])
      if #text <= budget then
        budget = budget - #text
        cap.extra[k] = json_plain(jr.decode(text).value, 0)
        warn_extra(ctx, "unknown key '%s' kept in extra", short(k))
      else
        cap.extra[k] = text
        warn_extra(ctx, "unknown key '%s' kept in extra as its JSON text (%d bytes: unknown values past %d bytes "
          .. "are not decoded)", short(k), #text, EXTRA_BYTES)
      end
    end
  end
  read.profile_checks(ctx, cap, 'no "%s" key')
  return cap
end

return json
