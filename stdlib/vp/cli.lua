-- vp.cli: argument parsing, help, fatal errors, opening captures and JSON
-- output for vpscript scripts.
--
--   local cli = require "vp.cli"
--   local opts, args = cli.parse(arg, {
--     name = "hitches.lua", summary = "one line", usage = "[options] CAPTURE",
--     description = "what it does; every definition",
--     options = { {"--factor", type = "number", default = 2.5, metavar = "X", help = "..."} },
--     positional = { {"CAPTURE", help = "capture file"} },
--     schema = hitches.schema,     -- the --json document's shape, printed by --help
--   })
--   local cap = cli.open(args[1], opts)
--   local result = cli.run(hitches.analyze, cap, params)  -- plain data
--   if opts.json then cli.json(result, hitches.schema) end
--
-- Every script also gets --format NAME (read each capture with that reader),
-- --strict (any warning is an error: exit 2) and --wide (never cut text
-- to the terminal's width). A spec may say which formats the script reads,
-- `formats = {"vprof", "laige-budget"}`: cli.open refuses a capture of
-- another format with a clear message, and vp.multi's directory walk keeps
-- only the captures the script reads. An option whose value is a file the
-- script writes says `output = true`: cli.parse checks, before any work,
-- that the file can be written.
--
-- The opts cli.parse returns carry what the later calls need: cli.open,
-- cli.open_as, cli.open_runs and cli.warn take them (--format, --strict,
-- --json, and opts._spec, the spec they were parsed with: its name and
-- formats). nil stands for a script that parsed nothing: no --strict, no
-- --json, every format.
--
-- Option types: "flag" (true when given, else the default or false),
-- "number", "integer", "string", "range" ("I:J", "I:", ":J" or "I" ->
-- {first=, last=}; a negative number counts from the end, -1 being the
-- last frame; vp.frames_of is the one rule, vp.open's frames applies it),
-- "duration" ("60s", "1m", "500ms", "1.5h" -> milliseconds, greater than
-- 0: cli.duration_ms). Extra checks: `choices = {...}`,
-- `min =`, `max =`, `positive = true`. `--name=value` and `--name value` are
-- both accepted; `--` ends the options. Option keys in the result drop the
-- leading dashes and turn "-" into "_" (--min-excess-ms -> opts.min_excess_ms).
-- Every script gets --json, --csv and -h/--help unless it declares them.
--
-- Fatal errors are raised as vp.error objects {code, message, exit} (see
-- cli.fail); the vpscript host prints "vpscript: <message>" to stderr and
-- exits with `exit`. --help prints to stdout and raises one with exit 0.
local cli = {}

local E = require "vp.error"

--- cli.fail(code, fmt, ...): raise a vp.error object that ends the script
-- with exit status `code` and the message E.format(fmt, ...) (string
-- arguments shown with visible escapes).
-- Codes: 1 script error, 2 usage or unreadable/malformed input, 3 gate failed.
function cli.fail(code, fmt, ...)
  error(E.new(E.code_of(code), E.format(fmt, ...), code), 2)
end

--- cli.exit(code): end the script with `code` and no message.
function cli.exit(code)
  error(E.new(E.code_of(code), nil, code), 2)
end

--- cli.is_exit(e): true when `e` is a vp.error object (cli.fail, cli.exit,
-- or an analysis's E.raise).
cli.is_exit = E.is

--- cli.run(f, ...) -> f(...): run an analysis for a script. A vp.error
-- (cli.fail, an analysis's E.raise, the bindings' error about data a read
-- found broken) ends the script with its exit status; anything else raised
-- is a bug and goes on untouched, so the host ends with exit 1 and its
-- traceback.
function cli.run(f, ...)
  return f(...)
end

local common_options = {
  { "--json", type = "flag", help = "print one JSON document on stdout instead of a table" },
  { "--csv", type = "flag", help = "print CSV (header line, then one line per row) instead of a table" },
  { "--format", metavar = "NAME",
    help = "read every capture with this reader instead of detecting its format (a format id of vp.formats())" },
  { "--strict", type = "flag", help = "treat every warning as an error: exit 2 (for CI)" },
  { "--wide", type = "flag", help = "never cut text columns to the terminal's width" },
  { "--help", short = "-h", type = "flag", help = "show this help and exit" },
}

local function key_of(name)
  return (name:gsub("^%-+", ""):gsub("%-", "_"))
end

local function metavar_of(o)
  if o.metavar then return o.metavar end
  if o.choices then return table.concat(o.choices, "|") end
  if o.type == "number" then return "X" end
  if o.type == "integer" then return "N" end
  if o.type == "range" then return "I:J" end
  if o.type == "duration" then return "DURATION" end
  return "VALUE"
end

-- The effective option list: the script's own, then the common ones it did
-- not redefine (cli.options).
local function all_options(spec)
  local list, seen = {}, {}
  for _, o in ipairs(spec.options or {}) do
    assert(type(o[1]) == "string" and o[1]:match("^%-%-[%w][%w%-]*$"),
      "cli.parse: option names look like --name")
    list[#list + 1] = o
    seen[o[1]] = true
  end
  for _, o in ipairs(common_options) do
    if not seen[o[1]] and (spec.common ~= false or o[1] == "--help") then list[#list + 1] = o end
  end
  return list
end

--- cli.options(spec) -> list: every option a script takes (its own, then
-- the common ones it did not redefine), as cli.parse reads them.
cli.options = function(spec) return all_options(spec) end

-- "\1" stands for a space wrap() must not break at (see default_text).
local function wrap(text, width, indent)
  return (require("vp.fmt").wrap(text, width, indent):gsub("\1", " "))
end

local function default_text(o)
  local d = o.default
  if d == nil or o.type == "flag" then return "" end
  if type(d) == "table" then return "" end
  -- "\1" instead of spaces: wrap() never breaks inside "(default X)"
  return " (default\1" .. tostring(d) .. ")"
end

--- cli.help(spec) -> string: the --help text.
function cli.help(spec)
  local out = {}
  local name = spec.name or "script"
  local usage = spec.usage
  if not usage then
    local parts = { "[options]" }
    for _, p in ipairs(spec.positional or {}) do
      local pn = p[1] .. (p.rest and " ..." or "")
      parts[#parts + 1] = p.optional and ("[" .. pn .. "]") or pn
    end
    usage = table.concat(parts, " ")
  end
  out[#out + 1] = "usage: vpscript " .. name .. " " .. usage
  if spec.summary then out[#out + 1] = "\n" .. spec.summary end
  if spec.description then
    out[#out + 1] = "\n" .. (spec.description:gsub("^\n+", ""):gsub("\n+$", ""))
  end
  if spec.positional and #spec.positional > 0 then
    out[#out + 1] = "\narguments:"
    for _, p in ipairs(spec.positional) do
      out[#out + 1] = string.format("  %-22s %s", p[1], wrap(p.help or "", 54, 25))
    end
  end
  out[#out + 1] = "\noptions:"
  for _, o in ipairs(all_options(spec)) do
    local left = (o.short and (o.short .. ", ") or "") .. o[1]
    if o.type ~= "flag" then left = left .. " " .. metavar_of(o) end
    local help = (o.help or "") .. default_text(o)
    if #left > 22 then
      out[#out + 1] = "  " .. left
      out[#out + 1] = string.rep(" ", 25) .. wrap(help, 54, 25)
    else
      out[#out + 1] = string.format("  %-22s %s", left, wrap(help, 54, 25))
    end
  end
  if spec.schema then
    out[#out + 1] = "\n--json document (keys in this order; {...} an object, [...] a list):"
    out[#out + 1] = "  " .. wrap(spec.schema, 76, 2)
  end
  return table.concat(out, "\n") .. "\n"
end

local function hint(spec)
  return string.format(" (try 'vpscript %s --help')", spec.name or "script")
end

--- cli.parse_range(s) -> {first = i|nil, last = j|nil} or nil, message.
-- "I:J", "I:" (to the end), ":J" (from the start) or "I" (just I); 1-based
-- and inclusive; a negative number counts from the end (-1 is the last
-- frame: "-600:" is the last 600 frames, "1:-100" all but the last 100).
function cli.parse_range(s)
  local a, b = s:match("^%s*(%-?%d*)%s*:%s*(%-?%d*)%s*$")
  if not a then
    a = s:match("^%s*(%-?%d+)%s*$")
    if not a then return nil, "expected I:J, I:, :J or I (1-based frame numbers, negative from the end)" end
    b = a
  end
  if a == "-" or b == "-" then return nil, "expected a number after '-'" end
  local r = { first = math.tointeger(tonumber(a)), last = math.tointeger(tonumber(b)), text = s }
  if r.first == 0 or r.last == 0 then
    return nil, "frame numbers start at 1 (negative ones count from the end: -1 is the last)"
  end
  if r.first and r.last and (r.first < 0) == (r.last < 0) and r.first > r.last then
    return nil, "the range is empty (I > J)"
  end
  return r
end

--- cli.FRAMES: the --frames option of every script that reads VProf or laige
-- frames (one type, one rule: vp.frames_of, vp.open's); the script hands the
-- parsed range to cli.open (vp.open's frames), which opens the capture with
-- those frames only, numbered as in the file.
cli.FRAMES = { "--frames", type = "range", metavar = "A:B",
  help = "only frames A..B (1-based, inclusive; A: and :B too; negative numbers count from the end: "
    .. "-1 is the last frame, -600: the last 600)" }

--- cli.BASELINE_FRAMES: the baseline side's own --frames (compare.lua,
-- check.lua): two stretches of one capture, or another stretch of the
-- baseline than of the capture.
cli.BASELINE_FRAMES = { "--baseline-frames", type = "range", metavar = "A:B",
  help = "the baseline's frames A..B (as --frames), when they are not --frames' own: a range against a range" }

--- cli.OUTPUT: the -o option of a script that writes one file (or stdout):
-- cli.parse checks the file can be written, cli.write_output writes it.
cli.OUTPUT = { "--output", short = "-o", metavar = "FILE", output = true, help = "write to FILE instead of stdout" }

--- cli.PER: --per DURATION, the frame time statistics (mean, p99, max,
-- 1 % low) and hitches of each consecutive window of that much frame time
-- (hitches.lua, report.lua: vp.hitches' windows).
cli.PER = { "--per", type = "duration",
  help = "also the frame time statistics (mean, p99, max, 1 % low) and hitches of each consecutive window of "
    .. "that much frame time: 60s, 1m, 500ms" }

--- cli.TARGET_FPS: the --target-fps option of the scripts that draw frame
-- time (plot.lua, report.lua): the target lines (vp.charts.targets;
-- repeatable, default 60 and 30 fps).
cli.TARGET_FPS = { "--target-fps", type = "number", positive = true, multi = true, metavar = "FPS",
  help = "a target frame rate drawn as a line at 1000 / FPS ms on frame-time charts (repeat for several; "
    .. "default 60 and 30: 16.7 and 33.3 ms)" }

--- cli.range_of(cap) -> {first, last} | nil: the frame numbers a capture
-- holds (cap.first_frame .. cap.last_frame: every frame, or the --frames
-- range it was opened with), for a script's JSON; nil for a capture
-- without frames.
function cli.range_of(cap)
  if not cap.first_frame then return nil end
  return { first = cap.first_frame, last = cap.last_frame }
end

--- cli.duration_ms(text) -> ms | nil: a duration such as "60s", "1m",
-- "500ms" or "1.5h" (units ms, s, m or min, h) in
-- milliseconds; nil unless it is one and greater than 0.
function cli.duration_ms(text)
  local x, unit = tostring(text):match("^%s*(%d+%.?%d*)%s*(%a*)%s*$")
  local scale = ({ ms = 1, s = 1000, m = 60000, min = 60000, h = 3600000 })[unit]
  local ms = x and scale and tonumber(x) * scale
  if ms and ms > 0 then return ms end
  return nil
end

local function convert(o, raw, spec)
  local name = o[1]
  local function bad(expect)
    cli.fail(2, "option %s: bad value '%s': %s%s", name, raw, expect, hint(spec))
  end
  local v
  if o.type == "number" or o.type == "integer" then
    v = tonumber(raw)
    if not v or v ~= v or v == math.huge or v == -math.huge then bad("expected a number") end
    if o.type == "integer" then
      v = math.tointeger(v)
      if not v then bad("expected an integer") end
    end
    if o.min and v < o.min then bad("must be at least " .. tostring(o.min)) end
    if o.max and v > o.max then bad("must be at most " .. tostring(o.max)) end
    if o.positive and v <= 0 then bad("must be greater than 0") end
  elseif o.type == "range" then
    local msg
    v, msg = cli.parse_range(raw)
    if not v then bad(msg) end
  elseif o.type == "duration" then
    v = cli.duration_ms(raw)
    if not v then bad("expected a duration such as 60s, 1m or 500ms (ms, s, m or min, h)") end
  else
    v = raw
  end
  if o.choices then
    local ok = false
    for _, c in ipairs(o.choices) do
      if c == v then ok = true end
    end
    if not ok then bad("expected one of " .. table.concat(o.choices, ", ")) end
  end
  return v
end

--- cli.parse(arg, spec) -> opts, positional, at
-- arg: the script's `arg` table (arg[1..n] are used) or any list of strings.
-- opts: every option's value by key, and opts._spec the spec itself (no
-- option's key starts with "_"), for cli.open, cli.open_as, cli.open_runs
-- and cli.warn.
-- at: where in arg each word was: at[j] the index of positional[j],
-- at.dashdash the "--" that ended the options (or nil), at.options[key] the
-- indices of the words that named that option (vp.multi passes the
-- original words on to each file's run).
-- spec: {name, usage, summary, description, positional, options, schema,
-- formats}; common = false leaves out the common options (--json, --csv,
-- --format, --strict, --wide) but --help, for a command that renders none
-- of them (the tools).
function cli.parse(argv, spec)
  argv = argv or {}
  local options = all_options(spec)
  local by_name = {}
  for _, o in ipairs(options) do
    by_name[o[1]] = o
    if o.short then by_name[o.short] = o end
  end
  local opts, pos = {}, {}
  for _, o in ipairs(options) do
    local k = key_of(o[1])
    if o.type == "flag" then
      opts[k] = o.default or false
    elseif o.multi then
      opts[k] = {}
    else
      opts[k] = o.default
    end
  end

  local at = { options = {} }
  local i, n, only_pos = 1, #argv, false
  while i <= n do
    local a = argv[i]
    if only_pos or a == "-" or a:sub(1, 1) ~= "-" then
      pos[#pos + 1] = a
      at[#pos] = i
    elseif a == "--" then
      only_pos = true
      at.dashdash = i
    else
      local name, value = a:match("^(%-%-[^=]+)=(.*)$")
      name = name or a
      local o = by_name[name]
      if not o then
        local names = {}
        for known in pairs(by_name) do names[#names + 1] = known end
        cli.fail(2, "unknown option %s%s%s", name, require("vp.near").hint(name, names), hint(spec))
      end
      local k = key_of(o[1])
      at.options[k] = at.options[k] or {}
      table.insert(at.options[k], i)
      if o.type == "flag" then
        if value then cli.fail(2, "option %s takes no value%s", o[1], hint(spec)) end
        opts[k] = true
        if k == "help" then
          io.stdout:write(cli.help(spec))
          io.stdout:flush()
          cli.exit(0)
        end
      else
        if not value then
          i = i + 1
          value = argv[i]
          if value == nil then
            cli.fail(2, "option %s needs a value (%s)%s", o[1], metavar_of(o), hint(spec))
          end
        end
        local v = convert(o, value, spec)
        if o.multi then
          local list = opts[k]
          list[#list + 1] = v
        else
          opts[k] = v
        end
      end
    end
    i = i + 1
  end

  if opts.json and opts.csv then
    cli.fail(2, "--json and --csv exclude each other%s", hint(spec))
  end
  if opts.format ~= nil then
    local ids = cli.format_ids()
    local known = false
    for _, id in ipairs(ids) do known = known or id == opts.format end
    if not known then
      cli.fail(2, "option --format: unknown format '%s' (formats: %s)%s", opts.format, table.concat(ids, ", "),
        hint(spec))
    end
    if spec.formats and not cli.reads(spec, opts.format) then
      cli.fail(2, "option --format: %s does not read %s captures (it reads %s)", spec.name or "this script",
        opts.format, table.concat(spec.formats, ", "))
    end
  end
  -- Every output file, before any work: writable, and none of the run's
  -- inputs (the arguments and the other options' values).
  local inputs = table.move(pos, 1, #pos, 1, {})
  for _, o in ipairs(options) do
    local v = opts[key_of(o[1])]
    if not o.output and type(v) == "string" then inputs[#inputs + 1] = v end
  end
  for _, o in ipairs(options) do
    local v = opts[key_of(o[1])]
    if o.output and type(v) == "string" then
      local ok, why = cli.check_output(v, inputs)
      if not ok then cli.fail(2, "%s %s: %s", o[1], v, why) end
    end
  end

  local pspec = spec.positional or {}
  local max, min = 0, 0
  for _, p in ipairs(pspec) do
    if p.rest then max = math.huge else max = max + 1 end
    if not p.optional then min = min + 1 end
  end
  if #pos < min then
    cli.fail(2, "missing argument %s%s", pspec[#pos + 1][1], hint(spec))
  end
  if #pos > max then
    cli.fail(2, "unexpected argument '%s'%s", pos[max + 1], hint(spec))
  end
  opts._spec = spec
  return opts, pos, at
end

--- cli.check_order(spec, first, second): the first two words a script
-- was given, its first positional (a node, a rules file: never a capture)
-- and its second (a capture). Fails with exit 2 and the command in the
-- right order when first is a capture and second is not: the two were
-- swapped (node.lua CAPTURE NODE, check.lua CAPTURE RULES).
function cli.check_order(spec, first, second)
  local vp = require "vp"
  if not first or not second then return end
  local format = vp.detect(first)
  if format and not vp.detect(second) then
    local p = spec.positional
    cli.fail(2, "%s is a %s capture and %s is not: %s takes %s first, then %s (did you mean 'vpscript %s %s %s'?)",
      first, format, second, spec.name, p[1][1], p[2][1], spec.name, second, first)
  end
end

--- cli.format_ids() -> list of the format ids vpscript reads (vp.formats()).
function cli.format_ids()
  local ids = {}
  for i, f in ipairs(require("vp").formats()) do ids[i] = f.name end
  return ids
end

--- cli.reads(spec, format) -> true when a script of this spec reads captures
-- of that format (every format when the spec lists none).
function cli.reads(spec, format)
  if not spec.formats then return true end
  for _, f in ipairs(spec.formats) do
    if f == format then return true end
  end
  return false
end

--- cli.lfs() -> LuaFileSystem, or nil where it is not installed.
function cli.lfs()
  local ok, lfs = pcall(require, "lfs")
  if ok and type(lfs) == "table" then return lfs end
  return nil
end

--- cli.check_output(path [, inputs]) -> true | nil, why: can the script
-- write this file (vp.output.check)? Checked by cli.parse before any work
-- starts, for every option that says `output = true`, so that a typo in
-- --junit's directory is said at once, not after every capture was read,
-- and an output that is one of the run's inputs is refused before it is
-- touched.
function cli.check_output(path, inputs)
  return require("vp.output").check(path, inputs)
end

-- The parsed opts a cli call was given (cli.parse's, or nil: the defaults).
local NO_OPTS = { _spec = {} }
local function parsed(opts, who)
  if opts == nil then return NO_OPTS end
  if type(opts) ~= "table" or type(opts._spec) ~= "table" then
    local got = type(opts) == "table" and "a table without _spec" or "a " .. type(opts)
    local after = who == "cli.warn" and "" or " (vp.open's options come after it)"
    error(string.format("%s: opts must be what cli.parse returned, or nil%s, not %s", who, after, got), 3)
  end
  return opts
end

--- cli.warn(opts, fmt, ...): print "vpscript: warning: <message>" on
-- stderr (the message E.format(fmt, ...): string arguments shown with
-- visible escapes); with --strict (opts, cli.parse's), end the script with
-- exit 2 and the message instead.
function cli.warn(opts, fmt, ...)
  opts = parsed(opts, "cli.warn")
  local msg = E.format(fmt, ...)
  if opts.strict then
    cli.fail(2, "%s (--strict: a warning is an error)", msg)
  end
  io.stderr:write("vpscript: warning: ", msg, "\n")
end

local open_progress -- below, with cli.progress

-- The options cli.open gives vp.open for path: the format forced by
-- --format (vp.open's own format wins), after refusing a capture of a
-- format the script does not read (opts._spec).
local function open_opts(path, opts, vp_opts)
  local vp = require "vp"
  local spec = opts._spec
  local format = vp_opts and vp_opts.format or opts.format
  if format and not (vp_opts and vp_opts.format) then
    local o = { format = format }
    for k, v in pairs(vp_opts or {}) do o[k] = v end
    vp_opts = o
  end
  if spec.formats and not format then
    local detected = vp.detect(path)
    if detected and not cli.reads(spec, detected) then
      cli.fail(2, "%s: a %s capture: %s reads %s (--format NAME forces a reader)", path, detected,
        spec.name or "this script", table.concat(spec.formats, ", "))
    end
  end
  return vp_opts
end

-- open(opts) with a progress line for `what` on a terminal (unless opts
-- has a progress of its own); the line goes whether the open returns or
-- raises (Ctrl-C).
local function with_progress(what, opts, open)
  local progress, clear
  if not (opts and opts.progress ~= nil) then progress, clear = open_progress(what) end
  if not progress then return open(opts) end
  local o = { progress = progress }
  for k, v in pairs(opts or {}) do o[k] = v end
  local r = table.pack(pcall(open, o))
  clear()
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

-- The capture vp.open gave for path, or fail with exit 2 and its message;
-- its warnings said (cli.open; opts: --json, --strict).
local function opened(opts, path, cap, msg, quiet, frames)
  if not cap then
    msg = tostring(msg or "cannot open")
    if msg:sub(1, #path) ~= path then msg = path .. ": " .. msg end
    -- the reader speaks to Lua (vp.open's {format = ...}); on the command line it is --format
    msg = msg:gsub("pass {format = %.%.%.} to force one", function()
      return "pass --format NAME to force one: " .. table.concat(cli.format_ids(), ", ")
    end)
    -- --json: the input's document says why, as among several (cli.error_json)
    if opts.json then io.stdout:write(cli.error_json(path, msg, 2)) end
    cli.fail(2, "%s", msg)
  end
  if frames and cap.frame_count == nil then
    cli.fail(2, "%s: --frames: a %s capture has no frames to choose", path, tostring(cap.format))
  end
  if not quiet or opts.strict then
    for _, w in ipairs(cap.warnings or {}) do
      w = tostring(w)
      if w:sub(1, #path) ~= path then w = path .. ": " .. w end
      cli.warn(opts, "%s", w)
    end
  end
  return cap
end

--- cli.open(path, opts [, vp_opts [, quiet]]) -> cap: vp.open(path,
-- vp_opts) or fail with exit 2 and the reader's message (--json: with
-- cli.error_json's document on stdout). opts: cli.parse's (nil: the
-- defaults). The format is vp_opts.format, else --format, else
-- detected; a capture of a format the script does not read (the spec's
-- `formats`) is refused before it is read. Warnings go to stderr as
-- "vpscript: warning: <path>: ..." (cli.warn: --strict makes the first an
-- error) unless `quiet` (for a script that prints cap.warnings itself;
-- --strict still fails on them).
function cli.open(path, opts, vp_opts, quiet)
  local vp = require "vp"
  opts = parsed(opts, "cli.open")
  local cap, msg = with_progress(path, open_opts(path, opts, vp_opts), function(o) return vp.open(path, o) end)
  return opened(opts, path, cap, msg, quiet, vp_opts and vp_opts.frames)
end

-- What a script that reads one format calls its captures (cli.open_as).
local CAPTURES = {
  vprof = "VProf captures", devt = ".devt event profiler exports", dlag = ".dlag lag profiler exports",
  dm = ".dm movement traces", dw = ".dw weapon traces",
}

--- cli.open_as(path, opts, format [, vp_opts]) -> cap: cli.open(path,
-- opts, vp_opts), then fail with exit 2 unless the capture is of that
-- format ("PATH: node.lua reads VProf captures; this is a dm capture"):
-- the one capture of a script that reads one format.
function cli.open_as(path, opts, format, vp_opts)
  opts = parsed(opts, "cli.open_as")
  local cap = cli.open(path, opts, vp_opts)
  if cap.format ~= format then
    cli.fail(2, "%s: %s reads %s; this is a %s capture", path, opts._spec.name or "this script",
      CAPTURES[format] or (format .. " captures"), tostring(cap.format))
  end
  return cap
end

--- cli.open_runs(files, opts, r [, others [, stats [, r_others]]]) -> caps
-- [, other_caps]: every file opened (cli.open; opts: cli.parse's) with the
-- --frames range r (vp.open's frames; the other side's r_others, default
-- r): the runs a comparison or a gate reads, and the other side's
-- (others: a baseline, the B side; may be nil) read together, VProf
-- captures on threads of their own (vp.open_all). Without a range, a VProf
-- capture computes its statistics while it is read: `stats` (vp.open's
-- option; default true, every one; other formats ignore it); a range makes
-- one pass over its frames. The first file that cannot be opened, in
-- order, fails as cli.open would.
function cli.open_runs(files, opts, r, others, stats, r_others)
  opts = parsed(opts, "cli.open_runs")
  if r_others == nil then r_others = r end
  local vp = require "vp"
  if stats == nil then stats = true end
  -- one vp.open_all for every file when both sides take one range, else one a side
  local groups = { { paths = table.move(files, 1, #files, 1, {}), frames = r } }
  if others and r_others == r then
    table.move(others, 1, #others, #files + 1, groups[1].paths)
  elseif others then
    groups[2] = { paths = others, frames = r_others }
  end
  local caps = {}
  for _, g in ipairs(groups) do
    local vp_opts = { stats = stats, frames = g.frames }
    for _, f in ipairs(g.paths) do vp_opts = open_opts(f, opts, vp_opts) end
    local what = #g.paths == 1 and g.paths[1] or string.format("%d captures", #g.paths)
    local got, failed = with_progress(what, vp_opts, function(o) return vp.open_all(g.paths, o) end)
    for i, f in ipairs(g.paths) do
      caps[#caps + 1] = opened(opts, f, got[i] or nil, failed[i] and failed[i].message, nil, g.frames)
    end
  end
  local sides = { table.move(caps, 1, #files, 1, {}), table.move(caps, #files + 1, #caps, 1, {}) }
  if others then return sides[1], sides[2] end
  return sides[1]
end

-- JSON ---------------------------------------------------------------------
-- vp.json writes every document (key order, null, NaN, UTF-8: see there).

local json = require "vp.json"

--- cli.array(t) -> t marked as a list ([] when empty); json.array.
-- cli.null: JSON null (json.null). A document with a schema needs neither
-- (nil and the schema say it); they are for a document without one, as a
-- user's script writes (examples/).
cli.array = json.array
cli.null = json.null

--- cli.encode_json(value [, schema]) -> string (json.encode).
function cli.encode_json(value, schema)
  return json.encode(value, schema)
end

--- cli.ERROR_SCHEMA: the --json document of an input that cannot be used,
-- in its place: {"file", "error", "exit"}, one run or several (vp.multi).
cli.ERROR_SCHEMA = "{file, error, exit}"

--- cli.error_json(file, message, exit) -> that document's line: the file
-- exactly, the message as people read it (vp.fmt.visible, as on stderr).
function cli.error_json(file, message, exit)
  local doc = { file = file, error = require("vp.fmt").visible(message), exit = exit }
  return cli.encode_json(doc, cli.ERROR_SCHEMA) .. "\n"
end

--- cli.write_output(path, text): write text to the file path (the script's
-- -o; vp.output: checked, and renamed into place only when whole), or to
-- stdout when path is nil; fails with exit 2 naming the file and the
-- problem when it cannot be written.
function cli.write_output(path, text)
  if not path then
    io.stdout:write(text)
    return
  end
  require("vp.output").write(path, text, "-o")
end

--- cli.json(value [, schema]): print one JSON document (and a newline) on stdout.
function cli.json(value, schema)
  json.write(value, schema, function(piece) io.stdout:write(piece) end)
  io.stdout:write("\n")
end

--- cli.decode_json(s) -> value (json.decode; null is cli.null).
function cli.decode_json(s)
  return json.decode(s)
end

-- progress -----------------------------------------------------------------

--- cli.terminal(stream) -> is_terminal, columns|nil: whether "stdout" or
-- "stderr" is a terminal, and its width when it can be told (vp.host).
function cli.terminal(stream)
  local host = require "vp.host"
  return host.isatty(stream), host.columns(stream)
end

local function stderr_is_tty()
  return (cli.terminal("stderr"))
end

-- The progress line, the one drawer: "label:  42 %" on stderr when it is a
-- terminal, from `after` seconds in, redrawn when the percentage changes;
-- nil when stderr is not a terminal, else draw(done, total) and clear(),
-- which takes the line away if it was drawn.
local function progress_line(label, after)
  if not stderr_is_tty() then return nil end
  local start, last = os.clock(), nil
  local function draw(done, total)
    if os.clock() - start < after then return end
    local pct = total > 0 and math.floor(100 * done / total) or 100
    if pct == last then return end
    last = pct
    io.stderr:write(string.format("\r%s: %3d %%", label, pct))
    io.stderr:flush()
  end
  local function clear()
    if last then
      io.stderr:write("\r\27[K")
      io.stderr:flush()
    end
  end
  return draw, clear
end

-- The line a long vp.open draws, "vpscript: reading <path>:  42 %", from
-- half a second in (progress_line).
function open_progress(path)
  return progress_line("vpscript: reading " .. path, 0.5)
end

--- cli.progress(label, total) -> update(i), done(): a "label:  42 %" line on
-- stderr, redrawn at most every 1 %, only when stderr is a terminal.
function cli.progress(label, total)
  local draw, clear = progress_line(label, 0)
  if not draw or not total or total <= 0 then
    return function() end, function() end
  end
  return function(i) draw(i, total) end, clear
end

--- cli.on_progress(label) -> function(done, total): a callback for an
-- analysis's params.on_progress that draws cli.progress(label, total),
-- started on the first call and cleared once done reaches total.
function cli.on_progress(label)
  local update, finish
  return function(done, total)
    if not update then update, finish = cli.progress(label, total) end
    update(done)
    if done >= total then
      finish()
      update = nil
    end
  end
end

return cli
