-- Output files under hostile conditions (issue 27, items 5 and 12): a full
-- disk, a file-size limit hit half way, an output that is the run's own
-- input, a reader that goes away. Every output file is written to a new
-- file beside it, checked and renamed (vp.output): a failure is exit 2
-- naming the file and the problem, and leaves the old file as it was.
local h = require "helpers"
local M = require "hostile.measure"

local dir

-- Every way a shipped script writes a file, as {words} with OUT for the file.
local WRITERS = {
  { "scripts/report.lua", "examples/sample.vprof", "-o", "OUT" },
  { "scripts/plot.lua", "examples/sample.vprof", "--chart", "budget", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.vprof", "--to", "chrome", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.vprof", "--to", "speedscope", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.vprof", "--to", "folded", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.vprof", "--to", "csv", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.vprof", "--to", "presentmon", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.dm", "--to", "csv", "-o", "OUT" },
  { "scripts/export.lua", "examples/sample.devt", "--to", "chrome", "-o", "OUT" },
  { "scripts/check.lua", "examples/rules/dm.lua", "examples/sample.dm", "--junit", "OUT" },
}

local function words(w, out)
  local t = {}
  for i, x in ipairs(w) do t[i] = x == "OUT" and out or x end
  return t
end

local function name(w) return table.concat(w, " ", 1, #w - 1):gsub("^scripts/", "") end

-- The entries of a directory.
local function listing(d)
  local p = io.popen("ls -A " .. h.quote(d))
  local out = p:read("a")
  p:close()
  return out
end

describe("hostile output files (issue 27)", function()
  setup(function() dir = h.tmpdir() end)
  teardown(function() h.cleanup() end)

  for _, w in ipairs(WRITERS) do
    it(name(w) .. " /dev/full: exit 2 naming the file and the problem", function()
      local r = M.run(words(w, "/dev/full"))
      assert.are.equal(2, r.code, r.stderr)
      assert.matches("/dev/full: No space left on device", r.stderr, 1, true)
      assert.not_matches("traceback", r.stderr)
    end)

    it(name(w) .. " past a file-size limit (512 bytes): exit 2, the old file as it was, nothing beside it", function()
      local d = dir .. "/limit" .. tostring(math.random(1e9))
      assert(os.execute("mkdir -p " .. h.quote(d)))
      local out = h.write_file(d .. "/out", "the old contents\n")
      local cmd = { "sh", "-c", 'trap "" XFSZ; ulimit -f 1; exec "$@"', "sh", h.bin() }
      for _, x in ipairs(words(w, out)) do cmd[#cmd + 1] = x end
      local parts = {}
      for i, x in ipairs(cmd) do parts[i] = h.quote(x) end
      local p = io.popen(table.concat(parts, " ") .. " 2>&1 >/dev/null </dev/null; echo \"exit $?\"")
      local text = p:read("a")
      p:close()
      assert.matches("exit 2%s*$", text)
      assert.matches(out .. ": File too large", text, 1, true)
      assert.are.equal("the old contents\n", h.read_file(out))
      assert.are.equal("out\n", listing(d))
    end)
  end

  it("an output written whole replaces the old file and keeps its mode", function()
    local out = h.write_file(dir .. "/kept.svg", "old")
    assert(os.execute("chmod 640 " .. h.quote(out)))
    local r = M.run({ "scripts/plot.lua", "examples/sample.vprof", "--chart", "histogram", "-o", out })
    assert.are.equal(0, r.code, r.stderr)
    assert.matches("^<svg", h.read_file(out))
    local p = io.popen("stat -c %a " .. h.quote(out))
    assert.are.equal("640", p:read("l"))
    p:close()
  end)

  describe("an output that is an input of the run is refused before anything is touched", function()
    local cases = {
      { "export", { "scripts/export.lua", "IN", "--to", "chrome", "-o", "OUT" } },
      { "report", { "scripts/report.lua", "IN", "-o", "OUT" } },
      { "plot", { "scripts/plot.lua", "IN", "--chart", "frametime", "-o", "OUT" } },
      { "export --diff", { "scripts/export.lua", "examples/sample.vprof", "--to", "folded", "--diff", "IN", "-o",
        "OUT" } },
      { "check --junit", { "scripts/check.lua", "examples/rules/vprof.lua", "IN", "--junit", "OUT" } },
    }
    for _, c in ipairs(cases) do
      for _, how in ipairs({ "the same name", "a hard link", "a symbolic link" }) do
        it(c[1] .. " through " .. how .. ": exit 2, the capture unchanged", function()
          local input = h.write_file(dir .. "/in-" .. c[1]:gsub("%W", "") .. how:gsub("%W", "") .. ".vprof",
            h.read_file("examples/sample.vprof"))
          local out = input
          if how ~= "the same name" then
            out = input .. ".link"
            assert(os.execute((how == "a hard link" and "ln " or "ln -s ") .. h.quote(input) .. " " .. h.quote(out)))
          end
          local w = {}
          for i, x in ipairs(c[2]) do w[i] = x == "IN" and input or x == "OUT" and out or x end
          local r = M.run(w)
          assert.are.equal(2, r.code, r.stderr)
          assert.matches("is an input of this run", r.stderr, 1, true)
          assert.is_true(h.read_file(input) == h.read_file("examples/sample.vprof"), "the capture changed")
        end)
      end
    end
    it("check --junit naming the rules file", function()
      local rules = h.write_file(dir .. "/rules_in.lua", h.read_file("examples/rules/dm.lua"))
      local r = M.run({ "scripts/check.lua", rules, "examples/sample.dm", "--junit", rules })
      assert.are.equal(2, r.code, r.stderr)
      assert.are.equal(h.read_file("examples/rules/dm.lua"), h.read_file(rules))
    end)
  end)

  for _, to in ipairs({ "chrome", "speedscope", "csv", "presentmon" }) do
    it("export --to " .. to .. " | head -1: exit 141, quietly", function()
      local p = io.popen("bash -c " .. h.quote(string.format("%s scripts/export.lua examples/sample.vprof --to %s "
        .. "2>%s | head -1 >/dev/null; echo ${PIPESTATUS[0]}", h.quote(h.bin()), to, h.quote(dir .. "/pipe.err"))))
      local out = p:read("a")
      p:close()
      assert.are.equal("141", out:match("(%d+)%s*$"))
      assert.are.equal("", h.read_file(dir .. "/pipe.err"))
    end)
  end
end)
