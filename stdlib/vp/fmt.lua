-- vp.fmt: human-readable numbers and aligned text tables.
--
--   fmt.int(12345)          "12,345"
--   fmt.fixed(1234.5, 2)    "1,234.50"
--   fmt.ms(12.3456)         "12.35"   (3 decimals below 10, 2 below 100, else 1)
--   fmt.bytes(1536)         "1.5 KiB" (B, KiB, MiB, GiB, TiB; powers of 1024)
--   fmt.pct(12.345)         "12.3 %"
--   fmt.duration(83000)     "1 min 23 s" (argument in ms)
--   fmt.p_value(0.0018714)  "0.00187" (3 significant digits; "< 1e-300" below)
--   fmt.frames(4000, 1, 4000)
--                           "4,000 (1..4,000)": n frames, first..last; "0" for none
--   fmt.value(v)            any value: integers with separators, floats
--                           trimmed, booleans yes/no, nil/NaN "-"
--   fmt.table(rows, columns [, opts]) -> string (see below)
--   fmt.visible("a\27[2Jb") "a\x1b[2Jb" (control bytes as visible escapes)
-- Missing values (nil, and numbers that are not finite: NaN, infinities)
-- print as "-" everywhere, never "nan" or "inf": the same rule as the CSV
-- (an empty field) and the JSON (null).
local fmt = {}

local DASH = "-"

local core = require "vp" and require "vp.text.core"

--- fmt.visible(s) -> s with visible escapes for what a terminal or a log
-- would obey instead of show: tab, LF and CR as \t \n \r, the other
-- control bytes as \xNN (ESC is \x1b), C1 controls as \u0080..\u009f,
-- bytes that are not valid UTF-8 as \xNN (core/text, the one rule). Every
-- table cell, name and message vpscript prints for people goes through it,
-- so a name never adds a line or moves the cursor.
fmt.visible = core.visible

local function missing(x)
  return x == nil or x ~= x or x == math.huge or x == -math.huge
end

--- fmt.group_digits("1234567.5") -> "1,234,567.5"
function fmt.group_digits(s)
  local sign, int, rest = s:match("^([%-+]?)(%d+)(.*)$")
  if not int then return s end
  local out = int:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  if out:sub(1, 1) == "," then out = out:sub(2) end
  return sign .. out .. rest
end

function fmt.int(n)
  if missing(n) then return DASH end
  local i = math.tointeger(n) or math.floor(n + 0.5)
  return fmt.group_digits(string.format("%d", i))
end

function fmt.fixed(x, decimals)
  if missing(x) then return DASH end
  local s = string.format("%." .. (decimals or 2) .. "f", x)
  if s:match("^%-0%.?0*$") then s = s:sub(2) end -- no "-0.00"
  return fmt.group_digits(s)
end

--- fmt.ms(x): milliseconds with sensible decimals (no unit).
function fmt.ms(x)
  if missing(x) then return DASH end
  local a = math.abs(x)
  if a < 10 then return fmt.fixed(x, 3) end
  if a < 100 then return fmt.fixed(x, 2) end
  return fmt.fixed(x, 1)
end

function fmt.pct(x, decimals)
  if missing(x) then return DASH end
  return fmt.fixed(x, decimals or 1) .. " %"
end

--- fmt.p_value(p): the one way vpscript prints a p-value: 3 significant
-- digits ("0.00187", "0.94", "1.5e-239"), and "< 1e-300" below 1e-300
-- (0 and the subnormal values a double can reach there carry no more
-- meaning than that).
function fmt.p_value(p)
  if missing(p) then return DASH end
  if p < 1e-300 then return "< 1e-300" end
  return string.format("%.3g", p)
end

function fmt.bytes(n)
  if missing(n) then return DASH end
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local u, v = 1, n
  while math.abs(v) >= 1024 and u < #units do
    v = v / 1024
    u = u + 1
  end
  if u == 1 then return fmt.int(n) .. " B" end
  local d = math.abs(v) < 10 and 2 or (math.abs(v) < 100 and 1 or 0)
  local s = string.format("%." .. d .. "f", v)
  if d > 0 then s = s:gsub("0+$", ""):gsub("%.$", "") end
  return s .. " " .. units[u]
end

--- fmt.duration(ms): "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min".
function fmt.duration(ms)
  if missing(ms) then return DASH end
  if ms < 1000 then return fmt.ms(ms) .. " ms" end
  local s = ms / 1000
  if s < 60 then return string.format("%.1f s", s) end
  local total = math.floor(s + 0.5)
  if total < 3600 then
    return string.format("%d min %02d s", total // 60, total % 60)
  end
  return string.format("%d h %02d min", total // 3600, (total % 3600) // 60)
end

--- fmt.span(ms): a window's length in its own unit, as --per takes it:
-- "500 ms", "10 s", "1 min", "1.5 h".
function fmt.span(ms)
  if missing(ms) then return DASH end
  for _, u in ipairs({ { 3600000, "h" }, { 60000, "min" }, { 1000, "s" } }) do
    if ms >= u[1] then return fmt.number(ms / u[1]) .. " " .. u[2] end
  end
  return fmt.number(ms) .. " ms"
end

--- fmt.frames(n, first, last): a range of n frames as a script's header shows
-- it, "4,000 (1..4,000)"; "0" when n is 0.
function fmt.frames(n, first, last)
  if n > 0 then return string.format("%s (%s..%s)", fmt.int(n), fmt.int(first), fmt.int(last)) end
  return "0"
end

--- fmt.number(x): a float trimmed to at most `decimals` (default 3) places.
function fmt.number(x, decimals)
  if missing(x) then return DASH end
  if math.type(x) == "integer" then return fmt.int(x) end
  if x == math.floor(x) and math.abs(x) < 2 ^ 53 then return fmt.int(x) end
  local s = fmt.fixed(x, decimals or 3)
  if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
  return s
end

function fmt.value(v)
  if missing(v) then return DASH end
  local t = type(v)
  if t == "boolean" then return v and "yes" or "no" end
  if t == "number" then return fmt.number(v) end
  return tostring(v)
end

--- fmt.path_last(path) -> the last component of a node path as the path
-- shows it ("Root/A/a\/b" -> "a\/b"): '/' separates components, '\'
-- escapes the byte after it (docs/vprof.md, "Paths").
function fmt.path_last(path)
  local last, i = 1, 1
  while true do
    local j = path:find("[/\\]", i)
    if not j then return path:sub(last) end
    if path:byte(j) == 92 then i = j + 2 else last, i = j + 1, j + 1 end
  end
end

--- fmt.truncate(s, width): cut to at most `width` bytes, keeping the END of
-- the string (the informative part of a path) behind "...", and never
-- inside a UTF-8 sequence (the cut moves on to the next character).
function fmt.truncate(s, width)
  if #s <= width then return s end
  local keep = width <= 3 and width or width - 3
  local from = #s - keep + 1
  while from <= #s and s:byte(from) >= 0x80 and s:byte(from) < 0xC0 do from = from + 1 end
  return (width <= 3 and "" or "...") .. s:sub(from)
end

local function pad(s, width, right)
  local gap = width - #s
  if gap <= 0 then return s end
  if right then return string.rep(" ", gap) .. s end
  return s .. string.rep(" ", gap)
end

--- fmt.table(rows, columns [, opts]) -> string
-- rows: list of tables. columns: list of
--   {key = "frame_ms", title = "frame ms", format = fmt.ms | function(v, row),
--    align = "right" | "left"}  -- default: right when the values are numbers
-- opts: {max_width = 100 (shrinks the widest left-aligned column, cutting
--   its values at the front), indent = "  ", header = true, rule = true,
--   write = function(line)}
-- Returns lines joined with "\n" (with a trailing newline; "" for no columns).
-- With opts.write, each line (without its newline) goes to write instead
-- and nothing is returned: the cells are formatted twice (the widths
-- first) and never kept, so a table of a million rows costs no memory.
function fmt.table(rows, columns, opts)
  opts = opts or {}
  local indent = opts.indent or ""
  local stream = opts.write
  local cells, widths, right = {}, {}, {}
  for c, col in ipairs(columns) do
    widths[c] = opts.header == false and 0 or #fmt.visible(col.title or col.key or "")
    local numeric = col.align == "right"
    if col.align == nil then
      for _, row in ipairs(rows) do
        local v = row[col.key]
        if v ~= nil then
          numeric = type(v) == "number"
          break
        end
      end
    end
    right[c] = numeric
  end
  local function cells_of(row)
    local out = {}
    for c, col in ipairs(columns) do
      local v = row[col.key]
      local s
      if col.format then s = col.format(v, row) else s = fmt.value(v) end
      out[c] = fmt.visible(tostring(s))
    end
    return out
  end
  for r, row in ipairs(rows) do
    local rc = cells_of(row)
    for c = 1, #columns do
      if #rc[c] > widths[c] then widths[c] = #rc[c] end
    end
    if not stream then cells[r] = rc end
  end
  local cut -- the column cut to fit max_width, and its width
  if opts.max_width and #columns > 0 then
    local total = #indent + 2 * (#columns - 1)
    for c = 1, #columns do total = total + widths[c] end
    if total > opts.max_width then
      local widest, wc = 0, nil
      for c = 1, #columns do
        if not right[c] and widths[c] > widest then widest, wc = widths[c], c end
      end
      if wc then
        local new = math.max(8, widths[wc] - (total - opts.max_width))
        widths[wc] = new
        cut = wc
        for r = 1, #cells do cells[r][wc] = fmt.truncate(cells[r][wc], new) end
      end
    end
  end
  local lines = {}
  local function emit(vals)
    local parts = {}
    for c = 1, #columns do parts[c] = pad(vals[c], widths[c], right[c]) end
    local line = indent .. table.concat(parts, "  ")
    -- the padding at the end goes; gsub("%s+$", "") would backtrack over
    -- every run of blanks inside the line (a wide column): quadratic
    local j = #line
    while j > 0 and line:find("^%s", j) do j = j - 1 end
    line = line:sub(1, j)
    if stream then stream(line) else lines[#lines + 1] = line end
  end
  if opts.header ~= false then
    local titles = {}
    for c, col in ipairs(columns) do titles[c] = fmt.visible(col.title or col.key) end
    emit(titles)
    if opts.rule ~= false then
      local rule = {}
      for c = 1, #columns do rule[c] = string.rep("-", widths[c]) end
      emit(rule)
    end
  end
  if stream then
    for _, row in ipairs(rows) do
      local rc = cells_of(row)
      if cut then rc[cut] = fmt.truncate(rc[cut], widths[cut]) end
      emit(rc)
    end
    return nil
  end
  for r = 1, #cells do emit(cells[r]) end
  if #lines == 0 then return "" end
  return table.concat(lines, "\n") .. "\n"
end

--- fmt.kv(pairs [, indent]) -> string: "name   value" lines, names aligned.
-- pairs: list of {name, value} (value formatted with fmt.value unless a
-- string; names and values shown with fmt.visible).
function fmt.kv(list, indent)
  indent = indent or ""
  local w = 0
  for _, p in ipairs(list) do
    if #p[1] > w then w = #p[1] end
  end
  local out = {}
  for _, p in ipairs(list) do
    local v = p[2]
    if type(v) ~= "string" then v = fmt.value(v) end
    out[#out + 1] = indent .. pad(fmt.visible(p[1]), w, false) .. "  " .. fmt.visible(v)
  end
  if #out == 0 then return "" end
  return table.concat(out, "\n") .. "\n"
end

--- fmt.wrap(text, width, indent) -> text broken into lines of at most
-- width characters at spaces (a longer word keeps its own line), the lines
-- after the first starting with indent (a string, or a count of spaces).
function fmt.wrap(text, width, indent)
  if type(indent) == "number" then indent = string.rep(" ", indent) end
  local out, line = {}, ""
  for word in text:gmatch("%S+") do
    if line ~= "" and #line + 1 + #word > width then
      out[#out + 1] = line
      line = word
    else
      line = line == "" and word or (line .. " " .. word)
    end
  end
  if line ~= "" then out[#out + 1] = line end
  return table.concat(out, "\n" .. (indent or ""))
end

return fmt
