-- vp.compare: every metric of two captures (or two sets of runs) side by
-- side: the change, its 95 % interval, its significance, the effect sizes
-- and a test of the distribution's shape. The analysis behind compare.lua;
-- vp.gate uses compare.metric for its regression rules.
--
--   local compare = require "vp.compare"
--   local r = compare.analyze(cap_a, cap_b, {alpha = 0.01, nodes = 10, match = {"^group%."}})
--   local r = compare.analyze({a1, a2, a3, a4, a5}, {b1, b2, b3, b4, b5})   -- runs a side
--   for _, m in ipairs(r.metrics) do print(m.metric, m.a, m.b, m.ci.pct_lo, m.ci.pct_hi, m.significant) end
--   io.write(json.encode(r, compare.schema))   -- compare.lua's --json (see only_in below)
--
-- A is the baseline, B the new build; each side is one capture or a list
-- of captures of one format (runs of the same build). The metrics
-- compared are the catalogue's (vp.metrics) that every run of both sides
-- has. compare.DEFINITIONS (printed by compare.lua --help) and
-- docs/compare.md state every figure; vp.infer the methods.
--
-- The result is plain data (nil for absent, never NaN or infinity) in the
-- shape of compare.schema, except that the only_in_a / only_in_b entries
-- hold their values as an ordered list `values = {{metric, value}, ...}`
-- (value nil when the capture cannot give it) where the document has the
-- map `metrics = {<metric> = value}`.
local E = require "vp.error"
local metrics = require "vp.metrics"
local infer = require "vp.infer"
local align = require "vp.align"
local phases = require "vp.phases"

local compare = {}

compare.DEFAULTS = { alpha = 0.01, nodes = 10, match = nil, shape = "grid",
  evidence = "auto", pairing = "auto", level = 0.95 }

compare.SHAPES = { grid = true, ks = true, ad = true }
compare.EVIDENCE = { auto = true, runs = true, frames = true }
compare.PAIRINGS = align.PAIRINGS

--- With one capture a side, an interval of a change wider than this many
-- per cent either way cannot tell a regression from noise: the row says
-- so (and what would: more runs, or a steady stretch) instead of
-- passing it off as "not significant".
compare.NO_POWER_PCT = 10
compare.CANNOT_TELL = "cannot tell from one capture a side: record 5 runs a side (--runs), or compare a "
  .. "steady stretch (--frames)"

--- Below this many runs a side the run-level test is reported with a warning.
compare.MIN_RUNS = 5

--- The --json document (docs/architecture.md notation).
compare.schema = [[{
  a: {file, format, frames, frame_range: {first, last}, runs, files: []},
  b: {file, format, frames, frame_range: {first, last}, runs, files: []},
  alpha, level, shape_test, correction, evidence,
  pairing: {method, decided, axis, stretches, agreement, why,
            phases_a: [{phase, first, last, frames, typical_ms}],
            phases_b: [{phase, first, last, frames, typical_ms}]},
  tests, shape_tests,
  summary: {metrics, worse, better, changed, same, significant_worse, significant_better, shape_changes,
            cannot_tell},
  warnings: [],
  metrics: [{metric, unit, polarity, a, b, change, change_pct, impact, direction, normalised,
             a_raw, b_raw, per, evidence, method, p_value, p_adjusted, significant, cannot_tell,
             ci: {level, change_lo, change_hi, pct_lo, pct_hi, impact_lo, impact_hi},
             effect: {hl_shift, hl_lo, hl_hi, cliffs_delta, cliffs_lo, cliffs_hi, prob_b_greater},
             shape: {test, p_value, p_adjusted, significant, at},
             frames: {method, a, b, change, p_value, change_lo, change_hi, df, stretches, clipped},
             runs: {a: [], b: [], p_value, change_lo, change_hi, df},
             note}],
  only_in_a: [{kind, name, metrics: {*}}],
  only_in_b: [{kind, name, metrics: {*}}]
}]]

--- The definitions, as compare.lua --help prints them.
compare.DEFINITIONS = [[
Definitions (docs/compare.md has the methods, their assumptions and the
calibration):
  metrics     every metric of the catalogue that both sides have (see
              docs/metrics-table.md); a group, node, system, budget or
              measurement found on one side only is listed under "only
              in A" / "only in B" with its values, not compared.
  runs        a side may be several captures (runs of one build): each
              metric's value is the mean of its runs' values.
  change      B - A, and change % = 100 x (B - A) / |A| (none when A is
              0); a change that rounds to 0.0 % counts as unchanged.
  normalised  totals (hitches, per-kind disagreement counts, counters) are
              divided by the capture's frames (compared traces, ...) first
              when the two sides differ in it.
  impact      change % signed by the metric's polarity: positive = worse.
              Rows sort by |impact|; a change from 0 counts as largest.
  95 % CI     the interval of the change (and of change %): with 2 or
              more runs a side from Welch's t on the run values (runs are
              independent); with one capture a side that lines up with
              the other (two runs of one benchmark: their stretch profiles
              agree), from the two paired stretch by stretch, so that the
              phases and the hitches that recur cancel (evidence
              "aligned"; --pairing); otherwise from the per-frame values
              with batch means, which allow for slow drift: means,
              quantiles (Woodruff), 1 % low FPS (tail mean), shares. Max
              and min have none; hitch counts get a rate test. Wider than
              +-10 %: "cannot tell from one capture a side".
  phases      each capture's stretches whose typical frame time stays put
              (change points of the bin medians), printed with the pairing.
  significant the same test's two-sided p-value, Holm-adjusted over every
              metric tested in one comparison, below --alpha. "evidence"
              says which test decided: runs, aligned stretches or frames.
  shape       a test of the whole per-frame distribution (spread, tail,
              stutter) beside the location test: the share of frames
              below the pooled 5, 10, 25, 50, 75, 90, 95 and 99th
              percentiles compared with batch-means variances
              (Bonferroni over the points; --shape ks or ad for the
              Kolmogorov-Smirnov or Anderson-Darling distance with an
              effective n). Holm-adjusted as its own family.
  HL shift    Hodges-Lehmann: the median of all differences (B value - A
              value) of the per-frame values, in their unit, with its 95 %
              interval; Cliff's delta = P(B > A) - P(B < A) over all pairs
              of frames (-1 .. 1, 0 = no shift), with its interval.
  nodes       VProf: p95, p99, the tests and the effect sizes only for the
              --nodes nodes with the largest change of mean time per frame.]]

local finite = metrics.finite

-- Sides ------------------------------------------------------------------------------

local function is_capture(x)
  if type(x) == "userdata" then return true end
  return type(x) == "table" and getmetatable(x) ~= nil and x.format ~= nil
end

--- compare.side(x) -> side: a capture or a list of captures (runs) made
-- into what compare.metric takes: {runs = {cap, ...}, format, samples
-- (cache)}. Raises EUSAGE for an empty list and EINPUT for runs of
-- different formats.
function compare.side(x)
  if type(x) == "table" and x.runs and x.samples then return x end
  local runs
  if is_capture(x) then runs = { x } else runs = x end
  if type(runs) ~= "table" or #runs == 0 then E.raise("EUSAGE", "vp.compare: a side needs at least one capture") end
  for i, cap in ipairs(runs) do
    if cap.format ~= runs[1].format then
      E.raise("EINPUT", "%s: a %s capture among %s runs (%s): the runs of one side must be one format",
        tostring(cap.path), tostring(cap.format), tostring(runs[1].format), tostring(runs[1].path))
    end
    runs[i] = cap
  end
  if #runs > 1 and runs[1].format == "vprof" then
    -- the runs' frames one after the other: where vp.infer will cut each
    local lengths, n = {}, 0
    for i, cap in ipairs(runs) do
      lengths[i] = cap.frame_count
      n = n + lengths[i]
    end
    local cuts = infer.split(lengths, math.max(1, infer.batch_count(n)))
    for i, cap in ipairs(runs) do metrics.set_cuts(cap, cuts[i]) end
  end
  return { runs = runs, format = runs[1].format, samples = {} }
end

--- compare.unmeasurable(cap [, min_frames]) -> why | nil: why a capture
-- cannot be measured, nil when it can. A VProf capture needs at least
-- min_frames (default compare.MIN_FRAMES) complete frames and some node time (a capture whose
-- every node time is 0 comes from a broken recorder, or from the 2013/TF2
-- one, which clears per-frame values before writing them: its frame times
-- are all 0 and its low FPS infinite).
compare.MIN_FRAMES = 1
function compare.unmeasurable(cap, min_frames)
  if cap.format ~= "vprof" then return nil end
  min_frames = min_frames or compare.MIN_FRAMES
  local n = cap.frame_count
  if n < min_frames then
    return string.format("it holds %d complete frame%s (at least %d needed)", n, n == 1 and "" or "s",
      min_frames)
  end
  if cap.zero_timings then
    return string.format("it holds no timings: every node time is 0 in all %d frames", n)
  end
  return nil
end

--- compare.like_with_like(A [, B [, min_frames]]) -> nothing: raises
-- EINPUT (exit 2) when a capture of side A or B cannot be measured
-- (compare.unmeasurable with min_frames; false: the caller has settled
-- that) or when the two sides are captures of different formats, which
-- have no metric in common to compare. The message names the files. A, B:
-- sides (compare.side) or what compare.side takes.
function compare.like_with_like(A, B, min_frames)
  A = compare.side(A)
  B = B and compare.side(B)
  for _, side in ipairs({ A, B or nil }) do
    for _, cap in ipairs(min_frames ~= false and side.runs or {}) do
      local why = compare.unmeasurable(cap, min_frames)
      if why then E.raise("EINPUT", "%s: cannot be measured: %s", tostring(cap.path), why) end
    end
  end
  if B and A.format ~= B.format then
    E.raise("EINPUT", "%s (%s) and %s (%s): captures of different formats cannot be compared: "
      .. "compare like with like", tostring(A.runs[1].path), tostring(A.format), tostring(B.runs[1].path),
      tostring(B.format))
  end
end

-- Pairing ------------------------------------------------------------------------------

-- A capture's frame times in time order (a Series), or nil.
local function frame_times(cap)
  if type(cap.frame_times) ~= "function" then return nil end
  local ok, ft = pcall(cap.frame_times, cap)
  return ok and ft or nil
end

-- Phases as a result carries them: the capture's frame numbers.
local function phase_list(cap, segs)
  local base = (cap.first_frame or 1) - 1
  local out = {}
  for i, seg in ipairs(segs or {}) do
    out[i] = { phase = i, first = base + seg.first, last = base + seg.last, frames = seg.frames,
      typical_ms = finite(seg.typical_ms) }
  end
  return out
end

--- compare.phases(cap) -> the capture's phases ({phase, first, last,
-- frames, typical_ms}, frame numbers the capture's: vp.phases), or nil for
-- a capture without frame times.
function compare.phases(cap)
  local ft = frame_times(cap)
  if not ft or #ft == 0 then return nil end
  return phase_list(cap, (phases.find(ft)))
end

--- compare.pair(A, B [, params]) -> pairing | nil: how two sides of one
-- capture each are compared (vp.align.plan on their frame times, with
-- params.pairing "auto" | "aligned" | "independent"); when they line up,
-- each side's per-frame samples are then cut into the paired stretches
-- (and so are the VProf passes that make them: metrics.set_cuts), and
-- the per-frame tests pair them (vp.infer.paired). nil for sides of
-- several runs (the runs decide) and for captures without frame times.
-- The pairing, as results carry it: {method, decided, axis, stretches,
-- agreement, why, phases_a, phases_b}.
function compare.pair(A, B, params)
  local pairing = (params and params.pairing) or compare.DEFAULTS.pairing
  if A.pairing ~= nil then return A.pairing or nil end
  local function none()
    A.pairing, B.pairing = false, false
    return nil
  end
  if #A.runs ~= 1 or #B.runs ~= 1 then
    if pairing == "aligned" and (#A.runs > 1 or #B.runs > 1) then
      E.raise("EUSAGE", "--pairing aligned pairs one capture with one; with runs a side, the runs decide")
    end
    return none()
  end
  local ca, cb = A.runs[1], B.runs[1]
  local fa, fb = frame_times(ca), frame_times(cb)
  if not (fa and fb) or #fa == 0 or #fb == 0 then
    if pairing == "aligned" then
      E.raise("EUSAGE", "--pairing aligned: %s captures have no frames to pair", tostring(A.format))
    end
    return none()
  end
  local plan = align.plan(fa, fb, { pairing = pairing })
  if plan.method == "aligned" then
    A.cuts, B.cuts = plan.cuts_a, plan.cuts_b
    A.strata = plan.segments
    metrics.set_cuts(ca, plan.cuts_a)
    metrics.set_cuts(cb, plan.cuts_b)
  end
  local out = { method = plan.method, decided = plan.decided, axis = plan.method == "aligned" and plan.axis or nil,
    stretches = plan.method == "aligned" and plan.stretches or nil, agreement = finite(plan.agreement),
    why = plan.why, phases_a = phase_list(ca, plan.phases_a), phases_b = phase_list(cb, plan.phases_b) }
  A.pairing, B.pairing = out, out
  return out
end

-- The pooled per-frame sample of a metric's distribution on one side (all
-- its runs one after the other; one capture cut into its paired stretches
-- when the sides line up), cached by distribution key; nil, why.
local function side_sample(side, name)
  local key = metrics.distribution_key(name) or name
  local hit = side.samples[key]
  if hit == nil then
    local parts, why = {}, nil
    for i, cap in ipairs(side.runs) do
      local s, w = metrics.distribution(cap, name)
      if not s then
        why = w
        break
      end
      parts[i] = s
    end
    if why then
      hit = { why = why }
    else
      -- the runs one after the other: each gives its own part of the batches
      local stat = metrics.statistic(name)
      local independent = stat and stat.independent
      hit = { sample = infer.sample(#parts == 1 and parts[1] or parts, { independent = independent,
        cuts = not independent and side.cuts or nil }) }
    end
    side.samples[key] = hit
  end
  return hit.sample, hit.why
end

-- Per-frame evidence --------------------------------------------------------------------

-- The per-frame test of one metric: {method, a, b, diff, lo, hi, p, df} | nil, why.
local function frames_test(name, A, B, p, normalised)
  local stat = metrics.statistic(name)
  if not stat then return nil, "no per-frame values" end
  if stat.kind == "count" and normalised then stat = { kind = "mean", independent = true } end
  local sa, why = side_sample(A, name)
  if not sa then return nil, why end
  local sb, whyb = side_sample(B, name)
  if not sb then return nil, whyb end
  local o = { level = p.level }
  if stat.kind == "share" then
    o.den_a = side_sample(A, "frame_ms.mean")
    o.den_b = side_sample(B, "frame_ms.mean")
  end
  if A.cuts and B.cuts and not stat.independent then
    o.strata = A.strata
    local d, dwhy = infer.paired(stat, sa, sb, o)
    if not d then return nil, dwhy end
    d.method, d.evidence = "paired-stretches", "aligned"
    return d
  end
  local d, dwhy = infer.compare(stat, sa, sb, o)
  if not d then return nil, dwhy end
  d.method = stat.independent and "welch-independent" or "batch-means"
  return d
end

--- compare.distribution(A, B, name [, params]) -> {shape, effects} | nil,
-- why: the shape test and the effect sizes of the distribution behind
-- metric `name` (pooled frames of each side).
function compare.distribution(A, B, name, params)
  local p = params or compare.DEFAULTS
  local sa, why = side_sample(A, name)
  if not sa then return nil, why end
  local sb, whyb = side_sample(B, name)
  if not sb then return nil, whyb end
  local shape
  if A.cuts and B.cuts and (p.shape or "grid") == "grid" and not sa.independent then
    shape = infer.paired_shape(sa, sb)
  else
    shape = infer.shape(sa, sb, p.shape or "grid")
  end
  return { shape = shape, effects = infer.effects(sa, sb, p.level) }
end

-- The rate test of a count of events (hitch frames) as a row's evidence:
-- the conditional test of vp.infer.rate on totals[i] events in frames[i]
-- frames of side i, the dispersion of the counts per block (counts[i],
-- lists) allowing for events in bursts; nil, why.
local function rate_row(row, totals, frames, counts, p, evidence)
  local t, why = infer.rate(totals[1], frames[1], totals[2], frames[2],
    { dispersion = infer.dispersion(counts), level = p.level })
  if not t then return nil, why end
  local a = row.a
  local out = { method = "rate", evidence = evidence, p = t.p, diff = row.change, a = row.a, b = row.b }
  if a and a ~= 0 and t.lo_pct then
    out.lo = a * t.lo_pct / 100
    out.hi = t.hi_pct and a * t.hi_pct / 100 or math.huge
  end
  return out
end

-- The rate test of one capture a side: the blocks are the capture's
-- stretches (the paired stretches, or the batches).
local function rate_test(e, A, B, row, p)
  local counts, totals, frames = {}, {}, {}
  for i, side in ipairs({ A, B }) do
    local cap = side.runs[1]
    local pos, why = metrics.events(cap, row.metric)
    if not pos then return nil, why end
    local n = metrics.value(cap, e.per)
    if not n or n <= 0 then return nil, "no frames" end
    local cuts = side.cuts or infer.cuts(n, math.max(1, infer.batch_count(n)))
    local c, b = {}, 1
    for k = 1, #cuts - 1 do c[k] = 0 end
    for _, x in ipairs(pos) do
      while b < #cuts - 1 and x > cuts[b + 1] do b = b + 1 end
      c[b] = c[b] + 1
    end
    counts[i], totals[i], frames[i] = c, #pos, n
  end
  return rate_row(row, totals, frames, counts, p, A.cuts and "aligned" or "frames")
end

-- One metric --------------------------------------------------------------------------

local function sum_of(list)
  local s = 0
  for _, v in ipairs(list) do s = s + v end
  return s
end

local function mean_of(list) -- of the values up to the first nil, as sum_of
  local s, n = 0, 0
  for _, v in ipairs(list) do s, n = s + v, n + 1 end
  return n > 0 and s / n or nil
end

-- The interval of change % (and of impact) from that of the change.
local function interval(row, lo, hi, level)
  if lo == nil then return nil end
  local ci = { level = level, change_lo = finite(lo), change_hi = finite(hi) }
  local a = row.a
  if a and a ~= 0 then
    ci.pct_lo, ci.pct_hi = finite(100 * lo / math.abs(a)), finite(100 * hi / math.abs(a))
    local sign = (row.polarity == "lower" and 1) or (row.polarity == "higher" and -1) or 0
    if sign == 1 then
      ci.impact_lo, ci.impact_hi = ci.pct_lo, ci.pct_hi
    elseif sign == -1 and ci.pct_lo then
      ci.impact_lo, ci.impact_hi = -ci.pct_hi, -ci.pct_lo
    end
  end
  return ci
end

--- compare.metric(A, B, name, va, vb [, params]) -> row | nil, why: one
-- metric compared. A, B: sides (compare.side); va, vb: the metric's value
-- in each run of A and B (lists, a missing value nil); params as
-- compare.analyze's (and per_frame = false: no per-frame work). The row has everything of a compare.schema metric
-- but p_adjusted and significant (the caller adjusts over its family):
-- its p_value and ci come from the evidence that decides ("runs" with 2
-- runs or more a side unless params.evidence = "frames"; else "frames").
function compare.metric(A, B, name, va, vb, params)
  local p = {}
  for k, v in pairs(compare.DEFAULTS) do p[k] = v end
  for k, v in pairs(params or {}) do p[k] = v end
  local e = metrics.lookup(name)
  if not e then return nil, "unknown metric '" .. tostring(name) .. "'" end
  for i = 1, #A.runs do
    if va[i] == nil then return nil, "not measured in " .. tostring(A.runs[i].path) end
  end
  for i = 1, #B.runs do
    if vb[i] == nil then return nil, "not measured in " .. tostring(B.runs[i].path) end
  end
  local function per_values(side)
    if not e.per then return nil end
    local l = {}
    for i, cap in ipairs(side.runs) do
      l[i] = metrics.value(cap, e.per)
      if l[i] == nil then return nil end
    end
    return l
  end
  local pa, pb = per_values(A), per_values(B)
  local d = metrics.delta(name, mean_of(va), mean_of(vb), pa and mean_of(pa), pb and mean_of(pb))
  local row = {
    metric = name, unit = d.unit, polarity = d.polarity, a = finite(d.a), b = finite(d.b),
    change = finite(d.change), change_pct = finite(d.change_pct), impact = finite(d.worse_pct),
    worse_pct = d.worse_pct, direction = d.direction, normalised = d.normalised,
    a_raw = finite(d.a_raw), b_raw = finite(d.b_raw), per = d.per,
  }

  -- runs: one value each (per frame when normalised), Welch's t; a count
  -- of events, the rate test over every run's events
  local runs, runs_method
  if #A.runs >= 2 and #B.runs >= 2 then
    local ra, rb = {}, {}
    for i, v in ipairs(va) do ra[i] = d.normalised and v / pa[i] or v end
    for i, v in ipairs(vb) do rb[i] = d.normalised and v / pb[i] or v end
    runs, runs_method = { a = ra, b = rb }, "welch-runs"
    -- a count: the runs are the blocks, each run's count its value
    local rt = e.events and pa and pb and p.evidence ~= "frames"
      and rate_row(row, { sum_of(va), sum_of(vb) }, { sum_of(pa), sum_of(pb) }, { va, vb }, p, "runs")
    if rt then
      runs_method, runs.p_value, runs.change_lo, runs.change_hi = "rate-runs", finite(rt.p), finite(rt.lo),
        finite(rt.hi)
    else
      local t = infer.runs(ra, rb, p.level)
      if t then
        runs.p_value, runs.change_lo, runs.change_hi, runs.df = finite(t.p), finite(t.lo), finite(t.hi), finite(t.df)
      end
    end
  end
  local frames, why
  if p.per_frame ~= false then
    frames, why = frames_test(name, A, B, p, d.normalised)
    if not frames and e.events and #A.runs == 1 and #B.runs == 1 then
      frames, why = rate_test(e, A, B, row, p)
    end
  else
    why = "per-frame tests only for the --nodes nodes that changed most"
  end
  if frames then
    row.frames = { method = frames.method, a = finite(frames.a), b = finite(frames.b), change = finite(frames.diff),
      p_value = finite(frames.p), change_lo = finite(frames.lo), change_hi = finite(frames.hi), df = finite(frames.df),
      stretches = frames.stretches, clipped = frames.clipped }
  end
  row.runs = runs

  local use_runs = runs and runs.p_value ~= nil and p.evidence ~= "frames"
  if use_runs then
    row.evidence, row.method, row.p_value = "runs", runs_method, runs.p_value
    row.ci = interval(row, runs.change_lo, runs.change_hi, p.level)
  elseif frames and p.evidence ~= "runs" then
    row.evidence, row.method, row.p_value = frames.evidence or "frames", frames.method, row.frames.p_value
    row.ci = interval(row, frames.lo, frames.hi, p.level)
    local ci = row.ci
    if ci and ci.pct_lo and ci.pct_hi and (ci.pct_hi - ci.pct_lo) / 2 > compare.NO_POWER_PCT then
      row.note, row.cannot_tell = compare.CANNOT_TELL, true
    end
  else
    row.note = why or (runs and "the runs' values do not vary") or "no per-frame values and one run a side"
  end
  return row
end

-- Pairing ----------------------------------------------------------------------------------

-- The metrics a side has in every run: names (name -> entity or true), by
-- entity, in the first run's order.
local function index(side)
  local list
  local count = {}
  for i, cap in ipairs(side.runs) do
    local l = metrics.available(cap, { series_pass = false })
    if i == 1 then list = l end
    for _, r in ipairs(l) do count[r.name] = (count[r.name] or 0) + 1 end
  end
  local n = #side.runs
  local names, by_entity, order, kept = {}, {}, {}, {}
  for _, r in ipairs(list) do
    if count[r.name] == n then
      kept[#kept + 1] = r
      names[r.name] = r.entity or true
      if r.entity then
        if not by_entity[r.entity] then
          by_entity[r.entity] = {}
          order[#order + 1] = r.entity
        end
        local l = by_entity[r.entity]
        l[#l + 1] = r.name
      end
    end
  end
  return { list = kept, names = names, by_entity = by_entity, order = order }
end

-- Entities (and fixed metrics) found on one side only, with their values
-- (the side's first run).
local function only_in(this, other, cap, matches)
  local out = {}
  for _, ent in ipairs(this.order) do
    if not other.by_entity[ent] then
      local kind, name = ent:match("^([^:]+):(.*)$")
      local values = {}
      for _, m in ipairs(this.by_entity[ent]) do
        if matches(m) then values[#values + 1] = { metric = m, value = finite(metrics.value(cap, m)) } end
      end
      if #values > 0 then out[#out + 1] = { kind = kind, name = name, values = values } end
    end
  end
  for _, r in ipairs(this.list) do
    if not r.entity and not other.names[r.name] and matches(r.name) then
      local v = finite(metrics.value(cap, r.name))
      out[#out + 1] = { kind = "metric", name = r.name, values = { { metric = r.name, value = v } } }
    end
  end
  return out
end

-- VProf: the p95/p99 names of the `k` nodes whose mean time changed most
-- (k = 0: all), and the set of those nodes' paths.
local function moved_nodes(common, va, vb, k, matches)
  local moved = {}
  for _, name in ipairs(common) do
    local path = name:match("^node%.(.+)%.mean_ms$")
    if path and va[name] and vb[name] then
      moved[#moved + 1] = { path = path, d = math.abs(vb[name] - va[name]) }
    end
  end
  table.sort(moved, function(x, y)
    if x.d ~= y.d then return x.d > y.d end
    return x.path < y.path
  end)
  k = k == 0 and #moved or math.min(k, #moved)
  local extra, tested = {}, {}
  for i = 1, k do
    tested[moved[i].path] = true
    for _, stat in ipairs({ "p95_ms", "p99_ms" }) do
      local name = "node." .. moved[i].path .. "." .. stat
      if matches(name) then extra[#extra + 1] = name end
    end
  end
  return extra, tested
end

--- compare.check_params(p, who) -> raises EUSAGE for a parameter it cannot use.
function compare.check_params(p, who)
  who = who or "vp.compare"
  if type(p.alpha) ~= "number" or not (p.alpha >= 0 and p.alpha <= 1) then
    E.raise("EUSAGE", "%s: alpha must be a number in 0..1, got %s", who, tostring(p.alpha))
  end
  if type(p.level) ~= "number" or not (p.level > 0 and p.level < 1) then
    E.raise("EUSAGE", "%s: level must be a number between 0 and 1, got %s", who, tostring(p.level))
  end
  for key, set in pairs({ shape = compare.SHAPES, evidence = compare.EVIDENCE,
    pairing = compare.PAIRINGS }) do
    if not set[p[key]] then
      local l = {}
      for k in pairs(set) do l[#l + 1] = k end
      table.sort(l)
      E.raise("EUSAGE", "%s: %s must be one of %s, got %s", who, key, table.concat(l, ", "), tostring(p[key]))
    end
  end
  if p.nodes ~= nil and (math.type(p.nodes) ~= "integer" or p.nodes < 0) then
    E.raise("EUSAGE", "%s: nodes must be an integer >= 0, got %s", who, tostring(p.nodes))
  end
  for _, pat in ipairs(p.match or {}) do
    local ok, err = pcall(string.find, "", pat)
    if not ok then E.raise("EUSAGE", "%s: bad pattern '%s': %s", who, tostring(pat), tostring(err)) end
  end
end

-- Holm over the rows' `key` p-values; sets p_adjusted and significant.
local function adjust(items, get, set, alpha)
  local ps, at = {}, {}
  for i, it in ipairs(items) do
    local pv = get(it)
    if pv ~= nil then
      ps[#ps + 1] = pv
      at[#ps] = i
    end
  end
  for k, adj in pairs(infer.holm(ps)) do set(items[at[k]], adj, adj < alpha) end
  return #ps
end

--- compare.analyze(a, b [, params]) -> result (see the top of this file).
-- a, b: a capture or a list of captures (runs) each. params (all optional;
-- defaults in compare.DEFAULTS): alpha, level (of the intervals, 0.95),
-- nodes, match (a list of Lua patterns: only metrics whose name contains
-- one of them), shape ("grid" |
-- "ks" | "ad"), evidence ("auto" | "runs" | "frames"). Raises EUSAGE
-- (vp.error) for parameters it cannot use, and EINPUT for captures that
-- cannot be measured or compared (compare.like_with_like).
function compare.analyze(cap_a, cap_b, params)
  local p = {}
  for k, v in pairs(compare.DEFAULTS) do p[k] = v end
  for k, v in pairs(params or {}) do p[k] = v end
  compare.check_params(p)
  local function matches(name)
    if not p.match or #p.match == 0 then return true end
    for _, pat in ipairs(p.match) do
      if name:find(pat) then return true end
    end
    return false
  end
  local A, B = compare.side(cap_a), compare.side(cap_b)
  compare.like_with_like(A, B)
  for _, side in ipairs({ A, B }) do
    for _, cap in ipairs(side.runs) do metrics.will_test(cap) end
  end
  local pairing = compare.pair(A, B, p)

  local ia, ib = index(A), index(B)
  local common = {}
  for _, r in ipairs(ia.list) do
    if ib.names[r.name] and matches(r.name) then common[#common + 1] = r.name end
  end
  -- values[run][name]: both sides' runs at once (their per-frame passes
  -- run together: metrics.compute_all)
  local va, vb = {}, {}
  local runs = table.move(A.runs, 1, #A.runs, 1, {})
  table.move(B.runs, 1, #B.runs, #runs + 1, runs)
  local function compute(names)
    for i, v in ipairs(metrics.compute_all(runs, names)) do
      local into = i <= #A.runs and va or vb
      local r = i <= #A.runs and i or i - #A.runs
      into[r] = into[r] or {}
      for k, x in pairs(v) do into[r][k] = x end
    end
  end
  compute(common)
  local function means(vals)
    local out = {}
    for _, name in ipairs(common) do
      local l = {}
      for i = 1, #vals do l[i] = vals[i][name] end
      if #l == #vals then out[name] = mean_of(l) end
    end
    return out
  end
  local tested_nodes, extra
  if A.format == "vprof" and B.format == "vprof" then
    extra, tested_nodes = moved_nodes(common, means(va), means(vb), p.nodes, matches)
    for _, name in ipairs(extra) do common[#common + 1] = name end
  end
  -- the tests' passes (the tested nodes' and the groups' batches: one pass
  -- a capture), both sides at once, then the tested nodes' percentiles
  metrics.prepare_tests(runs, common)
  if extra then compute(extra) end

  -- Rows, with the per-distribution shape tests and effect sizes
  local rows, dists, dist_of = {}, {}, {}
  for _, name in ipairs(common) do
    local la, lb = {}, {}
    for i = 1, #A.runs do la[i] = va[i][name] end
    for i = 1, #B.runs do lb[i] = vb[i][name] end
    -- Nodes: only the tested nodes' inclusive time gets per-frame work
    -- (every node's would cost a pass per node and side).
    local key = metrics.distribution_key(name)
    local node = name:match("^node%.(.+)%.[%w_]+$")
    local rp = p
    if key and node and not (tested_nodes and tested_nodes[node] and key:sub(1, 9) == "node\0time") then
      key = nil
      rp = { per_frame = false }
      for k, v in pairs(p) do rp[k] = v end
      rp.per_frame = false
    end
    local row = compare.metric(A, B, name, la, lb, rp)
    if row then
      if key then
        if dist_of[key] == nil then
          local dd = compare.distribution(A, B, name, p)
          dist_of[key] = dd or false
          if dd then dists[#dists + 1] = dd end
        end
        local dd = dist_of[key]
        if dd then
          local ef = dd.effects
          if ef then
            row.effect = { hl_shift = finite(ef.hl), hl_lo = finite(ef.hl_lo), hl_hi = finite(ef.hl_hi),
              cliffs_delta = finite(ef.delta), cliffs_lo = finite(ef.delta_lo), cliffs_hi = finite(ef.delta_hi),
              prob_b_greater = finite(ef.prob_b_greater) }
          end
          row.dist = dd
        end
      end
      rows[#rows + 1] = row
    end
  end

  -- Significance: Holm over the metrics tested; the shape tests as their own family.
  local m = adjust(rows, function(r) return r.p_value end, function(r, adj, sig)
    r.p_adjusted, r.significant = adj, sig
  end, p.alpha)
  local shape_m = adjust(dists, function(dd) return dd.shape and dd.shape.p end, function(dd, adj, sig)
    dd.shape.p_adjusted, dd.shape.significant = adj, sig
  end, p.alpha)

  -- Order: by |impact|, a change from 0 first; then by |change %|; then by name.
  local function size(r) return r.change_pct and math.abs(r.change_pct) or math.huge end
  table.sort(rows, function(x, y)
    local mx, my = math.abs(x.worse_pct or 0), math.abs(y.worse_pct or 0)
    if mx ~= my then return mx > my end
    local sx, sy = size(x), size(y)
    if sx ~= sy then return sx > sy end
    return x.metric < y.metric
  end)

  local summary = { metrics = #rows, worse = 0, better = 0, changed = 0, same = 0,
    significant_worse = 0, significant_better = 0, shape_changes = 0, cannot_tell = 0 }
  for _, dd in ipairs(dists) do
    if dd.shape and dd.shape.significant then summary.shape_changes = summary.shape_changes + 1 end
  end
  for _, r in ipairs(rows) do
    local sh = r.dist and r.dist.shape
    if sh then
      r.shape = { test = sh.test, p_value = finite(sh.p), p_adjusted = finite(sh.p_adjusted),
        significant = sh.significant, at = sh.at }
    end
    r.dist, r.worse_pct = nil, nil
    if r.cannot_tell then summary.cannot_tell = summary.cannot_tell + 1 end
    if r.significant == nil and r.p_value ~= nil then r.significant = false end
    summary[r.direction] = summary[r.direction] + 1
    if r.significant and (r.direction == "worse" or r.direction == "better") then
      local k = "significant_" .. r.direction
      summary[k] = summary[k] + 1
    end
  end

  local warnings = {}
  local na, nb = #A.runs, #B.runs
  if na >= 2 and nb >= 2 then
    if (na < compare.MIN_RUNS or nb < compare.MIN_RUNS) and p.evidence ~= "frames" then
      warnings[#warnings + 1] = string.format("%d run%s against %d: the run-level test has little power below %d "
        .. "runs a side", na, na == 1 and "" or "s", nb, compare.MIN_RUNS)
    end
  elseif na ~= nb or na > 1 then
    warnings[#warnings + 1] = string.format("%d run%s against %d: runs decide only with 2 or more a side; the "
      .. "per-frame values decide", na, na == 1 and "" or "s", nb)
  end

  local evidence = (na >= 2 and nb >= 2 and p.evidence ~= "frames") and "runs"
    or (pairing and pairing.method == "aligned" and "aligned") or "frames"
  local function side(s)
    local files, fr = {}, {}
    for i, cap in ipairs(s.runs) do
      files[i] = cap.path
      fr[#fr + 1] = metrics.value(cap, "frames")
    end
    return { file = s.runs[1].path, format = s.format, frames = #fr == #s.runs and mean_of(fr) or nil,
      frame_range = metrics.frame_range(s.runs[1]), runs = #s.runs, files = files }
  end
  return {
    a = side(A), b = side(B), alpha = p.alpha, level = p.level, shape_test = p.shape,
    correction = "holm", evidence = evidence, pairing = pairing, tests = m, shape_tests = shape_m, summary = summary,
    warnings = warnings, metrics = rows,
    only_in_a = only_in(ia, ib, A.runs[1], matches), only_in_b = only_in(ib, ia, B.runs[1], matches),
  }
end

return compare
