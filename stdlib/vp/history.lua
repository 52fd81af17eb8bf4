-- vp.history: the performance history: every capture a CI job measures
-- becomes points of series (scenario x platform x branch x metric) in a
-- store (vp.history.store), and each series' change points are found with
-- vp.changepoint and kept with their triage state (docs/history.md).
--
--   local history = require "vp.history"
--   local store = require "vp.history.store"
--   local db = store.open("history.db")
--   local rec = history.measure(cap, history.metadata({commit = "abc123"}, os.getenv, cap.path))
--   history.add(db, {rec})                           -- {added, skipped, points}
--   local r = history.changes(db, {branch = "main"}) -- {series, changes = [...], failing}
--   history.ack(db, r.changes[1].id, "acknowledged")
--
-- A capture is identified by the SHA-256 of its bytes: adding it again,
-- from any job, adds nothing. A document from --json (hitches, check,
-- compare, or history.lua points) is identified by the hash it carries, or
-- else by the hash of its text. Each point keeps its value, the frame (or
-- trace) count behind it and, where the metric has a per-frame
-- distribution, its standard error (vp.infer's estimate for that metric,
-- as compare and check compute it).
--
-- Results are plain data; errors are vp.error objects (EINPUT for a
-- document or store that cannot be used, EUSAGE for a bad parameter).
local E = require "vp.error"
local cp = require "vp.changepoint"
local infer = require "vp.infer"
local metrics = require "vp.metrics"

local history = {}

history.DEFAULTS = { latest = 7, window = cp.DEFAULTS.window, max_p = cp.DEFAULTS.max_p,
  min_segment = cp.DEFAULTS.min_segment, min_rel = cp.DEFAULTS.min_rel, min_abs = cp.DEFAULTS.min_abs,
  se_floor = false }

history.STATES = { new = true, acknowledged = true, invalid = true }

--- history.schema: the --json document of `history.lua changes`.
history.schema = [[{
  store, series, points, changes: [{id, state, metric, scenario, platform, branch, unit, polarity,
    regression, latest, index, points, before_commit, after_commit, before_time, after_time,
    before: {mean, lo, hi, n}, after: {mean, lo, hi, n}, size_pct, diff, p_value}],
  failing, params: {latest, since, window, max_p, min_segment, min_rel, min_abs, se_floor}
}]]

--- history.trend_schema: the --json document of `history.lua trend`.
history.trend_schema = [[{
  store, series: [{scenario, platform, branch, metric, unit, polarity,
    points: [{time, commit, value, se, n, file}], changes: [{id, state, index, size_pct, p_value}]}]
}]]

--- history.points_schema: one line of `history.lua points` (what add --from-json reads back).
history.points_schema = [[{
  vpscript_history, capture: {hash, file, format, frames, commit, branch, time, platform, scenario, host, ci_url},
  points: [{metric, unit, polarity, value, n, se}]
}]]

--- What history.lua --help says of the method (docs/history.md has more).
history.DESCRIPTION = [[
Definitions (docs/history.md):
  series       scenario x platform x branch x metric; its points in time
               order (ties: the order they were added). A night without a
               capture is no point: gaps are skipped, never filled.
  point        a capture's value of a metric of the catalogue
               (docs/metrics-table.md), its frame count, and its standard
               error where the metric has a per-frame distribution
               (vp.infer's batch-means estimate, as compare.lua's).
  identity     a capture is its bytes' SHA-256 (a --json document: the hash
               it carries, else its text's): adding it again adds nothing.
  change       E-Divisive means in windows of --window points (Otava's
               method), each change tested by Welch's t between the
               segments either side (p < --max-p), both at least
               --min-segment points, moving the mean by at least --min-pct
               % and --min-abs; times (ms) on a log scale. Its commit range
               is the last point before it and the first after it; before
               and after are the segments' means with 95 % intervals.
  regression   a change that is worse by the metric's polarity; exit 3
               when one among a series' --latest points is still new.
  triage       new, acknowledged or invalid, kept in the store with the
               change (history.lua ack ID); a change found again a point
               or two later keeps its id and state.
]]

-- Time ------------------------------------------------------------------------------------

-- Days from 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's
-- days_from_civil): no os.time, whose result depends on the local zone.
local function days_from_civil(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (m + (m > 2 and -3 or 9)) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end

--- history.utc(text) -> "YYYY-MM-DDTHH:MM:SSZ" | nil, why: an ISO 8601
-- date or time (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS[.fff]] with Z, +hh:mm or
-- no zone, meaning UTC) in UTC, the form the store keeps and sorts.
function history.utc(text)
  if type(text) ~= "string" then return nil, "expected an ISO 8601 time" end
  local y, mo, d, rest = text:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  if not y then return nil, "expected an ISO 8601 time such as 2024-05-01T02:30:00Z" end
  local h, mi, s, zone = 0, 0, 0, ""
  if rest ~= "" then
    local hh, mm, tail = rest:match("^[T ](%d%d):(%d%d)(.*)$")
    if not hh then return nil, "expected THH:MM after the date" end
    h, mi = tonumber(hh), tonumber(mm)
    local ss, after = tail:match("^:(%d%d)(.*)$")
    if ss then s, tail = tonumber(ss), after end
    tail = tail:gsub("^%.%d+", "")
    zone = tail
  end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  local mdays = { 31, (y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0)) and 29 or 28, 31, 30, 31, 30, 31, 31, 30, 31,
    30, 31 }
  if mo < 1 or mo > 12 or d < 1 or d > mdays[mo] or h > 23 or mi > 59 or s > 60 then
    return nil, "not a valid date and time"
  end
  local offset = 0
  if zone ~= "" and zone ~= "Z" then
    local sign, zh, zm = zone:match("^([+-])(%d%d):?(%d%d)$")
    if not sign then return nil, "expected Z or +hh:mm after the time" end
    offset = (tonumber(zh) * 60 + tonumber(zm)) * (sign == "+" and 1 or -1)
  end
  local t = days_from_civil(y, mo, d) * 86400 + h * 3600 + (mi - offset) * 60 + math.min(s, 59)
  return os.date("!%Y-%m-%dT%H:%M:%SZ", t)
end

-- Metadata --------------------------------------------------------------------------------

-- Where each field comes from when no option gives it: the first of these
-- environment variables that is set and not empty (GitHub Actions, GitLab
-- CI, Buildkite, Jenkins).
history.ENV = {
  commit = { "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT" },
  branch = { "GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_BRANCH", "CI_COMMIT_REF_NAME", "BUILDKITE_BRANCH",
    "GIT_BRANCH" },
  platform = { "VPSCRIPT_PLATFORM" },
  host = { "RUNNER_NAME", "CI_RUNNER_DESCRIPTION", "BUILDKITE_AGENT_NAME", "NODE_NAME", "HOSTNAME" },
}

local function from_env(getenv, names)
  for _, n in ipairs(names) do
    local v = getenv(n)
    if v and v ~= "" then return v end
  end
  return nil
end

local function stem(path)
  local base = tostring(path or ""):match("([^/]*)$")
  return (base:gsub("%.[^.]*$", ""))
end

--- history.metadata(opts, getenv [, path]) -> {commit, branch, time,
-- platform, scenario, host, ci_url}: the options' values (opts.commit,
-- branch, time, platform, scenario), else the CI environment's
-- (history.ENV; GitHub's RUNNER_OS-RUNNER_ARCH for the platform; the CI
-- job's URL), else the capture's: its file name without the extension for
-- the scenario, its modification time for the time; "unknown" for a
-- branch, platform or scenario nothing gives. getenv: os.getenv or a table
-- lookup (tests).
function history.metadata(opts, getenv, path)
  opts = opts or {}
  if type(getenv) == "table" then
    local t = getenv
    getenv = function(k) return t[k] end
  end
  local m = {}
  m.commit = opts.commit or from_env(getenv, history.ENV.commit)
  m.branch = opts.branch or from_env(getenv, history.ENV.branch)
  if m.branch then m.branch = m.branch:gsub("^origin/", ""):gsub("^refs/heads/", "") end
  m.platform = opts.platform or from_env(getenv, history.ENV.platform)
  if not m.platform and getenv("RUNNER_OS") then
    m.platform = getenv("RUNNER_OS") .. (getenv("RUNNER_ARCH") and ("-" .. getenv("RUNNER_ARCH")) or "")
  end
  m.host = from_env(getenv, history.ENV.host)
  if getenv("GITHUB_RUN_ID") and getenv("GITHUB_REPOSITORY") then
    m.ci_url = (getenv("GITHUB_SERVER_URL") or "https://github.com") .. "/" .. getenv("GITHUB_REPOSITORY")
      .. "/actions/runs/" .. getenv("GITHUB_RUN_ID")
  else
    m.ci_url = from_env(getenv, { "CI_JOB_URL", "BUILDKITE_BUILD_URL", "BUILD_URL" })
  end
  m.scenario = opts.scenario or (path and stem(path) ~= "" and stem(path)) or nil
  if opts.time then
    local t, why = history.utc(opts.time)
    if not t then E.raise("EUSAGE", "--time %s: %s", opts.time, why) end
    m.time = t
  elseif path then
    local ok, lfs = pcall(require, "lfs")
    local mtime = ok and type(lfs) == "table" and lfs.attributes(path, "modification")
    if mtime then m.time = os.date("!%Y-%m-%dT%H:%M:%SZ", mtime) end
  end
  m.time = m.time or os.date("!%Y-%m-%dT%H:%M:%SZ")
  m.branch = m.branch or "unknown"
  m.platform = m.platform or "unknown"
  m.scenario = m.scenario or "unknown"
  return m
end

-- Points ----------------------------------------------------------------------------------

local function wanted(name, match)
  if not match or #match == 0 then return true end
  for _, pat in ipairs(match) do
    if name:find(pat) then return true end
  end
  return false
end

-- The standard error of a metric's value in one capture, or nil: vp.infer's
-- estimate of the statistic over the metric's per-frame distribution.
local function standard_error(cap, name, samples)
  local stat = metrics.statistic(name)
  if not stat or stat.kind == "extreme" then return nil end
  local function sample(n)
    local key = metrics.distribution_key(n) or n
    if samples[key] == nil then
      local d = metrics.distribution(cap, n)
      local st = metrics.statistic(n)
      samples[key] = d and infer.sample(d, { independent = st and st.independent }) or false
    end
    return samples[key] or nil
  end
  local s = sample(name)
  if not s then return nil end
  local e = infer.estimate(stat, s, { den = stat.kind == "share" and sample("frame_ms.mean") or nil })
  -- a variance that is NaN or negative is no standard error
  if not e or not (e.var >= 0) then return nil end -- luacheck: ignore 581
  return math.sqrt(e.var)
end

--- history.measure(cap, meta [, params]) -> record: one capture's points,
-- {capture = meta + {hash, file, format, frames}, points = [{metric, unit,
-- polarity, value, n, se}]}, the metrics in catalogue order. params.match:
-- Lua patterns, only metrics whose name has one (all when empty);
-- params.hash: the capture's hash when known (else vp.sha256_file).
function history.measure(cap, meta, params)
  params = params or {}
  local vp = require "vp"
  local capture = {}
  for k, v in pairs(meta) do capture[k] = v end
  capture.file, capture.format = cap.path, cap.format
  capture.hash = params.hash
  if not capture.hash then
    local h, msg = vp.sha256_file(cap.path)
    if not h then E.raise("EINPUT", "%s", msg) end
    capture.hash = h
  end
  local names = {}
  for _, m in ipairs(metrics.available(cap)) do
    if wanted(m.name, params.match) then names[#names + 1] = m.name end
  end
  local values = metrics.compute(cap, names)
  local frames = values.frames or cap.frame_count
  capture.frames = math.tointeger(frames)
  metrics.prepare_tests({ cap }, names)
  local points, samples = {}, {}
  for _, name in ipairs(names) do
    local v = values[name]
    if v ~= nil then
      local e, param = metrics.lookup(name)
      points[#points + 1] = { metric = name, unit = e.unit, polarity = metrics.polarity(e, param), value = v,
        n = capture.frames, se = standard_error(cap, name, samples) }
    end
  end
  return { capture = capture, points = points }
end

-- Documents -------------------------------------------------------------------------------

local function num(v)
  if type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge then return v end
  return nil
end

local function point(name, v, n)
  local e, param = metrics.lookup(name)
  if not e or num(v) == nil then return nil end
  return { metric = name, unit = e.unit, polarity = metrics.polarity(e, param), value = v, n = n }
end

-- The points of a hitches.lua, check.lua or compare.lua --json document,
-- and the capture file and format it names; nil when it is none of them.
local function document_points(doc)
  local pts = {}
  local function add(p) if p then pts[#pts + 1] = p end end
  if type(doc.hitches) == "table" and type(doc.frame_ms) == "table" then
    local n = math.tointeger(num(doc.frames))
    add(point("frames", doc.frames, n))
    for _, k in ipairs({ "mean", "p50", "p95", "p99", "max" }) do add(point("frame_ms." .. k, doc.frame_ms[k], n)) end
    for _, k in ipairs({ "low_1pct_fps", "low_01pct_fps", "stutter_pct" }) do add(point(k, doc[k], n)) end
    add(point("hitches", #doc.hitches, n))
    return pts, doc.file, doc.format, n
  end
  if type(doc.results) == "table" and doc.rules ~= nil then
    for _, r in ipairs(doc.results) do
      if type(r) == "table" and type(r.metric) == "string" then add(point(r.metric, r.value)) end
    end
    return pts, doc.file, doc.format
  end
  if type(doc.metrics) == "table" and type(doc.b) == "table" then
    local n = math.tointeger(num(doc.b.frames))
    for _, m in ipairs(doc.metrics) do
      if type(m) == "table" and type(m.metric) == "string" then add(point(m.metric, m.b_raw or m.b, n)) end
    end
    return pts, doc.b.file, doc.b.format, n
  end
  return nil
end

--- history.from_document(doc, text, meta_opts, getenv) -> record | nil,
-- why: the capture record of one JSON document: `history.lua points`'s
-- (its capture and points as they are; meta_opts override its metadata),
-- or hitches.lua's, check.lua's or compare.lua's (B's values) --json, the
-- capture named by its file, identified by the hash of text.
function history.from_document(doc, text, meta_opts, getenv)
  if type(doc) ~= "table" then return nil, "not a JSON object" end
  if doc.error ~= nil and doc.file ~= nil then
    return nil, string.format("the job for %s failed: %s", tostring(doc.file), tostring(doc.error))
  end
  local vp = require "vp"
  if doc.vpscript_history ~= nil then
    local c = doc.capture
    if type(c) ~= "table" or type(c.hash) ~= "string" or type(doc.points) ~= "table" then
      return nil, "a history points document without its capture's hash or points"
    end
    local capture = {}
    for k, v in pairs(c) do
      if type(v) == "string" or type(v) == "number" then capture[k] = v end
    end
    for _, k in ipairs({ "commit", "branch", "platform", "scenario" }) do
      if meta_opts and meta_opts[k] then capture[k] = meta_opts[k] end
    end
    if meta_opts and meta_opts.time then capture.time = history.metadata({ time = meta_opts.time }, {}).time end
    local pts = {}
    for _, p in ipairs(doc.points) do
      if type(p) == "table" and type(p.metric) == "string" and num(p.value) then
        pts[#pts + 1] = { metric = p.metric, unit = type(p.unit) == "string" and p.unit or nil,
          polarity = type(p.polarity) == "string" and p.polarity or nil, value = p.value,
          n = math.tointeger(num(p.n)), se = num(p.se) }
      end
    end
    return { capture = capture, points = pts }
  end
  local pts, file, format, n = document_points(doc)
  if not pts then return nil, "not a hitches, check, compare or history points document" end
  local capture = history.metadata(meta_opts, getenv, type(file) == "string" and file or nil)
  capture.hash = "json:" .. vp.sha256(text)
  capture.file = type(file) == "string" and file or nil
  capture.format = type(format) == "string" and format or nil
  capture.frames = n
  return { capture = capture, points = pts }
end

--- history.read_documents(path) -> [{doc, text, where} | {where, why}]:
-- the JSON documents of a file: the whole file when it is one document,
-- else one per line (NDJSON; blank lines skipped); "-" is standard input,
-- a directory its .json and .ndjson files in byte order. where names the
-- file (and line); why says what is wrong with a line that is no JSON.
-- Raises EINPUT for a file that cannot be read.
function history.read_documents(path)
  local json = require "vp.json"
  local ok, lfs = pcall(require, "lfs")
  if ok and type(lfs) == "table" and lfs.attributes(path, "mode") == "directory" then
    local names = {}
    for n in lfs.dir(path) do
      if n:match("%.n?d?json$") and n:sub(1, 1) ~= "." then names[#names + 1] = n end
    end
    table.sort(names)
    local out = {}
    for _, n in ipairs(names) do
      for _, d in ipairs(history.read_documents(path .. "/" .. n)) do out[#out + 1] = d end
    end
    return out
  end
  local f, err = io.stdin, nil
  if path ~= "-" then f, err = io.open(path, "rb") end
  if not f then E.raise("EINPUT", "%s", tostring(err)) end
  local text = f:read("a")
  if path ~= "-" then f:close() end
  if not text then E.raise("EINPUT", "%s: cannot be read", path) end
  local whole_ok, whole = pcall(json.decode, text)
  if whole_ok and type(whole) == "table" then return { { doc = whole, text = text, where = path } } end
  local out, n = {}, 0
  for line in (text:sub(-1) == "\n" and text or text .. "\n"):gmatch("(.-)\r?\n") do
    n = n + 1
    if line:match("%S") then
      local lok, doc = pcall(json.decode, line)
      local where = string.format("%s line %d", path, n)
      if lok and type(doc) == "table" then
        out[#out + 1] = { doc = doc, text = line, where = where }
      else
        out[#out + 1] = { where = where, why = lok and "not a JSON object" or ("not JSON: " .. tostring(doc)) }
      end
    end
  end
  return out
end

-- Adding ----------------------------------------------------------------------------------

local function now()
  return os.date("!%Y-%m-%dT%H:%M:%SZ")
end

local function series_id(db, cache, c, p)
  local key = table.concat({ c.scenario, c.platform, c.branch, p.metric }, "\0")
  local id = cache[key]
  if id then return id end
  db:exec("INSERT INTO vp_series (scenario, platform, branch, metric, unit, polarity) VALUES (?, ?, ?, ?, ?, ?) "
    .. "ON CONFLICT (scenario, platform, branch, metric) DO NOTHING", c.scenario, c.platform, c.branch, p.metric,
    p.unit, p.polarity)
  local rows = db:rows("SELECT id FROM vp_series WHERE scenario = ? AND platform = ? AND branch = ? AND metric = ?",
    c.scenario, c.platform, c.branch, p.metric)
  id = math.tointeger(rows[1][1])
  cache[key] = id
  return id
end

local function check_count(v)
  if v == nil then return nil end
  v = math.tointeger(v)
  -- the drivers read integer columns as 32-bit ints
  if not v or v < 0 or v > 2147483647 then return nil end
  return v
end

--- history.add(db, records) -> {added, skipped, points}: each record
-- (history.measure's, history.from_document's) in a transaction of its
-- own: nothing when a capture with its hash is there already, else the
-- capture and one point per metric (series created as needed).
function history.add(db, records)
  local out = { added = 0, skipped = 0, points = 0 }
  local cache = {}
  for _, rec in ipairs(records) do
    local c = rec.capture
    local n = db:transaction(function()
      local rows = db:rows("INSERT INTO vp_captures (hash, file, format, frames, commit_id, branch, time, platform, "
        .. "scenario, host, ci_url, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING "
        .. "RETURNING id", c.hash, c.file, c.format, check_count(c.frames), c.commit, c.branch, c.time, c.platform,
        c.scenario, c.host, c.ci_url, now())
      if not rows[1] then return nil end
      local cid = math.tointeger(rows[1][1])
      local pts = table.move(rec.points, 1, #rec.points, 1, {})
      -- one order for every job: two adding the same new series cannot deadlock
      table.sort(pts, function(a, b) return a.metric < b.metric end)
      local seen = {}
      for _, p in ipairs(pts) do
        if not seen[p.metric] then
          seen[p.metric] = true
          db:exec("INSERT INTO vp_points (series_id, capture_id, value, n, se) VALUES (?, ?, ?, ?, ?)",
            series_id(db, cache, c, p), cid, p.value, check_count(p.n), p.se)
        end
      end
      return #pts
    end)
    if n then
      out.added, out.points = out.added + 1, out.points + n
    else
      out.skipped = out.skipped + 1
    end
  end
  return out
end

-- Reading ---------------------------------------------------------------------------------

--- history.series(db [, filter]) -> [{id, scenario, platform, branch,
-- metric, unit, polarity}] sorted by those names: filter.scenario,
-- platform, branch (exact), match (Lua patterns on the metric name).
function history.series(db, filter)
  filter = filter or {}
  local out = {}
  for _, r in ipairs(db:rows("SELECT id, scenario, platform, branch, metric, unit, polarity FROM vp_series")) do
    local s = { id = math.tointeger(r[1]), scenario = r[2], platform = r[3], branch = r[4], metric = r[5],
      unit = r[6], polarity = r[7] }
    if (not filter.scenario or filter.scenario == s.scenario) and (not filter.platform or filter.platform ==
        s.platform) and (not filter.branch or filter.branch == s.branch) and wanted(s.metric, filter.match) then
      out[#out + 1] = s
    end
  end
  table.sort(out, function(a, b)
    if a.scenario ~= b.scenario then return a.scenario < b.scenario end
    if a.platform ~= b.platform then return a.platform < b.platform end
    if a.branch ~= b.branch then return a.branch < b.branch end
    return a.metric < b.metric
  end)
  return out
end

--- history.points(db, series) -> [{capture, value, se, n, commit, time,
-- file}] of one series in time order (ties by the order they were added).
function history.points(db, s)
  local out = {}
  for _, r in ipairs(db:rows("SELECT c.id, p.value, p.se, p.n, c.commit_id, c.time, c.file FROM vp_points p "
    .. "JOIN vp_captures c ON c.id = p.capture_id WHERE p.series_id = ? ORDER BY c.time, c.id", s.id)) do
    out[#out + 1] = { capture = math.tointeger(r[1]), value = r[2], se = r[3], n = math.tointeger(r[4]),
      commit = r[5], time = r[6], file = r[7] }
  end
  return out
end

-- Changes ---------------------------------------------------------------------------------

local function params_of(p)
  local o = {}
  for k, v in pairs(history.DEFAULTS) do o[k] = v end
  for k, v in pairs(p or {}) do o[k] = v end
  if o.since then
    local t, why = history.utc(o.since)
    if not t then E.raise("EUSAGE", "--since %s: %s", o.since, why) end
    o.since = t
  end
  return o
end

--- history.detect(s, pts [, params]) -> vp.changepoint's result for one
-- series' points: times (unit ms) on a log scale; with params.se_floor,
-- each segment's variance floored by its points' standard errors (not by
-- default: a capture's batch-means error also holds its phases, which a
-- scripted benchmark repeats every night).
function history.detect(s, pts, params)
  local o = params_of(params)
  local values, se = {}, o.se_floor and {} or nil
  for i, p in ipairs(pts) do
    values[i] = p.value
    if se then se[i] = p.se or 0 end
  end
  return cp.detect(values, { se = se, log = s.unit == "ms", window = o.window, max_p = o.max_p,
    min_segment = o.min_segment, min_rel = o.min_rel, min_abs = o.min_abs })
end

local function regression(polarity, size)
  if polarity == "lower" then return size > 0 end
  if polarity == "higher" then return size < 0 end
  return false
end

-- The stored changes of a series matched to the ones found: the same first
-- point after, else the nearest stored one less than min_segment points
-- away (a change found one point later once more nights came in keeps its
-- id and its state). Unmatched finds are inserted as new.
local function record(db, s, pts, found, min_segment)
  local pos = {}
  for i, p in ipairs(pts) do pos[p.capture] = i end
  local stored = {}
  for _, r in ipairs(db:rows("SELECT id, after_capture, state FROM vp_changes WHERE series_id = ? ORDER BY id",
    s.id)) do
    stored[#stored + 1] = { id = math.tointeger(r[1]), at = pos[math.tointeger(r[2])], state = r[3] }
  end
  local taken = {}
  for _, c in ipairs(found) do
    local best, dist
    for _, st in ipairs(stored) do
      if st.at and not taken[st.id] then
        local d = math.abs(st.at - c.index)
        if d < min_segment and (not dist or d < dist) then best, dist = st, d end
      end
    end
    local before, after = pts[c.index - 1].capture, pts[c.index].capture
    if best then
      taken[best.id] = true
      c.id, c.state = best.id, best.state
      if best.at ~= c.index then
        db:exec("UPDATE vp_changes SET before_capture = ?, after_capture = ?, updated = ? WHERE id = ?", before, after,
          now(), best.id)
      end
    else
      local rows = db:rows("INSERT INTO vp_changes (series_id, before_capture, after_capture, state, found, updated) "
        .. "VALUES (?, ?, ?, 'new', ?, ?) ON CONFLICT (series_id, after_capture) DO NOTHING RETURNING id", s.id,
        before, after, now(), now())
      if rows[1] then
        c.id, c.state = math.tointeger(rows[1][1]), "new"
      else -- another job recorded it a moment ago
        local r = db:rows("SELECT id, state FROM vp_changes WHERE series_id = ? AND after_capture = ?", s.id, after)
        c.id, c.state = math.tointeger(r[1][1]), r[1][2]
      end
    end
  end
end

--- history.changes(db [, params]) -> {series, points, changes, failing}:
-- the change points of every series the filter chooses (params: scenario,
-- platform, branch, match, as history.series; since (ISO 8601: only
-- changes whose first point after is at or after it), latest (the points
-- counted as the latest), the method's window, max_p, min_segment,
-- min_rel, min_abs), each recorded in the store with its triage state.
-- A change: {id, state, metric, scenario, platform, branch, unit,
-- polarity, regression (worse by the metric's polarity), latest (its first
-- point after is among the series' latest points), index, points,
-- before_commit, after_commit, before_time, after_time, before, after
-- ({mean, lo, hi, n}), size_pct, diff, p_value}. failing: the number of
-- regressions among the latest points that are still new (the nightly
-- job's exit 3). Changes are sorted by series, then index.
function history.changes(db, params)
  local o = params_of(params)
  local list = history.series(db, o)
  local out = { series = #list, points = 0, changes = {}, failing = 0 }
  local work = {}
  for _, s in ipairs(list) do
    local pts = history.points(db, s)
    out.points = out.points + #pts
    local r = history.detect(s, pts, o)
    if #r.changes > 0 then work[#work + 1] = { s = s, pts = pts, found = r.changes } end
  end
  if #work > 0 then
    db:transaction(function()
      for _, w in ipairs(work) do record(db, w.s, w.pts, w.found, o.min_segment) end
    end)
  end
  for _, w in ipairs(work) do
    local s, pts = w.s, w.pts
    for _, c in ipairs(w.found) do
      local b, a = pts[c.index - 1], pts[c.index]
      if not o.since or a.time >= o.since then
        local ch = { id = c.id, state = c.state, metric = s.metric, scenario = s.scenario, platform = s.platform,
          branch = s.branch, unit = s.unit, polarity = s.polarity, regression = regression(s.polarity, c.size_pct),
          latest = c.index > #pts - o.latest, index = c.index, points = #pts, before_commit = b.commit,
          after_commit = a.commit, before_time = b.time, after_time = a.time,
          before = { mean = c.before.mean, lo = c.before.lo, hi = c.before.hi, n = c.before.n },
          after = { mean = c.after.mean, lo = c.after.lo, hi = c.after.hi, n = c.after.n },
          size_pct = c.size_pct, diff = c.diff, p_value = c.p }
        out.changes[#out.changes + 1] = ch
        if ch.regression and ch.latest and ch.state == "new" then out.failing = out.failing + 1 end
      end
    end
  end
  out.params = { latest = o.latest, since = o.since, window = o.window, max_p = o.max_p,
    min_segment = o.min_segment, min_rel = o.min_rel, min_abs = o.min_abs, se_floor = o.se_floor == true }
  return out
end

--- history.ack(db, id, state [, note]) -> the change's row {id, state,
-- note, metric, scenario, platform, branch}: its triage state set (new,
-- acknowledged or invalid). EUSAGE for an unknown id or state.
function history.ack(db, id, state, note)
  if not history.STATES[state] then E.raise("EUSAGE", "unknown triage state '%s' (new, acknowledged, invalid)",
    tostring(state)) end
  local n = math.tointeger(tonumber(id))
  if not n then E.raise("EUSAGE", "a change id is a number (history.lua changes lists them): '%s'", tostring(id)) end
  return db:transaction(function()
    local rows = db:rows("SELECT c.id, s.metric, s.scenario, s.platform, s.branch, c.note FROM vp_changes c "
      .. "JOIN vp_series s ON s.id = c.series_id WHERE c.id = ?", n)
    if not rows[1] then E.raise("EUSAGE", "%s: no change with id %d", db.name, n) end
    local r = rows[1]
    db:exec("UPDATE vp_changes SET state = ?, note = ?, updated = ? WHERE id = ?", state, note or r[6], now(), n)
    return { id = n, state = state, note = note or r[6], metric = r[2], scenario = r[3], platform = r[4],
      branch = r[5] }
  end)
end

--- history.trend(db [, params]) -> {series = [{scenario, platform, branch,
-- metric, unit, polarity, points = [{time, commit, value, se, n, file}],
-- changes = [{id, state, index, size_pct, p_value}]}]}: the series the
-- filter chooses (as history.series; at most params.limit of them) with
-- every point and the changes found (their stored ids and states where
-- `changes` recorded them; nil id otherwise).
function history.trend(db, params)
  local o = params_of(params)
  local out = { series = {} }
  for _, s in ipairs(history.series(db, o)) do
    if o.limit and #out.series >= o.limit then break end
    local pts = history.points(db, s)
    local r = history.detect(s, pts, o)
    local stored = {}
    for _, row in ipairs(db:rows("SELECT after_capture, id, state FROM vp_changes WHERE series_id = ?", s.id)) do
      stored[math.tointeger(row[1])] = { id = math.tointeger(row[2]), state = row[3] }
    end
    local changes = {}
    for i, c in ipairs(r.changes) do
      local st = stored[pts[c.index].capture] or {}
      changes[i] = { id = st.id, state = st.state, index = c.index, size_pct = c.size_pct, p_value = c.p }
    end
    local points = {}
    for i, p in ipairs(pts) do
      points[i] = { time = p.time, commit = p.commit, value = p.value, se = p.se, n = p.n, file = p.file }
    end
    out.series[#out.series + 1] = { scenario = s.scenario, platform = s.platform, branch = s.branch,
      metric = s.metric, unit = s.unit, polarity = s.polarity, points = points, changes = changes }
  end
  return out
end

return history
