-- Every shipped example exports to every target its format has and renders
-- a report (issue 12's "done when"), with the same bytes each time; the
-- VProf layout's promises (a frame's top-level events add up to its frame
-- time, folded totals are the self-time totals) checked against vpscript's
-- own API. tests/consumers/ has the same files read by tools we did not write.
local h = require "helpers"
local vp = require "vp"
local cjson = require "cjson"
local export = require "vp.export"

-- The captures under examples/ (make examples writes the binary ones).
local function examples()
  local p = assert(io.popen("find examples -type f \\( -name '*.vprof' -o -name '*.devt' -o -name '*.dlag' "
    .. "-o -name '*.dm' -o -name '*.dw' -o -path 'examples/laige/*' \\) | LC_ALL=C sort"))
  local list = {}
  for line in p:lines() do list[#list + 1] = line end
  p:close()
  return list
end

local function lines(s)
  local out = {}
  for l in s:gmatch("([^\n]*)\n") do out[#out + 1] = l end
  return out
end

describe("export.lua and report.lua on every example", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  local files = examples()

  it("finds the shipped examples", function()
    -- 5 debug/VProf samples, 4 laige reports, 5 runs of the baseline
    assert.is_true(#files >= 14, table.concat(files, " "))
  end)

  for _, path in ipairs(files) do
    it(path .. ": every applicable target, twice the same bytes, valid as its format #slow", function()
      local cap = h.open_ok(path)
      local format, frames = cap.format, cap.frame_count
      cap:close()
      local targets = export.targets_of(format)
      assert.is_true(#targets > 0, format .. " exports to nothing")
      for _, to in ipairs(targets) do
        local out = dir .. "/" .. path:gsub("/", "_") .. "." .. to
        local r = h.run("scripts/export.lua", path, "--to", to, "-o", out)
        assert.are.equal(0, r.code, to .. ": " .. r.stderr)
        local bytes = h.read_file(out)
        assert.is_true(#bytes > 0, to .. " wrote nothing")
        local again = h.run("scripts/export.lua", path, "--to", to)
        assert.is_true(again.stdout == bytes, to .. ": stdout and -o differ or are not deterministic")
        if to == "chrome" or to == "speedscope" then
          local ok, doc = pcall(cjson.decode, bytes)
          assert.is_true(ok, to .. " is not JSON: " .. tostring(doc))
          if to == "chrome" then
            assert.is_true(#doc.traceEvents > 1, "no trace events")
          else
            assert.is_true(#doc.profiles >= 1 and #doc.shared.frames >= 1, "no profiles")
          end
        elseif to == "folded" then
          for i, l in ipairs(lines(bytes)) do
            assert.is_truthy(l:match("^Root[^ ]* %d+$") or l:match("^Root.* %d+$"), "line " .. i .. ": " .. l)
          end
        else
          local ls = lines(bytes)
          local header = ls[1]
          assert.is_truthy(header and header:match("^[%w_.]+,"), to .. " header: " .. tostring(header))
          local cols = select(2, header:gsub(",", ",")) + 1
          if frames and (to == "presentmon" or format == "vprof") then
            assert.are.equal(frames + 1, #ls, to .. ": a row per frame")
          end
          if to == "presentmon" then
            assert.are.equal(1, header:find("Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,"
              .. "PresentFlags,", 1, true))
            assert.is_truthy(header:find(",Dropped,TimeInSeconds,", 1, true))
            assert.is_truthy(header:find(",msBetweenPresents,", 1, true))
          end
          -- no quoted field in these files holds a comma or a newline, so
          -- every row has the header's columns
          for i = 2, #ls do
            if not ls[i]:find('"', 1, true) then
              assert.are.equal(cols, select(2, ls[i]:gsub(",", ",")) + 1, to .. " row " .. i)
            end
          end
        end
      end
    end)

    it(path .. ": report.lua writes a self-contained page", function()
      local out = dir .. "/" .. path:gsub("/", "_") .. ".html"
      local r = h.run("scripts/report.lua", path, "-o", out)
      assert.are.equal(0, r.code, r.stderr)
      local page = h.read_file(out)
      assert.is_truthy(page:match("^<!DOCTYPE html>"), page:sub(1, 40))
      assert.is_truthy(page:find("</html>", 1, true))
      -- nothing from outside the file: no script, style, image or frame
      -- loaded from anywhere, no URL but the SVG namespace
      for _, pat in ipairs({ "<script[^>]*src", "<link", "<img", "<iframe", "@import", "url%(" }) do
        local at = page:find(pat)
        assert.is_nil(at, at and page:sub(at, at + 80))
      end
      local stripped = page:gsub("http://www%.w3%.org/2000/svg", "")
      local at = stripped:find("https?://")
      assert.is_nil(at, at and stripped:sub(at, at + 80))
      -- the interactive views' data and script come with a VProf capture's frames
      local cap = h.open_ok(path)
      local frames = cap.format == "vprof" and cap.frame_count > 0
      cap:close()
      if frames then
        assert.is_truthy(page:find('<script type="application/json" id="vp-data">', 1, true))
      end
      assert.is_true(h.run("scripts/report.lua", path).stdout == page, "not deterministic")
    end)
  end

  it("a report with a baseline: the runs against one another", function()
    local r = h.run("scripts/report.lua", "examples/runs/base/run2.vprof", "--baseline",
      "examples/runs/base/run1.vprof", "-o", dir .. "/runs.html")
    assert.are.equal(0, r.code, r.stderr)
    assert.is_truthy(h.read_file(dir .. "/runs.html"):find("<svg", 1, true))
  end)

  describe("sample.vprof against vpscript's own API", function()
    local cap
    setup(function() cap = h.open_ok("examples/sample.vprof") end)
    teardown(function() cap:close() end)

    it("chrome: each frame's top-level events add up to its frame time, children inside their parent #slow", function()
      local r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "chrome", "--frames", "1101:1300")
      assert.are.equal(0, r.code, r.stderr)
      local doc = cjson.decode(r.stdout)
      local times = cap:frame_times()
      local frame, start, sum = nil, 0, {}
      local stack = {}
      for _, e in ipairs(doc.traceEvents) do
        if e.ph == "i" then
          frame = e.args.frame
          start, sum[frame], stack = e.ts, 0, {}
        elseif e.ph == "X" then
          assert.is_true(e.ts >= start, "event before its frame")
          while #stack > 0 and e.ts >= stack[#stack].ts + stack[#stack].dur do stack[#stack] = nil end
          local parent = stack[#stack]
          if parent then
            assert.is_true(e.ts + e.dur <= parent.ts + parent.dur, e.args.path .. " ends after its parent")
          else
            sum[frame] = sum[frame] + e.dur
          end
          stack[#stack + 1] = e
        end
      end
      local n = 0
      for i = 1101, 1300 do
        n = n + 1
        -- whole microseconds: each top-level event rounded once
        assert.is_true(math.abs(sum[i] - times[i] * 1000) <= 1, string.format("frame %d: events %d us, frame %.3f ms",
          i, sum[i], times[i]))
      end
      assert.are.equal(200, n)
    end)

    it("folded: each stack's value is its node's self time over the frames, in microseconds", function()
      local r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "folded")
      assert.are.equal(0, r.code, r.stderr)
      local got = {}
      for _, l in ipairs(lines(r.stdout)) do
        local stack, us = l:match("^(.*) (%d+)$")
        got[stack] = (got[stack] or 0) + tonumber(us)
      end
      local checked = 0
      for node in cap:nodes() do
        local self = cap:series(node, "self_ms"):sum() * 1000
        local stack = node.path:gsub("/", ";")
        if self >= 0.5 then
          assert.is_not_nil(got[stack], stack)
          assert.is_true(math.abs(got[stack] - self) <= 1, string.format("%s: folded %d, API %.3f us", stack,
            got[stack], self))
          checked = checked + 1
        end
      end
      assert.is_true(checked > 50, checked .. " nodes")
    end)

    it("presentmon: msBetweenPresents is each frame's time, TimeInSeconds their running sum", function()
      local r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "presentmon")
      assert.are.equal(0, r.code, r.stderr)
      local ls = lines(r.stdout)
      local col = {}
      local i = 0
      for name in ls[1]:gmatch("[^,]+") do i = i + 1; col[name] = i end
      local times, t = cap:frame_times(), 0
      for f = 1, #times do
        local row = {}
        for v in ls[f + 1]:gmatch("[^,]+") do row[#row + 1] = v end
        t = t + times[f]
        assert.is_true(math.abs(tonumber(row[col.msBetweenPresents]) - times[f]) < 5e-4, "frame " .. f)
        assert.is_true(math.abs(tonumber(row[col.TimeInSeconds]) - t / 1000) < 5e-6, "frame " .. f)
      end
    end)
  end)

  it("vp.open reads each example (the list is not empty by accident)", function()
    for _, path in ipairs(files) do
      local cap, msg = vp.open(path)
      assert.is_not_nil(cap, msg)
      cap:close()
    end
  end)
end)

describe("export.lua's output size", function()
  it("warns when the export is many times the capture, and not for a stretch of it (issue 26)", function()
    local dir = h.tmpdir()
    local out = dir .. "/big.json"
    local r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "chrome", "-o", out)
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("^vpscript: warning: " .. out:gsub("%p", "%%%0") .. " is [%d.]+ MiB, %d+ x the capture "
      .. "%(1%.06 MiB%): a Chrome trace holds an event for every node of every frame", r.stderr)
    r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "chrome", "-o", out, "--frames", "1:100")
    assert.are.equal(0, r.code, r.stderr)
    assert.are.equal("", r.stderr)
    -- --strict makes it an error, as every warning
    r = h.run("scripts/export.lua", "examples/sample.vprof", "--to", "chrome", "-o", out, "--strict")
    assert.are.equal(2, r.code)
    os.remove(out)
  end)
end)
