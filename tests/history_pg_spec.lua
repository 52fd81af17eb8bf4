-- history.lua on a real PostgreSQL server (tests/history_contract.lua): the
-- spec runs Debian's postgresql (make deps installs it) with initdb into a
-- temporary directory and pg_ctl on a Unix socket in that directory, no TCP
-- port, as an unprivileged user when it runs as root (runuser -u postgres:
-- the server refuses root), each step bounded by timeout; the server is
-- stopped and the directory removed when the spec ends.
local h = require "helpers"
local C = dofile("tests/history_contract.lua")

local pg = {}

local function sh(cmd)
  local ok = os.execute(cmd)
  return ok == true or ok == 0
end

local function bin_dir()
  local p = io.popen("ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1")
  local d = p:read("l")
  p:close()
  return d
end

local function start()
  local bin = bin_dir()
  assert(bin and bin ~= "", "PostgreSQL's server is not installed (make deps installs Debian's postgresql)")
  pg.dir = h.tmpdir()
  pg.as = ""
  if io.popen("id -u"):read("l") == "0" then
    assert(sh("chown postgres " .. h.quote(pg.dir)), "chown postgres (is Debian's postgresql installed?)")
    pg.as = "runuser -u postgres -- "
  end
  local q = h.quote
  pg.ctl = string.format("%s%s -D %s", pg.as, q(bin .. "/pg_ctl"), q(pg.dir .. "/data"))
  assert(sh(string.format("timeout 120 %s%s -D %s -A trust -U vp -E UTF8 --no-locale >%s 2>&1", pg.as,
    q(bin .. "/initdb"), q(pg.dir .. "/data"), q(pg.dir .. "/initdb.log"))), "initdb failed: "
    .. h.read_file(pg.dir .. "/initdb.log"))
  pg.started = sh(string.format("timeout 90 %s -o %s -l %s -w -t 60 start >/dev/null 2>&1", pg.ctl,
    q("-k " .. pg.dir .. " -c listen_addresses='' -c fsync=off"), q(pg.dir .. "/server.log")))
  assert(pg.started, "the server did not start: " .. (h.read_file(pg.dir .. "/server.log") or ""))
  pg.url = function(db) return string.format("postgresql://vp@/%s?host=%s", db, pg.dir) end
end

local function stop()
  if pg.started then sh(string.format("timeout 90 %s -m immediate -w -t 60 stop >/dev/null 2>&1", pg.ctl)) end
  pg.started = false
  h.cleanup()
end

describe("history on PostgreSQL", function()
  setup(start)
  teardown(stop)
  local made = 0
  C.run("history store (PostgreSQL)", function(tag)
    made = made + 1
    local name = string.format("vp_%s_%d", tag, made)
    local DBI = require "DBI"
    local conn = assert(DBI.Connect("PostgreSQL", pg.url("postgres")))
    conn:autocommit(true)
    assert(DBI.Do(conn, "CREATE DATABASE " .. name))
    conn:close()
    return pg.url(name), h.tmpdir()
  end, { describe = describe, it = it, assert = assert })
end)
