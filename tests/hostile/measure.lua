-- tests/hostile/measure.lua: run the program under GNU time for the
-- hostile specs (tests/hostile/*_spec.lua).
--
--   local M = require "hostile.measure"
--   local r = M.run({"scripts/lag.lua", path, "--json"})
--   -- r.code, r.stdout, r.stderr, r.wall, r.cpu (s), r.rss_mb
--   M.within_budget(r, path)   -- asserts peak RSS <= 64 MB + 10 x the file
--
-- Under the ASan build (make asan sets VPSCRIPT_BIN to build/asan/vpscript)
-- shadow memory and slow code make resource figures meaningless: M.sanitized
-- is true there and the budget assertions are skipped (the runs and their
-- exit statuses are still checked).
local h = require "helpers"

local M = {}

M.sanitized = (os.getenv("VPSCRIPT_BIN") or ""):find("asan", 1, true) ~= nil

--- The issue's target: 64 MB plus 10 times the input, in MB, and the input's
-- size: `path` is a file or a list of them (a comparison reads both).
function M.budget_mb(path)
  local size = 0
  for _, p in ipairs(type(path) == "table" and path or { path }) do
    local f = assert(io.open(p, "rb"))
    size = size + f:seek("end")
    f:close()
  end
  return 64 + 10 * size / 1048576, size
end

--- Run the vpscript binary with `words` (a list) under /usr/bin/time and a
-- timeout (opts.timeout s, default 120): {code, stdout, stderr, wall, cpu,
-- rss_mb, cmd}. A run the timeout stops has code 124. opts.discard sends
-- stdout to /dev/null (stdout is then "").
function M.run(words, opts)
  opts = opts or {}
  local timef, errf = os.tmpname(), os.tmpname()
  local parts = { "timeout", tostring(opts.timeout or 120), "/usr/bin/time", "-f", "'%e %U %S %M'", "-o",
    h.quote(timef), h.quote(h.bin()) }
  for _, w in ipairs(words) do parts[#parts + 1] = h.quote(w) end
  local cmd = table.concat(parts, " ") .. " 2>" .. h.quote(errf) .. " </dev/null"
    .. (opts.discard and " >/dev/null" or "")
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, how, code = p:close()
  if how == "signal" then code = 128 + code end
  local r = { code = code, stdout = out, stderr = h.read_file(errf), cmd = cmd }
  -- GNU time writes "Command exited with non-zero status N" before its line.
  local t = h.read_file(timef)
  local wall, user, sys, kb = t:match("([%d.]+) ([%d.]+) ([%d.]+) (%d+)%s*$")
  r.wall, r.cpu = tonumber(wall), wall and (tonumber(user) + tonumber(sys))
  r.rss_mb = kb and tonumber(kb) / 1024
  os.remove(timef)
  os.remove(errf)
  return r
end

--- Assert that r kept to the budget of `path` (a file or a list of files;
-- unless sanitized), with a message naming the run.
function M.within_budget(r, path)
  if M.sanitized then return end
  local budget = M.budget_mb(path)
  assert(r.rss_mb, "no resource figures for " .. r.cmd)
  assert(r.rss_mb <= budget, string.format("%s: peak RSS %.0f MB, over the budget of %.0f MB (64 MB + 10 x "
    .. "the file)", r.cmd, r.rss_mb, budget))
end

--- M.ok(words [, path [, opts]]) -> r, doc: M.run, asserting exit 0 (or
-- opts.code), then (unless sanitized) the budget of `path` and at most
-- opts.cpu seconds of CPU; doc is stdout decoded when it is JSON.
function M.ok(words, path, opts)
  opts = opts or {}
  local r = M.run(words, opts)
  assert(r.code == (opts.code or 0), string.format("%s\nexited %s\n%s", r.cmd, tostring(r.code), r.stderr))
  if path then M.within_budget(r, path) end
  if opts.cpu then M.within_cpu(r, opts.cpu) end
  local ok, doc = pcall(require("cjson").decode, r.stdout)
  return r, ok and doc or nil
end

--- Assert that r used at most `seconds` of CPU (unless sanitized).
function M.within_cpu(r, seconds)
  if M.sanitized then return end
  assert(r.cpu, "no resource figures for " .. r.cmd)
  assert(r.cpu <= seconds, string.format("%s: %.1f s of CPU, more than %.1f s", r.cmd, r.cpu, seconds))
end

return M
