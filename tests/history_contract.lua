-- tests/history_contract.lua: what every history store must do, run by
-- tests/history_spec.lua on an SQLite file and by tests/history_pg_spec.lua
-- on a PostgreSQL server the spec starts: adding is idempotent, two jobs
-- adding at once lose and double nothing, a step is found with its commit
-- range, its triage state is kept, trend shows every point.
local h = require "helpers"
local json = require "vp.json"

local C = {}

-- NDJSON of history points documents: one capture per night of scenario
-- "bench" on "linux"/"main" with frame_ms.mean (noise 1 %) and a step of
-- `step` (a fraction) from night `at`; nights in `skip` are missing.
function C.nights(first, last, opts)
  opts = opts or {}
  local r = opts.seed or 7
  local function rnd()
    r = (r * 1103515245 + 12345) % 2147483648
    return r / 2147483648
  end
  local lines = {}
  for night = 1, last do
    local z = math.sqrt(-2 * math.log(1 - rnd())) * math.cos(2 * math.pi * rnd())
    if night >= first and not (opts.skip or {})[night] then
      local v = 16 * ((opts.at and night >= opts.at) and (1 + opts.step) or 1) * math.exp(0.01 * z)
      local day = os.date("!%Y-%m-%dT02:00:00Z", 1704067200 + 86400 * (night - 1))
      lines[#lines + 1] = json.encode({ vpscript_history = 1, capture = { hash = "night" .. night,
        commit = string.format("c%03d", night), branch = "main", time = day, platform = "linux", scenario = "bench",
        frames = 3000 }, points = { { metric = "frame_ms.mean", unit = "ms", polarity = "lower", value = v, n = 3000,
        se = 0.01 }, { metric = "frames", unit = "frames", polarity = "none", value = 3000, n = 3000 } } })
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

local function history(...)
  return h.run("scripts/history.lua", ...)
end
C.history = history

local function count(url, what)
  local store = require "vp.history.store"
  local db = store.open(url)
  local n = db:rows("SELECT count(*) FROM " .. what)[1][1]
  db:close()
  return math.tointeger(n)
end
C.count = count

--- C.run(name, url_of, bu): the contract's tests; url_of(tag) -> a new
-- empty store's URL and a directory for files; bu: the spec's describe and
-- it (busted's globals live in the spec's environment, not this file's).
function C.run(name, url_of, bu)
  local describe, it, assert = bu.describe, bu.it, bu.assert
  describe(name, function()
    it("adds each capture once, however often and from however many files it comes", function()
      local url, dir = url_of("idem")
      local a = h.write_file(dir .. "/a.ndjson", C.nights(1, 30))
      local r = history("add", "--db", url, "--from-json", a)
      assert.equal(0, r.code, r.stderr)
      assert.truthy(r.stdout:find("30 captures added (60 points), 0 already there", 1, true), r.stdout)
      r = history("add", "--db", url, "--from-json", a, "--from-json", a)
      assert.equal(0, r.code, r.stderr)
      assert.truthy(r.stdout:find("0 captures added (0 points), 60 already there", 1, true), r.stdout)
      assert.equal(30, count(url, "vp_captures"))
      assert.equal(60, count(url, "vp_points"))
      assert.equal(2, count(url, "vp_series"))
    end)

    it("two jobs adding overlapping sets at once lose nothing and double nothing", function()
      local url, dir = url_of("concurrent")
      -- the store exists before the race, as a nightly job's does (its creation is raced below too)
      local a = h.write_file(dir .. "/a.ndjson", C.nights(1, 120))
      local b = h.write_file(dir .. "/b.ndjson", C.nights(60, 200))
      local cmd = string.format("cd %s && (timeout 120 %s scripts/history.lua add --db %s --from-json %s >%s/a.out "
        .. "2>&1 & timeout 120 %s scripts/history.lua add --db %s --from-json %s >%s/b.out 2>&1 & wait)",
        h.quote(os.getenv("PWD") or "."), h.quote(h.bin()), h.quote(url), h.quote(a), dir, h.quote(h.bin()),
        h.quote(url), h.quote(b), dir)
      assert.is_true(os.execute(cmd))
      local outs = h.read_file(dir .. "/a.out") .. h.read_file(dir .. "/b.out")
      assert.is_nil(outs:find("vpscript:", 1, true), outs)
      assert.equal(200, count(url, "vp_captures"))
      assert.equal(400, count(url, "vp_points"))
      assert.equal(2, count(url, "vp_series"))
    end)

    it("finds a step with its commit range, keeps its triage state, exits 3 only while it is new", function()
      local url, dir = url_of("changes")
      history("add", "--db", url, "--from-json", h.write_file(dir .. "/n.ndjson", C.nights(1, 60,
        { at = 56, step = 0.06, skip = { [30] = true } })))
      local r = history("changes", "--db", url, "--json")
      assert.equal(3, r.code, r.stderr)
      local doc = json.decode(r.stdout)
      assert.equal(1, #doc.changes)
      local c = doc.changes[1]
      assert.equal("frame_ms.mean", c.metric)
      assert.equal("c055", c.before_commit)
      assert.equal("c056", c.after_commit)
      assert.is_true(c.size_pct > 4 and c.size_pct < 8, tostring(c.size_pct))
      assert.is_true(c.regression and c.latest)
      assert.equal("new", c.state)
      assert.is_true(c.before.hi < c.after.lo)
      assert.equal(59, c.points) -- night 30 is missing: skipped, not filled
      -- the same change keeps its id; a point later it is still the same change
      history("add", "--db", url, "--from-json", h.write_file(dir .. "/m.ndjson", C.nights(61, 61,
        { at = 56, step = 0.06 })))
      local again = json.decode(history("changes", "--db", url, "--json").stdout)
      assert.equal(c.id, again.changes[1].id)
      local ack = history("ack", "--db", url, tostring(c.id), "--note", "new shadows")
      assert.equal(0, ack.code, ack.stderr)
      r = history("changes", "--db", url, "--json")
      assert.equal(0, r.code, r.stderr)
      assert.equal("acknowledged", json.decode(r.stdout).changes[1].state)
      assert.equal(2, history("ack", "--db", url, "999").code)
      -- --since leaves out changes before it
      local since = json.decode(history("changes", "--db", url, "--json", "--since", "2024-03-01").stdout)
      assert.equal(0, #since.changes)
      -- trend: every point with its commit, the change marked
      local t = json.decode(history("trend", "--db", url, "--match", "frame_ms", "--json").stdout)
      assert.equal(1, #t.series)
      assert.equal(60, #t.series[1].points)
      assert.equal("c001", t.series[1].points[1].commit)
      assert.equal(c.id, t.series[1].changes[1].id)
      assert.equal("acknowledged", t.series[1].changes[1].state)
    end)

    it("opening migrates once: the schema is versioned, and a newer one is refused", function()
      local url = url_of("schema")
      local store = require "vp.history.store"
      local db = store.open(url)
      assert.equal(store.SCHEMA_VERSION, db:version())
      db:close()
      db = store.open(url)
      db:exec("UPDATE vp_schema SET version = ?", store.SCHEMA_VERSION + 1)
      db:close()
      local e = h.raised(store.open, url)
      assert.truthy(tostring(e.message):find("knows versions up to", 1, true), tostring(e.message))
    end)
  end)
end

return C
