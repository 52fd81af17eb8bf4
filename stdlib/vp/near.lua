-- vp.near: the names nearest a name that matched nothing, for the "did you
-- mean" of every message that names something missing (a script, an
-- option, a metric, a budget group, a node path, ...).
--
--   local near = require "vp.near"
--   near.names("Physic", {"Physics", "Sound", "Physics_Step"})   --> {"Physics", "Physics_Step"}
--   near.hint("hitchs", {"hitches.lua", "top.lua"})              --> " (did you mean 'hitches.lua'?)"
--
-- A name is near a candidate when, compared without regard to case, the
-- candidate holds it, or is within a few edits of it (an edit:
-- a character inserted, removed, changed, or two neighbours swapped;
-- allowed: a quarter of the name's length, at least 1). A candidate ending
-- in a suffix the name lacks (".lua") is also compared without it. Only
-- the nearest (as few edits as the nearest), shorter candidates first,
-- then byte order, so the same question always gets the same answer. A
-- name of fewer than 3 characters gets none.
local near = {}

-- Edits between a and b (optimal string alignment), or nil when more than
-- `limit`: only the cells within `limit` of the diagonal are computed, so
-- a long list of long names costs little.
local function distance(a, b, limit)
  if math.abs(#a - #b) > limit then return nil end
  -- names that differ somewhere in the middle (paths, long prefixes) share
  -- their ends, which an edit never needs (one is kept so a swap across
  -- the cut is still seen)
  local p, n = 0, math.min(#a, #b)
  while p < n - 1 and a:byte(p + 1) == b:byte(p + 1) do p = p + 1 end
  local q = 0
  while q < n - p - 1 and a:byte(#a - q) == b:byte(#b - q) do q = q + 1 end
  p, q = math.max(0, p - 1), math.max(0, q - 1)
  a, b = a:sub(p + 1, #a - q), b:sub(p + 1, #b - q)
  local la, lb = #a, #b
  local prev2, prev = {}, {}
  for j = 0, lb do prev[j] = j end
  local big = limit + 1
  for i = 1, la do
    local cur = {}
    local lo, hi = math.max(1, i - limit), math.min(lb, i + limit)
    cur[0] = i
    if lo > 1 then cur[lo - 1] = big end
    local best = i <= limit and i or big
    local ca = a:byte(i)
    for j = lo, hi do
      local cb = b:byte(j)
      local d = math.min((prev[j] or big) + 1, (cur[j - 1] or big) + 1, (prev[j - 1] or big) + (ca == cb and 0 or 1))
      if i > 1 and j > 1 and ca == b:byte(j - 1) and a:byte(i - 1) == cb then
        d = math.min(d, (prev2[j - 2] or big) + 1)
      end
      cur[j] = d
      if d < best then best = d end
    end
    if hi < lb then cur[hi + 1] = big end
    if best > limit then return nil end
    prev2, prev = prev, cur
  end
  local d = prev[lb] or big
  return d <= limit and d or nil
end

--- near.distance(a, b [, limit]) -> edits | nil: the edits between two
-- strings (case counts), nil when more than limit (default: no limit).
function near.distance(a, b, limit)
  return distance(a, b, limit or math.max(#a, #b))
end

--- near.names(name, candidates [, n]) -> {candidate, ...}: the candidates
-- near name, nearest first, at most n (default 3).
function near.names(name, candidates, n)
  local want = tostring(name):lower()
  if #want < 3 then return {} end -- every short name is an edit or two from another
  local limit = math.max(1, #want // 4)
  local scored, seen = {}, {}
  for _, c in ipairs(candidates) do
    if type(c) == "string" and not seen[c] then
      seen[c] = true
      local low = c:lower()
      local d
      if low == want then
        d = 0
      elseif #want >= 3 and low:find(want, 1, true) then
        d = 0.5 + math.abs(#low - #want) / 1000
      else
        d = distance(want, low, limit)
        local stem = low:match("^(.+)%.%w+$")
        if stem and not want:find(".", 1, true) then
          local ds = stem == want and 0.25 or distance(want, stem, limit)
          if ds and (not d or ds < d) then d = ds end
        end
      end
      if d then scored[#scored + 1] = { c = c, d = d } end
    end
  end
  table.sort(scored, function(x, y)
    if x.d ~= y.d then return x.d < y.d end
    if #x.c ~= #y.c then return #x.c < #y.c end
    return x.c < y.c
  end)
  local out = {}
  for i = 1, math.min(n or 3, #scored) do
    if scored[i].d >= math.floor(scored[1].d) + 1 then break end
    out[i] = scored[i].c
  end
  return out
end

--- near.hint(name, candidates) -> " (did you mean 'A'?)", " (did you mean
-- 'A' or 'B'?)", or "" when none is near.
function near.hint(name, candidates)
  local list = near.names(name, candidates)
  if #list == 0 then return "" end
  for i, c in ipairs(list) do list[i] = "'" .. c .. "'" end
  local last = table.remove(list)
  return " (did you mean " .. (#list > 0 and table.concat(list, ", ") .. " or " or "") .. last .. "?)"
end

return near
