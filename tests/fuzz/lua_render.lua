-- lua_render.lua: the text, CSV and Markdown renderers harness (issue 27;
-- tests/fuzz/lua_driver.c runs it). Input: a selector byte (the text
-- table's width: 0 none, else 12 + selector) and the bytes, split at NUL
-- into up to four names. Each renderer must keep its structure whatever
-- the names: a name never adds a line, a cell, a heading or an element.
--   text: fmt.table and vp.report's text hold one line per row, a title, a
--     header and notes one line each, every line valid UTF-8 without a
--     control byte;
--   CSV: an RFC 4180 reader finds one record per row, two fields each, and
--     the name's bytes (after the ' OWASP puts before a formula);
--   Markdown: report.md_code is one code span (fence, no run of the fence's
--     length inside, the name's visible text inside), no line break, and in
--     a table cell no '|' that ends the cell.
-- A broken rule raises: the driver aborts, libFuzzer keeps the input.
require "vp"
local fmt = require "vp.fmt"
local report = require "vp.report"

local function check(cond, what, name)
  if not cond then error(string.format("%s (name %q)", what, name), 0) end
end

local function each_line(text)
  local lines = {}
  for l in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  return lines
end

local function inert(line, name)
  check(utf8.len(line) ~= nil, "text line not UTF-8", name)
  check(not line:find("[%z\1-\31\127]"), "a control byte in a text line", name)
  check(not line:find("\194[\128-\159]"), "a C1 control in a text line", name)
end

local csv_records = require "csvread"

local function text_checks(names, width)
  local rows = {}
  for i, name in ipairs(names) do rows[i] = { name = name, ms = i * 1.5 } end
  local out = fmt.table(rows, { { key = "name", title = "name" }, { key = "ms", title = "ms", format = fmt.ms } },
    { max_width = width, indent = "  " })
  local lines = each_line(out)
  check(#lines == #names + 2, "the table has a line per row, a header and a rule", names[1])
  for _, l in ipairs(lines) do inert(l, names[1]) end
  local model = { title = "t: " .. names[1], header = { { "file", names[1] }, { names[#names], 1 } },
    notes = { "\n  note " .. names[1] }, sections = { { title = "section " .. names[1], rows = rows, columns = {
      { key = "name", title = "name" } } } } }
  lines = each_line(report.text(model, width))
  -- title, blank, 2 header lines, blank, note, blank, section title, header, rule, rows
  check(#lines == 10 + #names, "the report text has its lines only", names[1])
  for _, l in ipairs(lines) do inert(l, names[1]) end
end

local function csv_checks(names)
  local rows = {}
  for i, name in ipairs(names) do rows[i] = { name = name, v = -i } end
  local recs = csv_records(report.csv({ "name", "v" }, rows))
  check(#recs == #names + 1, "a CSV record per row and the header", names[1])
  for i, name in ipairs(names) do
    local r = recs[i + 1]
    check(#r == 2, "two CSV fields", name)
    local shown = name:find("^[=+%-@\t\r]") and ("'" .. name) or name
    check(r[1] == shown, "the CSV field holds the name", name)
    check(r[2] == tostring(-i), "a negative number stays a number", name)
  end
end

local function md_checks(name)
  for _, cell in ipairs({ false, true }) do
    local span = report.md_code(name, cell)
    check(not span:find("[%z\1-\31\127]"), "a control byte in a code span", name)
    local fence = span:match("^`+")
    check(fence and span:sub(-#fence) == fence and #span >= 2 * #fence, "a code span is fenced", name)
    local body = span:sub(#fence + 1, -#fence - 1)
    check(body:sub(1, 1) ~= "`" and body:sub(-1) ~= "`", "the fence is as long as the backticks around it", name)
    for run in body:gmatch("`+") do check(#run ~= #fence, "a run of the fence's length inside", name) end
    if body:find("^ .* $") and body:find("[^ ]") then body = body:sub(2, -2) end
    if cell then
      check(not body:find("[^\\]|") and body:sub(1, 1) ~= "|", "an unescaped | in a table cell", name)
      body = body:gsub("\\|", "|")
    end
    check(body == fmt.visible(name) or (name == "" and body == " "), "the code span shows the name", name)
    if cell then
      local row = "| " .. span .. " | 1 |"
      local _, pipes = row:gsub("\\|", ""):gsub("|", "")
      check(pipes == 3, "a table row keeps its cells", name)
    end
  end
end

return function(_, selector, bytes)
  local names = {}
  for part in (bytes .. "\0"):gmatch("([^%z]*)%z") do
    if #names < 4 then names[#names + 1] = part end
  end
  local width = selector > 0 and 12 + selector or nil
  text_checks(names, width)
  csv_checks(names)
  for _, name in ipairs(names) do md_checks(name) end
end
