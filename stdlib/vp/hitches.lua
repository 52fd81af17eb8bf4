-- vp.hitches: frame time statistics and the hitch frames of a capture, each
-- with its causes: the analysis behind scripts/hitches.lua and the metric
-- catalogue's `hitches` and `stutter_pct` (one definition for both).
--
--   local hitches = require "vp.hitches"
--   local doc = hitches.analyze(cap, {factor = 2.5, window = 30})  -- plain data
--   print(#doc.hitches, doc.stutter_pct)
--   doc = hitches.analyze(cap, {rule = "unreal"})   -- Unreal's hitches (vp.anchors), same causes
--   io.write(require("vp.json").encode(doc, hitches.schema))      -- the --json document
--
-- Reads any capture that has per-frame times (cap:frame_times()): VProf
-- recordings, and laige budget reports' per-frame lines. Causes (nodes and
-- budget groups) are found for VProf captures only. The definitions (hitch
-- rule, baseline, stutter %, causes) are hitches.DEFINITIONS (hitches.lua's
-- --help prints them) and docs/metrics.md. params.rule picks the hitch
-- rule: "median" (the default: ours), or the definition of a tool people
-- compare with, "capframex" or "unreal" (vp.anchors.hitch_list); the
-- causes are found the same way whatever the rule.
--
-- Performance: on VProf captures everything happens in C: the frame times
-- come from the open pass, detection is vp.hitches.core.detect (a scan of those
-- times), and each hitch's causes are vp.hitches.core.causes, which decodes only the
-- hitch frame and its window frames. A capture with thousands of hitches
-- costs little more than one with none. Other captures' frame times are a
-- vp.Series, scanned by the same C (s:hitches).
local E = require "vp.error"
require "vp" -- the capture engine below is preloaded with it
local core = require "vp.hitches.core"
local stats = require "vp.stats"
local anchors = require "vp.anchors"

local hitches = {}

hitches.DEFAULTS = { rule = "median", factor = 2.5, window = 30, min_excess_ms = 5, causes = 5 }

--- The hitch rules, in the order --help lists them: ours, then vp.anchors'.
hitches.RULES = { "median", "capframex", "unreal" }

--- The shape of the result (and of `hitches.lua --json`): frame_ms is nil
-- when there are no frames; tick and baseline_ms may be nil; causes and
-- groups are sorted by excess_ms, descending. rule: "median", "threshold"
-- (the median rule with params.threshold_ms: the absolute rule),
-- "capframex" or "unreal"; capframex and unreal: that rule's figures
-- (vp.anchors), null under the other rules. windows: with params.per_ms,
-- the statistics of each consecutive wall-clock window of that length
-- (vp.Series windows), null without.
--- The shape of one window's statistics (hitches.windows), as both
-- hitches.lua --json and report.lua --json carry them.
hitches.windows_schema = "[{first, last, start_ms, span_ms, frames, mean_ms, p99_ms, max_ms, low_1pct_fps, hitches}]"

hitches.schema = "{file, format, rule, frames, frame_range: {first, last}, "
  .. "frame_ms: {mean, p50, p95, p99, max}, low_1pct_fps, low_01pct_fps, "
  .. "stutter_pct, params: {factor, window, min_excess_ms, threshold_ms}, capframex: "
  .. anchors.capframex_schema .. ", unreal: " .. anchors.unreal_schema .. ", hitches: [{frame, tick, frame_ms, "
  .. "baseline_ms, causes: [{node, path, group, self_ms, excess_ms}], groups: [{group, excess_ms}]}], "
  .. "windows: " .. hitches.windows_schema .. "}"

--- Every definition the analysis uses, as hitches.lua's --help prints it.
hitches.DEFINITIONS = [[
Definitions:
  frame time      VProf: the sum of the inclusive times of the root's direct
                  children (the root's own time when that is larger). Other
                  formats: the frame time they record.
  mean, p50..max  over all frames; percentiles are nearest rank: the value at
                  rank ceil(p/100 * n) of the ascending order (p0 = min).
  1 % low FPS     1000 / (mean of the slowest 1 % of frame times, in ms):
                  the slowest floor(n/100) frames, at least one. 0.1 % low
                  likewise with floor(n/1000), at least one.
  baseline        the median of the frame times of the --window frames just
                  before the frame (hitch frames included; for an even count,
                  the mean of the two middle values). Frames 2..window use
                  the fewer frames before them; frame 1 has no baseline.
                  With --frames A:B the frames before A count too, so the
                  range's first frames are judged as in the whole capture
                  (the causes' baselines likewise); every other figure is
                  over A..B only.
  hitch           --rule median (the default): frame time >= --factor x
                  baseline AND frame time - baseline >= --min-excess-ms;
                  frame 1 is never a hitch under this rule. With
                  --threshold-ms X the engine's absolute rule replaces it
                  (vprof_dump_spikes): frame time > X (any frame, frame 1
                  included).
                  --rule capframex (CapFrameX's stuttering, its
                  FrametimeStatisticProvider.cs): frame time > --factor (2.5)
                  x the moving average of the w frames up to and including
                  it, w = 10 x sqrt(mean frame time in ms) rounded half to
                  even (SampleBasedMovingAverage.cs). The baseline shown is
                  factor x that average.
                  --rule unreal (Unreal Engine's ChartCreation.cpp, with
                  t.HitchFrameTimeThreshold, t.HitchVersusNonHitchRatio,
                  t.HitchDeadTimeWindow): frame time >= --threshold-ms (60),
                  > 1.5 x the previous frame time, and ending >= 200 ms (of
                  summed frame time) after the previous hitch ended. The
                  baseline shown is 1.5 x the previous frame time.
  stutter %       --rule median: 100 x (sum of the hitch frames' times) /
                  (sum of all frame times): the share of the time spent in
                  hitch frames. capframex: its stuttering time % (the same
                  share). unreal: its hitch time %, over the frames shorter
                  than 1 s (the engine's chart leaves longer ones out).
  self time       a node's inclusive time minus its children's inclusive
                  times, clamped at 0.
  causes          nodes whose self time in the hitch frame exceeds their own
                  baseline: the median of the node's self time over the same
                  window frames (0 in frames where the node does not exist;
                  0 for frame 1). excess_ms = self_ms - that baseline. The
                  --causes largest, by excess_ms (whatever the rule).
  groups          the same for budget-group self time (the sum of the self
                  times of the group's nodes in a frame).
Frame numbers are 1-based positions in the capture (the tick is the game tick).]]



-- The hitches of the whole capture's frame numbers that lie in first..last.
local function within(list, first, last)
  local out = {}
  for _, h in ipairs(list) do
    if h.frame >= first and h.frame <= last then out[#out + 1] = h end
  end
  return out
end

-- The tick of frame i when the capture has random access to frames.
local function tick_of(cap, i)
  local ok, t = pcall(function()
    local f = cap:frame(i)
    return f and f.tick
  end)
  if ok and math.type(t) then return t end
  return nil
end

-- Causes (VProf): vp.hitches.core.causes gives each hitch's largest node and group
-- excesses over their own window baselines, ties by path and by group name.
local function find_causes(cap, list, window, limit, on_progress)
  local params = { window = window, limit = limit }
  -- Nodes and groups are the same values from call to call: each one's
  -- names are asked of the capture once, not once per hitch.
  local about = {}
  local function names(x, node)
    local d = about[x]
    if not d then
      d = node and { x.name, x.path, x.group and x.group.name } or { x.name }
      about[x] = d
    end
    return d
  end
  for k, h in ipairs(list) do
    local nodes, groups = core.causes(cap, h.frame, params)
    local causes, by_group = {}, {}
    for i, c in ipairs(nodes) do
      local d = names(c.node, true)
      causes[i] = { node = d[1], path = d[2], group = d[3], self_ms = c.self_ms, excess_ms = c.excess_ms }
    end
    for i, g in ipairs(groups) do by_group[i] = { group = names(g.group)[1], excess_ms = g.excess_ms } end
    h.causes, h.groups = causes, by_group
    if on_progress then on_progress(k, #list) end
  end
end

-- stats.low_fps's figure. A VProf capture sums its slowest frames in C
-- (cap:dist("frame_ms"):top_sum: the same sum, in the same order) instead
-- of copying every frame time into a Lua list; ft a part of its frames is a
-- Series.
local function low_fps(cap, ft, pct, part)
  if cap.format ~= "vprof" or part then return (stats.low_fps(ft, pct)) end
  local k = stats.slowest_count(#ft, pct)
  local mean = cap:dist("frame_ms"):top_sum(k) / k
  if mean <= 0 then return nil end
  return 1000 / mean
end

local function check_params(p)
  local function bad(name, what)
    E.raise("EUSAGE", "vp.hitches: params.%s must be %s, not %s", name, what, tostring(p[name]))
  end
  local function number(name, min, strict) E.check_number(p[name], name, "vp.hitches", min, strict) end
  local function count(name, min)
    local v = p[name]
    if v ~= nil and (math.type(v) ~= "integer" or v < min) then bad(name, "an integer of at least " .. min) end
  end
  number("factor", 0, true)
  count("window", 1)
  number("min_excess_ms", 0)
  number("threshold_ms", 0)
  count("causes", 0)
  local rule = p.rule or hitches.DEFAULTS.rule
  local known = false
  for _, r in ipairs(hitches.RULES) do known = known or r == rule end
  if not known then bad("rule", "one of " .. table.concat(hitches.RULES, ", ")) end
  -- each rule takes only its own parameters
  local takes = { median = { "factor", "min_excess_ms", "threshold_ms" }, capframex = { "factor" },
    unreal = { "threshold_ms" } }
  local ok = {}
  for _, k in ipairs(takes[rule]) do ok[k] = true end
  for _, k in ipairs({ "factor", "min_excess_ms", "threshold_ms" }) do
    if p[k] ~= nil and not ok[k] then
      E.raise("EUSAGE", "vp.hitches: params.%s does not apply to the %s rule (it takes %s)", k, rule,
        #takes[rule] > 0 and table.concat(takes[rule], ", ") or "none")
    end
  end
  if p.explain ~= nil and type(p.explain) ~= "boolean" then bad("explain", "a boolean") end
  count("first", 1)
  count("last", 1)
  number("per_ms", 0, true)
end

-- The statistics of each wall-clock window of per_ms over the frame times
-- col, whose position 1 is frame number `first`; hitches: how many of the
-- list's frames fall in the window.
local function windows_of(col, per_ms, list)
  local out = {}
  local k = 1
  for i, w in ipairs(col:windows(per_ms)) do
    local part = col:slice(w.first, w.last)
    local a, b = w.first, w.last
    local hits = 0
    while list[k] and list[k].frame < a do k = k + 1 end
    while list[k] and list[k].frame <= b do hits, k = hits + 1, k + 1 end
    out[i] = { first = a, last = b, start_ms = w.start, span_ms = w.span, frames = #part,
      mean_ms = stats.defined(part:mean()), p99_ms = stats.defined(part:percentile(99)),
      max_ms = stats.defined(part:max()), low_1pct_fps = stats.defined((stats.low_fps(part, 1))), hitches = hits }
  end
  return out
end

--- hitches.analyze(cap, params) -> result, info
-- result (plain data, nil where absent; shaped as hitches.schema): {file,
-- format, rule, frames, frame_range = {first, last} (the capture's frame
-- numbers of the frames analysed: params.first..last, by default
-- cap.first_frame .. cap.last_frame), frame_ms = {mean,
-- p50, p95, p99, max} | nil,
-- low_1pct_fps, low_01pct_fps, stutter_pct, params = {factor, window,
-- min_excess_ms, threshold_ms}, capframex, unreal, hitches = [ {frame,
-- tick, frame_ms, baseline_ms, causes = [...], groups = [...]} ]}. info =
-- {total_ms = the frame times summed}.
-- params (all optional): rule ("median", "capframex" or "unreal"), factor
-- (2.5; median and capframex), window (30: the median rule's baseline and
-- the causes' under every rule), min_excess_ms (5; median), threshold_ms
-- (median: the absolute rule instead; unreal: its threshold, 60), causes
-- (5: listed per hitch), explain (true; false: no causes and no groups are
-- looked for, each hitch's lists are empty: the metrics read only the list
-- and stutter), file (the name the result gives when cap.path is unset),
-- on_progress (function(done, total), called while causes are found),
-- per_ms (the statistics of each consecutive window of that much frame
-- time too: result.windows), first and last (the frames analysed, in the
-- capture's frame numbers; default every frame it holds: the figures are
-- over those frames, and
-- the median rule's baselines and the causes' windows reach into the
-- frames before them, as in the whole capture; the CapFrameX and Unreal
-- rules see the part alone, as those tools would a recording of it).
-- Raises a vp.error: EINPUT when the capture has no per-frame times or its
-- reader fails on corrupt data, EUSAGE for a bad parameter (or one the rule
-- does not take).
function hitches.analyze(cap, params)
  params = params or {}
  check_params(params)
  local rule = params.rule or hitches.DEFAULTS.rule
  local window = params.window or hitches.DEFAULTS.window
  local limit = params.causes or hitches.DEFAULTS.causes
  local file = cap.path or params.file

  -- Generic: any capture with cap:frame_times() works (a VProf capture
  -- hands over the summary its open pass kept: the same figures without
  -- the column, unless a rule of vp.anchors needs the column). A reader
  -- error while decoding (corrupt data) is input that cannot be analysed.
  -- params.first..last: a part of the frames the capture holds; the
  -- figures are the part's, the median rule's baselines and the causes'
  -- windows reach into the frames before it.
  local lo, hi = cap.first_frame, cap.last_frame
  local first, last = params.first or lo, params.last or hi
  if (params.first or params.last) and not (lo and first >= lo and last <= hi and first <= last) then
    E.raise("EUSAGE", "vp.hitches: params.first..last must be frames within %s, not %s..%s",
      lo and (lo .. ".." .. hi) or "the capture's (it has none)", tostring(first), tostring(last))
  end
  local part = lo ~= nil and (first ~= lo or last ~= hi)
  local is_vprof = cap.format == "vprof"
  local whole, ft, err
  if is_vprof and rule == "median" and not part then
    ft = cap:dist("frame_ms")
  elseif type(cap.frame_times) ~= "function" then
    err = "a " .. tostring(cap.format) .. " capture has no per-frame times"
  else
    local ok
    ok, whole = pcall(cap.frame_times, cap)
    if not ok then
      whole, err = nil, E.message(whole)
    elseif whole == nil then
      err = "a " .. tostring(cap.format) .. " capture has no per-frame times"
    end
    ft = whole and part and whole:slice(first, last) or whole
  end
  if err then E.raise("EINPUT", "%s: %s", tostring(file), err) end

  local n = #ft

  local frame_stats, low1, low01
  if n > 0 then
    -- From the C Series: its sorted copy is made once and cached.
    frame_stats = {
      mean = stats.defined(ft:mean()), p50 = stats.defined(ft:percentile(50)),
      p95 = stats.defined(ft:percentile(95)), p99 = stats.defined(ft:percentile(99)),
      max = stats.defined(ft:max()),
    }
    low1 = stats.defined(low_fps(cap, ft, 1, part))
    low01 = stats.defined(low_fps(cap, ft, 0.1, part))
  end

  local total_ms = stats.sum(ft)
  local list, used, figures, stutter_pct
  if rule == "median" then
    local factor = params.factor or hitches.DEFAULTS.factor
    local min_excess = params.min_excess_ms or hitches.DEFAULTS.min_excess_ms
    local threshold = params.threshold_ms
    if threshold then rule = "threshold" end
    -- In C either way (core/hitch): over the frame records of a VProf
    -- capture, over the column of any other.
    local rule_params = { factor = factor, window = window, min_excess_ms = min_excess, threshold_ms = threshold }
    if is_vprof then
      list = core.detect(cap, rule_params)
    else
      list = whole:hitches(rule_params) -- indexed by the capture's frame numbers
    end
    if part then list = within(list, first, last) end
    used = { factor = not threshold and factor or nil, window = window,
      min_excess_ms = not threshold and min_excess or nil, threshold_ms = threshold }
    local hitch_ms = 0
    for _, h in ipairs(list) do hitch_ms = hitch_ms + h.frame_ms end
    stutter_pct = 0
    if hitch_ms > 0 and total_ms > 0 then stutter_pct = 100 * hitch_ms / total_ms end
  else
    -- vp.anchors' rules: the list and the figures by the tool's definition
    local p = rule == "capframex" and { factor = params.factor } or { threshold_ms = params.threshold_ms }
    list, figures = anchors.hitch_list(rule, ft, p) -- ft's own frame numbers
    used = { factor = figures.factor, window = window, threshold_ms = figures.threshold_ms }
    stutter_pct = rule == "capframex" and figures.stutter_time_pct or figures.hitch_time_pct
  end
  for _, h in ipairs(list) do
    if h.tick == nil then h.tick = tick_of(cap, h.frame) end
  end

  if is_vprof and params.explain ~= false then
    find_causes(cap, list, window, limit, params.on_progress)
  else
    for _, h in ipairs(list) do h.causes, h.groups = {}, {} end
  end

  local windows
  if params.per_ms and n > 0 then
    -- the analysed frames' column: ft itself, unless it is the VProf summary
    windows = windows_of(whole and ft or cap:frame_times(), params.per_ms, list)
  end

  local result_hitches = {}
  for i, h in ipairs(list) do
    result_hitches[i] = {
      frame = h.frame, tick = h.tick, frame_ms = h.frame_ms, baseline_ms = h.baseline_ms,
      causes = h.causes, groups = h.groups,
    }
  end

  return {
    file = file,
    format = cap.format,
    rule = rule,
    frames = n,
    frame_range = first and { first = first, last = last } or nil,
    frame_ms = frame_stats,
    low_1pct_fps = low1,
    low_01pct_fps = low01,
    stutter_pct = stats.defined(stutter_pct),
    params = used,
    capframex = rule == "capframex" and figures or nil,
    unreal = rule == "unreal" and figures or nil,
    hitches = result_hitches,
    windows = windows,
  }, { total_ms = total_ms }
end

--- hitches.by_cause(list) -> [{node, path, group, count, excess_ms,
-- worst_frame, worst_excess_ms, frames = []}]: the hitches of
-- analyze's result.hitches grouped by their first cause (the node with
-- the largest excess over its own baseline), the largest total excess
-- first (ties: more hitches, then by path). excess_ms sums that node's
-- excess over its hitches; worst_frame is the hitch where it was largest
-- (the earlier on ties); frames lists the hitches, in frame order.
-- Hitches without a cause (none found, or not looked for) make one entry
-- with node, path and group nil, its excess the frames' over their
-- baselines.
function hitches.by_cause(list)
  local groups, order = {}, {}
  for _, h in ipairs(list) do
    local c = h.causes and h.causes[1]
    local key = c and c.path or ""
    local g = groups[key]
    if not g then
      g = { node = c and c.node, path = c and c.path, group = c and c.group, count = 0, excess_ms = 0, frames = {} }
      groups[key] = g
      order[#order + 1] = g
    end
    local excess = c and c.excess_ms or (h.frame_ms - (h.baseline_ms or 0))
    g.count = g.count + 1
    g.excess_ms = g.excess_ms + excess
    g.frames[#g.frames + 1] = h.frame
    if not g.worst_excess_ms or excess > g.worst_excess_ms
      or (excess == g.worst_excess_ms and h.frame < g.worst_frame) then
      g.worst_frame, g.worst_excess_ms = h.frame, excess
    end
  end
  for _, g in ipairs(order) do table.sort(g.frames) end
  table.sort(order, function(a, b)
    if a.excess_ms ~= b.excess_ms then return a.excess_ms > b.excess_ms end
    if a.count ~= b.count then return a.count > b.count end
    return (a.path or "") < (b.path or "")
  end)
  return order
end

--- The shape of hitches.by_cause's result.
hitches.by_cause_schema = "[{node, path, group, count, excess_ms, worst_frame, worst_excess_ms, frames: []}]"

return hitches
