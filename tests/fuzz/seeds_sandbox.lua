-- seeds_sandbox.lua: the seed corpus of the rules-file sandbox harness
-- (lua_sandbox.lua): the shipped rules files and small hostile ones (a
-- loop, a pcall loop, allocation, a cycle, a function, deep nesting, many
-- references to one rule), each behind each selector byte (the limits).
--
--   ./vpscript tests/fuzz/seeds_sandbox.lua DIR
package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local S = require "seedlib"
local seeds = S.start("seeds_sandbox.lua")

local files = {}
for _, name in ipairs({ "vprof", "vprof_regress", "vprof_runs", "devt", "dlag", "dm", "dw", "laige" }) do
  files[name] = S.read(S.root .. "/examples/rules/" .. name .. ".lua")
end
files.loop = "while true do end"
files.pcall_loop = "while true do pcall(function() while true do end end) end"
files.alloc = "local t = {} while true do t[#t + 1] = string.rep('x', 1 << 16) .. #t end"
files.cycle = "local t = {} t[1] = t return t"
files.fn = "return { { metric = 'hitches', max = function() end } }"
files.deep = "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end return t"
files.refs = "local r = { metric = 'hitches', max = 1 } local t = {} for i = 1, 1e5 do t[i] = r end return t"
files.keys = "return { { metric = 'x', [true] = 1, [2.5] = 2, b = 'c', [{}] = 3 } }"
files.big_error = "error(string.rep('x', 1 << 20))"
files.rep_empty = "return { { metric = string.rep('', math.maxinteger) } }"
for name, text in pairs(files) do
  for sel = 0, 2 do seeds.put(name .. "_" .. sel, sel, text) end
end
seeds.done()
