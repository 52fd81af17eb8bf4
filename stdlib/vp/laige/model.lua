-- vp.laige.model: the two models of the laige engine's reports, the
-- profile report (class vp.laige-profile, JSON or text) and the budget
-- report (class vp.laige-budget): their constructors (the parsers fill
-- them), their methods, and the rules about systems and budgets, stated
-- once: model.system_p99, model.system_over, model.budget_pct and
-- model.over_budget (the one definition of "over budget").
local vp = require "vp"
local stats = require "vp.stats"
local read = require "vp.laige.read"

local model = {}

local NAN = read.NAN

local closed = setmetatable({}, { __mode = "k" })

local function check_open(cap, what)
  if closed[cap] then error(what .. ": capture is closed", 3) end
end

local Profile = { __name = "vp.laige-profile" }
local Budget = { __name = "vp.laige-budget" }
model.Profile, model.Budget = Profile, Budget
local profile_methods, budget_methods = {}, {}
Profile.__index = profile_methods
Budget.__index = budget_methods
Profile.__methods = profile_methods
Budget.__methods = budget_methods

local function close(cap)
  closed[cap] = true
end

profile_methods.close = close
budget_methods.close = close
Profile.__close = close
Budget.__close = close

-- Systems and their budgets ------------------------------------------------------

--- model.system_p99(sys) -> the p99 a system is judged by: its window's
-- (a budget report: measured_p99_ms when the window is empty), nil when
-- there is none or it is not a number (NaN).
function model.system_p99(sys)
  local w = sys.window
  local p99 = w and w.p99
  if p99 == nil then p99 = sys.measured_p99_ms end
  if p99 ~= p99 then return nil end
  return p99
end

--- model.system_over(sys) -> boolean: the engine's own rule for one system,
-- its p99 (model.system_p99) > budget_ms (also for a budget of 0).
function model.system_over(sys)
  local p99 = model.system_p99(sys)
  return p99 ~= nil and sys.budget_ms ~= nil and p99 > sys.budget_ms
end

--- model.budget_pct(sys) -> 100 x p99 / budget_ms, or nil when either is
-- missing or the quotient is undefined (a budget of 0).
function model.budget_pct(sys)
  local p99, budget = model.system_p99(sys), sys.budget_ms
  if p99 == nil or budget == nil or budget == 0 then return nil end
  return stats.defined(p99 / budget * 100)
end

--- model.over_budget(cap) -> list of {id, name, p99_ms, budget_ms, system}:
-- the systems over budget, the one definition every report, metric, summary
-- and gate uses. A system is over budget when
--   * its p99 > budget_ms (model.system_over, the engine's rule), or
--   * the report lists its id under over_budget (budget report), or
--   * its result is FAIL (budget report);
-- then, in report order, every over_budget entry whose id no system line
-- has (system = nil). p99_ms is the system's p99 (model.system_p99), or the
-- listed entry's.
function model.over_budget(cap)
  local listed, has_line = {}, {}
  for _, o in ipairs(cap.over_budget or {}) do
    if o.id ~= nil then listed[o.id] = true end
  end
  local out = {}
  for _, s in ipairs(cap.systems) do
    if s.id ~= nil then has_line[s.id] = true end
    if model.system_over(s) or (s.id ~= nil and listed[s.id]) or s.result == "FAIL" then
      out[#out + 1] = { id = s.id, name = s.name, p99_ms = model.system_p99(s), budget_ms = s.budget_ms,
        system = s }
    end
  end
  for _, o in ipairs(cap.over_budget or {}) do
    if o.id == nil or not has_line[o.id] then
      out[#out + 1] = { id = o.id, name = o.name, p99_ms = o.p99_ms, budget_ms = o.budget_ms }
    end
  end
  return out
end


local function group_digits(n)
  if type(n) ~= "number" then return "?" end
  if math.type(n) ~= "integer" then return string.format("%.6g", n) end
  local s = tostring(n)
  local sign, digits = s:match("^(%-?)(%d+)$")
  digits = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return sign .. digits
end

local function plural(n, word)
  return group_digits(n) .. " " .. word .. (n == 1 and "" or "s")
end


-- The summary rows that have a value (a report may lack a line).
local function present(rows)
  local out = {}
  for _, r in ipairs(rows) do
    if r.value ~= nil then out[#out + 1] = r end
  end
  return out
end

-- Profile report ---------------------------------------------------------------

--- model.new_profile(ctx, path, size, form, version) -> an empty profile
-- report for a parser to fill (ctx: the parser's context, see vp.laige.read).
function model.new_profile(ctx, path, size, form, version)
  return setmetatable({
    format = "laige-profile",
    path = path,
    size = size,
    form = form,
    version = version,
    warnings = ctx.warnings,
    counters = nil,
    tick_ms = nil,
    frame_ms = nil,
    world = nil,
    systems = {},
    extra = {},
    frame_count = 0,
  }, Profile)
end


-- A profile report has windows, not frames: no per-frame times (generic
-- scripts such as hitches.lua say so when this returns nil).
function profile_methods.frame_times(cap)
  check_open(cap, "frame_times")
  return nil
end

function profile_methods.frame(cap, i)
  check_open(cap, "frame")
  error(string.format("frame %s: a laige profile report has no per-frame data", tostring(i)), 2)
end

function profile_methods.summary(cap)
  check_open(cap, "summary")
  local c, w = cap.counters or {}, cap.world or {}
  local over = #model.over_budget(cap)
  local rows = {
    { name = "report", value = "laige profile (" .. cap.form .. ")" },
    { name = "version", value = cap.version },
    { name = "ticks", value = c.ticks },
    { name = "frames", value = c.frames },
    { name = "tick_p50_ms", value = cap.tick_ms and cap.tick_ms.p50 },
    { name = "tick_p99_ms", value = cap.tick_ms and cap.tick_ms.p99 },
    { name = "frame_p50_ms", value = cap.frame_ms and cap.frame_ms.p50 },
    { name = "frame_p99_ms", value = cap.frame_ms and cap.frame_ms.p99 },
    { name = "entities alive", value = w.entities_alive },
    { name = "sim allocs", value = w.sim_allocs },
    { name = "systems", value = #cap.systems },
    { name = "systems over budget", value = over },
  }
  return present(rows)
end

function Profile.__tostring(cap)
  local c = cap.counters or {}
  local name = cap.path:match("[^/]*$")
  return string.format("<laige-profile %s: %s, %s, %s>", name,
    c.ticks and plural(c.ticks, "tick") or "? ticks",
    c.frames and plural(c.frames, "frame") or "? frames",
    plural(#cap.systems, "system"))
end


-- Budget report ------------------------------------------------------------------

-- Frame numbers are the report's: opened with frames = {i, j} (model.restrict), cap.frames
-- holds frames i..j and cap.frame_base is i - 1.
local function frame_view(cap, i)
  local f = cap.frames[i]
  if not f then return nil end
  local v = { index = (rawget(cap, "frame_base") or 0) + i, tick = f.tick_after }
  for k, x in pairs(f) do v[k] = x end
  return v
end

-- cap.frames is a list AND callable as a method: `cap:frames([i [, j]])`
-- iterates like the other captures' frames (1-based, inclusive).
local frames_mt = {
  __call = function(list, cap, i, j)
    if getmetatable(cap) ~= Budget or rawget(cap, "frames") ~= list then
      error("frames: call it as cap:frames([i [, j]])", 2)
    end
    check_open(cap, "frames")
    local base = rawget(cap, "frame_base") or 0
    i = math.max(1, (math.tointeger(i) or base + 1) - base)
    j = math.min(#list, (math.tointeger(j) or base + #list) - base)
    local k = i - 1
    return function()
      k = k + 1
      if k > j then return nil end
      return frame_view(cap, k)
    end
  end,
}

--- model.new_budget(ctx, path, size) -> an empty budget report for the parser to fill.
function model.new_budget(ctx, path, size)
  return setmetatable({
    format = "laige-budget",
    path = path,
    size = size,
    version = nil,
    warnings = ctx.warnings,
    context = nil,
    frames_info = nil,
    frames = setmetatable({}, frames_mt),
    frame_count = 0,
    budgets = {},
    systems = {},
    over_budget = {},
    overall = nil,
    extra = {},
  }, Budget)
end


function budget_methods.frame(cap, i)
  check_open(cap, "frame")
  local base = rawget(cap, "frame_base") or 0
  local k = math.tointeger(i)
  if not k or k - base < 1 or k - base > #cap.frames then
    error(string.format("frame %s is out of range %d..%d", tostring(i), base + 1, base + #cap.frames), 2)
  end
  return frame_view(cap, k - base)
end

local series_cache = setmetatable({}, { __mode = "k" })

--- model.restrict(cap, frames) -> true | nil, why: vp.open's frames =
-- {first, last} (or {first =, last =}; either may be nil; a negative number
-- counts from the end) on a budget report: keep those frames and forget
-- the others, so that frame_times, frames, failed_frames and the frame
-- statistics are over the range; frame numbers stay the report's
-- (cap.first_frame .. cap.last_frame).
function model.restrict(cap, frames)
  local n = #cap.frames
  local i, j = vp.frames_of(frames, n) -- the rule every format's --frames follows
  if not i then return nil, string.format("frames out of range: the capture has %d frames", n) end
  local kept = setmetatable({}, getmetatable(cap.frames))
  for k = i, j do kept[#kept + 1] = cap.frames[k] end
  cap.frames, cap.frame_base, cap.frame_count = kept, i - 1, #kept
  cap.first_frame, cap.last_frame = i, j
  series_cache[cap] = nil
  return true
end

function budget_methods.frame_times(cap)
  check_open(cap, "frame_times")
  local s = series_cache[cap]
  if not s then
    local t = {}
    for i, f in ipairs(cap.frames) do t[i] = f.frame_ms or NAN end
    s = vp.Series(t, (rawget(cap, "frame_base") or 0) + 1) -- indexed by the report's frame numbers
    series_cache[cap] = s
  end
  return s
end

--- Frames whose result is not PASS.
function budget_methods.failed_frames(cap)
  check_open(cap, "failed_frames")
  local out = {}
  for i, f in ipairs(cap.frames) do
    if f.result ~= "PASS" then out[#out + 1] = frame_view(cap, i) end
  end
  return out
end

function budget_methods.summary(cap)
  check_open(cap, "summary")
  local failed_budgets, failed_frames = 0, 0
  for _, b in ipairs(cap.budgets) do
    if b.result ~= "PASS" then failed_budgets = failed_budgets + 1 end
  end
  for _, f in ipairs(cap.frames) do
    if f.result ~= "PASS" then failed_frames = failed_frames + 1 end
  end
  local ctx = cap.context or {}
  local rows = {
    { name = "report", value = "laige budget report" },
    { name = "version", value = cap.version },
    { name = "workload", value = ctx.workload ~= "" and ctx.workload or nil },
    { name = "frames listed", value = #cap.frames },
    { name = "frames total", value = cap.frames_info and cap.frames_info.total },
    { name = "frames failed", value = failed_frames },
    { name = "budgets", value = #cap.budgets },
    { name = "budgets not passed", value = failed_budgets },
    { name = "systems", value = #cap.systems },
    { name = "systems over budget", value = #model.over_budget(cap) },
    { name = "overall", value = cap.overall or "missing" },
  }
  return present(rows)
end

function Budget.__tostring(cap)
  return string.format("<laige-budget %s: %s, %s, %d over budget, overall %s>", cap.path:match("[^/]*$"),
    plural(#cap.frames, "frame"), plural(#cap.budgets, "budget"), #model.over_budget(cap),
    cap.overall or "missing")
end


--- model.kind(x) -> "profile" | "budget" | nil: which laige model x is.
function model.kind(x)
  local mt = getmetatable(x)
  if mt == Profile then return "profile" end
  if mt == Budget then return "budget" end
  return nil
end

-- cap:metrics(): vp.laige.metrics (it reads the models, so it is loaded when
-- first used).
local function metrics(cap)
  return require("vp.laige.metrics").metrics(cap)
end
profile_methods.metrics = metrics
budget_methods.metrics = metrics

return model
