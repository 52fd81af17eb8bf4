-- vp.metrics: the metric catalogue shared by compare.lua and check.lua
-- (vp.compare, vp.gate).
--
--   local metrics = require "vp.metrics"
--   local values, problems = metrics.compute(cap, {"frame_ms.p99", "group.Physics.mean_ms"})
--   local s = metrics.distribution(cap, "group.Physics.mean_ms")  -- per-frame values (for vp.infer)
--   for _, e in ipairs(metrics.list()) do print(e.name, e.unit, e.polarity) end
--
-- Every metric has a name (fixed, like `frame_ms.p99`, or a pattern, like
-- `group.NAME.mean_ms` where NAME is a budget group's name and may contain
-- spaces, slashes or dots), a unit, a polarity ("lower" or "higher" is
-- better, or "none" for figures that are neither, like a frame count), a
-- definition, the formats it applies to, and, where one exists, the
-- per-frame (or per-sample) distribution it summarises, which vp.compare
-- and vp.gate test for significance (vp.infer).
--
-- This file is the catalogue: lookup, listing, values, distributions and
-- changes. The entries are defined by family, each in its own module over
-- a shared per-capture context (vp.metrics.context):
--   vp.metrics.frames   frame counts and times, low FPS, hitches, stutter
--   vp.metrics.vprof    VProf budget groups and nodes
--   vp.metrics.traces   weapon, event, movement and lag traces
--   vp.metrics.laige    laige profile and budget reports
--
-- Work is done only for the names asked: a frame-time metric reads the
-- frame-time Series the reader built at open; group metrics read the
-- per-group self-time Series (also built at open); node metrics make one C
-- pass for all nodes (cap:totals), and their percentiles one more C pass
-- for all the nodes metrics.compute is asked about together (cap:series
-- with a list of nodes). Nothing iterates frames x nodes in Lua.
--
-- Where a shipped script computes the same figure, the catalogue calls the
-- script's analysis module in-process, so a metric and the script cannot
-- disagree: hitches, stutter_pct from vp.hitches; hitdiff.* from vp.hitdiff;
-- events.* from vp.events; movement.* from vp.movement (each analyze(cap),
-- run once per capture, with the script's default options); group.NAME.*
-- from vp.budget.group_stats; lag.NAME.* from vp.lag.summary. No child
-- process is ever started.
--
-- Values are plain data: a number, or nil and the reason it is missing;
-- never NaN. metrics.delta's worse_pct is the one exception: +-math.huge
-- for a change from 0, so that such a change sorts first.
local E = require "vp.error"
local C = require "vp.metrics.context"
local traces = require "vp.metrics.traces"
local near = require "vp.near"

local metrics = {}

--- metrics.finite(v) -> v when it is a finite number, else nil: how
-- vp.compare and vp.gate keep NaN and infinities out of their results.
metrics.finite = C.finite

metrics.HITDIFF_KINDS = traces.HITDIFF_KINDS
metrics.LAG_LOWER = traces.LAG_LOWER

-- Catalogue --------------------------------------------------------------------------
-- Entry fields: name, unit, polarity (string or function(param) -> string),
-- formats, doc; for patterns: match (Lua pattern capturing the NAME part),
-- kind (what NAME names), names (function(ctx) -> list of NAME values),
-- valid (function(param) -> boolean, optional); get(ctx, param) -> value |
-- nil, why; dist(ctx, param) -> Series | nil and dist_formats (when not all
-- the formats have one); per = the metric a total is divided by when two
-- captures differ in it; prefetch({{ctx, asked = {{param, field}, ...}},
-- ...}) with series_field: work metrics.compute_all does once for all the
-- names and captures asked; test_prefetch(jobs): the same for the passes
-- testing a distribution needs (metrics.prepare_tests). A family of any
-- threshold or percentile (frames_over_ms.X, group.NAME.pX_ms) captures
-- that X too: get(ctx, param, arg) with arg the X as written; arg_only
-- when X is all the pattern captures, arg_of_family (never listed by
-- metrics.available), quantile_arg (its distribution's statistic is the
-- X-th percentile).

local CATALOGUE = {}
for _, family in ipairs({ "frames", "vprof", "traces", "laige" }) do
  for _, e in ipairs(require("vp.metrics." .. family).entries) do CATALOGUE[#CATALOGUE + 1] = e end
end

-- Lookup ------------------------------------------------------------------------------------

local FIXED = {}
for _, e in ipairs(CATALOGUE) do
  if not e.match then FIXED[e.name] = e end
  e.format_set = {}
  for _, f in ipairs(e.formats) do e.format_set[f] = true end
end

-- Names already looked up: each catalogue pattern scans a name once, not
-- once per lookup (a node path of megabytes is in every one of its metrics'
-- names, and a comparison looks each up many times).
local FOUND = {}

--- metrics.lookup(name) -> entry, param, arg | nil, message
-- The catalogue entry for a metric name (param: the NAME/PATH/KIND part;
-- arg: the X of a family of any threshold or percentile, frames_over_ms.X,
-- group.NAME.pX_ms, as a string).
function metrics.lookup(name)
  if type(name) ~= "string" or name == "" then return nil, "a metric name must be a non-empty string" end
  local e = FIXED[name]
  if e then return e, nil end
  local hit = FOUND[name]
  if hit then return hit[1], hit[2], hit[3] end
  for _, x in ipairs(CATALOGUE) do
    if x.match then
      local param, arg = name:match(x.match)
      if x.arg_only then param, arg = nil, param end
      local matched = x.arg_only and arg ~= nil or (param ~= nil and param ~= "")
      if matched and (not x.valid or x.valid(param, arg)) then
        FOUND[name] = { x, param, arg }
        return x, param, arg
      end
    end
  end
  return nil, string.format("unknown metric '%s'%s (see docs/metrics-table.md or metrics.list())", name,
    metrics.hint(name))
end

--- metrics.hint(name) -> " (did you mean 'frame_ms.p99'?)" or "": the
-- catalogue names nearest an unknown metric name (vp.near); for a name of
-- a pattern's family (group.Physics.mean), the family's names with its
-- NAME part.
function metrics.hint(name)
  local candidates = {}
  for _, e in ipairs(CATALOGUE) do
    if e.arg_of_family then -- luacheck: ignore 542
      -- a family of any X: its fixed members are candidates already
    elseif e.match then
      local head, tail = e.name:match("^(%a+%.)%u+(%..*)$")
      local rest = head and name:sub(1, #head) == head and name:sub(#head + 1)
      local param = rest and (rest:match("^(.+)%.[^.]*$") or rest)
      if param and not param:find("^%.") then candidates[#candidates + 1] = head .. param .. tail end
    else
      candidates[#candidates + 1] = e.name
    end
  end
  return near.hint(name, candidates)
end

-- What the NAME part of a pattern metric names, for messages.
local KIND_WORDS = { group = "budget group", node = "node", system = "system", budget = "budget",
  measurement = "lag measurement", event = "event group and type", kind = "kind" }

--- metrics.known(cap, name) -> true | false, message: false when name is a
-- pattern metric (group.NAME.*, node.PATH.*, lag.NAME.*, ...) whose NAME
-- this capture does not have, with a message naming it and the nearest
-- names the capture has ("no budget group 'Physic' (did you mean
-- 'Physics'?)"); true for any other name (a fixed metric, an unknown one,
-- one of another format: metrics.value says why those have no value).
function metrics.known(cap, name)
  local e, param = metrics.lookup(name)
  if not e or not e.match or not e.names or not metrics.applies(e, cap.format) then return true end
  local ctx = C.of(cap)
  if e.has then
    if e.has(ctx, param) then return true end
  else
    for _, n in ipairs(e.names(ctx)) do
      if n == param then return true end
    end
  end
  local names = e.names(ctx)
  if e.kind == "node" and not param:find("^Root/") then -- a path from the root's children: answered alike
    local relative = {}
    for i, path in ipairs(names) do relative[i] = path:gsub("^Root/", "") end
    names = relative
  end
  return false, string.format("no %s '%s'%s", KIND_WORDS[e.kind] or e.kind, param, near.hint(param, names))
end

--- metrics.open_stats(entries [, params]) -> the statistics a VProf capture
-- should compute while it is read (vp.open's `stats`) for metrics of these
-- catalogue entries: the groups' for group.*, the nodes' for node.*,
-- neither for the frame figures. params[i], the parameter of entries[i]
-- (a node.* metric's path), narrows the node totals to the nodes of those
-- names (nodes = {names}); without them, every node's. A statistic asked
-- for later is computed then, in a pass of its own, so this only spares
-- the open the work no metric here reads.
function metrics.open_stats(entries, params)
  local want = { groups = false, nodes = false }
  local names, all = {}, false
  for i, e in ipairs(entries) do
    if e.kind == "group" then want.groups = true end
    if e.kind == "node" then
      local path = params and params[i]
      -- A path's last component is the node's name, but for a "#k" that
      -- tells same-named siblings apart (or is part of the name: both).
      local name = type(path) == "string" and path:match("([^/]+)$")
      if name then
        names[#names + 1] = name
        local bare = name:match("^(.-)#%d+$")
        if bare and bare ~= "" then names[#names + 1] = bare end
      else
        all = true
      end
    end
  end
  if all then want.nodes = true elseif #names > 0 then want.nodes = names end
  return want
end

--- metrics.polarity(entry, param) -> "lower" | "higher" | "none"
function metrics.polarity(e, param)
  if type(e.polarity) == "function" then return e.polarity(param or "") end
  return e.polarity
end

--- metrics.applies(entry, format) -> boolean
function metrics.applies(e, format)
  return e.format_set[format] == true
end

--- metrics.list() -> every catalogue entry, in catalogue order, as plain
-- tables {name, unit, polarity ("lower"|"higher"|"none"|"depends"), formats, doc,
-- pattern (boolean), distribution (boolean: per-frame values exist),
-- distribution_formats (the formats that have them), per}.
function metrics.list()
  local out = {}
  for i, e in ipairs(CATALOGUE) do
    local formats = {}
    for j, f in ipairs(e.formats) do formats[j] = f end
    out[i] = {
      name = e.name, unit = e.unit,
      polarity = type(e.polarity) == "function" and "depends" or e.polarity,
      formats = formats, doc = e.doc, pattern = e.match ~= nil, distribution = e.dist ~= nil,
      distribution_formats = e.dist and { table.unpack(e.dist_formats or e.formats) } or nil,
      per = e.per,
    }
  end
  return out
end

local function check_format(e, cap, name)
  if not metrics.applies(e, cap.format) then
    return string.format("metric '%s' does not apply to %s captures (it applies to %s)", name,
      tostring(cap.format), table.concat(e.formats, ", "))
  end
  return nil
end

--- metrics.frame_range(cap) -> {first, last} | nil: the capture's frame
-- numbers of the frames its metrics are over (cap.first_frame ..
-- cap.last_frame: a --frames range), nil for a capture without frames.
function metrics.frame_range(cap)
  local first, last = cap.first_frame, cap.last_frame
  return first and { first = first, last = last } or nil
end

--- metrics.value(cap, name) -> number | nil, why
function metrics.value(cap, name)
  local e, param, arg = metrics.lookup(name)
  if not e then return nil, param end
  local bad = check_format(e, cap, name)
  if bad then return nil, bad end
  local ok, v, why = pcall(e.get, C.of(cap), param, arg)
  if not ok then return nil, E.message(v) end
  if type(v) ~= "number" or v ~= v then return nil, why or "not measured in this capture" end
  return v
end

--- metrics.compute(cap, names) -> values, problems
-- values[name] = number for each name measured; problems[name] = message
-- for an unknown name, a metric of another format, or one this capture
-- cannot give (no such group, no frames, ...).
function metrics.compute(cap, names)
  local values, problems = metrics.compute_all({ cap }, names)
  return values[1], problems[1]
end

-- The jobs of each prefetch (entry field `field`: "prefetch" or
-- "test_prefetch", else `other`) that names ask of caps: prefetch ->
-- {{ctx, asked}, ...}, a capture's only where it asks for more than
-- `least` names.
local function prefetch_jobs(caps, names, field, least, other)
  local passes = {}
  for _, cap in ipairs(caps) do
    local mine = {}
    for _, name in ipairs(names) do
      local e, param = metrics.lookup(name)
      local fn = e and (e[field] or other and e[other])
      if fn and metrics.applies(e, cap.format) then
        C.add_to(mine, fn, { param = param, field = e.series_field })
      end
    end
    for _, prefetch in ipairs(mine) do
      if #mine[prefetch] > least then C.add_to(passes, prefetch, { ctx = C.of(cap), asked = mine[prefetch] }) end
    end
  end
  return passes
end

--- metrics.prepare_tests(caps, names): the per-frame passes that testing
-- these metrics' distributions on these captures (marked by
-- metrics.will_test) will need, and the values' own passes (an entry's
-- prefetch), made now and at once (VProf: the named nodes' and groups'
-- value counts over batches, one pass a capture, each on a thread of its
-- own). A pass that fails here is left for the test to make and report.
function metrics.prepare_tests(caps, names)
  local passes = prefetch_jobs(caps, names, "test_prefetch", 0, "prefetch")
  for _, prefetch in ipairs(passes) do pcall(prefetch, passes[prefetch]) end
end

--- metrics.compute_all(caps, names) -> {values, ...}, {problems, ...}:
-- metrics.compute for each capture, the shared work of all of them done
-- together (VProf node percentiles: the captures' passes at once, each on
-- a thread of its own).
function metrics.compute_all(caps, names)
  local passes = prefetch_jobs(caps, names, "prefetch", 1)
  -- a pass that fails leaves each value to compute its own, and say why
  for _, prefetch in ipairs(passes) do pcall(prefetch, passes[prefetch]) end
  local values, problems = {}, {}
  for i, cap in ipairs(caps) do
    values[i], problems[i] = {}, {}
    for _, name in ipairs(names) do
      local v, why = metrics.value(cap, name)
      if v ~= nil then values[i][name] = v else problems[i][name] = why end
    end
  end
  return values, problems
end

--- metrics.distribution(cap, name) -> values | nil, why: the per-frame (or
-- per-sample) values the metric summarises, for significance tests: a
-- Series in time order, or (VProf) a summary that gives vp.infer the value
-- counts of each batch of consecutive frames itself (src:batches(cuts), #src;
-- src:totable() builds the column).
function metrics.distribution(cap, name)
  local e, param = metrics.lookup(name)
  if not e then return nil, param end
  if not e.dist then return nil, "metric '" .. name .. "' has no per-frame distribution" end
  local bad = check_format(e, cap, name)
  if bad then return nil, bad end
  local ok, s = pcall(e.dist, C.of(cap), param)
  if not ok then return nil, E.message(s) end
  if not s then return nil, "no per-frame values for '" .. name .. "' in this capture" end
  return s
end

--- metrics.events(cap, name) -> positions | nil, why: for a metric that
-- counts frames (hitches), the positions of the frames it counts among the
-- capture's frames (1-based, ascending), for a rate test that allows for
-- bursts; nil for a metric that counts nothing of the kind.
function metrics.events(cap, name)
  local e, param = metrics.lookup(name)
  if not e then return nil, param end
  if not e.events then return nil, "metric '" .. name .. "' counts no frames" end
  local bad = check_format(e, cap, name)
  if bad then return nil, bad end
  local ok, v, why = pcall(e.events, C.of(cap), param)
  if not ok then return nil, E.message(v) end
  return v, why
end

--- metrics.set_cuts(cap, cuts) -> where vp.infer will cut this capture's
-- per-frame values when it is one of several runs laid one after the other
-- (infer.split's cuts for it): the passes that make value counts over
-- batches (VProf nodes) then make those at once. Without it, a capture's
-- own batches.
function metrics.set_cuts(cap, cuts)
  C.of(cap).cuts = cuts
end

--- metrics.will_test(cap) -> nothing: this capture's distributions are
-- going to be tested (vp.compare, vp.gate with a baseline), so the pass
-- that metrics.prepare_tests makes (VProf) makes the named groups' value
-- counts over batches with the nodes', instead of one more pass later.
function metrics.will_test(cap)
  C.of(cap).will_test = true
end

--- metrics.statistic(name) -> stat | nil: what the metric computes from
-- its per-frame distribution, for vp.infer: {kind = "mean"} (means per
-- frame: mean, self and calls per frame), {kind = "quantile", p}
-- (nearest-rank pNN), {kind = "low_fps", pct}, {kind = "share"} (a
-- group's share of the frame time), {kind = "extreme"} (max, min: no
-- interval), and for weapon traces {kind = "mean", scale = 100} (a rate in
-- %) or {kind = "count"} (a count of traces), with independent = true
-- (each trace is its own bullet). nil for a metric without a distribution.
function metrics.statistic(name)
  local e, _, arg = metrics.lookup(name)
  if not e or not e.dist then return nil end
  if e.quantile_arg then return { kind = "quantile", p = tonumber(arg) / 100 } end
  local last = e.name:match("([^.]+)$")
  if e.name:match("^hitdiff%.") then
    if last == "rate_pct" then return { kind = "mean", scale = 100, independent = true } end
    return { kind = "count", independent = true }
  end
  local low = last:match("^low_(%d+)pct_fps$")
  if low then return { kind = "low_fps", pct = tonumber(low:sub(1, 1) == "0" and "0." .. low:sub(2) or low) } end
  local stat = last:gsub("_ms$", "")
  if stat == "mean" or stat == "self" or stat == "calls_per_frame" then return { kind = "mean" } end
  local pct = stat:match("^p(%d+)$")
  if pct then return { kind = "quantile", p = tonumber(pct) / 100 } end
  if stat == "max" or stat == "min" then return { kind = "extreme" } end
  if stat == "share_pct" then return { kind = "share" } end
  return nil
end

--- metrics.distribution_key(name) -> a string equal for metrics that share
-- one distribution (group.X.mean_ms and group.X.p99_ms), or nil.
function metrics.distribution_key(name)
  local e, param = metrics.lookup(name)
  if not e or not e.dist then return nil end
  if e.kind == "node" then
    local field = ({ self_ms = "self", calls = "calls" })[e.series_field] or "time"
    return "node\0" .. field .. "\0" .. param
  end
  if e.kind then return e.kind .. "\0" .. param end
  -- agree is the complement of disagree: the same test
  if e.name:match("^hitdiff%.") then return "kind\0disagree" end
  return "frames"
end

--- metrics.available(cap [, opts]) -> list of {name =, entity = "kind:NAME" | nil}
-- Every metric this capture has, fixed ones first, then per group, node,
-- system, ... in the capture's order. opts.series_pass = false leaves out
-- the node metrics that need a C pass over every frame (node.PATH.p95_ms,
-- p99_ms; metrics.compute makes one such pass for all the nodes it is given).
function metrics.available(cap, opts)
  opts = opts or {}
  local ctx = C.of(cap)
  local out = {}
  for _, e in ipairs(CATALOGUE) do
    if metrics.applies(e, cap.format) and not e.match then out[#out + 1] = { name = e.name } end
  end
  -- Pattern metrics: grouped by entity so that each group, node, ... lists
  -- all its metrics together; the families of any threshold or percentile
  -- (arg_of_family) are named, not listed.
  local by_kind, kinds = {}, {}
  for _, e in ipairs(CATALOGUE) do
    if e.match and e.names and not e.arg_of_family and metrics.applies(e, cap.format)
      and not (e.prefetch and opts.series_pass == false) then
      if not by_kind[e.kind] then
        by_kind[e.kind] = { names = e.names, entries = {} }
        kinds[#kinds + 1] = e.kind
      end
      local list = by_kind[e.kind].entries
      list[#list + 1] = e
    end
  end
  for _, kind in ipairs(kinds) do
    local k = by_kind[kind]
    local ok, params = pcall(k.names, ctx)
    if ok and params then
      for _, param in ipairs(params) do
        local entity = kind .. ":" .. param -- one string for all its metrics (a name can be 1 MB)
        for _, e in ipairs(k.entries) do
          out[#out + 1] = { name = metrics.entry_name(e, param), entity = entity }
        end
      end
    end
  end
  return out
end

--- metrics.entry_name(entry, param) -> the concrete metric name.
-- The placeholder (NAME, PATH, KIND, GROUP.TYPE) runs from the first
-- capital letter of the pattern's name to the last one.
function metrics.entry_name(e, param)
  if not e.match then return e.name end
  local first = e.name:find("%u")
  local last = #e.name - (e.name:reverse():find("%u")) + 1
  return e.name:sub(1, first - 1) .. param .. e.name:sub(last + 1)
end

-- Changes ---------------------------------------------------------------------------------

-- How a normaliser reads after "/" in a unit.
local PER_UNIT = {
  frames = "frame", ["hitdiff.compared"] = "compared trace", ["counters.frames"] = "frame",
  ["events.span_ms"] = "ms",
}

--- metrics.delta(name, a, b [, per_a, per_b]) -> change
-- The change from a (baseline) to b for metric `name`. When the metric is a
-- total (entry.per) and the two captures differ in that normaliser (frames,
-- compared traces, ...), both values are divided by it first.
-- change = {a, b (the compared values), a_raw, b_raw, normalised, unit,
--   polarity, change = b - a, change_pct = 100 (b - a) / |a| (nil when a = 0
--   and b ~= 0), worse_pct = change_pct signed so that positive is worse
--   (math.huge when a = 0 and b is worse, -math.huge when better; 0 for
--   polarity "none"), direction = "worse" | "better" | "same" | "changed"}
-- ("same" also for a change below 0.05 %, which prints as 0.0 %)
function metrics.delta(name, a, b, per_a, per_b)
  local e, param = metrics.lookup(name)
  assert(e, param)
  local out = { a_raw = a, b_raw = b, a = a, b = b, unit = e.unit, polarity = metrics.polarity(e, param),
    normalised = false }
  if e.per and type(per_a) == "number" and type(per_b) == "number" and per_a > 0 and per_b > 0
    and per_a ~= per_b then
    out.a, out.b = a / per_a, b / per_b
    out.normalised = true
    out.per = e.per
    out.unit = e.unit .. "/" .. (PER_UNIT[e.per] or e.per)
  end
  local d = out.b - out.a
  out.change = d
  if d == 0 then
    out.change_pct = 0
  elseif out.a ~= 0 then
    out.change_pct = 100 * d / math.abs(out.a)
  end
  local sign = (out.polarity == "lower" and 1) or (out.polarity == "higher" and -1) or 0
  if sign == 0 or d == 0 then
    out.worse_pct = 0
  elseif out.change_pct then
    out.worse_pct = sign * out.change_pct
  else
    out.worse_pct = sign * (d > 0 and math.huge or -math.huge)
  end
  -- a change that prints as 0.0 % is no change
  if d == 0 or (out.change_pct and math.abs(out.change_pct) < 0.05) then
    out.direction = "same"
  elseif sign == 0 then
    out.direction = "changed"
  else
    out.direction = out.worse_pct > 0 and "worse" or "better"
  end
  return out
end

--- metrics.script_document(cap, name) -> the result of the shipped
-- analysis `name` ("hitches", "hitdiff", "events", "movement") for this
-- capture with the script's default options: its module's analyze(cap),
-- run in-process once per capture, or nil, message.
function metrics.script_document(cap, name)
  return C.analysis(C.of(cap), name)
end

return metrics
