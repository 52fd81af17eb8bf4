-- The test harness does not depend on how it was started. A suite run from
-- nohup (SIGHUP ignored) or as a shell's background job (SIGINT ignored)
-- hands those dispositions down; the signal specs start the program through
-- tests/stop.py, which puts them back to their defaults, kills the
-- program's whole session when it does not end, and never waits without a
-- bound. Here the signal specs run again in such a surrounding and must
-- pass, within a bound of their own.
local h = require "helpers"

describe("the signal specs", function()
  it("pass under nohup with SIGINT ignored, as in a background job", function()
    local specs = { "tests/host_spec.lua", "tests/multi_spec.lua", "tests/hostile/others_spec.lua" }
    local cmd = string.format("timeout -s KILL 600 nohup sh -c %s </dev/null 2>&1",
      h.quote(string.format("trap '' INT; exec %s tests/run_busted.lua %s --filter=%s --filter=%s",
        h.quote(h.bin()), table.concat(specs, " "), h.quote("stop signals"), h.quote("SIGTERM during"))))
    local p = assert(io.popen(cmd, "r"))
    local out = p:read("a")
    local _, _, code = p:close()
    assert.are.equal(0, code, out)
    local passed, failed = out:match("busted: (%d+) passed, (%d+) failed")
    assert.are.equal("0", failed, out)
    -- the seven of host_spec's "stop signals", one of multi_spec, one of others_spec
    assert.are.equal("9", passed, out)
  end)
end)
