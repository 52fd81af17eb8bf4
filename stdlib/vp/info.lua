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
-- key per summary row (info.schema_for(rows) names them in row order),
-- every key in snake_case (info.key), every value a number, a boolean or
-- a string that is not a number.
info.schema = "{file, format, size, summary: {*}, warnings: []}"

--- info.key(name) -> the summary row's key: lower case, each run of other
-- characters than letters and digits one "_" ("trailing bytes" ->
-- "trailing_bytes"), none at either end. Every format's rows come out in
-- one key style, whatever their reader calls them.
function info.key(name)
  return (tostring(name):lower():gsub("[^%w]+", "_"):gsub("^_+", ""):gsub("_+$", ""))
end

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
-- {key = value}, warnings = [string]}. rows: cap:summary() in its order,
-- a list of {name =, value =} with each name made a key (info.key; value
-- nil when the row has none).
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
    local name = info.key(row.name)
    summary[name] = row.value
    list[i] = { name = name, value = row.value }
  end
  local warnings = {}
  for i, w in ipairs(cap.warnings or {}) do warnings[i] = tostring(w) end
  return { file = file, format = cap.format, size = cap.size, summary = summary, warnings = warnings }, list
end

return info
