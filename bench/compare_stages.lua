-- compare_stages.lua: compare.lua's work on FILE against itself, stopped
-- after a stage, so that timing each stage and differencing says where the
-- time goes (BENCHMARKS.md, "What a comparison cannot do without"):
--   1  both captures read with their statistics (cli.open_runs)
--   2  and paired (phases and stretch profiles: vp.compare.pair)
--   3  and compared (vp.compare.analyze: the tests' pass and the rows)
--   4  and the JSON document written (as compare.lua --json)
--
--   farm-bench -n 5 --vs 'build/bench/floor FILE' -- ./vpscript bench/compare_stages.lua FILE STAGE
local cli = require "vp.cli"
local compare = require "vp.compare"
local metrics = require "vp.metrics"

local path, stage = arg[1], tonumber(arg[2] or "")
if not path or not stage or stage < 1 or stage > 4 then
  io.stderr:write("usage: vpscript bench/compare_stages.lua FILE STAGE (1..4)\n")
  os.exit(2)
end
local ca, cb = cli.open_runs({ path }, nil, nil, { path }, nil, nil)
if stage == 2 then
  for _, c in ipairs(ca) do metrics.will_test(c) end
  for _, c in ipairs(cb) do metrics.will_test(c) end
  compare.pair(compare.side(ca), compare.side(cb), {})
elseif stage >= 3 then
  local r = compare.analyze(ca, cb, {})
  if stage == 4 then cli.json(require("vp.compare.render").document(r), compare.schema) end
end
