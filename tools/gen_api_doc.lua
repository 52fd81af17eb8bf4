-- gen_api_doc.lua: render the Lua API reference (stdlib/vp/doc/*.lua) as Markdown
--
--   vpscript tools/gen_api_doc.lua                  print it
--   vpscript tools/gen_api_doc.lua --update README.md
--   vpscript tools/gen_api_doc.lua --check README.md
--
-- --update replaces the text between the lines
--   <!-- api-reference:begin -->
--   <!-- api-reference:end -->
-- of the file with the generated reference; --check exits 3 when that text
-- differs from what would be generated (the README drifted from the
-- documentation table), 0 when it is current. Exit 2 when the file or its
-- markers are missing or a documentation module is broken.
local cli = require "vp.cli"
local doc = require "vp.doc"

local BEGIN, END = "<!-- api-reference:begin -->", "<!-- api-reference:end -->"

local function usage()
  return table.concat({
    "usage: vpscript tools/gen_api_doc.lua [--update FILE | --check FILE]",
    "",
    "Render the Lua API reference from stdlib/vp/doc/*.lua as Markdown (stdout),",
    "or replace (--update) or verify (--check, exit 3 when stale) the text",
    "between the lines " .. BEGIN .. " and " .. END .. " in FILE.",
  }, "\n") .. "\n"
end

local mode, file
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "-h" or a == "--help" then
    io.stdout:write(usage())
    cli.exit(0)
  elseif a == "--update" or a == "--check" then
    if mode then cli.fail(2, "give only one of --update and --check") end
    mode, file = a:sub(3), arg[i + 1]
    if not file then cli.fail(2, "%s needs a file name", a) end
    i = i + 1
  else
    cli.fail(2, "unexpected argument '%s' (try --help)", a)
  end
  i = i + 1
end

local problems = doc.problems()
if #problems > 0 then
  cli.fail(2, "the documentation table is broken:\n  %s", table.concat(problems, "\n  "))
end
local body = doc.markdown()

if not mode then
  io.stdout:write(body)
  return
end

local f, err = io.open(file, "rb")
if not f then cli.fail(2, "%s", err) end
local text = f:read("a")
f:close()
local b = text:find(BEGIN, 1, true)
local e = b and text:find(END, b, true)
if not (b and e) then
  cli.fail(2, "%s: no %s ... %s section", file, BEGIN, END)
end
local head, tail = text:sub(1, b + #BEGIN - 1), text:sub(e)
local current = text:sub(b + #BEGIN, e - 1)
local wanted = "\n" .. body

if mode == "check" then
  if current ~= wanted then
    cli.fail(3, "%s: the API reference is out of date: run 'vpscript tools/gen_api_doc.lua --update %s'",
      file, file)
  end
  io.stdout:write(file, ": the API reference is current\n")
  return
end

if current ~= wanted then
  local out = assert(io.open(file, "wb"))
  out:write(head, wanted, tail)
  out:close()
  io.stdout:write(file, ": API reference updated\n")
else
  io.stdout:write(file, ": the API reference is already current\n")
end
