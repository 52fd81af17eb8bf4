-- vp.multi: run a script over many capture files (and directories).
--
-- A script that reads one capture changes ONE line to accept many:
--
--   local opts, args = cli.parse(arg, SPEC)                  -- before
--   local opts, args = require("vp.multi").parse(arg, SPEC)  -- after
--
-- multi.parse adds `--jobs N` to SPEC and lets the capture argument repeat
-- (the positional marked `files = true`, else the last one). With a single
-- file it returns exactly what cli.parse returns and the script goes on as
-- before. With several files, or any directory, it runs the script once per
-- file in a child process (vp.host.spawn: the interpreter and the script with
-- the words of this run's command line, the file words replaced by `--
-- FILE`), at most --jobs at a time, prints their outputs in input order and
-- ends the script with the combined exit status; it never returns then:
--   text    "==> FILE <==" then that file's output, a blank line between files
--   --json  one JSON document per line (NDJSON), in input order; a file that
--           failed gives {"file": FILE, "error": "<message>", "exit": N}, as
--           one run with --json does (cli.error_json)
--   --csv   one table: a `file` column first in every record (a quoted
--           field may hold newlines), the header line once
--   stderr  each child's stderr, replayed in input order
--   exit    2 when any file failed (unreadable, malformed, script error),
--           else 3 when any failed a gate, else 0
-- Directories are walked recursively (LuaFileSystem), names in byte order,
-- entries starting with "." skipped. A directory means "the captures this
-- script reads": a file is taken when its extension is one of
-- vp.formats()' extensions (.json and .txt files only when vp.detect
-- recognises their content) and its detected format is one the script
-- reads (the spec's `formats`, see vp.cli; all when it lists none). The
-- others are counted and said in one line on stderr ("vpscript: examples:
-- skipped 6 of 9 captures: hitches.lua does not read devt (1), ..."). With
-- --format F, the files detected as F are taken, and those whose format
-- cannot be told but whose extension is one of F's. A directory that
-- cannot be listed is a warning (--strict: an error) and the walk goes on.
-- Files named explicitly are always taken (a bad one, or one of another
-- format, is reported, not skipped).
--
-- An option whose output is a file (check.lua's --junit) declares
-- `merge = function(parts, dest)`: each child then writes its own part and
-- merge gets {{file =, path =, exit =, error =}, ...} in input order to
-- combine them into `dest` (error: the child's message when it failed).
--
-- Because serial and parallel runs go through the same children, --jobs N
-- only changes how long a run takes, never what it prints. Each child leads
-- a process group of its own; when the run stops (Ctrl-C, SIGTERM, SIGHUP, a
-- closed stdout, an error) every running group gets SIGTERM, then SIGKILL
-- a second later, and the run's private temporary directory (the children's
-- outputs, the merge parts) is removed.
local cli = require "vp.cli"

local multi = {}

-- Extensions that say where a format may be found but never decide it
-- (core/registry's generic ones: laige reports): vp.detect decides.
local GENERIC_EXT = { [".json"] = true, [".txt"] = true }

-- Host ---------------------------------------------------------------------------

local lfs_or_nil = cli.lfs

--- multi.interpreter([argv]) -> {program, interpreter options...}: the
-- command that runs Lua scripts the way this one runs (vpscript or lua5.4,
-- with the same -e/-l options before the script).
function multi.interpreter(argv)
  argv = argv or _G.arg or {}
  local lo = 0
  while argv[lo - 1] ~= nil do lo = lo - 1 end
  local out = {}
  local lfs = lfs_or_nil()
  local exe = lfs and lfs.symlinkattributes and lfs.symlinkattributes("/proc/self/exe", "target")
  if type(exe) ~= "string" or exe == "" then exe = lo < 0 and argv[lo] or "vpscript" end
  out[1] = exe
  for i = lo + 1, -1 do out[#out + 1] = argv[i] end
  return out
end

local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a") or ""
  f:close()
  return s
end

--- multi.error_message(stderr_text) -> the error a child ended with: from
-- the last line that starts with "vpscript: " and is not a warning, to the
-- end (a file name may hold a newline), without the prefix and without a
-- traceback; or nil.
function multi.error_message(err)
  err = err or ""
  local start, pos = nil, 1
  while true do
    local s = err:find("vpscript: ", pos, true)
    if not s then break end
    if (s == 1 or err:sub(s - 1, s - 1) == "\n") and err:sub(s, s + 18) ~= "vpscript: warning: " then start = s end
    pos = s + 1
  end
  if not start then return nil end
  local msg = err:sub(start + #"vpscript: ")
  local tb = msg:find("\nstack traceback:", 1, true)
  if tb then msg = msg:sub(1, tb - 1) end
  return (msg:gsub("\n+$", ""))
end

-- Files ----------------------------------------------------------------------------

local function extension_sets()
  local vp = require "vp"
  local exts = {}
  for _, f in ipairs(vp.formats()) do
    for _, e in ipairs(f.extensions or {}) do
      e = e:lower()
      exts[e] = exts[e] or {}
      exts[e][#exts[e] + 1] = f.name
    end
  end
  return exts, GENERIC_EXT
end

--- multi.classify(path [, reads [, forced]]) -> format | nil: what a
-- directory walk makes of a file: its format when the walk takes it; nil
-- and a reason ("not a capture", or "format" and the format the script
-- does not read) when it leaves it. reads: a spec (vp.cli's `formats`;
-- nil: every format); forced: a --format id.
function multi.classify(path, reads, forced)
  local vp = require "vp"
  local exts, generic = extension_sets()
  local ext = path:match("(%.[^./]+)$")
  ext = ext and ext:lower()
  if not ext or not exts[ext] then return nil, "not a capture" end
  local detected, _, code = vp.detect(path)
  if forced then
    if detected == forced then return forced end
    if not detected and code == "EFORMAT" then
      for _, id in ipairs(exts[ext]) do
        if id == forced then return forced end
      end
    end
    if detected then return nil, "format", detected end
    return nil, "not a capture"
  end
  if not detected then
    -- unreadable, empty: a capture file by its name, reported by the run
    -- when the name says a format the script reads
    if generic[ext] or code == "EFORMAT" then return nil, "not a capture" end
    for _, id in ipairs(exts[ext]) do
      if not reads or cli.reads(reads, id) then return id end
    end
    return nil, "format", exts[ext][1]
  end
  if reads and not cli.reads(reads, detected) then return nil, "format", detected end
  return detected
end

--- multi.wanted(path) -> true when a directory walk of a script that reads
-- every format takes this file.
function multi.wanted(path)
  return multi.classify(path) ~= nil
end

--- multi.expand(paths [, opts [, reads [, forced]]]) -> files, skipped:
-- files as given, directories walked (recursively, sorted, hidden entries
-- left out) for the captures the script reads (multi.classify). skipped:
-- {count =, seen =, formats = {format = count}} over the captures the
-- walks left out. A directory that cannot be listed is a warning
-- (cli.warn with opts, cli.parse's: --strict makes it an error) and the
-- walk goes on.
function multi.expand(paths, opts, reads, forced)
  local lfs = lfs_or_nil()
  local out, seen_dirs = {}, {}
  local skipped = { count = 0, seen = 0, formats = {} }
  local function walk(dir)
    local a = lfs.attributes(dir)
    local key = a and (tostring(a.dev) .. ":" .. tostring(a.ino))
    if not key or seen_dirs[key] then return end -- gone, or a symlink loop
    seen_dirs[key] = true
    local ok, iter, state = pcall(lfs.dir, dir)
    local names = {}
    if ok then
      ok, iter = pcall(function()
        for name in iter, state do
          if name:sub(1, 1) ~= "." then names[#names + 1] = name end
        end
      end)
    end
    if not ok then
      local why = tostring(iter):gsub("^cannot open [^:]*: ", "")
      cli.warn(opts, "%s: cannot list the directory (%s): skipped", dir, why)
      return
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local p = (dir:sub(-1) == "/" and dir or dir .. "/") .. name
      local mode = lfs.attributes(p, "mode")
      if mode == "directory" then
        walk(p)
      elseif mode == "file" then
        local f, why, other = multi.classify(p, reads, forced)
        if f then
          out[#out + 1] = p
          skipped.seen = skipped.seen + 1
        elseif why == "format" then
          skipped.seen = skipped.seen + 1
          skipped.count = skipped.count + 1
          skipped.formats[other] = (skipped.formats[other] or 0) + 1
        end
      end
    end
  end
  for _, p in ipairs(paths) do
    local mode = lfs and lfs.attributes(p, "mode")
    if mode == "directory" then
      walk(p)
    else
      out[#out + 1] = p
    end
  end
  return out, skipped
end

--- multi.skipped_line(given, skipped, spec) -> the one line that says what
-- the walk left out (and that line without the directories), or nil when
-- it left out nothing.
function multi.skipped_line(given, skipped, spec)
  if skipped.count == 0 then return nil end
  local list = {}
  for f, n in pairs(skipped.formats) do list[#list + 1] = string.format("%s (%d)", f, n) end
  table.sort(list)
  local what = string.format("skipped %d of %d capture%s: %s does not read %s", skipped.count, skipped.seen,
    skipped.seen == 1 and "" or "s", spec.name or "this script", table.concat(list, ", "))
  return table.concat(given, ", ") .. ": " .. what, what
end

--- multi.SHARD: the --shard I/N option of every script that takes many
-- files (multi.parse adds it; check.lua and compare.lua declare it).
multi.SHARD = { "--shard", metavar = "I/N",
  help = "only part I of N of the file list (after directories are expanded, in that order): the k-th file "
    .. "goes to part (k - 1) % N + 1, so N jobs (a CI matrix, indexed jobs) share the files without overlap" }

--- multi.shard(files, spec) -> the files of part I of N (spec "I/N"; nil:
-- all of them), in their order: file k is in part (k - 1) % N + 1. Fails
-- with exit 2 on a spec that is not I/N with 1 <= I <= N; a part left
-- empty (more parts than files) ends the script with exit 0 and a line on
-- stderr saying so.
function multi.shard(files, spec)
  if spec == nil then return files end
  local i, n = tostring(spec):match("^(%d+)/(%d+)$")
  i, n = math.tointeger(tonumber(i)), math.tointeger(tonumber(n))
  if not i or n < 1 or i < 1 or i > n then
    cli.fail(2, "option --shard: bad value '%s': expected I/N with 1 <= I <= N (part I of N)", tostring(spec))
  end
  local out = {}
  for k, f in ipairs(files) do
    if (k - 1) % n + 1 == i then out[#out + 1] = f end
  end
  if #out == 0 and #files > 0 then
    io.stderr:write(string.format("vpscript: --shard %s: no file in this part (%d in all)\n", spec, #files))
    cli.exit(0)
  end
  return out
end

local function is_dir(p)
  local lfs = lfs_or_nil()
  return lfs ~= nil and lfs.attributes(p, "mode") == "directory"
end

-- Options ----------------------------------------------------------------------------

local JOBS_OPTION = { "--jobs", type = "integer", default = 1, min = 1, metavar = "N",
  help = "with several files: run N of them at a time, in parallel processes" }

--- multi.jobs_option(help) -> the --jobs option multi.parse adds, with the
-- script's own help text: for a script that declares it itself (check.lua
-- and compare.lua parse with cli.parse before they know whether they run
-- one capture or several).
function multi.jobs_option(help)
  local o = {}
  for k, v in pairs(JOBS_OPTION) do o[k] = v end
  o.help = help
  return o
end

local function key_of(name)
  return (name:gsub("^%-+", ""):gsub("%-", "_"))
end

-- Which positional takes the files, and make it repeatable. Idempotent.
local function prepare(spec)
  if spec._vp_multi then return spec._vp_multi end
  local pos = spec.positional or {}
  local k = #pos
  for i, p in ipairs(pos) do
    if p.files then k = i end
  end
  assert(k >= 1, "vp.multi: the spec has no positional argument for the files")
  local p = pos[k]
  p.rest = true
  if not p.optional and not (p.help or ""):match("director") then
    p.help = (p.help or "capture file") .. "; several files or directories run one by one"
  end
  local has_jobs = false
  spec.options = spec.options or {}
  for _, o in ipairs(spec.options) do
    if o[1] == "--jobs" then has_jobs = true end
  end
  if not has_jobs then spec.options[#spec.options + 1] = JOBS_OPTION end
  local has_shard = false
  for _, o in ipairs(spec.options) do has_shard = has_shard or o[1] == "--shard" end
  if not has_shard then spec.options[#spec.options + 1] = multi.SHARD end
  spec._vp_multi = { files_at = k }
  return spec._vp_multi
end

--- multi.child_argv(argv, at, from, file [, parts]) -> the words after the
-- script for one file's run: argv[1..n] as given, without the words of the
-- positionals from `from` on (the files and directories; at: cli.parse's
-- third result), each value of an option in `parts` ({key = path}) replaced
-- by its path, and the file last, after "--".
function multi.child_argv(argv, at, from, file, parts)
  local drop, value = {}, {}
  for j = from, #at do drop[at[j]] = true end
  -- each run reads its one file: a --shard chose the files already
  for _, i in ipairs(at.options.shard or {}) do
    drop[i] = true
    if not argv[i]:find("=", 1, true) then drop[i + 1] = true end
  end
  for k, path in pairs(parts or {}) do
    for _, i in ipairs(at.options[k] or {}) do
      local name = argv[i]:match("^(%-%-[^=]+)=")
      if name then value[i] = name .. "=" .. path else value[i + 1] = path end
    end
  end
  local words = {}
  for i = 1, #argv do
    if not drop[i] then words[#words + 1] = value[i] or argv[i] end
  end
  if not at.dashdash then words[#words + 1] = "--" end
  words[#words + 1] = file
  return words
end

-- Running -------------------------------------------------------------------------

-- The records of CSV text: its lines, except that a newline inside a quoted
-- field belongs to the record.
local function csv_records(text)
  local records, start, pos, quoted = {}, 1, 1, false
  while true do
    local at = text:find(quoted and '"' or '[\n"]', pos)
    if not at then break end
    if text:byte(at) == 34 then
      quoted = not quoted -- a doubled "" inside a field turns it twice
    else
      records[#records + 1] = text:sub(start, at - 1)
      start = at + 1
    end
    pos = at + 1
  end
  if start <= #text then records[#records + 1] = text:sub(start) end
  return records
end

local function csv_prefix(file, text, first)
  local field = file
  if field:find('[,"\r\n]') then field = '"' .. field:gsub('"', '""') .. '"' end
  local lines = {}
  for i, record in ipairs(csv_records(text)) do
    if i > 1 then
      lines[#lines + 1] = field .. "," .. record
    elseif first then
      lines[#lines + 1] = "file," .. record
    end
  end
  if #lines == 0 then return "" end
  return table.concat(lines, "\n") .. "\n"
end

-- Stop what still runs of a run and remove its files: SIGTERM to each
-- running child's process group, SIGKILL to those left 0.4 s later (a
-- child inside a long C call stops only at its own grace time), each
-- reaped; then the run's directory. Bounded (well under a second but for
-- a loaded machine's scheduling), so that it ends within the host's 2 s
-- grace time after a stop signal.
local function run_close(run)
  local host = require "vp.host"
  local pids = {}
  for pid in pairs(run.running) do pids[#pids + 1] = pid end
  for _, step in ipairs({ { "TERM", 40 }, { "KILL", 100 } }) do
    for _, pid in ipairs(pids) do host.kill(pid, step[1]) end
    for _ = 1, step[2] do
      if #pids == 0 then break end
      local pid = host.wait(pids, 10)
      for i = #pids, 1, -1 do
        if pids[i] == pid then table.remove(pids, i) end
      end
    end
  end
  for name in pairs(run.names) do os.remove(name) end
  if run.dir then os.remove(run.dir) end
end

--- multi.run(files, opts, spec, at, from [, argv]) -> never returns: runs
-- the script once per file (the words of argv, cli.parse's positions at,
-- the files replacing the positionals from `from` on), prints, and ends
-- with the combined exit status.
function multi.run(files, opts, spec, at, from, argv)
  local host = require "vp.host"
  argv = argv or _G.arg or {}
  local script = argv[0]
  if not script or script == "-" or script == "" then
    cli.fail(2, "several files need the script as a file (it was read from standard input)")
  end
  local interp = multi.interpreter(argv)
  interp[#interp + 1] = script
  local merges = {}
  for _, o in ipairs(spec.options or {}) do
    local k = key_of(o[1])
    if o.merge and opts[k] ~= nil then merges[#merges + 1] = { key = k, option = o, dest = opts[k] } end
  end
  -- The children write to files: they cut their tables to this run's
  -- width only when told (COLUMNS), as vp.report would here.
  local env
  if not opts.wide and not os.getenv("COLUMNS") then
    local width = require("vp.report").width(opts)
    if width then env = { COLUMNS = tostring(width) } end
  end
  local null = assert(io.open("/dev/null", "rb"))

  local results, failed, gated = {}, 0, 0
  local csv_header = false
  local function flush(i, run)
    local file = files[i]
    local out, err = read_all(run.out[i]), read_all(run.err[i])
    for _, path in ipairs({ run.out[i], run.err[i] }) do
      os.remove(path)
      run.names[path] = nil
    end
    local code = results[i].exit
    if code ~= 0 and code ~= 3 then
      results[i].error = multi.error_message(err) or string.format("%s: exited with status %d", file, code)
    end
    if opts.json then
      io.stdout:write(out)
      if out ~= "" and out:sub(-1) ~= "\n" then io.stdout:write("\n") end
      -- a child that could not open its input said so itself (cli.error_json)
      if results[i].error and out == "" then io.stdout:write(cli.error_json(file, results[i].error, code)) end
    elseif opts.csv then
      local text = csv_prefix(file, out, not csv_header)
      if text ~= "" then csv_header = true end
      io.stdout:write(text)
    else
      if i > 1 then io.stdout:write("\n") end
      io.stdout:write("==> ", require("vp.fmt").visible(file), " <==\n", out)
      if out ~= "" and out:sub(-1) ~= "\n" then io.stdout:write("\n") end
    end
    io.stdout:flush()
    if err ~= "" then
      io.stderr:write(err)
      if err:sub(-1) ~= "\n" then io.stderr:write("\n") end
      io.stderr:flush()
    end
    if code == 3 then
      gated = gated + 1
    elseif code ~= 0 then
      failed = failed + 1
    end
  end

  do
    -- Whatever ends this block (the last file, a stop raised at any
    -- instruction, an error) closes the run: nothing keeps running, no
    -- file is left.
    local run <close> = setmetatable({ running = {}, names = {}, out = {}, err = {} }, { __close = run_close })
    local dir, no_dir = host.tmpdir()
    if not dir then cli.fail(1, "%s", no_dir) end
    run.dir = dir
    local function name(i, what)
      local path = string.format("%s/%d.%s", run.dir, i, what)
      run.names[path] = true
      return path
    end
    local slot = {} -- pid -> the file it runs
    local function start(i)
      local parts
      if #merges > 0 then
        parts = {}
        for _, m in ipairs(merges) do parts[m.key] = name(i, m.key) end
      end
      local words = { table.unpack(interp) }
      for _, w in ipairs(multi.child_argv(argv, at, from, files[i], parts)) do words[#words + 1] = w end
      run.out[i], run.err[i] = name(i, "out"), name(i, "err")
      local out, oerr = io.open(run.out[i], "wb")
      local err, eerr = io.open(run.err[i], "wb")
      if not (out and err) then cli.fail(1, "%s", oerr or eerr) end
      -- track: the pid is in run.running before any instruction a stop could raise at
      local pid, why = host.spawn(words, { stdin = null, stdout = out, stderr = err, env = env, track = run.running })
      out:close()
      err:close()
      if not pid then cli.fail(2, "%s", why) end
      slot[pid] = i
    end
    local next_start, next_out, running, jobs = 1, 1, 0, opts.jobs or 1
    while next_out <= #files do
      while next_start <= #files and running < jobs do
        start(next_start)
        next_start, running = next_start + 1, running + 1
      end
      local pids = {}
      for pid in pairs(run.running) do pids[#pids + 1] = pid end
      table.sort(pids)
      local pid, code = host.wait(pids, 200)
      if pid then
        run.running[pid], running = nil, running - 1
        results[slot[pid]] = { file = files[slot[pid]], exit = code }
      end
      while results[next_out] do
        flush(next_out, run)
        next_out = next_out + 1
      end
    end
    for _, m in ipairs(merges) do
      local parts = {}
      for i, r in ipairs(results) do
        parts[i] = { file = r.file, exit = r.exit, error = r.error, path = name(i, m.key) }
      end
      m.option.merge(parts, m.dest)
    end
  end
  null:close()
  local n = #files
  if failed > 0 then
    cli.fail(2, "%d of %d file%s failed", failed, n, n == 1 and "" or "s")
  elseif gated > 0 then
    cli.fail(3, "%d of %d file%s failed the gate", gated, n, n == 1 and "" or "s")
  end
  cli.exit(0)
end

--- multi.parse(arg, spec) -> opts, positional (as cli.parse) when one file
-- is given; with several files or a directory, runs them all and ends the
-- script (see the top of this file).
function multi.parse(argv, spec)
  local info = prepare(spec)
  local opts, pos, at = cli.parse(argv, spec)
  local k = info.files_at
  local given = {}
  for i = k, #pos do given[#given + 1] = pos[i] end
  if #given == 1 and not is_dir(given[1]) and not opts.shard then return opts, pos end
  if #given == 0 then return opts, pos end -- an optional files argument left out
  local files, skipped = multi.expand(given, opts, spec, opts.format)
  if opts.shard then
    files = multi.shard(files, opts.shard)
    if #files == 1 and not is_dir(files[1]) then
      for i = #pos, k, -1 do pos[i] = nil end
      pos[k] = files[1]
      return opts, pos
    end
  end
  local line, what = multi.skipped_line(given, skipped, spec)
  if #files == 0 then
    local reads = spec.formats and ("that " .. (spec.name or "this script") .. " reads ") or ""
    cli.fail(2, "no capture files %sin %s%s", reads, table.concat(given, ", "), what and (" (" .. what .. ")") or "")
  end
  if line then
    io.stderr:write("vpscript: ", line, "\n")
    io.stderr:flush()
  end
  multi.run(files, opts, spec, at, k, argv)
end

return multi
