-- open_only.lua: open a capture and nothing else (the index-building pass),
-- for bench/run.sh. Prints the frame count and the CPU time of vp.open.
--
--   vpscript bench/open_only.lua FILE
local vp = require "vp"

local path = arg and arg[1]
if not path then
    io.stderr:write("usage: vpscript bench/open_only.lua FILE\n")
    os.exit(2)
end
local t0 = os.clock()
local cap, msg = vp.open(path)
if not cap then
    io.stderr:write("vpscript: ", tostring(msg), "\n")
    os.exit(2)
end
io.stdout:write(string.format("%s: %d frames, opened in %.3f s CPU\n", path,
    cap.frame_count or #cap, os.clock() - t0))
cap:close()
