-- vp.report: one output model, three renderings (--json, --csv, text).
--
--   report.emit(opts, {
--     json = doc,                        -- the --json document (plain data: nil
--     schema = hitches.schema,           --   where absent) and its shape: json.encode
--                                        --   writes declared keys in that order,
--                                        --   nil as null, lists as [] when empty
--     title = "hitches: cap.vprof",       -- first text line (optional)
--     header = { {"frames", 1234}, ... }, -- aligned name/value lines (optional)
--     notes = { "a line", ... },          -- free text lines after the header
--     sections = {                        -- tables
--       {title = "hitches", columns = {...}, rows = {...}, empty = "no hitches"},
--     },
--     csv = {columns = {...}, rows = {...}}, -- --csv table (default: sections[1])
--   })                                   --   a CSV column may be a key alone: "name"
-- Text tables fit the width report.width(opts) gives (COLUMNS, else the
-- terminal's; none with --wide or in a file): the widest text column, a
-- path or a name, is cut at the front.
-- Columns are fmt.table columns ({key, title, format, align}); CSV uses the
-- column keys as the header line and the RAW values (numbers unformatted,
-- 14 significant digits like the JSON; nil/NaN empty).
--
-- Absent values: an analysis gives nil; this module and the ones it calls
-- decide how nil shows, once: "-" in text (vp.fmt), an empty CSV field
-- (report.csv_field), null in JSON (vp.json). Never "inf" or "nan".
local cli = require "vp.cli"
local fmt = require "vp.fmt"

local report = {}

local function csv_number(x)
  if x ~= x or x == math.huge or x == -math.huge then return "" end
  if math.type(x) == "integer" then return tostring(x) end
  -- 14 significant digits, as the JSON output: sums of 4 us steps print as
  -- 29.776, not 29.776000000000003
  return string.format("%.14g", x)
end

--- report.csv_field(v) -> one CSV field (RFC 4180 quoting when needed).
function report.csv_field(v)
  if v == nil then return "" end
  local t = type(v)
  if t == "number" then return csv_number(v) end
  if t == "boolean" then return v and "true" or "false" end
  local s = tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

--- report.csv(columns, rows) -> string: header of column keys, then rows.
-- A column is a table ({key, csv = header, csv_value = function(v, row)})
-- or its key alone ("name" is {key = "name"}).
function report.csv(columns, rows)
  local cols, head = {}, {}
  for i, c in ipairs(columns) do
    cols[i] = type(c) == "string" and { key = c } or c
    head[i] = report.csv_field(cols[i].csv or cols[i].key)
  end
  local lines = { table.concat(head, ",") }
  for _, row in ipairs(rows) do
    local f = {}
    for i, c in ipairs(cols) do
      local v = row[c.key]
      if c.csv_value then v = c.csv_value(v, row) end
      f[i] = report.csv_field(v)
    end
    lines[#lines + 1] = table.concat(f, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

--- report.width(opts) -> columns, or nil for no cutting: nil with --wide;
-- else COLUMNS when it is set to a number (the user's choice, also in a
-- pipe); else the terminal's width when stdout is one (80 when it cannot
-- be told); else nil: a file or a pipe gets full paths and names.
function report.width(opts)
  if opts and opts.wide then return nil end
  local cols = math.tointeger(tonumber(os.getenv("COLUMNS") or ""))
  if cols and cols > 0 then return cols end
  local tty, tcols = cli.terminal("stdout")
  if tty then return tcols or 80 end
  return nil
end

-- The readable rendering, piece by piece to write(piece): a table is
-- written a line at a time (fmt.table's write), never whole in memory.
local function write_text(model, width, write)
  if model.title then write(model.title .. "\n") end
  if model.header and #model.header > 0 then
    write((model.title and "\n" or "") .. fmt.kv(model.header, "  "))
  end
  for _, line in ipairs(model.notes or {}) do write(line .. "\n") end
  for _, sec in ipairs(model.sections or {}) do
    write("\n")
    if sec.title then write(sec.title .. "\n") end
    if #sec.rows == 0 then
      write("  " .. (sec.empty or "(none)") .. "\n")
    else
      fmt.table(sec.rows, sec.columns, { max_width = width, indent = "  ",
        write = function(line) write(line .. "\n") end })
    end
    for _, line in ipairs(sec.notes or {}) do write(line .. "\n") end
  end
end

--- report.text(model [, width]) -> string: the readable rendering, tables
-- cut to `width` columns (nil: never cut).
function report.text(model, width)
  local out = {}
  write_text(model, width, function(piece) out[#out + 1] = piece end)
  return table.concat(out)
end

--- report.emit(opts, model): print the model as opts asks (--json, --csv or text).
function report.emit(opts, model)
  if opts.json then
    cli.json(model.json, model.schema)
  elseif opts.csv then
    local t = model.csv or (model.sections and model.sections[1])
    if not t then cli.fail(2, "this script has no table to print as CSV") end
    io.stdout:write(report.csv(t.columns, t.rows))
  else
    write_text(model, report.width(opts), function(piece) io.stdout:write(piece) end)
  end
  io.stdout:flush()
end

return report
