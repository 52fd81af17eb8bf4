-- run_busted.lua: run the busted specs inside vpscript, against the real bindings
--
--   ./vpscript tests/run_busted.lua                 every tests/**/*_spec.lua
--   ./vpscript tests/run_busted.lua tests/x_spec.lua [busted options]
--
-- With no arguments the root is the directory of this file and the pattern
-- "_spec". The last line of output is always
--   busted: N passed, N failed, N skipped
-- and the exit status is non-zero when anything failed or errored.
-- Specs can `require "helpers"` (tests/helpers.lua): this file's directory
-- is put on package.path.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."

package.path = here .. "/?.lua;" .. package.path

local args = {}
for i = 1, #arg do args[i] = arg[i] end
local has_root, has_output = false, false
for _, a in ipairs(args) do
  -- A root is an existing file or directory (option values are not).
  local f = a:sub(1, 1) ~= "-" and io.open(a, "r")
  if f then f:close(); has_root = true end
  if a == "-o" or a:match("^%-%-output") then has_output = true end
end
if not has_output then
  table.insert(args, 1, "--output=" .. here .. "/busted_output.lua")
end
if not has_root then
  args[#args + 1] = "--pattern=_spec"
  args[#args + 1] = here
end
-- busted reads the global `arg`; keep arg[0] (its name in messages).
-- luacheck: push globals arg
for i = #arg, 1, -1 do arg[i] = nil end
for i, a in ipairs(args) do arg[i] = a end
-- luacheck: pop

-- The runner exits non-zero itself on failures (os.exit); on success it
-- returns and so does this script, with status 0.
require "busted.runner"({ standalone = false })
