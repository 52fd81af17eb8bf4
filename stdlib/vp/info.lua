-- vp.info: the one-screen summary of any capture (format, size, the
-- format's own summary rows, the reader's warnings): the analysis behind
-- scripts/info.lua.
--
--   local info = require "vp.info"
--   local doc, rows = info.analyze(cap)
--   for _, r in ipairs(rows) do print(r.name, r.value) end
--
-- Generic: every capture class provides cap:summary(), an ordered list of
-- {name =, value =} rows (for VProf: frames, ticks, duration, nodes, groups,
-- escape width, truncated, zero timings); this module only collects them.
local E = require "vp.error"

local info = {}

--- The shape of the result (and of `info.lua --json`): summary holds one
-- key per summary row (info.schema_for(rows) names them in row order).
info.schema = "{file, format, size, summary: {*}, warnings: []}"

--- info.schema_for(rows) -> the schema of one result: info.schema with the
-- summary rows' names declared in row order, so that a row without a value
-- is written as null rather than left out.
function info.schema_for(rows)
  local names = {}
  for _, r in ipairs(rows) do
    local name = tostring(r.name)
    if not name:find('"', 1, true) then names[#names + 1] = '"' .. name .. '"' end
  end
  names[#names + 1] = "*"
  return "{file, format, size, summary: {" .. table.concat(names, ", ") .. "}, warnings: []}"
end

--- info.analyze(cap, params) -> result, rows
-- result (plain data, shaped as info.schema): {file, format, size, summary =
-- {name = value}, warnings = [string]}. rows: cap:summary() as it came, a
-- list of {name =, value =} (value nil when the row has none).
-- params (optional): file (the name used when cap.path is unset). Raises a
-- vp.error EINPUT when the capture cannot summarise itself.
function info.analyze(cap, params)
  params = params or {}
  local file = cap.path or params.file
  local rows = {}
  local ok, has = pcall(function() return cap.summary end)
  if type(cap.summary) == "function" or (ok and has ~= nil) then
    local ok2, r = pcall(function() return cap:summary() end)
    if not ok2 then E.raise("EINPUT", "%s: %s", tostring(file), E.message(r)) end
    rows = r or {}
  end
  local summary, list = {}, {}
  for i, row in ipairs(rows) do
    local name = tostring(row.name)
    summary[name] = row.value
    list[i] = { name = name, value = row.value }
  end
  local warnings = {}
  for i, w in ipairs(cap.warnings or {}) do warnings[i] = tostring(w) end
  return { file = file, format = cap.format, size = cap.size, summary = summary, warnings = warnings }, list
end

return info
