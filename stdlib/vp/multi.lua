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
-- file in a child process (`<vpscript> <script> [options] -- [fixed args]
-- FILE`), at most --jobs at a time, prints their outputs in input order and
-- ends the script with the combined exit status; it never returns then:
--   text    "==> FILE <==" then that file's output, a blank line between files
--   --json  one JSON document per line (NDJSON), in input order; a file that
--           failed gives {"file": FILE, "error": "<message>", "exit": N}
--   --csv   one table: a `file` column first, the header line once
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
-- only changes how long a run takes, never what it prints.
local cli = require "vp.cli"

local multi = {}

-- Extensions that say where a format may be found but never decide it
-- (core/registry's generic ones: laige reports): vp.detect decides.
local GENERIC_EXT = { [".json"] = true, [".txt"] = true }

local function quote(s)
  s = tostring(s)
  if s:match("^[%w%./_:=,+%-@]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end
multi.quote = quote

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

local function mktemp_dir()
  local p = io.popen("mktemp -d \"${TMPDIR:-/tmp}/vpscript.XXXXXX\" 2>/dev/null")
  local dir = p and p:read("l")
  if p then p:close() end
  if not dir or dir == "" then cli.fail(1, "cannot create a temporary directory (mktemp -d)") end
  return dir
end

local function remove_dir(dir)
  if dir and dir:match("/vpscript%.[%w]+$") then os.execute("rm -rf " .. quote(dir)) end
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

--- multi.expand(paths [, reads [, forced]]) -> files, skipped: files as
-- given, directories walked (recursively, sorted, hidden entries left out)
-- for the captures the script reads (multi.classify). skipped: {count =,
-- seen =, formats = {format = count}} over the captures the walks left
-- out. A directory that cannot be listed is a warning (vp.cli's cli.warn)
-- and the walk goes on.
function multi.expand(paths, reads, forced)
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
      cli.warn("%s: cannot list the directory (%s): skipped", dir, why)
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

local function value_text(o, v)
  if o.type == "range" and type(v) == "table" then
    return v.text or string.format("%s:%s", v.first or "", v.last or "")
  end
  if math.type(v) == "float" then
    local s = string.format("%.17g", v)
    local short = string.format("%.15g", v)
    if tonumber(short) == v then s = short end
    return s
  end
  return tostring(v)
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
  spec._vp_multi = { files_at = k }
  return spec._vp_multi
end

--- multi.child_options(opts, spec, parts) -> list of option words that
-- reproduce `opts` (everything but --help and --jobs); options with a
-- `merge` get the path parts[key] instead of their value.
function multi.child_options(opts, spec, parts)
  local words = {}
  for _, o in ipairs(cli.options(spec)) do
    local name = o[1]
    local k = key_of(name)
    local v = opts[k]
    if name == "--help" or name == "--jobs" then
      v = nil
    elseif parts and parts[k] then
      v = parts[k]
    end
    if o.type == "flag" then
      if v == true and v ~= o.default then words[#words + 1] = name end
    elseif o.multi and type(v) == "table" then
      for _, x in ipairs(v) do words[#words + 1] = name .. "=" .. value_text(o, x) end
    elseif v ~= nil and (v ~= o.default or (parts and parts[k])) then
      words[#words + 1] = name .. "=" .. value_text(o, v)
    end
  end
  return words
end

-- Running -------------------------------------------------------------------------

local function have(cmd)
  local ok = os.execute("command -v " .. cmd .. " >/dev/null 2>&1")
  return ok == true or ok == 0
end

-- Run shell commands cmds[i] with at most `jobs` at a time; on_done(i) is
-- called for each finished one (any order). Each job's stdout, stderr and
-- status land in dir/i.out, dir/i.err, dir/i.rc. The pool runs in its own
-- session (setsid) and reports its process id first; `pool` receives the
-- pipe and that id so that the caller can stop the whole pool when this
-- raises (a closed stdout, Ctrl-C) before the directory goes away.
local function run_pool(dir, cmds, jobs, on_done, pool)
  for i, c in ipairs(cmds) do
    local f = assert(io.open(string.format("%s/%d.sh", dir, i), "w"))
    f:write(c, string.format(" >%s 2>%s </dev/null\n", quote(dir .. "/" .. i .. ".out"),
      quote(dir .. "/" .. i .. ".err")))
    f:close()
  end
  local list = dir .. "/list"
  local f = assert(io.open(list, "w"))
  for i = 1, #cmds do f:write(i, "\n") end
  f:close()
  local body = 'sh "$1/$2.sh"; echo $? >"$1/$2.rc"; echo "$2"'
  local script = assert(io.open(dir .. "/pool.sh", "w"))
  script:write("echo $$\n")
  if have("xargs") then
    script:write(string.format("exec xargs -P %d -I{} sh -c %s sh %s {} <%s\n", jobs, quote(body), quote(dir),
      quote(list)))
  else
    script:write(string.format("while read -r i; do sh -c %s sh %s \"$i\"; done <%s\n", quote(body),
      quote(dir), quote(list)))
  end
  script:close()
  pool.session = have("setsid")
  pool.p = assert(io.popen((pool.session and "exec setsid sh " or "exec sh ") .. quote(dir .. "/pool.sh"), "r"))
  pool.pid = math.tointeger(tonumber(pool.p:read("l")))
  for line in pool.p:lines() do
    local i = math.tointeger(tonumber(line))
    if i then on_done(i) end
  end
  local p = pool.p
  pool.p = nil
  p:close()
end

-- Stop a pool that run_pool left running (it raised): signal its process
-- group (or the pool process alone without setsid), then reap it.
local function stop_pool(pool)
  if not pool.p then return end
  if pool.pid then
    os.execute(string.format("kill -s TERM -- %s%d 2>/dev/null", pool.session and "-" or "", pool.pid))
  end
  pcall(pool.p.close, pool.p)
  pool.p = nil
end

-- pcall that also absorbs the host's pending stop. On Ctrl-C or a closed
-- stdout the host raises a stop at the next Lua instruction; when the
-- signal first made a C call fail (a read interrupted: EINTR), that error
-- comes first and the stop would fire in the caller, outside any pcall,
-- skipping its cleanup. Here it fires inside the outer pcall instead.
local function protected(f, ...)
  local args = table.pack(...)
  return pcall(function()
    local ok, e = pcall(f, table.unpack(args, 1, args.n))
    if not ok then error(e, 0) end
  end)
end

local function csv_prefix(file, text, first)
  local lines = {}
  local head = true
  local field = file
  if field:find('[,"\r\n]') then field = '"' .. field:gsub('"', '""') .. '"' end
  for line in text:gmatch("[^\n]*\n?") do
    if line ~= "" then
      local body = line:gsub("\n$", "")
      if head then
        if first then lines[#lines + 1] = "file," .. body end
        head = false
      else
        lines[#lines + 1] = field .. "," .. body
      end
    end
  end
  if #lines == 0 then return "" end
  return table.concat(lines, "\n") .. "\n"
end

--- multi.run(files, opts, spec, fixed [, argv]) -> never returns: runs the
-- script once per file, prints, and ends with the combined exit status.
function multi.run(files, opts, spec, fixed, argv)
  argv = argv or _G.arg or {}
  local script = argv[0]
  if not script or script == "-" or script == "" then
    cli.fail(2, "several files need the script as a file (it was read from standard input)")
  end
  local interp = multi.interpreter(argv)
  local dir = mktemp_dir()
  local merges = {}
  for _, o in ipairs(spec.options or {}) do
    local k = key_of(o[1])
    if o.merge and opts[k] ~= nil then merges[#merges + 1] = { key = k, option = o, dest = opts[k] } end
  end
  -- The children write to files: they cut their tables to this run's
  -- width only when told (COLUMNS), as vp.report would here.
  local env = ""
  if not opts.wide and not os.getenv("COLUMNS") then
    local width = require("vp.report").width(opts)
    if width then env = string.format("COLUMNS=%d ", width) end
  end
  local cmds = {}
  for i, file in ipairs(files) do
    local parts
    if #merges > 0 then
      parts = {}
      for _, m in ipairs(merges) do parts[m.key] = string.format("%s/%d.%s", dir, i, m.key) end
    end
    local words = {}
    for _, w in ipairs(interp) do words[#words + 1] = quote(w) end
    words[#words + 1] = quote(script)
    for _, w in ipairs(multi.child_options(opts, spec, parts)) do words[#words + 1] = quote(w) end
    words[#words + 1] = "--"
    for _, w in ipairs(fixed) do words[#words + 1] = quote(w) end
    words[#words + 1] = quote(file)
    cmds[i] = env .. table.concat(words, " ")
  end

  local done, next_out = {}, 1
  local csv_header = false
  local results = {}
  local failed, gated = 0, 0
  local function flush()
    while done[next_out] do
      local i = next_out
      local file = files[i]
      local out = read_all(string.format("%s/%d.out", dir, i))
      local err = read_all(string.format("%s/%d.err", dir, i))
      local code = math.tointeger(tonumber((read_all(string.format("%s/%d.rc", dir, i)):match("%d+")))) or 1
      results[i] = { file = file, exit = code }
      if code ~= 0 and code ~= 3 then
        results[i].error = multi.error_message(err) or string.format("%s: exited with status %d", file, code)
      end
      if opts.json then
        io.stdout:write(out)
        if out ~= "" and out:sub(-1) ~= "\n" then io.stdout:write("\n") end
        if results[i].error then
          io.stdout:write(cli.encode_json({ file = file, error = results[i].error, exit = code }), "\n")
        end
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
      next_out = next_out + 1
    end
  end

  -- An interrupt or a closed stdout raises wherever the script is; the
  -- pool is stopped here, outside run_pool, once no stop is pending.
  local pool = {}
  local ok, e = protected(run_pool, dir, cmds, opts.jobs or 1, function(i)
    done[i] = true
    flush()
  end, pool)
  if not ok then stop_pool(pool) end
  if ok then
    for _, m in ipairs(merges) do
      local parts = {}
      for i, r in ipairs(results) do
        parts[i] = { file = r.file, exit = r.exit, error = r.error,
          path = string.format("%s/%d.%s", dir, i, m.key) }
      end
      ok, e = pcall(m.option.merge, parts, m.dest)
      if not ok then break end
    end
  end
  remove_dir(dir)
  if not ok then error(e, 0) end
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
  local opts, pos = cli.parse(argv, spec)
  local k = info.files_at
  local given = {}
  for i = k, #pos do given[#given + 1] = pos[i] end
  if #given == 1 and not is_dir(given[1]) then return opts, pos end
  if #given == 0 then return opts, pos end -- an optional files argument left out
  local files, skipped = multi.expand(given, spec, opts.format)
  local line, what = multi.skipped_line(given, skipped, spec)
  if #files == 0 then
    local reads = spec.formats and ("that " .. (spec.name or "this script") .. " reads ") or ""
    cli.fail(2, "no capture files %sin %s%s", reads, table.concat(given, ", "), what and (" (" .. what .. ")") or "")
  end
  if line then
    io.stderr:write("vpscript: ", line, "\n")
    io.stderr:flush()
  end
  local fixed = {}
  for i = 1, k - 1 do fixed[i] = pos[i] end
  multi.run(files, opts, spec, fixed, argv)
end

return multi
