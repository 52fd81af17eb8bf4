-- vp.anchors: CapFrameX's stuttering and x % lows, Unreal's hitches, each
-- against a plain re-statement of the tool's definition (the naive loop the
-- tool runs: the moving average sample by sample, the engine's clock frame
-- by frame) on random frame times, and on small hand-made cases.
local vp = require "vp"
local anchors = require "vp.anchors"

local function near(want, got, eps)
  if want == nil or got == nil then
    assert.are.equal(want, got)
    return
  end
  assert.is_true(math.abs(want - got) <= (eps or 1e-9) * (1 + math.abs(want)),
    string.format("want %s, got %s", tostring(want), tostring(got)))
end

local raises = require("helpers").raises

-- Frame times around 16 ms with spikes; some runs slow overall.
local function random_frames(n)
  local t = {}
  local base = 5 + math.random() * 30
  for i = 1, n do
    local x = base * (0.8 + 0.4 * math.random())
    if math.random(40) == 1 then x = x * (2 + 4 * math.random()) end
    t[i] = math.floor(x * 250 + 0.5) / 250 -- VProf's 4 us steps: ties happen
  end
  return t
end

-- CapFrameX, stated plainly ----------------------------------------------------

local function ref_window(mean)
  local x = 10 * math.sqrt(mean)
  local lo = math.floor(x)
  local frac = x - lo
  if frac > 0.5 or (frac == 0.5 and lo % 2 == 1) then lo = lo + 1 end
  return math.max(1, lo)
end

local function ref_r8(sorted, tau)
  local n = #sorted
  local h = (n + 1 / 3) * tau + 1 / 3
  local k = math.floor(h)
  if k <= 0 or tau == 0 then return sorted[1] end
  if k >= n or tau == 1 then return sorted[n] end
  return sorted[k] + (h - k) * (sorted[k + 1] - sorted[k])
end

local function ref_capframex(t, factor, low_fps, pct)
  local n, total = #t, 0
  for i = 1, n do total = total + t[i] end
  local w = ref_window(total / n)
  local stutters, stutter_ms, low_ms = {}, 0, 0
  for i = 1, n do
    local sum, count = 0, 0
    for j = i, math.max(1, i - w + 1), -1 do
      sum, count = sum + t[j], count + 1
    end
    local ma = sum / count
    if t[i] > factor * ma then
      stutters[#stutters + 1] = i
      stutter_ms = stutter_ms + t[i]
    elseif 1000 / t[i] < low_fps then
      low_ms = low_ms + t[i]
    end
  end
  local sorted = table.move(t, 1, n, 1, {})
  table.sort(sorted)
  local q = ref_r8(sorted, 1 - pct / 100)
  local s, c = 0, 0
  for i = 1, n do
    if t[i] >= q then s, c = s + t[i], c + 1 end
  end
  local target, acc, integral = total * (1 - (1 - pct / 100)), 0, nil
  for i = n, 1, -1 do
    acc = acc + sorted[i]
    integral = sorted[i]
    if acc >= target then break end
  end
  return { window = w, stutters = stutters, stutter_pct = 100 * stutter_ms / total, low_pct = 100 * low_ms / total,
    average_ms = s / c, integral_ms = integral }
end

-- Unreal's engine loop, frame by frame with its clock ---------------------------

local function ref_unreal(t, threshold, dead, ratio, target)
  ratio = math.max(1, math.min(ratio, threshold / target))
  local now, last_hitch, last_delta, hitches = 1e6, 0, 0, {} -- the engine's clock starts long before
  for i = 1, #t do
    local delta = t[i]
    now = now + delta
    if delta >= threshold and now - last_hitch >= dead and delta > last_delta * ratio then
      hitches[#hitches + 1] = i
      last_hitch = now
    end
    last_delta = delta
  end
  return hitches
end

describe("vp.anchors", function()
  math.randomseed(7)

  it("derives CapFrameX's window from the mean frame time, halves to even", function()
    assert.are.equal(38, anchors.capframex_window(14.625161))
    assert.are.equal(38, anchors.capframex_window(38.5 ^ 2 / 100)) -- 38.5 -> 38
    assert.are.equal(40, anchors.capframex_window(39.5 ^ 2 / 100)) -- 39.5 -> 40
    assert.are.equal(41, anchors.capframex_window(40.6 ^ 2 / 100))
    assert.are.equal(1, anchors.capframex_window(0.001))
  end)

  it("computes the R-8 quantile as MathNet does, at the edges too", function()
    for _ = 1, 40 do
      local n = math.random(1, 60)
      local t = random_frames(n)
      local s = vp.Series(t)
      local sorted = table.move(t, 1, n, 1, {})
      table.sort(sorted)
      for _, tau in ipairs({ 0, 0.001, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1, math.random() }) do
        near(ref_r8(sorted, tau), anchors.r8_quantile(s, tau), 1e-12)
      end
    end
    assert.is_nil(anchors.r8_quantile(vp.Series {}, 0.5))
    near(2.5, anchors.r8_quantile(vp.Series { 1, 2, 3, 4 }, 0.5))
  end)

  it("finds CapFrameX's stutters, low-FPS time and x % lows as its definitions say", function()
    for round = 1, 25 do
      local t = random_frames(round < 3 and round or math.random(50, 2000))
      local s = vp.Series(t)
      local got = anchors.capframex(s, { lows = { 1, 0.1 } })
      for k, pct in ipairs({ 1, 0.1 }) do
        local want = ref_capframex(t, 2.5, 25, pct)
        assert.are.equal(want.window, got.window)
        assert.are.same(want.stutters, got.stutters)
        assert.are.equal(#want.stutters, got.stutter_count)
        near(want.stutter_pct, got.stutter_time_pct)
        near(want.low_pct, got.low_fps_time_pct)
        near(want.average_ms, got.lows[k].average_ms)
        near(want.integral_ms, got.lows[k].integral_ms)
        near(1000 / want.average_ms, got.lows[k].average_fps)
      end
    end
  end)

  it("finds Unreal's hitches as the engine's loop does", function()
    for round = 1, 25 do
      local t = random_frames(math.random(1, 3000))
      local threshold = ({ 60, 40, 100 })[round % 3 + 1]
      local want = ref_unreal(t, threshold, 200, 1.5, 33.9)
      local got = anchors.unreal(vp.Series(t), { threshold_ms = threshold })
      assert.are.same(want, got.hitches)
    end
  end)

  it("applies the threshold, the dead window and the ratio on a hand-made capture", function()
    local t = {}
    local function add(ms, count) for _ = 1, count or 1 do t[#t + 1] = ms end end
    add(16, 5); add(70)         -- frame 6: a hitch, ends at 150 ms
    add(16); add(80)            -- frame 8: ends 96 ms after it: in the dead window
    add(16, 15); add(65)        -- frame 24: 401 ms later, 65 > 1.5 x 16: a hitch
    add(16, 15); add(60); add(80) -- frames 40, 41: 60 ms is a hitch; 80 < 1.5 x 60 is not
    add(1200)                   -- frame 42: a hitch, and out of the binned time (>= 1 s)
    local u = anchors.unreal(vp.Series(t))
    assert.are.same({ 6, 24, 40, 42 }, u.hitches)
    assert.are.equal(4, u.hitch_count)
    local total = 0
    for _, x in ipairs(t) do total = total + x end
    near(total, u.total_ms)
    near(total - 1200, u.binned_ms)
    near(70 + 65 + 60 + 1200, u.hitch_time_ms)
    near(4 / ((total - 1200) / 60000), u.hitches_per_minute)
    near(100 * (70 + 65 + 60 + 1200 - 4 * 33.9) / (total - 1200), u.percent_spent_hitching)
    local list = anchors.hitch_list("unreal", vp.Series(t))
    assert.are.same({ frame = 24, frame_ms = 65, baseline_ms = 1.5 * 16 }, list[2])
    -- a lower threshold clamps the ratio to threshold / target
    near(40 / 33.9, anchors.unreal(vp.Series(t), { threshold_ms = 40 }).ratio)
    -- max_frame_ms = 0 keeps every frame in the binned time
    near(total, anchors.unreal(vp.Series(t), { max_frame_ms = 0 }).binned_ms)
  end)

  it("lists CapFrameX's stutters with the moving average they beat", function()
    local t = {}
    for i = 1, 40 do t[i] = 10 end
    t[30] = 50
    local list, figures = anchors.hitch_list("capframex", vp.Series(t))
    assert.are.equal(33, figures.window) -- mean 11 ms: 10 x sqrt(11) = 33.2
    assert.are.equal(1, #list)
    assert.are.equal(30, list[1].frame)
    near(2.5 * (29 * 10 + 50) / 30, list[1].baseline_ms)
  end)

  it("gives no figures, not NaN, without frames, and refuses bad parameters", function()
    local c = anchors.capframex(vp.Series {})
    assert.are.same({}, c.stutters)
    assert.is_nil(c.stutter_time_pct)
    assert.is_nil(c.lows[1].average_fps)
    local u = anchors.unreal(vp.Series {})
    assert.is_nil(u.hitches_per_minute)
    raises("EUSAGE", "must be a vp%.Series", anchors.capframex, { 1, 2 })
    raises("EUSAGE", "unknown parameter window", anchors.unreal, vp.Series { 1 }, { window = 3 })
    raises("EUSAGE", "threshold_ms must be a number", anchors.unreal, vp.Series { 1 }, { threshold_ms = -1 })
    raises("EUSAGE", "lows must list numbers", anchors.capframex, vp.Series { 1 }, { lows = { 0 } })
    raises("EUSAGE", "rule must be one of capframex, unreal", anchors.hitch_list, "fraps", vp.Series { 1 })
  end)
end)

-- hitches.lua --rule capframex|unreal: the same frames and figures as
-- vp.anchors, the same causes as under the default rule, the rule's figure
-- as stutter_pct, and a parameter the rule does not take refused.
describe("hitches --rule", function()
  local h = require "helpers"
  local hitches = require "vp.hitches"
  local sample = "examples/sample.vprof"
  local cap
  setup(function() cap = h.open_ok(sample) end)
  teardown(function() cap:close() end)

  local function frames_of(list)
    local out = {}
    for i, x in ipairs(list) do out[i] = x.frame end
    return out
  end

  it("takes CapFrameX's stutters and figures from vp.anchors, with the usual causes", function()
    local ft = cap:frame_times()
    local want = anchors.capframex(ft)
    local doc = hitches.analyze(cap, { rule = "capframex", causes = 2 })
    assert.are.equal("capframex", doc.rule)
    assert.are.same(want.stutters, frames_of(doc.hitches))
    assert.are.same({ 1200, 2500, 3100, 3700 }, frames_of(doc.hitches))
    assert.are.same(want, doc.capframex)
    assert.is_nil(doc.unreal)
    assert.are.equal(want.stutter_time_pct, doc.stutter_pct)
    assert.are.same({ factor = 2.5, window = 30 }, doc.params)
    local median = hitches.analyze(cap, { causes = 2 })
    for i, hitch in ipairs(doc.hitches) do
      assert.are.same(median.hitches[i].causes, hitch.causes)
      assert.are.same(median.hitches[i].groups, hitch.groups)
      assert.are.equal(median.hitches[i].tick, hitch.tick)
      near(2.5 * ft:rolling(want.window, "mean")[hitch.frame], hitch.baseline_ms)
    end
    -- --factor is CapFrameX's factor
    local strict = hitches.analyze(cap, { rule = "capframex", factor = 3.5, causes = 0 })
    assert.are.same(anchors.capframex(ft, { factor = 3.5 }).stutters, frames_of(strict.hitches))
    assert.is_true(#strict.hitches < #doc.hitches)
  end)

  it("takes Unreal's hitches and figures, --threshold-ms as its threshold", function()
    local ft = cap:frame_times()
    local doc = hitches.analyze(cap, { rule = "unreal", threshold_ms = 40, causes = 1 })
    local want = anchors.unreal(ft, { threshold_ms = 40 })
    assert.are.same(want.hitches, frames_of(doc.hitches))
    assert.are.equal(4, #doc.hitches)
    assert.are.same(want, doc.unreal)
    assert.are.equal(want.hitch_time_pct, doc.stutter_pct)
    assert.are.same({ threshold_ms = 40, window = 30 }, doc.params)
    for _, hitch in ipairs(doc.hitches) do
      assert.are.equal(1, #hitch.causes)
      near(want.ratio * ft[hitch.frame - 1], hitch.baseline_ms)
    end
    -- at the engine's 60 ms nothing in the sample is a hitch
    local none = hitches.analyze(cap, { rule = "unreal" })
    assert.are.same({}, none.hitches)
    assert.are.equal(0, none.stutter_pct)
    -- the median rule names the absolute rule when it applies it
    assert.are.equal("threshold", hitches.analyze(cap, { threshold_ms = 40, causes = 0 }).rule)
    assert.are.equal("median", hitches.analyze(cap, { causes = 0 }).rule)
  end)

  it("refuses a rule it does not know and a parameter the rule does not take", function()
    raises("EUSAGE", "params.rule must be one of median, capframex, unreal", hitches.analyze, cap, { rule = "cfx" })
    raises("EUSAGE", "params.factor does not apply to the unreal rule", hitches.analyze, cap,
      { rule = "unreal", factor = 3 })
    raises("EUSAGE", "params.min_excess_ms does not apply to the capframex rule", hitches.analyze, cap,
      { rule = "capframex", min_excess_ms = 1 })
    raises("EUSAGE", "params.threshold_ms does not apply to the capframex rule", hitches.analyze, cap,
      { rule = "capframex", threshold_ms = 1 })
    local r = h.run("scripts/hitches.lua", sample, "--rule", "unreal", "--min-excess-ms", "3")
    assert.are.equal(2, r.code)
    assert.matches("min_excess_ms does not apply to the unreal rule", r.stderr)
  end)

  it("hitches.lua prints the rule and its figures, and its JSON is the module's", function()
    local r = h.run("scripts/hitches.lua", sample, "--rule", "capframex", "--causes", "0")
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("hitch rule +CapFrameX: frame time > 2.5 x the moving average of the last 38 frames", r.stdout)
    assert.matches("1 %% low %(CapFrameX%) +49%.4 fps average, 58%.5 fps integral", r.stdout)
    r = h.run("scripts/hitches.lua", sample, "--rule", "unreal", "--threshold-ms", "40", "--causes", "0")
    assert.matches("hitch rule +Unreal: frame time >= 40 ms, > 1%.18 x the previous frame, >= 200 ms after",
      r.stdout)
    assert.matches("hitches / minute +4%.10\n", r.stdout)
    local doc = h.run_json("scripts/hitches.lua", sample, "--rule", "unreal", "--threshold-ms", "40", "--json")
    local json = require "vp.json"
    local want = json.decode(json.encode(hitches.analyze(cap, { rule = "unreal", threshold_ms = 40 }),
      hitches.schema))
    want.file = doc.file
    assert.are.same(want, doc)
    local help = h.run("scripts/hitches.lua", "--help").stdout
    assert.matches("FrametimeStatisticProvider%.cs", help)
    assert.matches("ChartCreation%.cpp", help)
    assert.matches("%-%-rule median|capframex|unreal", help)
  end)

  it("hitches.lua lists --causes N nodes and groups per hitch in the text", function()
    for _, n in ipairs({ 1, 3 }) do
      local r = h.run("scripts/hitches.lua", sample, "--causes", tostring(n))
      assert.are.equal(0, r.code, r.stderr)
      local per = {}
      local frame
      for line in r.stdout:gmatch("[^\n]+") do
        frame = (line:match("^frame ([%d,]+) %(tick") or frame or ""):gsub(",", "")
        if frame == "" then frame = nil end
        local kind = line:match("^  (%a+) +%+")
        if frame and kind then
          per[frame] = per[frame] or { group = 0, node = 0 }
          per[frame][kind] = per[frame][kind] + 1
        end
      end
      assert.are.same({ ["1200"] = { group = n, node = n }, ["2500"] = { group = n, node = n },
        ["3100"] = { group = n, node = n }, ["3700"] = { group = n, node = n } }, per)
    end
  end)
end)
