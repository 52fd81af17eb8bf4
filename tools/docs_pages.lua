-- docs_pages.lua: what the two tools that walk the documentation share
-- (tools/gen_docs.lua, which regenerates its generated sections, and
-- tools/docs_run.lua, which runs its commands): the pages, their command
-- line, reading and writing a page, and quoting a word for the shell.
--
--   local pages = dofile(<this directory> .. "docs_pages.lua")
--
-- Both run from the top of the tree.
local M = {}

--- M.quote(s) -> s as one word for the shell (as it is when that is safe).
function M.quote(s)
  if s:match("^[%w%./_:=,+%-]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

--- M.read(path) -> the file's bytes (raises when it cannot be read).
function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

--- M.write(path, data): replace the file's bytes (raises when it cannot).
function M.write(path, data)
  local f = assert(io.open(path, "wb"))
  f:write(data)
  f:close()
end

--- M.pages() -> README.md and every docs/*.md, in byte order.
function M.pages()
  local docs = {}
  for f in require("lfs").dir("docs") do
    if f:match("%.md$") then docs[#docs + 1] = "docs/" .. f end
  end
  table.sort(docs)
  table.insert(docs, 1, "README.md")
  return docs
end

--- M.command_line(argv, flag, usage) -> flagged, paths: a tool's arguments,
-- its one option `flag` and the pages named (default: M.pages()); -h or
-- --help prints usage and exits.
function M.command_line(argv, flag, usage)
  local flagged, paths = false, {}
  for _, a in ipairs(argv) do
    if a == flag then
      flagged = true
    elseif a == "-h" or a == "--help" then
      print(usage)
      os.exit(0)
    else
      paths[#paths + 1] = a
    end
  end
  if #paths == 0 then paths = M.pages() end
  return flagged, paths
end

return M
