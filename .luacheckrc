-- luacheck configuration for vpscript (`make lint` runs `luacheck -q` on
-- stdlib/, scripts/, tests/, examples/ and bench/).
std = "lua54"
max_line_length = 120
exclude_files = { "build/**" }

-- Specs run inside vpscript under busted: describe/it/assert/... are globals.
files["tests/"] = { std = "+busted" }

-- The host sets `vp` as a global for user scripts and the REPL, so scripts
-- and examples may read it (never assign it). Shipped scripts still write
-- `local vp = require "vp"` so they also run under stock lua5.4.
files["scripts/"] = { read_globals = { "vp" } }
files["examples/"] = { read_globals = { "vp" } }
files["bench/"] = { read_globals = { "vp" } }
