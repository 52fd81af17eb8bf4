-- vp.report: one output model, three renderings (--json, --csv, text).
--
--   report.emit(opts, {
--     json = doc,                        -- the --json document (plain data: nil
--     schema = hitches.schema,           --   where absent) and its shape: json.encode
--                                        --   writes declared keys in that order,
--                                        --   nil as null, lists as [] when empty
--     title = "hitches: cap.vprof",       -- first text line (optional)
--     header = { {"frames", 1234}, ... }, -- aligned name/value lines (optional)
--     notes = { "a line", ... },          -- free text lines after the header (each one
--                                        --   line: shown with fmt.visible, leading
--                                        --   newlines kept as blank lines)
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

-- A string as a CSV field: core/text's rule, the one CSV encoder (RFC 4180
-- quoting; a field that starts with = + - @, a tab or CR gets a ' first,
-- as OWASP recommends, so no spreadsheet runs it as a formula).
local csv_text = require "vp" and require("vp.text.core").csv_field

--- report.csv_field(v) -> one CSV field (RFC 4180 quoting when needed;
-- formulas neutralised: see csv_text). Numbers stay numbers, -1.5 too.
function report.csv_field(v)
  if v == nil then return "" end
  local t = type(v)
  if t == "number" then return csv_number(v) end
  if t == "boolean" then return v and "true" or "false" end
  return csv_text(tostring(v))
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

--- report.md_code(s [, cell]) -> s as one Markdown code span (CommonMark,
-- GitHub's job summaries): control bytes as visible escapes (fmt.visible:
-- no line break, so no heading, list or table row can start), fenced by
-- one more backtick than the longest run inside and padded with spaces
-- when it starts or ends with a backtick or a space; in a table `cell`, a
-- '|' written "\|" so it never ends the cell. HTML, links and emphasis
-- inside a code span are shown, never rendered.
function report.md_code(s, cell)
  s = fmt.visible(tostring(s))
  local longest = 0
  for run in s:gmatch("`+") do longest = math.max(longest, #run) end
  local fence = string.rep("`", longest + 1)
  if s == "" then
    s = " " -- an empty span is no span
  elseif s:find("[^ ]") and (s:find("^[` ]") or s:find("[` ]$")) then
    s = " " .. s .. " " -- CommonMark strips one space each side again
  end
  if cell then s = s:gsub("|", "\\|") end
  return fence .. s .. fence
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

-- A title, a note or an empty table's text: one line, shown with
-- fmt.visible (so a name in it never adds a line); blank lines before it
-- (leading newlines: the layout, which the code writes, so a title or a
-- note starts with the code's own text, never with a name) are kept.
local function line(s)
  local blank, rest = s:match("^(\n*)(.*)$")
  return blank .. fmt.visible(rest) .. "\n"
end

-- The readable rendering, piece by piece to write(piece): a table is
-- written a line at a time (fmt.table's write), never whole in memory.
local function write_text(model, width, write)
  if model.title then write(line(model.title)) end
  if model.header and #model.header > 0 then
    write((model.title and "\n" or "") .. fmt.kv(model.header, "  "))
  end
  for _, note in ipairs(model.notes or {}) do write(line(note)) end
  for _, sec in ipairs(model.sections or {}) do
    write("\n")
    if sec.title then write(line(sec.title)) end
    if #sec.rows == 0 then
      write(line("  " .. (sec.empty or "(none)")))
    else
      fmt.table(sec.rows, sec.columns, { max_width = width, indent = "  ",
        write = function(l) write(l .. "\n") end })
    end
    for _, note in ipairs(sec.notes or {}) do write(line(note)) end
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
