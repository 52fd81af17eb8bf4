-- history.lua on an SQLite store (tests/history_contract.lua), and what
-- does not depend on the store: metadata from the options, the CI
-- environment and the capture; ISO 8601 times; real captures measured (the
-- content hash checked against coreutils' sha256sum); the --json documents
-- of hitches, check and compare read back; the change table, JUnit, SVG.
local h = require "helpers"
local vp = require "vp"
local history = require "vp.history"
local json = require "vp.json"
local C = dofile("tests/history_contract.lua")

C.run("history store (SQLite)", function(tag)
  local dir = h.tmpdir()
  return dir .. "/" .. tag .. ".db", dir
end, { describe = describe, it = it, assert = assert })

describe("history", function()
  teardown(h.cleanup)
  it("times are kept in UTC, ISO 8601, whatever the zone they were given in", function()
    assert.equal("2024-05-01T02:30:00Z", history.utc("2024-05-01T02:30:00Z"))
    assert.equal("2024-05-01T00:30:00Z", history.utc("2024-05-01T02:30+02:00"))
    assert.equal("2024-03-01T01:00:00Z", history.utc("2024-02-29T23:00:00.125-02:00"))
    assert.equal("2024-05-01T00:00:00Z", history.utc("2024-05-01"))
    for _, bad in ipairs({ "2024-13-01", "2023-02-29", "yesterday", "2024-05-01T25:00", "2024-05-01T02:00 CET" }) do
      assert.is_nil(history.utc(bad), bad)
    end
  end)

  it("metadata: the options first, then the CI environment, then the capture", function()
    local env = { GITHUB_SHA = "abc", GITHUB_REF_NAME = "main", RUNNER_OS = "Linux", RUNNER_ARCH = "X64",
      GITHUB_REPOSITORY = "o/r", GITHUB_RUN_ID = "42", RUNNER_NAME = "runner-3" }
    local m = history.metadata({ time = "2024-01-02" }, env, "/x/de_dust2.vprof")
    assert.same({ commit = "abc", branch = "main", platform = "Linux-X64", host = "runner-3",
      ci_url = "https://github.com/o/r/actions/runs/42", scenario = "de_dust2", time = "2024-01-02T00:00:00Z" }, m)
    local g = history.metadata({ commit = "mine", scenario = "s" }, { CI_COMMIT_SHA = "gl", GIT_BRANCH = "origin/rel",
      CI_JOB_URL = "https://ci/job/1" }, "examples/sample.vprof")
    assert.equal("mine", g.commit)
    assert.equal("rel", g.branch)
    assert.equal("s", g.scenario)
    assert.equal("unknown", g.platform)
    assert.equal("https://ci/job/1", g.ci_url)
    assert.truthy(g.time:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$"))
    assert.equal(2, h.raised(history.metadata, { time = "soon" }, {}).exit)
  end)

  it("a capture's points: the catalogue's metrics, frames, standard errors; its hash is sha256sum's", function()
    local dir = h.tmpdir()
    local p = h.run("scripts/history.lua", "points", "--commit", "c1", "--match", "^frame_ms", "--match", "^frames$",
      "examples/sample.vprof")
    assert.equal(0, p.code, p.stderr)
    local doc = json.decode(p.stdout)
    local sum = io.popen("sha256sum examples/sample.vprof"):read("l"):match("^(%x+)")
    assert.equal(sum, doc.capture.hash)
    assert.equal(4000, doc.capture.frames)
    local by = {}
    for _, pt in ipairs(doc.points) do by[pt.metric] = pt end
    assert.same({ "frames", "frame_ms.mean", "frame_ms.p50", "frame_ms.p95", "frame_ms.p99", "frame_ms.max" },
      (function() local l = {} for i, pt in ipairs(doc.points) do l[i] = pt.metric end return l end)())
    local cap = vp.open("examples/sample.vprof")
    assert.equal(cap:frame_times():mean(), by["frame_ms.mean"].value)
    assert.is_true(by["frame_ms.mean"].se > 0)
    assert.equal(json.null, by["frame_ms.max"].se) -- an extreme value has no standard error
    assert.equal(4000, by["frame_ms.p99"].n)
    -- the capture itself and its points document are one capture in the store
    local db = dir .. "/h.db"
    local a = h.run("scripts/history.lua", "add", "--db", db, "--match", "^frame_ms", "examples/sample.vprof")
    assert.equal(0, a.code, a.stderr)
    h.write_file(dir .. "/p.ndjson", p.stdout)
    local b = h.run("scripts/history.lua", "add", "--db", db, "--from-json", dir .. "/p.ndjson")
    assert.truthy(b.stdout:find("0 captures added (0 points), 1 already there", 1, true), b.stdout)
  end)

  it("reads the --json documents of hitches, check and compare, and says which lines it could not use", function()
    local dir = h.tmpdir()
    local hit = h.run("scripts/hitches.lua", "--json", "examples/runs/base/run1.vprof", "examples/runs/base/run2.vprof")
    local chk = h.run("scripts/check.lua", "--json", "examples/rules/vprof.lua", "examples/sample.vprof")
    local cmp = h.run("scripts/compare.lua", "--json", "examples/runs/base/run1.vprof", "examples/runs/new/run1.vprof")
    h.write_file(dir .. "/h.ndjson", hit.stdout .. "not json\n")
    h.write_file(dir .. "/c.json", chk.stdout)
    h.write_file(dir .. "/m.json", cmp.stdout)
    local db = dir .. "/d.db"
    local r = h.run("scripts/history.lua", "add", "--db", db, "--from-json", dir .. "/h.ndjson", "--from-json",
      dir .. "/c.json", "--from-json", dir .. "/m.json", "--time", "2024-01-01")
    assert.equal(2, r.code)
    assert.truthy(r.stdout:find("4 captures added", 1, true), r.stdout)
    assert.truthy(r.stderr:find("h.ndjson line 3: not JSON", 1, true), r.stderr)
    local t = json.decode(h.run("scripts/history.lua", "trend", "--db", db, "--scenario", "run1", "--match",
      "^frame_ms%.p99$", "--json").stdout)
    -- run1 of the base (hitches) and run1 of the new runs (compare's B): one series, two points
    assert.equal(1, #t.series)
    assert.equal(2, #t.series[1].points)
    local hd = json.decode(hit.stdout:match("^[^\n]+"))
    assert.equal(hd.frame_ms.p99, t.series[1].points[1].value)
  end)

  it("JUnit, SVG and the page: a failing testcase per new regression, every point's commit on hover", function()
    local dir = h.tmpdir()
    local db = dir .. "/h.db"
    h.run("scripts/history.lua", "add", "--db", db, "--from-json", h.write_file(dir .. "/n.ndjson",
      C.nights(1, 40, { at = 36, step = 0.08 })))
    local r = h.run("scripts/history.lua", "changes", "--db", db, "--junit", dir .. "/j.xml")
    assert.equal(3, r.code)
    assert.truthy(r.stdout:find("REGRESSION", 1, true), r.stdout)
    local lxp = require "lxp.lom"
    local x = assert(lxp.parse(h.read_file(dir .. "/j.xml")))
    assert.equal("vpscript history", x.attr.name)
    assert.equal("1", x.attr.failures)
    local s = h.run("scripts/history.lua", "trend", "--db", db, "--match", "mean", "--svg", dir .. "/t.svg",
      "--html", dir .. "/t.html")
    assert.equal(0, s.code, s.stderr)
    local svg = assert(lxp.parse(h.read_file(dir .. "/t.svg")))
    assert.equal("svg", svg.tag)
    local page = h.read_file(dir .. "/t.html")
    assert.truthy(page:find("c001", 1, true) and page:find("c040", 1, true))
    assert.truthy(h.read_file(dir .. "/t.svg"):find("#36 c036", 1, true))
  end)

  it("--help says every command and definition; a bad command or store is a usage error", function()
    local r = h.run("scripts/history.lua", "--help")
    assert.equal(0, r.code)
    for _, w in ipairs({ "add", "points", "changes", "trend", "ack", "E-Divisive" }) do
      assert.truthy(r.stdout:find(w, 1, true), w)
    end
    assert.equal(0, h.run("scripts/history.lua", "changes", "--help").code)
    assert.equal(2, h.run("scripts/history.lua", "frobnicate").code)
    local bad = h.run("scripts/history.lua", "changes", "--db", "/nonexistent/dir/h.db")
    assert.equal(2, bad.code)
    assert.truthy(bad.stderr:find("/nonexistent/dir/h.db", 1, true), bad.stderr)
  end)
end)
