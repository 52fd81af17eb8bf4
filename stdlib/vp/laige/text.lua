-- vp.laige.text: the parser of the laige reports' line forms, the text
-- profile report ("laige-profile ..." lines) and the budget report
-- ("laige-budget-report ..." lines and indented budget blocks). It fills the
-- models of vp.laige.model; the rules it shares with the JSON parser are in
-- vp.laige.read.
local read = require "vp.laige.read"
local model = require "vp.laige.model"

local text = {}

local fill, convert, warn, warn_extra, short = read.fill, read.convert, read.warn, read.warn_extra, read.short
local fail, parse_number, text_extra_value = read.fail, read.parse_number, read.text_extra_value
local check_version = read.check_version
local STATS, COUNTERS, WORLD, PROFILE_SYSTEM = read.STATS, read.COUNTERS, read.WORLD, read.PROFILE_SYSTEM
local BUDGET_SYSTEM, CONTEXT, FRAMES_INFO, FRAME = read.BUDGET_SYSTEM, read.CONTEXT, read.FRAMES_INFO, read.FRAME
local BUDGET_HEAD, BUDGET_VALUES, OVER_BUDGET = read.BUDGET_HEAD, read.BUDGET_VALUES, read.OVER_BUDGET

local byte, sub, find, concat = string.byte, string.sub, string.find, table.concat

-- Split a line body into groups: the first is the line's own key=value
-- pairs (and bare words), every "name:" token opens a new named group
-- ("window: n=...", "stats: n=..."). A bare word after a key=value pair
-- continues that value with a space (names and machine strings are not
-- quoted by the engine). The pieces of a continued value are joined once
-- the group ends: joining them word by word would copy the value again for
-- every word, quadratic in a long line.
local function new_group(name)
  return { name = name, order = {}, kv = {}, words = {} }
end

local function join_pieces(g)
  local pieces = g.pieces
  if not pieces then return end
  for k, list in pairs(pieces) do g.kv[k] = concat(list, " ") end
  g.pieces = nil
end

-- A line has a few sections; one with thousands (a hostile line of "a: a:
-- a: ...") would cost four tables each. Past MAX_SECTIONS, "name:" tokens
-- are words of the last section, with a warning.
local MAX_SECTIONS = 256

local function tokenize(body, ctx, lineno)
  local cur = new_group(nil)
  local groups = { cur }
  local last_key
  for tok in body:gmatch("%S+") do
    local eq = find(tok, "=", 1, true)
    if #groups > MAX_SECTIONS and not eq and byte(tok, -1) == 58 then
      if not groups.overflow then
        groups.overflow = true
        warn(ctx, "line %d: more than %d sections: the rest are kept as words", lineno, MAX_SECTIONS)
      end
      cur.words[#cur.words + 1] = tok
    elseif eq and eq > 1 then
      local k = sub(tok, 1, eq - 1)
      if cur.kv[k] == nil then cur.order[#cur.order + 1] = k end
      cur.kv[k] = sub(tok, eq + 1)
      if cur.pieces then cur.pieces[k] = nil end
      last_key = k
    elseif #tok > 1 and byte(tok, -1) == 58 then -- "name:"
      join_pieces(cur)
      cur = new_group(sub(tok, 1, -2))
      groups[#groups + 1] = cur
      last_key = nil
    elseif last_key then
      local pieces = cur.pieces
      if not pieces then
        pieces = {}
        cur.pieces = pieces
      end
      local list = pieces[last_key]
      if not list then
        list = { cur.kv[last_key] }
        pieces[last_key] = list
      end
      list[#list + 1] = tok
    else
      cur.words[#cur.words + 1] = tok
    end
  end
  join_pieces(cur)
  return groups
end

-- A line without the blank space around it, in time linear in the line
-- (the pattern "^%s*(.-)%s*$" backtracks over every run of inner blanks:
-- quadratic in a line with a long one).
local function last_nonblank(line)
  local j = #line
  while find(line, "^%s", j) do j = j - 1 end
  return j
end

local function trim(line)
  local i = find(line, "%S")
  if not i then return "" end
  return sub(line, i, last_nonblank(line))
end

local function group_is_empty(g)
  return #g.order == 0 and #g.words == 0
end

-- Warn about what a group holds besides key=value pairs.
local function warn_words(ctx, where, g, out)
  if #g.words > 0 then
    out.extra = out.extra or {}
    for _, w in ipairs(g.words) do out.extra[#out.extra + 1] = w end
    warn(ctx, "%s: unexpected '%s' kept in extra", where, short(table.concat(g.words, " ")))
  end
end

-- Stats from a text group: nil for an empty window (n=0).
local function text_stats(ctx, where, g)
  if not g or group_is_empty(g) then
    warn(ctx, "%s: no statistics", where)
    return nil
  end
  local n = g.kv.n and parse_number(g.kv.n)
  if n == 0 then
    -- The engine writes just n=0; anything else (the NaN fields of a
    -- budget block's stats line) says nothing more.
    return nil
  end
  local s = fill(ctx, where, STATS, g.kv, g.order, {}, false)
  warn_words(ctx, where, g, s)
  return s
end

-- Iterate the lines of `input` (the report as a string, or a file handle
-- read a line at a time, so that a large report is never in memory
-- whole): yields lineno, line (without the line end; CRLF and a leading
-- BOM removed), terminated (false for a last line without its newline).
local function lines_of(input)
  local lineno = 0
  if type(input) ~= "string" then
    local first = true
    return function()
      local line, err = input:read("L")
      if not line then
        if err then fail("EIO", "cannot read the file: " .. tostring(err)) end
        return nil
      end
      lineno = lineno + 1
      local terminated = byte(line, -1) == 10
      if terminated then line = sub(line, 1, -2) end
      if first then
        first = false
        if sub(line, 1, 3) == "\239\187\191" then line = sub(line, 4) end
      end
      if byte(line, -1) == 13 then line = sub(line, 1, -2) end
      return lineno, line, terminated
    end
  end
  local data = input
  local pos, n = 1, #data
  if data:sub(1, 3) == "\239\187\191" then pos = 4 end
  return function()
    if pos > n then return nil end
    lineno = lineno + 1
    local nl = data:find("\n", pos, true)
    local line, terminated
    if nl then
      line, terminated, pos = data:sub(pos, nl - 1), true, nl + 1
    else
      line, terminated, pos = data:sub(pos), false, n + 1
    end
    if line:sub(-1) == "\r" then line = line:sub(1, -2) end
    return lineno, line, terminated
  end
end

-- Parse the line-oriented forms. `prefix` is "laige-profile" or
-- "laige-budget-report"; handle(lineno, line, body_or_nil, terminated) is
-- called for every non-empty line after the version line (body is the text
-- after the prefix, nil when the line does not carry the prefix).
local function parse_lines(ctx, data, prefix, handle)
  local version
  local last_line, last_terminated, last_nwarn_before = nil, true, 0
  for lineno, line, terminated in lines_of(data) do
    local first = find(line, "%S")
    if first then
      local nwarn_before = ctx.nwarn
      ctx.first_line_warning = nil
      -- body: what follows the prefix and a blank, without copying the
      -- line more than once
      local body
      if find(line, prefix, first, true) == first then
        local after = first + #prefix
        local b = find(line, "%S", after)
        if not b then
          body = ""
        elseif b > after then
          body = sub(line, b, last_nonblank(line))
        end
      end
      if not version then
        local trimmed = trim(line)
        local raw = body and body:match("^version=(%S*)$")
        local head = prefix .. " version="
        if not terminated and (raw == "" or (not raw and head:sub(1, #trimmed) == trimmed)) then
          -- the file ends inside its version line
          fail("ETRUNC", string.format("line %d: the report ends in the middle of this line", lineno))
        end
        if not raw then
          fail("EFORMAT", string.format("line %d: expected '%s version=N' as the first line, found '%s'",
            lineno, prefix, short(trimmed)))
        end
        version = check_version(ctx, raw, "line " .. lineno)
      else
        handle(lineno, line, body, terminated)
      end
      last_line, last_terminated, last_nwarn_before = lineno, terminated, nwarn_before
    end
  end
  if not version then
    fail("EFORMAT", string.format("line 1: expected '%s version=N', the file has no text", prefix))
  end
  -- The engine ends every line with a newline: a last line without one
  -- that is also incomplete (a key missing, a number cut short, a word
  -- cut in two) is a file cut mid-line.
  if not last_terminated and ctx.nwarn > last_nwarn_before then
    fail("ETRUNC", string.format("line %d: the report ends in the middle of this line (%s)",
      last_line, ((ctx.first_line_warning or "incomplete"):gsub("^line %d+: ", ""))))
  end
  return version
end

-- What both reports' line parsers share ------------------------------------------

-- A line that should come once: note where it was, warn when it comes again.
local function once(ctx, seen, lineno, what)
  if seen[what] then
    warn(ctx, "line %d: a second %s line replaces line %d", lineno, what, seen[what])
  end
  seen[what] = lineno
end

-- An unknown "name:" section kept in tbl[name]: its pairs and bare words.
local function extra_section(tbl, g)
  local t = {}
  for _, k in ipairs(g.order) do t[k] = text_extra_value(g.kv[k]) end
  for _, wd in ipairs(g.words) do t[#t + 1] = wd end
  tbl[g.name] = t
end

-- A "system ..." line (its first group starts with the word "system"): the
-- fields, then a "window:" section; other sections go to sys.extra.
local function system_line(ctx, at, groups, fields)
  local where = at .. ": system"
  local g1 = groups[1]
  table.remove(g1.words, 1)
  local sys = fill(ctx, where, fields, g1.kv, g1.order, {}, false)
  warn_words(ctx, where, g1, sys)
  local w
  for i = 2, #groups do
    if groups[i].name == "window" and not w then
      w = groups[i]
    else
      sys.extra = sys.extra or {}
      extra_section(sys.extra, groups[i])
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", where, short(groups[i].name))
    end
  end
  if w then
    sys.window = text_stats(ctx, where .. " window", w)
  else
    warn(ctx, "%s: missing window", where)
  end
  return sys
end

-- A report line neither parser knows: a repeated version line (ignored), an
-- unknown "name:" section or line (kept in cap.extra, with a warning).
local function other_line(ctx, cap, at, line, groups, section)
  local g1 = groups[1]
  if g1.order[1] == "version" and #g1.order == 1 then
    warn(ctx, "%s: a second version line is ignored", at)
  elseif section and #groups == 2 then
    extra_section(cap.extra, groups[2])
    warn_extra(ctx, "%s: unknown section '%s:' kept in extra", at, short(section))
  else
    cap.extra[#cap.extra + 1] = line
    warn(ctx, "%s: unknown line kept in extra: '%s'", at, short(line))
  end
end

-- Profile report ---------------------------------------------------------------

--- text.profile(ctx, input, path, size) -> a profile report read from its
-- text form (input: the text, or a file handle at its start) (raises read.fail errors; warnings go to ctx).
function text.profile(ctx, data, path, size)
  local cap = model.new_profile(ctx, path, size, "text", nil)
  local seen = {}
  cap.version = parse_lines(ctx, data, "laige-profile", function(lineno, line, body)
    local at = "line " .. lineno
    if not body then
      cap.extra[#cap.extra + 1] = line
      warn(ctx, "%s: not a laige-profile line, kept in extra: '%s'", at, short(line))
      return
    end
    local groups = tokenize(body, ctx, lineno)
    local g1, g2 = groups[1], groups[2]
    local section = group_is_empty(g1) and g2 and g2.name
    if section == "counters" or section == "world" then
      once(ctx, seen, lineno, section)
      local where = at .. ": " .. section
      local out = fill(ctx, where, section == "counters" and COUNTERS or WORLD, g2.kv, g2.order, {}, false)
      warn_words(ctx, where, g2, out)
      for i = 3, #groups do
        warn(ctx, "%s: unknown section '%s:' ignored", where, short(groups[i].name))
      end
      cap[section] = out
    elseif section == "tick_ms" or section == "frame_ms" then
      once(ctx, seen, lineno, section)
      cap[section] = text_stats(ctx, at .. ": " .. section, g2)
    elseif g1.words[1] == "system" then
      cap.systems[#cap.systems + 1] = system_line(ctx, at, groups, PROFILE_SYSTEM)
    else
      other_line(ctx, cap, at, line, groups, section)
    end
  end)
  for _, k in ipairs({ "tick_ms", "frame_ms" }) do
    if not seen[k] then warn(ctx, "no %s line", k) end
  end
  read.profile_checks(ctx, cap, "no %s line")
  return cap
end

-- Budget report ------------------------------------------------------------------

--- text.budget(ctx, input, path, size) -> a budget report (input as for
-- text.profile) (raises read.fail
-- errors; warnings go to ctx).
function text.budget(ctx, data, path, size)
  local cap = model.new_budget(ctx, path, size)
  local seen = {}
  local block -- the budget= block being read: {budget, lineno, parts = {}}

  local function end_block()
    if not block then return end
    local b = block.budget
    if b.result ~= "NO_ENTRY" then
      for _, part in ipairs({ "after", "stats", "context" }) do
        if not block.parts[part] then
          warn(ctx, "line %d: budget %s: no %s line", block.lineno, tostring(b.name), part)
        end
      end
    end
    block = nil
  end

  local function budget_head(lineno, trimmed)
    end_block()
    local at = "line " .. lineno
    local groups = tokenize(trimmed, ctx, lineno)
    local g1 = groups[1]
    local head = fill(ctx, at .. ": budget", BUDGET_HEAD, g1.kv, g1.order, {}, false, nil, true)
    local b = { name = head.budget, result = head.result, metric = head.metric, unit = head.unit,
      extra = head.extra }
    local where = at .. ": budget " .. tostring(b.name)
    if b.result == nil then warn(ctx, "%s: missing result", where) end
    if b.result ~= "NO_ENTRY" then
      for _, k in ipairs({ "metric", "unit" }) do
        if b[k] == nil then warn(ctx, "%s: missing %s", where, k) end
      end
    end
    warn_words(ctx, where, g1, b)
    for i = 2, #groups do
      b.extra = b.extra or {}
      extra_section(b.extra, groups[i])
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", where, short(groups[i].name))
    end
    cap.budgets[#cap.budgets + 1] = b
    block = { budget = b, lineno = lineno, parts = {} }
  end

  local function budget_part(lineno, trimmed)
    local b = block.budget
    local at = string.format("line %d: budget %s", lineno, tostring(b.name))
    local groups = tokenize(trimmed, ctx, lineno)
    local g1, g2 = groups[1], groups[2]
    local section = group_is_empty(g1) and g2 and g2.name
    local part
    if g1.order[1] == "after" and #groups == 1 then
      part = "after"
      local v = fill(ctx, at, BUDGET_VALUES, g1.kv, g1.order, {}, false)
      warn_words(ctx, at, g1, v)
      b.after, b.before, b.target = v.after, v.before, v.target
      if v.extra then
        b.extra = b.extra or {}
        for k, x in pairs(v.extra) do b.extra[k] = x end
      end
    elseif section == "stats" and #groups == 2 then
      part = "stats"
      b.stats = text_stats(ctx, at .. " stats", g2)
    elseif section == "context" and #groups == 2 then
      part = "context"
      b.context = fill(ctx, at .. " context", CONTEXT, g2.kv, g2.order, {}, false)
      warn_words(ctx, at .. " context", g2, b.context)
    elseif section and #groups == 2 then
      b.extra = b.extra or {}
      extra_section(b.extra, g2)
      warn_extra(ctx, "%s: unknown section '%s:' kept in extra", at, short(section))
    else
      b.extra = b.extra or {}
      b.extra[#b.extra + 1] = trimmed
      warn(ctx, "%s: unknown line kept in extra: '%s'", at, short(trimmed))
    end
    if part then
      if block.parts[part] then warn(ctx, "%s: a second %s line replaces the first", at, part) end
      block.parts[part] = true
    end
  end

  local function report_line(lineno, line, body)
    local at = "line " .. lineno
    local groups = tokenize(body, ctx, lineno)
    local g1, g2 = groups[1], groups[2]
    local section = group_is_empty(g1) and g2 and g2.name
    if section == "context" and #groups == 2 then
      once(ctx, seen, lineno, "context")
      cap.context = fill(ctx, at .. ": context", CONTEXT, g2.kv, g2.order, {}, false)
      warn_words(ctx, at .. ": context", g2, cap.context)
    elseif section == "frames" and #groups == 2 then
      once(ctx, seen, lineno, "frames")
      cap.frames_info = fill(ctx, at .. ": frames", FRAMES_INFO, g2.kv, g2.order, {}, false)
      warn_words(ctx, at .. ": frames", g2, cap.frames_info)
    elseif g1.order[1] == "frame" and #groups == 1 then
      local f = fill(ctx, at .. ": frame", FRAME, g1.kv, g1.order, {}, false)
      warn_words(ctx, at .. ": frame", g1, f)
      cap.frames[#cap.frames + 1] = f
    elseif g1.words[1] == "system" then
      cap.systems[#cap.systems + 1] = system_line(ctx, at, groups, BUDGET_SYSTEM)
    elseif section == "over_budget" and #groups == 2 then
      seen.over_budget = seen.over_budget or lineno
      if #g2.order == 0 and #g2.words == 1 and g2.words[1] == "none" then
        seen.over_budget_none = lineno
      else
        local o = fill(ctx, at .. ": over_budget", OVER_BUDGET, g2.kv, g2.order, {}, false)
        warn_words(ctx, at .. ": over_budget", g2, o)
        cap.over_budget[#cap.over_budget + 1] = o
      end
    elseif g1.order[1] == "overall" and #g1.order == 1 and #groups == 1 then
      once(ctx, seen, lineno, "overall")
      local v, complaint = convert("result", g1.kv.overall)
      if complaint then warn(ctx, "%s: overall: %s", at, complaint) end
      cap.overall = v
      warn_words(ctx, at .. ": overall", g1, cap.extra)
    else
      other_line(ctx, cap, at, line, groups, section)
    end
  end

  cap.version = parse_lines(ctx, data, "laige-budget-report", function(lineno, line, body)
    local trimmed = trim(line)
    if body then
      end_block()
      report_line(lineno, line, body)
    elseif trimmed:match("^budget=") then
      budget_head(lineno, trimmed)
    elseif block then
      budget_part(lineno, trimmed)
    else
      cap.extra[#cap.extra + 1] = line
      warn(ctx, "line %d: not a laige-budget-report line, kept in extra: '%s'", lineno, short(line))
    end
  end)
  end_block()

  cap.frame_count = #cap.frames
  if #cap.frames > 0 then cap.first_frame, cap.last_frame = 1, #cap.frames end
  for _, k in ipairs({ "context", "frames" }) do
    if not seen[k] then warn(ctx, "no %s line", k) end
  end
  if not seen.over_budget then
    warn(ctx, "no over_budget line: the report may be cut short")
  elseif seen.over_budget_none and #cap.over_budget > 0 then
    warn(ctx, "line %d: over_budget says none but %d systems are listed over budget",
      seen.over_budget_none, #cap.over_budget)
  end
  if not seen.overall then warn(ctx, "no overall line: the report may be cut short") end
  return cap
end

return text
