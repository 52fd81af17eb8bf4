-- vp.metrics.context: what the catalogue's entries share about one capture.
--
--   local C = require "vp.metrics.context"
--   local ctx = C.of(cap)                    -- one per capture (weak keys)
--   local s = C.frame_times(ctx)              -- the frame-time Series, or nil
--   local pct = C.result(ctx, "hitches", "stutter_pct")
--
-- A context caches what several metrics of one capture need (the frame
-- times, the result of an analysis, a node's Series), so each is computed
-- once per capture however many metrics read it. The family modules
-- (vp.metrics.frames, .vprof, .traces, .laige) define their entries over
-- it; vp.metrics is the catalogue they make.
local E = require "vp.error"

local C = {}

local contexts = setmetatable({}, { __mode = "k" })

--- C.of(cap) -> the capture's context {cap =, format =, ...}.
function C.of(cap)
  local c = contexts[cap]
  if not c then
    c = { cap = cap, format = cap.format }
    contexts[cap] = c
  end
  return c
end

--- C.frame_times(ctx) -> the capture's per-frame times (a Series), or nil
-- when the capture has none.
function C.frame_times(ctx)
  if ctx.ft == nil then
    local ok, s = pcall(function() return ctx.cap:frame_times() end)
    ctx.ft = ok and s or false
  end
  return ctx.ft or nil
end

--- C.percent(x) -> true when the string x is a number in (0, 100]: the X
-- of a pX metric.
function C.percent(x)
  local p = tonumber(x)
  return p ~= nil and p > 0 and p <= 100
end

--- C.series_stat(s, stat) -> number | nil, why: "mean", "max", "min" or
-- "pNN" (nearest rank) of a Series.
function C.series_stat(s, stat)
  if not s or #s == 0 then return nil, "no frames" end
  if stat == "mean" then return s:mean() end
  if stat == "max" then return s:max() end
  if stat == "min" then return s:min() end
  return s:percentile(tonumber((stat:gsub("^p", ""))))
end

--- C.listing(build) -> by_name(ctx), names(ctx): what a family lists of a
-- capture (budget groups, nodes, lag measurements: the NAMEs of its
-- pattern metrics) by name, and the names in listing order, as build(ctx)
-- -> by_name, names makes them, once per capture.
function C.listing(build)
  local slot = {} -- this listing's place in each context
  local function get(ctx)
    local l = ctx[slot]
    if not l then
      l = table.pack(build(ctx))
      ctx[slot] = l
    end
    return l
  end
  return function(ctx) return get(ctx)[1] end, function(ctx) return get(ctx)[2] end
end

--- C.add_to(lists, key, v): append v to lists[key], a list made at the
-- key's first use, when the key also goes at the end of `lists` itself
-- (ipairs(lists) gives the keys in the order first seen).
function C.add_to(lists, key, v)
  local list = lists[key]
  if not list then
    list = {}
    lists[key] = list
    lists[#lists + 1] = key
  end
  list[#list + 1] = v
end

-- Analyses ---------------------------------------------------------------------------
-- The module of each shipped analysis whose figures are metrics: each
-- analyze(cap) runs in-process with its defaults (but C.ANALYSIS_PARAMS),
-- once per capture.
C.ANALYSES = { hitches = "vp.hitches", hitdiff = "vp.hitdiff", events = "vp.events", movement = "vp.movement" }
-- The parameters an analysis runs with when they are not its defaults: the
-- metrics read the hitch list and stutter, never a hitch's causes or groups
-- (finding them decodes each hitch's window: a tenth of compare.lua's time
-- on a capture of short frames and many hitches).
C.ANALYSIS_PARAMS = { hitches = { explain = false } }

--- C.analysis(ctx, name) -> the result of analysis `name` for this
-- capture, or nil, message (an unknown name, or what the analysis raised).
function C.analysis(ctx, name)
  ctx.results = ctx.results or {}
  local d = ctx.results[name]
  if d == nil then
    local module = C.ANALYSES[name]
    if not module then return nil, "no analysis named '" .. tostring(name) .. "'" end
    local ok, res = pcall(function() return require(module).analyze(ctx.cap, C.ANALYSIS_PARAMS[name]) end)
    d = ok and { value = res } or { err = E.message(res) }
    ctx.results[name] = d
  end
  if d.err then return nil, d.err end
  return d.value
end

--- C.get(t, key, ...) -> the value at t[key][...], or nil.
-- The one accessor for analysis results: it treats an absent value, a JSON
-- null (a light userdata: a decoded document, a user's result), NaN and a
-- path through something that is not a table alike: all are nil.
-- Numbers, strings, booleans and tables come back as they are.
function C.get(t, ...)
  for i = 1, select("#", ...) do
    if type(t) ~= "table" then return nil end
    t = t[(select(i, ...))]
  end
  local ty = type(t)
  if ty == "number" then
    if t ~= t then return nil end
    return t
  end
  if ty == "table" or ty == "string" or ty == "boolean" then return t end
  return nil
end

--- C.result(ctx, name, key, ...) -> C.get(analysis result, key, ...), or
-- nil, message when the analysis could not run.
function C.result(ctx, name, ...)
  local res, err = C.analysis(ctx, name)
  if res == nil then return nil, err end
  return C.get(res, ...)
end

--- C.finite(v) -> v when it is a finite number, else nil (nil, NaN, an
-- infinity, anything else): the rule for the values a result hands on.
function C.finite(v)
  if type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge then return v end
  return nil
end

--- C.number(v) -> v when it is a number other than NaN, else nil.
function C.number(v)
  if type(v) == "number" and v == v then return v end
  return nil
end

-- Formats ----------------------------------------------------------------------------

C.VPROF = { "vprof" }
C.FRAMES = { "vprof", "laige-budget" } -- per-frame frame times
C.FRAME_STATS = { "vprof", "laige-profile", "laige-budget" }
C.PROFILE = { "laige-profile" }
C.BUDGET = { "laige-budget" }
C.LAIGE = { "laige-profile", "laige-budget" }
C.DW = { "dw" }
C.DEVT = { "devt" }
C.DLAG = { "dlag" }
C.DM = { "dm" }

--- C.laige_values(ctx) -> the report's {name = number} table and the names
-- of its systems and budgets (vp.laige.metrics.values).
function C.laige_values(ctx)
  if not ctx.laige then ctx.laige, ctx.laige_names = require("vp.laige.metrics").values(ctx.cap) end
  return ctx.laige, ctx.laige_names
end

return C
