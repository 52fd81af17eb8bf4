-- What vpscript's own API says about a VProf capture, as JSON, for the
-- consumer tests to compare the other tools' readings with:
--   vpscript tests/consumers/truth.lua CAPTURE [FIRST LAST]
-- {frames = [{frame, frame_ms}], max_ms, self_us = {path = us}} where
-- self_us is each node's self time summed over the frames (paths with ';'
-- between the names, as collapsed stacks write them).
local vp = require "vp"
local json = require "vp.json"

local cap = assert(vp.open(arg[1], { frames = { tonumber(arg[2]), tonumber(arg[3]) } }))
local frames, times = {}, cap:frame_times()
for i = times.first, times.last do frames[#frames + 1] = { frame = i, frame_ms = times[i] } end
local self_us = {}
for node in cap:nodes() do
  self_us[(node.path:gsub("/", ";"))] = cap:series(node, "self_ms"):sum() * 1000
end
io.write(json.encode({ frames = frames, max_ms = times:max(), self_us = self_us },
  "{frames: [{frame, frame_ms}], max_ms, self_us: {}}"), "\n")
cap:close()
