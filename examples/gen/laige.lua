-- gen/laige.lua: write OUTDIR/laige/, example laige engine reports,
-- deterministically (own xorshift32 PRNG with a fixed seed, no clock):
--
--   vpscript examples/gen/laige.lua OUTDIR      (or via examples/generate.lua)
--
--   profile.json, profile.txt   the SAME run's profile report (--prof-out) in
--                               both forms: a 600-tick windowed run, five
--                               systems; Collision is over its budget
--                               (p99 > budget_ms), AIThink logged overrun
--                               warnings, Spawner never ran (empty window:
--                               n=0 in text, null in JSON). The JSON writes
--                               some numbers in %g exponent form (1e+04) as
--                               the engine's canonical JSON may.
--   budget_pass.txt             a budget report (--budget-report) where
--                               every budget, frame and system passes.
--   budget_fail.txt             a budget report that fails: sim_tick_p99
--                               over its target, sim_heap_allocs above 0,
--                               Collision over budget, 120 frame lines with
--                               two planted hitches (25 ms and 31 ms at
--                               frame lines 60 and 95, 1-based) and failing
--                               frames (overrun warnings, sim allocations).
-- Formats: ../shared/specs/laige-profiler.md and format-notes.md ("laige
-- reports"): numbers %.6g, nan/inf as text, percentiles nearest rank.
-- Returns a one-line description of what it wrote.
local lib = select(2, ...) or dofile((arg[0]:match("^(.*)/") or ".") .. "/../genlib.lua")
local outdir = lib.outdir("laige.lua", ..., "examples")
local dir = outdir .. "/laige"

local rnd = lib.xorshift32(0x2545F491)

-- Bounded noise around 1: the sum of three uniforms.
local function noise(spread)
  return 1 + spread * (rnd() + rnd() + rnd() - 1.5) / 1.5
end

-- The engine prints %.6g; keep every value at that precision so the text
-- and the JSON forms carry the same numbers.
local function r6(x)
  return tonumber(string.format("%.6g", x))
end

-- Nearest-rank statistics (laige's Histogram::stats): rank ceil(p/100*n).
local function stats_of(samples)
  local n = #samples
  if n == 0 then return nil end
  local s = {}
  local sum = 0
  for i, x in ipairs(samples) do
    s[i] = x
    sum = sum + x
  end
  table.sort(s)
  local function rank(p)
    local k = math.ceil(p / 100 * n)
    if k < 1 then k = 1 end
    return s[k]
  end
  return { n = n, min = s[1], mean = r6(sum / n), p50 = rank(50), p95 = rank(95), p99 = rank(99), max = s[n] }
end

local function num(x)
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  if math.type(x) == "integer" then return tostring(x) end
  return string.format("%.6g", x)
end

local STAT_KEYS = { "n", "min", "mean", "p50", "p95", "p99", "max" }

local function stats_text(s)
  if not s then return "n=0" end
  local parts = {}
  for _, k in ipairs(STAT_KEYS) do parts[#parts + 1] = k .. "=" .. num(s[k]) end
  return table.concat(parts, " ")
end

local function write(name, text)
  local path = dir .. "/" .. name
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- The profile run -----------------------------------------------------------------

local TICKS, FRAMES = 600, 601
local TICK_WINDOW, FRAME_WINDOW, SYSTEM_WINDOW = 512, 256, 128

-- A system: name, declared budget (fpx16_16 ms: exact binary fractions, as
-- the engine prints them with %.6g), typical time, runs, warns, errors.
local SYSTEMS = {
  { name = "Movement", budget = 0.5, typical = 0.21, spread = 0.3, runs = TICKS },
  { name = "Collision", budget = 1.0, typical = 0.82, spread = 0.35, runs = TICKS, burst = 1.31 },
  { name = "AIThink", budget = 2.0, typical = 1.12, spread = 0.5, runs = TICKS // 2, warns = 3 },
  { name = "Animation", budget = 0.750015, typical = 0.33, spread = 0.25, runs = TICKS },
  { name = "Spawner", budget = 0.25, typical = 0, spread = 0, runs = 0 },
}

local profile = {
  counters = { ticks = TICKS, frames = FRAMES - 1, draw_calls = 184320, texture_binds = 40960,
    net_bytes = 0 },
  world = { entities_alive = 4096, entities_total = 5120, entity_capacity = 10000, sim_allocs = 12,
    systems = #SYSTEMS },
  systems = {},
}

local tick_samples, frame_samples = {}, {}
for i = 1, TICKS do
  local t = 3.2 * noise(0.25)
  if i % 97 == 0 then t = t * 2.1 end -- an occasional slow tick
  tick_samples[#tick_samples + 1] = r6(t)
end
for _ = 1, FRAMES - 1 do
  frame_samples[#frame_samples + 1] = r6(4.1 * noise(0.2))
end
-- The windows roll: they keep only the newest samples.
local function newest(list, cap)
  local out = {}
  for i = math.max(1, #list - cap + 1), #list do out[#out + 1] = list[i] end
  return out
end
profile.tick_ms = stats_of(newest(tick_samples, TICK_WINDOW))
profile.frame_ms = stats_of(newest(frame_samples, FRAME_WINDOW))

for id, def in ipairs(SYSTEMS) do
  local samples = {}
  for i = 1, def.runs do
    local t = def.typical * noise(def.spread)
    if def.burst and i % 40 == 0 then t = def.burst * noise(0.05) end
    samples[#samples + 1] = r6(t)
  end
  local window = stats_of(newest(samples, SYSTEM_WINDOW))
  local over = 0
  for _, t in ipairs(samples) do
    if t > def.budget then over = over + 1 end
  end
  profile.systems[id] = {
    id = id, name = def.name, budget_ms = def.budget, runs = def.runs,
    last_ms = samples[#samples] or 0, warns = def.warns or 0, errors = 0, window = window,
  }
end

local function profile_text(p)
  local out = { "laige-profile version=1" }
  local c, w = p.counters, p.world
  out[#out + 1] = string.format(
    "laige-profile counters: ticks=%d frames=%d draw_calls=%d texture_binds=%d net_bytes=%d",
    c.ticks, c.frames, c.draw_calls, c.texture_binds, c.net_bytes)
  out[#out + 1] = "laige-profile tick_ms: " .. stats_text(p.tick_ms)
  out[#out + 1] = "laige-profile frame_ms: " .. stats_text(p.frame_ms)
  out[#out + 1] = string.format(
    "laige-profile world: entities_alive=%d entities_total=%d entity_capacity=%d sim_allocs=%d systems=%d",
    w.entities_alive, w.entities_total, w.entity_capacity, w.sim_allocs, w.systems)
  for _, s in ipairs(p.systems) do
    out[#out + 1] = string.format(
      "laige-profile system id=%d name=%s budget_ms=%s runs=%d last_ms=%s warns=%d errors=%d window: %s",
      s.id, s.name, num(s.budget_ms), s.runs, num(s.last_ms), s.warns, s.errors, stats_text(s.window))
  end
  return table.concat(out, "\n") .. "\n"
end

-- JSON numbers: the engine's canonical form may print a whole number in %g
-- exponent form; do that for round thousands so readers must parse them.
local function jnum(x)
  if math.type(x) == "integer" and x >= 1000 and x % 10 ^ (#tostring(x) - 1) == 0 then
    return string.format("%.0e", x) -- 10000 -> 1e+04
  end
  return num(x)
end

local function jstats(s)
  if not s then return "null" end
  local parts = {}
  for _, k in ipairs(STAT_KEYS) do parts[#parts + 1] = string.format('"%s": %s', k, jnum(s[k])) end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

local function profile_json(p)
  local c, w = p.counters, p.world
  local out = {}
  out[#out + 1] = "{"
  out[#out + 1] = '  "version": 1,'
  out[#out + 1] = string.format('  "counters": { "ticks": %s, "frames": %s, "draw_calls": %s, '
    .. '"texture_binds": %s, "net_bytes": %s },',
    jnum(c.ticks), jnum(c.frames), jnum(c.draw_calls), jnum(c.texture_binds), jnum(c.net_bytes))
  out[#out + 1] = '  "tick_time_ms": ' .. jstats(p.tick_ms) .. ","
  out[#out + 1] = '  "frame_time_ms": ' .. jstats(p.frame_ms) .. ","
  out[#out + 1] = string.format('  "world": { "entities_alive": %s, "entities_total": %s, '
    .. '"entity_capacity": %s, "sim_allocs": %s, "systems": %s },',
    jnum(w.entities_alive), jnum(w.entities_total), jnum(w.entity_capacity), jnum(w.sim_allocs),
    jnum(w.systems))
  out[#out + 1] = '  "systems": ['
  for i, s in ipairs(p.systems) do
    out[#out + 1] = string.format('    { "id": %d, "name": "%s", "budget_ms": %s, "runs": %s, '
      .. '"last_ms": %s, "warns": %d, "errors": %d,', s.id, s.name, jnum(s.budget_ms), jnum(s.runs),
      jnum(s.last_ms), s.warns, s.errors)
    out[#out + 1] = '      "window_ms": ' .. jstats(s.window) .. " }"
      .. (i < #p.systems and "," or "")
  end
  out[#out + 1] = "  ]"
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

lib.mkdir(dir)
write("profile.txt", profile_text(profile))
write("profile.json", profile_json(profile))

-- The budget reports -----------------------------------------------------------------

local CONTEXT = "workload=arena_bots build=r4812-release machine=ci-linux-07 warmup=60"

local function budget_block(name, metric, unit, target, before, samples)
  local s = stats_of(samples)
  local after, result
  if not s then
    after, result = 0 / 0, "NO_SAMPLES"
  else
    after = s[metric]
    if target > 0 then
      result = after <= target and "PASS" or "FAIL"
    else
      result = after == 0 and "PASS" or "FAIL"
    end
  end
  local stats_line = s and ("stats: " .. stats_text(s))
    or "stats: n=0 min=nan mean=nan p50=nan p95=nan p99=nan max=nan"
  return table.concat({
    string.format("budget=%s result=%s metric=%s unit=%s", name, result, metric, unit),
    string.format("  after=%s before=%s target=%s", num(after), num(before), num(target)),
    "  " .. stats_line,
    "  context: " .. CONTEXT,
  }, "\n"), result
end

-- frames: list of {frame_ms, ticks, sim_allocs, overrun_warns, critical_errors}
local function budget_report(first_frame, total, frames, ticks, systems)
  local out = { "laige-budget-report version=1", "laige-budget-report context: " .. CONTEXT,
    string.format("laige-budget-report frames: n=%d total=%d", #frames, total) }
  local overall = true
  local tick = first_frame - 1
  local allocs = {}
  for i, f in ipairs(frames) do
    tick = tick + f.ticks
    local pass = f.sim_allocs == 0 and f.overrun_warns == 0 and f.critical_errors == 0
    overall = overall and pass
    allocs[#allocs + 1] = f.sim_allocs
    out[#out + 1] = string.format("laige-budget-report frame=%d ticks=%d tick_after=%d frame_ms=%s "
      .. "sim_allocs=%d overrun_warns=%d critical_errors=%d result=%s", first_frame + i - 1, f.ticks,
      tick, num(f.frame_ms), f.sim_allocs, f.overrun_warns, f.critical_errors, pass and "PASS" or "FAIL")
  end
  for _, b in ipairs({
    { "sim_tick_avg", "mean", "ms", 6, 3.6, ticks },
    { "sim_tick_p99", "p99", "ms", 8, 7.5, ticks },
    { "sim_heap_allocs", "max", "allocs", 0, 0, allocs },
  }) do
    local text, result = budget_block(b[1], b[2], b[3], b[4], b[5], b[6])
    out[#out + 1] = text
    overall = overall and result == "PASS"
  end
  local over = {}
  for id, s in ipairs(systems) do
    local st = stats_of(s.samples)
    local result
    if not st then
      result = "NO_SAMPLES"
      overall = false
    elseif st.p99 > s.budget then
      result = "FAIL"
      overall = false
      over[#over + 1] = string.format(
        "laige-budget-report over_budget: id=%d name=%s p99_ms=%s budget_ms=%s",
        id, s.name, num(st.p99), num(s.budget))
    else
      result = "PASS"
    end
    out[#out + 1] = string.format("laige-budget-report system id=%d name=%s budget_ms=%s runs=%d last_ms=%s "
      .. "measured_p99_ms=%s result=%s warns=%d errors=%d window: %s", id, s.name, num(s.budget),
      s.runs, num(s.samples[#s.samples] or 0), st and num(st.p99) or "nan", result, s.warns, s.errors,
      stats_text(st))
  end
  if #over == 0 then
    out[#out + 1] = "laige-budget-report over_budget: none"
  else
    for _, line in ipairs(over) do out[#out + 1] = line end
  end
  out[#out + 1] = "laige-budget-report overall=" .. (overall and "PASS" or "FAIL")
  return table.concat(out, "\n") .. "\n"
end

local function system_samples(n, typical, spread, burst)
  local out = {}
  for i = 1, n do
    local t = typical * noise(spread)
    if burst and i % 25 == 0 then t = burst * noise(0.05) end
    out[#out + 1] = r6(t)
  end
  return out
end

-- Passing run: 8 frame lines of a 600-frame run, every budget met.
do
  local frames, ticks = {}, {}
  for _ = 1, 8 do
    frames[#frames + 1] = { frame_ms = r6(4.0 * noise(0.15)), ticks = 1, sim_allocs = 0, overrun_warns = 0,
      critical_errors = 0 }
  end
  for _ = 1, 512 do ticks[#ticks + 1] = r6(3.1 * noise(0.2)) end
  local systems = {
    { name = "Movement", budget = 0.5, runs = 600, warns = 0, errors = 0,
      samples = system_samples(128, 0.2, 0.3) },
    { name = "Collision", budget = 1.0, runs = 600, warns = 0, errors = 0,
      samples = system_samples(128, 0.7, 0.2) },
  }
  write("budget_pass.txt", budget_report(592, 600, frames, ticks, systems))
end

-- Failing run: 120 frame lines with two hitches and failing frames.
do
  local frames, ticks = {}, {}
  for i = 1, 120 do
    local f = { frame_ms = r6(5.2 * noise(0.12)), ticks = 1, sim_allocs = 0, overrun_warns = 0,
      critical_errors = 0 }
    if i == 60 then
      f.frame_ms, f.overrun_warns = 25.4, 1
    elseif i == 61 or i == 96 then
      f.ticks = 2 -- the loop catches up after a hitch
    elseif i == 95 then
      f.frame_ms, f.overrun_warns, f.sim_allocs = 31.2, 2, 3
    elseif i == 33 then
      f.sim_allocs = 2
    end
    frames[#frames + 1] = f
  end
  for i = 1, 512 do
    local t = 3.9 * noise(0.25)
    if i % 45 == 0 then t = 9.6 * noise(0.05) end
    ticks[#ticks + 1] = r6(t)
  end
  local systems = {
    { name = "Movement", budget = 0.5, runs = 1800, warns = 0, errors = 0,
      samples = system_samples(128, 0.22, 0.3) },
    { name = "Collision", budget = 1.0, runs = 1800, warns = 14, errors = 0,
      samples = system_samples(128, 0.85, 0.3, 1.42) },
    { name = "AIThink", budget = 2.0, runs = 900, warns = 0, errors = 0,
      samples = system_samples(128, 1.1, 0.4) },
  }
  write("budget_fail.txt", budget_report(1681, 1800, frames, ticks, systems))
end

return dir .. "/profile.json, profile.txt, budget_pass.txt, budget_fail.txt"
