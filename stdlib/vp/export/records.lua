-- vp.export.records: the records of the debug traces and the laige reports
-- as CSV (one row per record, every field by its API name), and as Chrome
-- trace events where the records have a time axis (.devt events, .dlag
-- samples).
--
--   local records = require "vp.export.records"
--   records.csv(cap, io.stdout)
--   records.chrome(cap, io.stdout)       -- .devt and .dlag only
--
-- What a row is, per format (records.ROWS):
--   devt          an event: its fields and group_name
--   dlag          a sample of a measurement: measurement.index,
--                 measurement.name, then the sample's fields
--   dm            a group block of a record: the record's fields, then the
--                 block's as group.* (a record without blocks: one row)
--   dw            a hit (client, then server): the trace's fields (its
--                 movement block as movement.*), then the hit's as hit.*
--   laige-budget  a frame line
--   laige-profile a system line
-- Nested objects become dotted columns (position.x); lists of numbers are
-- written space-separated; a string holding bytes that are not text is
-- written as hex (0x...). Columns: the format's leading ones, then the
-- rest in byte order; a field a row lacks is empty.
local json = require "vp.json"

local records = {}

records.ROWS = {
  devt = "an event", dlag = "a sample of a measurement", dm = "a group block of a record",
  dw = "a hit of a trace", ["laige-budget"] = "a frame line", ["laige-profile"] = "a system line",
}

local LEAD = {
  devt = { "group", "group_name", "index" },
  dlag = { "measurement.index", "measurement.name", "index", "time", "value" },
  dm = { "slot", "index", "time", "group.index" },
  dw = { "slot", "index", "trace_id", "hit.side", "hit.index" },
  ["laige-budget"] = { "index", "frame" },
  ["laige-profile"] = { "id", "name" },
}

local function text(s)
  if s:find("[%z\1-\8\11\12\14-\31\127]") or not utf8.len(s) then
    return "0x" .. s:gsub(".", function(c) return string.format("%02x", c:byte()) end)
  end
  return s
end

-- Flatten t's fields into row under prefix; lists of tables are left to
-- the format (they are records of their own).
local function flatten(t, prefix, row)
  for k, v in pairs(t) do
    local key = prefix .. tostring(k)
    local ty = type(v)
    if ty == "table" then
      if #v > 0 and type(v[1]) ~= "table" then
        local parts = {}
        for i, x in ipairs(v) do parts[i] = tostring(x) end
        row[key] = table.concat(parts, " ")
      elseif #v == 0 and next(v) ~= nil then
        flatten(v, key .. ".", row)
      end
    elseif ty == "string" then
      row[key] = text(v)
    elseif ty == "number" or ty == "boolean" then
      row[key] = v
    end
  end
  return row
end

local function totable(x)
  if type(x) == "table" and not getmetatable(x) then return x end
  if type(x) == "table" and type(x.totable) ~= "function" then
    local t = {}
    for k, v in pairs(x) do t[k] = v end
    return t
  end
  return x:totable()
end

-- Each format's rows, in file order: calls emit(row) for every one.
local EACH = {}
function EACH.devt(cap, emit)
  for e, g in cap:events() do
    local row = flatten(e, "", {})
    row.group_name = g.name
    emit(row)
  end
end
function EACH.dlag(cap, emit)
  for m in cap:measurements() do
    for s in m:samples() do
      local row = flatten(s, "", {})
      row["measurement.index"], row["measurement.name"] = m.index, m.name
      emit(row)
    end
  end
end
-- A record with parts of its own (a .dm record's group blocks, a .dw
-- trace's hits): a row per part, the record's fields then the part's under
-- prefix; a record without parts is one row of its own fields.
local function emit_parts(t, parts, prefix, emit)
  local base = flatten(t, "", {})
  if #parts == 0 then emit(base) end
  for _, part in ipairs(parts) do
    local row = {}
    for k, v in pairs(base) do row[k] = v end
    emit(flatten(part, prefix, row))
  end
end
function EACH.dm(cap, emit)
  for r in cap:records() do
    local t = r:totable()
    emit_parts(t, t.groups or {}, "group.", emit)
  end
end
function EACH.dw(cap, emit)
  for tr in cap:traces() do
    local t = tr:totable()
    local hits = {}
    for _, h in ipairs(t.client or {}) do hits[#hits + 1] = h end
    for _, h in ipairs(t.server or {}) do hits[#hits + 1] = h end
    emit_parts(t, hits, "hit.", emit)
  end
end
EACH["laige-budget"] = function(cap, emit)
  for fr in cap:frames() do emit(flatten(totable(fr), "", {})) end
end
EACH["laige-profile"] = function(cap, emit)
  for _, s in ipairs(cap.systems or {}) do emit(flatten(totable(s), "", {})) end
end

--- records.formats() -> the formats records.csv writes.
function records.formats()
  local out = {}
  for k in pairs(EACH) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- One field as every CSV of vpscript writes it (RFC 4180 quoting, numbers
-- as the JSON gives them, nil, NaN and infinities empty).
local cell = require("vp.report").csv_field

--- records.csv(cap, file) -> rows: the header, then one line per record
-- (RFC 4180, CRLF line ends).
function records.csv(cap, f)
  local each = EACH[cap.format]
  assert(each, "vp.export.records: no records for " .. tostring(cap.format))
  local seen, cols = {}, {}
  for _, k in ipairs(LEAD[cap.format]) do
    seen[k] = true
    cols[#cols + 1] = k
  end
  local extra = {}
  each(cap, function(row)
    for k in pairs(row) do
      if not seen[k] then
        seen[k] = true
        extra[#extra + 1] = k
      end
    end
  end)
  table.sort(extra)
  table.move(extra, 1, #extra, #cols + 1, cols)
  local head = {}
  for i, c in ipairs(cols) do head[i] = cell(c) end
  f:write(table.concat(head, ","), "\r\n")
  local put, flush = require("vp.export").buffer(f)
  local rows = 0
  each(cap, function(row)
    local line = {}
    for i, c in ipairs(cols) do line[i] = cell(row[c]) end
    put(table.concat(line, ",") .. "\r\n")
    rows = rows + 1
  end)
  flush()
  return rows
end

local EVENT = "{name, cat?, ph, s?, pid, tid, ts, args?}"

--- records.TIMED: the formats records.chrome writes, and how.
records.TIMED = {
  devt = "each event an instant event at time1 (read as ms) on the thread of its group",
  dlag = "each measurement a counter: one counter event per sample at its time (read as ms)",
}

--- records.chrome(cap, file) -> events: Chrome Trace Event JSON.
function records.chrome(cap, f)
  assert(records.TIMED[cap.format], "vp.export.records: no time axis in " .. tostring(cap.format))
  local name = (cap.path or cap.format):match("[^/]*$")
  local write, flush = require("vp.export").buffer(f)
  local n = 0
  local function put(ev)
    write((n > 0 and ",\n" or "\n") .. json.encode(ev, EVENT))
    n = n + 1
  end
  f:write('{"traceEvents":[')
  put({ name = "process_name", ph = "M", pid = 1, tid = 0, ts = 0, args = { name = name } })
  if cap.format == "devt" then
    for g in cap:groups() do
      put({ name = "thread_name", ph = "M", pid = 1, tid = g.index, ts = 0, args = { name = g.name } })
    end
    for e, g in cap:events() do
      put({ name = e.type_name, cat = g.name, ph = "i", s = "t", pid = 1, tid = g.index,
        ts = e.time1 * 1000, args = flatten(e, "", {}) })
    end
  else
    for m in cap:measurements() do
      for s in m:samples() do
        if s.value == s.value then
          put({ name = m.name, ph = "C", pid = 1, tid = 0, ts = s.time * 1000, args = { value = s.value } })
        end
      end
    end
  end
  flush()
  f:write('\n],"displayTimeUnit":"ms","otherData":', json.encode({ exporter = "vpscript", format = cap.format,
    layout = records.TIMED[cap.format] }), "}\n")
  return n
end

return records
