-- What vpscript's own API says about the frames, call trees, budget groups
-- and node totals that report.lua's page shows, as JSON, for
-- tests/consumers/report_live.test.mjs to hold the page's figures to. Each
-- figure is computed the plain way here, from cap:frame(i) and the
-- columns, not from the passes the page's data comes from.
--   vpscript tests/consumers/report_truth.lua frames CAPTURE FIRST LAST
--     [{frame, tick, frame_ms, top_group}]: top_group the budget group with
--     the most self time in the frame (the sum of its nodes' frame:self_ms;
--     the lower id of a tie), null when none has any
--   vpscript tests/consumers/report_truth.lua tree CAPTURE FRAME
--     {frame, tick, frame_ms, nodes: [{path, time_ms, self_ms, calls}],
--      excess: {path: ms}}: the frame's nodes in pre-order, and each node's
--     self time over its own baseline (vp.hitches.core.causes, every node above it)
--   vpscript tests/consumers/report_truth.lua group CAPTURE NAME
--     [ms]: the group's self time per frame (cap:group_self_ms)
--   vpscript tests/consumers/report_truth.lua stretch CAPTURE K J
--     {frames, nodes: {path: {time_ms, self_ms}}}: node totals over the
--     J-th of K equal stretches of the capture (cap:totals)
--   vpscript tests/consumers/report_truth.lua hitchy OUT.vprof
--     writes a capture with hitches that share causes: 3,000 frames of
--     about 14 ms; Stream_LoadChunk (Streaming) +30 ms at frames 500, 1400
--     and 2300, Ragdoll (Physics) +25 ms at 900 and 2700
local vp = require "vp"
local json = require "vp.json"

local mode, path = arg[1], arg[2]

if mode == "hitchy" then
  local w = vp.writer("vprof", path)
  w:default_groups()
  local frame = w:node(w.root_id, "CEngine::Frame", 3)
  local render = w:node(frame, "Render", 1)
  local phys = w:node(frame, "Physics_Step", 8)
  local ragdoll = w:node(phys, "Ragdoll", 8)
  local stream = w:node(frame, "Stream_LoadChunk", 22)
  local sound = w:node(frame, "Sound_Update", 20)
  local spike = { [500] = "s", [1400] = "s", [2300] = "s", [900] = "p", [2700] = "p" }
  for i = 1, 3000 do
    local r, p, rd, s, so = 8000 + (i * 37 % 11) * 100, 2500 + (i * 13 % 7) * 60, 400, 200, 900 + (i % 5) * 20
    if spike[i] == "s" then s = s + 30000 end
    if spike[i] == "p" then rd = rd + 25000 end
    w:frame(1000 + i, { [w.root_id] = { us = 0, calls = 1 }, [frame] = r + p + rd + s + so + 300, [render] = r,
      [phys] = p + rd, [ragdoll] = { us = rd, calls = 4 }, [stream] = s, [sound] = so })
  end
  w:close()
  return
end

local cap = assert(vp.open(path))
local out, schema
if mode == "frames" then
  out, schema = {}, "[{frame, tick, frame_ms, top_group}]"
  for f = tonumber(arg[3]), tonumber(arg[4]) do
    local fr = cap:frame(f)
    local per = {}
    for node in fr:nodes() do
      if node.group then per[node.group.id] = (per[node.group.id] or 0) + fr:self_ms(node) end
    end
    local best, top = 0, nil
    for g in cap:groups() do
      if (per[g.id] or 0) > best then best, top = per[g.id], g.name end
    end
    out[#out + 1] = { frame = f, tick = fr.tick, frame_ms = fr.frame_ms, top_group = top }
  end
elseif mode == "tree" then
  local f = tonumber(arg[3])
  local fr = cap:frame(f)
  out = { frame = f, tick = fr.tick, frame_ms = fr.frame_ms, nodes = {}, excess = {} }
  schema = "{frame, tick, frame_ms, nodes: [{path, time_ms, self_ms, calls}], excess: {}}"
  for node, ms, calls in fr:nodes() do
    out.nodes[#out.nodes + 1] = { path = node.path, time_ms = ms, self_ms = fr:self_ms(node), calls = calls }
  end
  local n = 0
  for _ in cap:nodes() do n = n + 1 end
  local causes = require("vp.hitches.core").causes(cap, f, { window = 30, limit = n })
  for _, c in ipairs(causes) do out.excess[c.node.path] = c.excess_ms end
elseif mode == "group" then
  out, schema = cap:group_self_ms()[arg[3]]:totable(), "[]"
elseif mode == "stretch" then
  local k, j, n = tonumber(arg[3]), tonumber(arg[4]), cap.frame_count
  local a, b = (j - 1) * n // k + 1, j * n // k
  out, schema = { frames = b - a + 1, nodes = {} }, "{frames, nodes: {}}"
  for _, st in ipairs(cap:totals(a, b)) do
    out.nodes[st.node.path] = { time_ms = st.time_ms, self_ms = st.self_ms }
  end
else
  error("report_truth.lua: unknown mode " .. tostring(mode))
end
io.write(json.encode(out, schema), "\n")
cap:close()
