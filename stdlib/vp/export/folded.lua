-- vp.export.folded: collapsed stacks ("Root;A;B 1234", one line per stack)
-- of a VProf capture's self time, summed over the frames it holds, in whole
-- microseconds: what flamegraph.pl, inferno, speedscope and the Firefox
-- profiler read. With a baseline, the differential form of difffolded.pl:
-- "stack base_us new_us" for every stack of either capture.
--
--   local folded = require "vp.export.folded"
--   local lines = folded.stacks(cap)           -- {[stack] = us}
--   folded.write(cap, io.stdout, {baseline = base})
--
-- A stack is the node's path from the root, its names joined by ";" (a
-- same-named sibling keeps its "#2" suffix; ";" inside a name becomes ","
-- and line breaks become spaces, so a line always parses). Stacks with no
-- self time are left out; lines are in byte order of the stack.
local folded = {}

local function label(node)
  local name, path = node.name, node.path
  if path:sub(-#name) ~= name then
    local suffix = path:match("#%d+$")
    if suffix then name = name .. suffix end
  end
  return (name:gsub(";", ","):gsub("[\r\n]", " "))
end

--- folded.stacks(cap) -> {[stack] = microseconds}, total: each node's self
-- time over the frames the capture holds (cap:node_stats), keyed by stack.
function folded.stacks(cap)
  local out, stack, total = {}, {}, 0
  for _, row in ipairs(cap:totals()) do -- pre-order: a parent comes first
    local node = row.node
    local parent = node.parent
    local s = parent and (stack[parent] .. ";" .. label(node)) or label(node)
    stack[node] = s
    local us = math.floor(row.self_ms * 1000 + 0.5)
    if us > 0 then
      out[s] = (out[s] or 0) + us
      total = total + us
    end
  end
  return out, total
end

local function sorted_keys(...)
  local keys, seen = {}, {}
  for i = 1, select("#", ...) do
    for k in pairs((select(i, ...))) do
      if not seen[k] then
        seen[k] = true
        keys[#keys + 1] = k
      end
    end
  end
  table.sort(keys)
  return keys
end

--- folded.write(cap, file, {baseline = cap2}) -> lines, total: write the
-- lines; returns how many, and the capture's microseconds written.
function folded.write(cap, f, params)
  local new, total = folded.stacks(cap)
  local base = params and params.baseline and folded.stacks(params.baseline)
  local put, flush = require("vp.export").buffer(f)
  local lines = 0
  for _, s in ipairs(sorted_keys(new, base or {})) do
    if base then
      put(string.format("%s %d %d\n", s, base[s] or 0, new[s] or 0))
    else
      put(string.format("%s %d\n", s, new[s]))
    end
    lines = lines + 1
  end
  flush()
  return lines, total
end

return folded
