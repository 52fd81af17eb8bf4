-- open_only.lua: open a capture and nothing else (the index-building pass),
-- for bench/run.sh. Prints the frame count and the CPU time of vp.open.
-- With --stats, the open pass also computes every statistic a comparison
-- reads (vp.open's {stats = true}: every node's totals, every group's
-- summary), which is the one read compare.lua makes of each capture before
-- its tests' pass.
--
--   vpscript bench/open_only.lua FILE [--stats]
local vp = require "vp"

local path = arg and arg[1]
local stats = arg and arg[2] == "--stats"
if not path or (arg[2] and not stats) then
    io.stderr:write("usage: vpscript bench/open_only.lua FILE [--stats]\n")
    os.exit(2)
end
local t0 = os.clock()
local cap, msg = vp.open(path, { stats = stats })
if not cap then
    io.stderr:write("vpscript: ", tostring(msg), "\n")
    os.exit(2)
end
io.stdout:write(string.format("%s: %d frames, opened in %.3f s CPU\n", path,
    cap.frame_count or #cap, os.clock() - t0))
cap:close()
