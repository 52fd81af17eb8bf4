-- The many-hosts recipe (examples/ci/history-parallel.sh, docs/history.md)
-- run by GNU parallel on two simulated hosts: the ssh command is replaced
-- by a local one that runs each command in its host's own directory, so
-- parallel's --transferfile, --return (rsync over that "ssh"), --cleanup,
-- --retries, --joblog and --resume-failed all do their real work. A job
-- that fails part-way (half a shard written) and is retried, and a run
-- resumed after a job failed every try, neither lose nor double a point.
local h = require "helpers"

local FAKE_SSH = [[#!/bin/sh
# ssh [options] HOST [--] COMMAND...: COMMAND run by sh in $FAKE_HOSTS/HOST
while [ $# -gt 0 ]; do
  case "$1" in
    -o|-p|-l|-i|-e|-S) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
host=$1; shift
[ "${1:-}" != "--" ] || shift
mkdir -p "$FAKE_HOSTS/$host"
cd "$FAKE_HOSTS/$host" && HOME="$FAKE_HOSTS/$host" exec sh -c "$*"
]]

-- vpscript as the hosts run it: the first try at each capture named in
-- $FLAKY writes half a shard and fails; a capture named in $BROKEN fails
-- every time.
local FLAKY = [[#!/bin/sh
name=
for a; do case "$a" in *.vprof) name=$(basename "$a" .vprof) ;; esac; done
[ -n "$name" ] || exec "$VPSCRIPT_REAL" "$@"
case " $BROKEN " in *" $name "*) echo '{"vpscript_history":1,'; exit 1 ;; esac
case " $FLAKY " in *" $name "*)
  if mkdir "$MARKS/$name" 2>/dev/null; then echo '{"vpscript_history":1,"capture":'; exit 1; fi ;;
esac
exec "$VPSCRIPT_REAL" "$@"
]]

local function have(cmd) return os.execute("command -v " .. cmd .. " >/dev/null 2>&1") == true end

-- The job log: one row per job (parallel logs a retried job once, its
-- last try, with the bytes every try sent).
local function jobs(log)
  local rows = {}
  for line in (h.read_file(log) or ""):gmatch("[^\n]+") do
    local host, send, exit, cmd = line:match("^%d+\t(%S+)\t[^\t]*\t[^\t]*\t(%d+)\t[^\t]*\t(%d+)\t%d+\t(.*)$")
    if host then
      rows[#rows + 1] = { host = host, send = tonumber(send), exit = tonumber(exit),
        capture = cmd:match("(%S+)%.vprof") }
    end
  end
  return rows
end

describe("history across hosts with GNU parallel", function()
  teardown(h.cleanup)

  it("two simulated hosts, a retried job and a resumed run: every point once", function()
    assert.is_true(have("parallel") and have("rsync"), "GNU parallel and rsync (make deps installs them)")
    local dir = h.tmpdir()
    local caps = dir .. "/caps"
    assert.is_true(os.execute(string.format("mkdir -p %s %s/hosts %s/marks", h.quote(caps), h.quote(dir),
      h.quote(dir))))
    for i = 1, 3 do
      for _, side in ipairs({ "base", "new" }) do
        local name = string.format("%s_run%d", side, i)
        h.write_file(caps .. "/" .. name .. ".vprof",
          h.read_file(string.format("examples/runs/%s/run%d.vprof", side, i)))
      end
    end
    h.write_file(dir .. "/ssh", FAKE_SSH)
    h.write_file(dir .. "/vpscript", FLAKY)
    os.execute(string.format("chmod +x %s/ssh %s/vpscript", h.quote(dir), h.quote(dir)))
    local db = dir .. "/history.db"
    local bin = h.bin():sub(1, 1) == "/" and h.bin() or (require("lfs").currentdir() .. "/" .. h.bin():gsub("^%./", ""))
    local function recipe(env)
      local e = { FAKE_HOSTS = dir .. "/hosts", SSH = dir .. "/ssh", HOSTS = "1/h1,1/h2", DB = db, COMMIT = "c1",
        SCENARIO = "bench", VPSCRIPT = dir .. "/vpscript", VPSCRIPT_REAL = bin, MARKS = dir .. "/marks",
        POINTS_OPTS = "--match ^frame_ms", FLAKY = "", BROKEN = "" }
      for k, v in pairs(env) do e[k] = v end
      local words = {}
      for k, v in pairs(e) do words[#words + 1] = k .. "=" .. h.quote(v) end
      table.sort(words)
      -- SHELL unset, as on many CI runners (parallel hands the hosts' jobs to $SHELL)
      local cmd = string.format("env -u SHELL %s timeout 300 sh examples/ci/history-parallel.sh %s >%s/out 2>&1",
        table.concat(words, " "), h.quote(caps), h.quote(dir))
      local ok, _, code = os.execute(cmd)
      local f = io.open(dir .. "/out")
      local text = f and f:read("a") or ""
      if f then f:close() end
      return ok and 0 or code, text
    end
    local function count(what)
      local store = require "vp.history.store"
      local s = store.open(db)
      local n = math.tointeger(s:rows("SELECT count(*) FROM " .. what)[1][1])
      s:close()
      return n
    end

    -- a flaky capture is retried (elsewhere) and comes back whole; a broken one fails every try
    local code, out = recipe({ FLAKY = "base_run2 new_run1", BROKEN = "new_run3" })
    assert.equal(1, code, out) -- parallel: one job failed every try
    local log = jobs(caps .. "/jobs.log")
    local by, hosts = {}, {}
    for _, j in ipairs(log) do
      by[j.capture] = j
      hosts[j.host] = true
    end
    for host in pairs(hosts) do assert.truthy(host == "h1" or host == "h2", host) end
    local size = by.base_run1.send -- one try (the runs are the same size)
    for _, name in ipairs({ "base_run2", "new_run1" }) do
      assert.equal(0, by[name].exit, name)
      assert.equal(2 * size, by[name].send, name .. " was sent twice: tried again after its first try failed")
    end
    assert.equal(1, by.new_run3.exit)
    assert.is_true(by.new_run3.send >= 2 * size)
    assert.is_nil(io.open(caps .. "/new_run3.ndjson"), "a job that failed returns no shard")
    assert.truthy(out:find("5 captures added", 1, true), out)
    local points = count("vp_points")
    assert.equal(5, count("vp_captures"))
    assert.equal(5 * 5, points) -- frame_ms.mean, p50, p95, p99 and max: five per capture
    -- the broken capture mended, the run resumed: only the failed job runs again
    code, out = recipe({})
    assert.equal(0, code, out)
    local again = jobs(caps .. "/jobs.log")
    assert.equal(#log + 1, #again)
    assert.equal("new_run3", again[#again].capture)
    assert.truthy(out:find("1 capture added (5 points), 5 already there", 1, true), out)
    assert.equal(6, count("vp_captures"))
    assert.equal(6 * 5, count("vp_points"))
    -- everything run and added once more: nothing doubles
    os.remove(caps .. "/jobs.log")
    code, out = recipe({})
    assert.equal(0, code, out)
    assert.truthy(out:find("0 captures added (0 points), 6 already there", 1, true), out)
    assert.equal(6 * 5, count("vp_points"))
    -- the hosts keep nothing (--cleanup)
    local p = io.popen("find " .. h.quote(dir .. "/hosts") .. " -type f | wc -l")
    assert.equal("0", p:read("l"))
    p:close()
  end)
end)
