-- gen_readme.lua: regenerate the generated parts of README.md.
--
--   vpscript tools/gen_readme.lua [--check] [README]
--
-- README.md keeps its prose by hand; the parts between
--   <!-- BEGIN GENERATED: KIND ARGS -->  and  <!-- END GENERATED -->
-- are rebuilt from their one source:
--   run ARGS...   the output of `vpscript ARGS...` on the shipped examples
--   run:N ARGS... the same, cut after N lines
--   api           the Lua API reference, from the documentation table (vp.doc)
--   metrics       the metric catalogue (vp.metrics)
-- With --check nothing is written: the exit status is 1 when the README is
-- stale (a spec runs this so the README cannot drift from the code).
local doc = require "vp.doc"

local check = false
local path = "README.md"
for _, a in ipairs(arg) do
  if a == "--check" then
    check = true
  elseif a == "-h" or a == "--help" then
    print("usage: vpscript tools/gen_readme.lua [--check] [README]")
    os.exit(0)
  else
    path = a
  end
end

local function quote(s)
  if s:match("^[%w%./_:=,+%-]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function bin()
  return os.getenv("VPSCRIPT_BIN") or "./vpscript"
end

local function run(args, max_lines)
  local words = {}
  for w in args:gmatch("%S+") do words[#words + 1] = quote(w) end
  local cmd = quote(bin()) .. " " .. table.concat(words, " ") .. " 2>&1"
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  p:close()
  -- Where the build tree lives is not part of what a reader should see.
  out = out:gsub("[^\n]*/stdlib/vp/", "stdlib/vp/"):gsub("%s+$", "")
  if max_lines then
    local lines, n = {}, 0
    for line in (out .. "\n"):gmatch("(.-)\n") do
      n = n + 1
      if n <= max_lines then lines[#lines + 1] = line end
    end
    if n > max_lines then lines[#lines + 1] = ("... (%d more lines)"):format(n - max_lines) end
    out = table.concat(lines, "\n")
  end
  return "```\n$ vpscript " .. args .. "\n" .. out .. "\n```"
end

local function md_escape(s)
  return (tostring(s or ""):gsub("|", "\\|"):gsub("\n", " "))
end

local function api()
  local out = {}
  for _, c in ipairs(doc.classes()) do
    out[#out + 1] = ("### %s\n"):format(c.title and (c.title .. " (`" .. c.class .. "`)") or c.class)
    if c.doc then out[#out + 1] = c.doc .. "\n" end
    for _, m in ipairs(c.members or {}) do
      local sig = m.sig or m.name
      out[#out + 1] = ("- `%s` (%s): %s"):format(sig, m.kind, m.doc or "")
      if m.example then
        out[#out + 1] = "\n  ```lua\n  " .. m.example:gsub("\n", "\n  ") .. "\n  ```"
      end
    end
    out[#out + 1] = ""
  end
  return table.concat(out, "\n"):gsub("%s+$", "")
end

local function metrics()
  local ok, cat = pcall(require, "vp.metrics")
  if not ok or type(cat) ~= "table" or type(cat.list) ~= "function" then
    return "(the metric catalogue is not available)"
  end
  local rows = { "| metric | unit | better | formats | definition |", "|---|---|---|---|---|" }
  for _, m in ipairs(cat.list()) do
    local formats = type(m.formats) == "table" and table.concat(m.formats, ", ") or m.formats
    rows[#rows + 1] = ("| `%s` | %s | %s | %s | %s |"):format(md_escape(m.name), md_escape(m.unit),
      md_escape(m.polarity or m.better), md_escape(formats), md_escape(m.definition or m.doc))
  end
  return table.concat(rows, "\n")
end

local function generate(kind, args)
  if kind == "run" then return run(args) end
  local head = kind:match("^run:(%d+)$")
  if head then return run(args, tonumber(head)) end
  if kind == "api" then return api() end
  if kind == "metrics" then return metrics() end
  error(("README: unknown generated section '%s'"):format(kind))
end

local f = assert(io.open(path, "rb"))
local text = f:read("a")
f:close()

local out, pos, sections = {}, 1, 0
while true do
  local s, e, spec = text:find("<!%-%- BEGIN GENERATED: ([^\n]-) %-%->\n", pos)
  if not s then break end
  local es, ee = text:find("<!%-%- END GENERATED %-%->", e + 1)
  if not es then error(("README: section '%s' has no END marker"):format(spec)) end
  local kind, args = spec:match("^(%S+)%s*(.*)$")
  out[#out + 1] = text:sub(pos, e)
  out[#out + 1] = generate(kind, args) .. "\n"
  out[#out + 1] = text:sub(es, ee)
  pos = ee + 1
  sections = sections + 1
end
out[#out + 1] = text:sub(pos)
local new = table.concat(out)

if check then
  if new ~= text then
    io.stderr:write(("vpscript: %s is stale: run `make readme`\n"):format(path))
    os.exit(1)
  end
  print(("%s: %d generated sections up to date"):format(path, sections))
else
  local w = assert(io.open(path, "wb"))
  w:write(new)
  w:close()
  print(("%s: %d generated sections written"):format(path, sections))
end
