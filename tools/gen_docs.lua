-- gen_docs.lua: regenerate the generated parts of README.md and docs/*.md
-- (`make docs`; `make readme` is the same).
--
--   vpscript tools/gen_docs.lua [--check] [FILE...]
--
-- Without FILE: README.md and every docs/*.md. The prose is kept by hand;
-- the parts between
--   <!-- BEGIN GENERATED: KIND ARGS -->  and  <!-- END GENERATED -->
-- are rebuilt from their one source:
--   run ARGS...   the output of `./vpscript ARGS...` on the shipped examples
--                 (stdout and stderr; a non-zero exit status is shown)
--   run:N ARGS... the same, cut after N lines
--   json[:N] ARGS...
--                 the one-line JSON document `./vpscript ARGS...` prints,
--                 indented two spaces a level with its keys in the order
--                 printed (cut after N lines)
--   repl FILE ;; LINE ;; LINE...
--                 a REPL session: `./vpscript -i FILE` fed the LINEs, shown
--                 as typed at the prompt
--   api           the Lua API reference, from the documentation table (vp.doc)
--   metrics       the metric catalogue (vp.metrics) as a table
-- With --check nothing is written: the exit status is 1 when a file is stale
-- (tests/doc_spec.lua runs this so the documentation cannot drift from the
-- code).
local doc = require "vp.doc"
local pages = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "docs_pages.lua")
local quote = pages.quote

local check, paths = pages.command_line(arg, "--check", "usage: vpscript tools/gen_docs.lua [--check] [FILE...]")

local function bin()
  return os.getenv("VPSCRIPT_BIN") or "./vpscript"
end

-- Where the build tree lives is not part of what a reader should see.
local function tidy(out)
  return (out:gsub("[^\n]*/stdlib/vp/", "stdlib/vp/"):gsub("%s+$", ""))
end

local function shell(args, stdin)
  local words = {}
  for w in args:gmatch("%S+") do words[#words + 1] = quote(w) end
  -- COLUMNS unset: the samples are what a pipe gets, whoever runs this
  local cmd = "COLUMNS= " .. quote(bin()) .. " " .. table.concat(words, " ") .. " 2>&1"
  local tmp
  if stdin then
    tmp = os.tmpname()
    pages.write(tmp, stdin)
    cmd = cmd .. " <" .. quote(tmp)
  end
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, how, code = p:close()
  if tmp then os.remove(tmp) end
  if how == "signal" then code = 128 + code end
  return out, code
end

-- A JSON document indented, token by token: keys stay in the order printed
-- and numbers as printed; an empty [] or {} stays on one line.
local function indent_json(s)
  local out, depth, i = {}, 0, 1
  local function nl() out[#out + 1] = "\n" .. ("  "):rep(depth) end
  while i <= #s do
    local c = s:sub(i, i)
    if c == '"' then
      local j = i + 1
      while s:sub(j, j) ~= '"' do j = j + (s:sub(j, j) == "\\" and 2 or 1) end
      out[#out + 1] = s:sub(i, j)
      i = j
    elseif (c == "{" or c == "[") and s:sub(i + 1, i + 1) == (c == "{" and "}" or "]") then
      out[#out + 1] = s:sub(i, i + 1)
      i = i + 1
    elseif c == "{" or c == "[" then
      out[#out + 1] = c
      depth = depth + 1
      nl()
    elseif c == "}" or c == "]" then
      depth = depth - 1
      nl()
      out[#out + 1] = c
    elseif c == "," then
      out[#out + 1] = c
      nl()
    elseif c == ":" then
      out[#out + 1] = ": "
    elseif not c:match("%s") then
      out[#out + 1] = c
    end
    i = i + 1
  end
  return table.concat(out)
end

local function run(args, max_lines, json)
  local out, code = shell(args)
  out = tidy(out)
  if json then
    if code ~= 0 or not out:match("^[{%[]") then
      error(("json section '%s': exit status %d\n%s"):format(args, code, out))
    end
    out = indent_json(out)
  end
  if max_lines then
    local lines, n = {}, 0
    for line in (out .. "\n"):gmatch("(.-)\n") do
      n = n + 1
      if n <= max_lines then lines[#lines + 1] = line end
    end
    while #lines > 0 and lines[#lines] == "" do lines[#lines] = nil end
    if n > max_lines then lines[#lines + 1] = ("... (%d more lines)"):format(n - #lines) end
    out = table.concat(lines, "\n")
  end
  if code ~= 0 then out = out .. ("\n[exit status %d]"):format(code) end
  return "```\n$ ./vpscript " .. args .. "\n" .. out .. "\n```"
end

-- The REPL reads a pipe without echoing it: each line read is preceded by a
-- prompt ("vp> ", or "... " inside an unfinished chunk), at the start of a
-- line or right after the previous prompt. Put each input line back after
-- its prompt. The banner names the Lua release, which is the machine's.
local function repl(args)
  local file, rest = args:match("^(%S+)%s*;;%s*(.*)$")
  if not file then error("repl section: expected 'repl FILE ;; LINE ;; ...', got '" .. args .. "'") end
  local inputs = {}
  for line in (rest .. ";;"):gmatch("%s*(.-)%s*;;") do inputs[#inputs + 1] = line end
  local out, code = shell("-i " .. file, table.concat(inputs, "\n") .. "\n")
  if code ~= 0 then error(("repl section '%s': exit status %d\n%s"):format(args, code, out)) end
  out = out:gsub("^vpscript [^\n]*\n", "")
  local function prompt_at(i)
    local p = out:sub(i, i + 3)
    return p == "vp> " or p == "... "
  end
  local shown, pos = {}, out:find("vp> ", 1, true)
  if not pos then error("repl section '" .. args .. "': no prompt in\n" .. out) end
  shown[1] = out:sub(1, pos - 1)
  for k = 1, #inputs do
    local q = pos + 4
    while q <= #out and not (prompt_at(q) and (q == pos + 4 or out:sub(q - 1, q - 1) == "\n")) do q = q + 1 end
    if q > #out then error(("repl section '%s': no prompt for line %d in\n%s"):format(args, k + 1, out)) end
    shown[#shown + 1] = out:sub(pos, pos + 3) .. inputs[k] .. "\n" .. out:sub(pos + 4, q - 1)
    pos = q
  end
  return "```\n$ ./vpscript -i " .. file .. "\n" .. tidy(table.concat(shown)) .. "\n```"
end

local function md_escape(s)
  return (tostring(s or ""):gsub("|", "\\|"):gsub("\n", " "))
end

-- The metric catalogue as one Markdown table (docs/metrics-table.md). better: "-" for neither direction;
-- per-frame test: whether per-frame (per-sample) values exist to test a
-- change on, and for which formats when not all; normalised by: the metric
-- a total is divided by when two captures differ in it.
local BETTER = { lower = "lower", higher = "higher", none = "-", depends = "depends" }

local function metrics()
  local cat = require "vp.metrics"
  local function test_cell(e)
    if not e.distribution then return "" end
    if #e.distribution_formats == #e.formats then return "yes" end
    return "yes (" .. table.concat(e.distribution_formats, ", ") .. ")"
  end
  local rows = {
    "| metric | unit | better | formats | per-frame test | normalised by | definition |",
    "|---|---|---|---|---|---|---|",
  }
  for _, e in ipairs(cat.list()) do
    rows[#rows + 1] = ("| `%s` | %s | %s | %s | %s | %s | %s |"):format(md_escape(e.name), md_escape(e.unit),
      BETTER[e.polarity] or md_escape(e.polarity), md_escape(table.concat(e.formats, ", ")), test_cell(e),
      e.per and ("`" .. md_escape(e.per) .. "`") or "", md_escape(e.doc))
  end
  return table.concat(rows, "\n")
end

local function generate(kind, args)
  if kind == "run" then return run(args) end
  local head = kind:match("^run:(%d+)$")
  if head then return run(args, tonumber(head)) end
  if kind == "json" then return run(args, nil, true) end
  local jhead = kind:match("^json:(%d+)$")
  if jhead then return run(args, tonumber(jhead), true) end
  if kind == "repl" then return repl(args) end
  if kind == "api" then return (doc.markdown():gsub("%s+$", "")) end
  if kind == "metrics" then return metrics() end
  error(("unknown generated section '%s'"):format(kind))
end

local function regenerate(text)
  local out, pos, sections = {}, 1, 0
  while true do
    local s, e, spec = text:find("<!%-%- BEGIN GENERATED: ([^\n]-) %-%->\n", pos)
    if not s then break end
    local es, ee = text:find("<!%-%- END GENERATED %-%->", e + 1)
    if not es then error(("section '%s' has no END marker"):format(spec)) end
    local kind, args = spec:match("^(%S+)%s*(.*)$")
    out[#out + 1] = text:sub(pos, e)
    out[#out + 1] = generate(kind, args) .. "\n"
    out[#out + 1] = text:sub(es, ee)
    pos = ee + 1
    sections = sections + 1
  end
  out[#out + 1] = text:sub(pos)
  return table.concat(out), sections
end

local stale = 0
for _, path in ipairs(paths) do
  local text = pages.read(path)
  local new, sections = regenerate(text)
  if check then
    if new ~= text then
      io.stderr:write(("vpscript: %s is stale: run `make docs`\n"):format(path))
      stale = stale + 1
    end
  elseif new ~= text then
    pages.write(path, new)
    print(("%s: %d generated sections written"):format(path, sections))
  end
end
if stale > 0 then os.exit(1) end
