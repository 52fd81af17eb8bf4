-- tests/hostile/gen.lua: write issue 15's crafted inputs into a directory.
--
--   ./vpscript tests/hostile/gen.lua DIR                  every case, full size
--   ./vpscript tests/hostile/gen.lua DIR CASE... [--n N]  some, N records each
--   ./vpscript tests/hostile/gen.lua --list               names and what they break
--
-- The cases are tests/hostile/cases.lua; nothing it writes is committed.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/../?.lua;" .. package.path
local cases = require "hostile.cases"

local dir, names, n = nil, {}, nil
local i = 1
while arg[i] do
  local a = arg[i]
  if a == "--list" then
    for _, c in ipairs(cases.list) do
      io.write(string.format("%-26s .%-6s n=%-8d %s\n", c.name, c.ext, c.n, c.about))
    end
    return
  elseif a == "--n" then
    n = math.tointeger(tonumber(arg[i + 1]))
    if not n or n < 0 then
      io.stderr:write("gen.lua: --n takes a whole number\n")
      os.exit(2)
    end
    i = i + 1
  elseif not dir then
    dir = a
  elseif cases.by_name[a] then
    names[#names + 1] = a
  else
    io.stderr:write("gen.lua: no case '", a, "' (--list names them)\n")
    os.exit(2)
  end
  i = i + 1
end
if not dir then
  io.stderr:write("usage: vpscript tests/hostile/gen.lua DIR [CASE...] [--n N] | --list\n")
  os.exit(2)
end
if #names == 0 then
  for _, c in ipairs(cases.list) do names[#names + 1] = c.name end
end
for _, name in ipairs(names) do
  local t0 = os.clock()
  local path = cases.write(dir, name, { n = n })
  local f = assert(io.open(path, "rb"))
  local size = f:seek("end")
  f:close()
  io.write(string.format("%-26s %12d bytes  %6.2f s  %s\n", name, size, os.clock() - t0, path))
end
