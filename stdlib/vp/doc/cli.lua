-- vp.doc.cli: documentation of the modules a script's command line and its
-- ending go through: vp.cli (options, help, opening captures, warnings,
-- fatal errors, JSON, progress), vp.error (the error objects and exit
-- statuses) and vp.output (writing an output file). Every shipped script
-- builds on them, and so can one's own. Read by vp.doc (the REPL's help()
-- and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse [=[
class vp.cli: a script's command line, captures, warnings and exit
  What the shipped scripts are made of: cli.parse reads the arguments by a spec {name, summary, usage, description,
  options = {{"--name", short =, type =, default =, metavar =, help =, choices =, min =, max =, positive =, multi =,
  output =}, ...}, positional = {{"NAME", help =, optional =, rest =}, ...}, schema, formats}; option types are
  "flag" (true when given, else the default or false), "number", "integer", "string" (the default), "range" ("I:J",
  "I:", ":J" or "I" -> {first, last}, negative counting from the end) and "duration" ("60s", "1m", "500ms", "1.5h"
  -> ms); choices checks any value, min, max and positive a number's, multi = true collects every use in a list,
  output = true marks a file the script writes (checked before any work). Every script also takes --json, --csv,
  --format NAME, --strict, --wide and -h/--help unless it declares them. The opts cli.parse returns are what cli.open,
  cli.open_as, cli.open_runs and cli.warn take (nil: the defaults, no --strict, every format). Fatal errors are
  vp.error objects: the host prints "vpscript: MESSAGE" on stderr and exits with their status (1 script error, 2
  usage or unreadable input, 3 gate failed). In the examples cli is require "vp.cli" and cap a
  capture.
function cli.parse(arg, spec) -> opts, positional, at
  opts: every option's value by key ("--min-excess-ms" -> opts.min_excess_ms) and opts._spec the spec; positional:
  the other words in order; at: where in arg each word was (at[j], at.dashdash, at.options[key]); a bad option or
  count of arguments fails with exit 2, --help prints cli.help(spec) and ends with exit 0
  > local spec = {name = "mine.lua", options = {{"--factor", type = "number", default = 2.5}, cli.FRAMES},
  >   positional = {{"CAPTURE", help = "capture file"}}}
  > local opts, args = cli.parse({"--factor", "3", "--frames", "-600:", "a.vprof"}, spec)
  > print(opts.factor, opts.frames.first, args[1], opts.json)  --> 3  -600  a.vprof  false
function cli.help(spec) -> string
  the --help text of a spec: usage, summary, description, arguments, every option with its default, the --json
  document's schema
  > print(cli.help({name = "mine.lua", summary = "one line", positional = {{"CAPTURE"}}}))
function cli.options(spec) -> list
  every option a script takes, as cli.parse reads them: its own, then the common ones it did not redefine
  > for _, o in ipairs(cli.options({})) do print(o[1]) end
function cli.open(path, opts [, vp_opts [, quiet]]) -> cap
  vp.open(path, vp_opts) or fail with exit 2 and the reader's message (--json: cli.error_json's document on stdout
  first); the format is vp_opts.format, else --format, else detected, and one the spec's formats do not list is
  refused; each warning goes through cli.warn unless quiet (--strict still fails on them)
  > local c = cli.open("examples/sample.vprof", nil, {frames = {first = 1, last = 100}})
  > print(c.frame_count)  --> 100
function cli.open_as(path, opts, format [, vp_opts]) -> cap
  cli.open, then fail with exit 2 unless the capture is of that format: the one capture of a script that reads one
  format
  > print(cli.open_as("examples/sample.dm", nil, "dm").format)  --> dm
function cli.open_runs(files, opts, r [, others [, stats [, r_others]]]) -> caps, other_caps
  every file opened as cli.open would, with the --frames range r (others: the other side, a baseline, with
  r_others, default r), VProf captures on threads of their own (vp.open_all); other_caps only when others is
  given; stats: vp.open's (default true); the first file that cannot be opened fails
  > local a, b = cli.open_runs({"examples/sample.vprof"}, nil, nil, {"examples/sample.vprof"})
  > print(#a, #b)  --> 1  1
function cli.warn(opts, fmt, ...)
  print "vpscript: warning: MESSAGE" on stderr (the message E.format(fmt, ...)); with --strict in opts end the
  script with exit 2 and the message instead
  > cli.warn(nil, "%s: only %d frames", "a.vprof", 3)
function cli.fail(code, fmt, ...)
  never returns: raise the vp.error that ends the script with exit status code and the message E.format(fmt, ...)
  (string arguments shown with visible escapes); codes: 1 script error, 2 usage or unreadable input, 3 gate failed
function cli.exit(code)
  never returns: raise the vp.error that ends the script with exit status code and no message
function cli.is_exit(e) -> boolean
  true when e is a vp.error object (cli.fail, cli.exit, an analysis's E.raise): vp.error's E.is
  > print(cli.is_exit(select(2, pcall(cli.exit, 0))))  --> true
function cli.run(f, ...) -> f(...)
  run an analysis for a script: a vp.error it raises ends the script with its exit status; anything else raised
  is a bug and goes on untouched (exit 1 and a traceback)
  > local result = cli.run(require("vp.hitches").analyze, cap)
function cli.json(value [, schema])
  print one JSON document and a newline on stdout (vp.json: key order and null as the schema says)
  > cli.json({frames = cap.frame_count}, "{frames}")
function cli.encode_json(value [, schema]) -> string
  the JSON text of value (vp.json's encode)
  > print(cli.encode_json({a = 1, b = cli.null}))
function cli.decode_json(s) -> value
  a JSON text as Lua values (vp.json's decode; null is cli.null)
  > print(cli.decode_json('{"a": [1, 2]}').a[2])  --> 2
function cli.array(t) -> t
  t marked as a JSON list ([] when empty), for a document without a schema
  > print(cli.encode_json(cli.array({})))  --> []
field null
  JSON null, for a document without a schema (with one, nil and the schema say it)
  > print(cli.encode_json({cli.null}))  --> [null]
function cli.error_json(file, message, exit) -> string
  the --json document (and newline) of an input that cannot be used, in its place: {file, error, exit}
  > io.write(cli.error_json("a.vprof", "not a capture", 2))
field ERROR_SCHEMA
  that document's schema: "{file, error, exit}"
  > print(cli.ERROR_SCHEMA)
function cli.write_output(path, text)
  text into the file path (the script's -o: vp.output, renamed into place only when whole), or to stdout when
  path is nil; fails with exit 2 naming the file when it cannot be written
  > cli.write_output(nil, "to stdout\n")
function cli.check_output(path [, inputs]) -> true | nil, why
  whether the script can write this file (vp.output.check): cli.parse checks every option that says output = true
  before any work; why says what is wrong
  > print(cli.check_output("examples"))  --> nil  is a directory
function cli.check_order(spec, first, second)
  fail with exit 2 and the command in the right order when first is a capture and second is not (node.lua
  CAPTURE NODE, check.lua CAPTURE RULES: swapped); otherwise nothing
  > cli.check_order({name = "node.lua"}, "Physics", "examples/sample.vprof")
function cli.parse_range(s) -> range | nil, message
  a --frames value: "I:J", "I:", ":J" or "I" as {first, last} (nil for an open end; 1-based, inclusive, negative
  from the end), or nil and a message saying what is wrong
  > local r = cli.parse_range("-600:")
  > print(r.first, r.last)  --> -600  nil
function cli.duration_ms(text) -> ms | nil
  a duration such as "60s", "1m", "500ms" or "1.5h" (units ms, s, m or min, h) in milliseconds; nil unless it is
  one and greater than 0
  > print(cli.duration_ms("1.5h"))  --> 5400000.0
function cli.range_of(cap) -> {first, last} | nil
  the frame numbers a capture holds (every frame, or its --frames range), for a script's JSON; nil without frames
  > print(cli.range_of(cap).last)
function cli.format_ids() -> list
  the format ids vpscript reads (vp.formats()), as --format takes them
  > print(table.concat(cli.format_ids(), ", "))
function cli.reads(spec, format) -> boolean
  whether a script of this spec reads captures of that format (every format when the spec lists none)
  > print(cli.reads({formats = {"vprof"}}, "dm"))  --> false
function cli.lfs() -> lfs | nil
  LuaFileSystem, or nil where it is not installed
  > print(cli.lfs() ~= nil)
function cli.terminal(stream) -> is_terminal, columns | nil
  whether "stdout" or "stderr" is a terminal, and its columns when they can be told
  > print(cli.terminal("stdout"))
function cli.progress(label, total) -> update(i), done()
  a "label:  42 %" line on stderr, redrawn at most every 1 %, only when stderr is a terminal: update(i) after item
  i of total, done() takes the line away
  > local update, done = cli.progress("nodes", 100)
  > for i = 1, 100 do update(i) end
  > done()
function cli.on_progress(label) -> function(done, total)
  a callback for an analysis's params.on_progress drawing cli.progress(label, total): started on its first call,
  cleared once done reaches total
  > local r = require("vp.hitches").analyze(cap, {on_progress = cli.on_progress("causes")})
field FRAMES
  the --frames option spec (type range, "A:B") of every script that reads frames: hand opts.frames to cli.open as
  vp.open's frames
  > local opts = cli.parse({"--frames", "1:100"}, {name = "mine.lua", options = {cli.FRAMES}})
field BASELINE_FRAMES
  the --baseline-frames option spec: the baseline's own range (compare.lua, check.lua)
  > print(cli.BASELINE_FRAMES[1])
field OUTPUT
  the -o/--output FILE option spec (output = true: checked by cli.parse, written by cli.write_output)
  > print(cli.OUTPUT[1], cli.OUTPUT.short)
field TARGET_FPS
  the --target-fps FPS option spec (number, positive, multi): the target lines of frame-time charts
  (vp.charts.targets; default 60 and 30)
  > print(cli.TARGET_FPS.multi)  --> true

class vp.error: the error objects vpscript raises on purpose, and exit statuses
  An error object is {code, message, exit} (tostring gives the message): analyses raise them for input they cannot
  analyse (EINPUT) and parameters they cannot use (EUSAGE), scripts through vp.cli to end with a chosen status.
  The host prints "vpscript: MESSAGE" on stderr (when there is one) and exits with `exit`, without a traceback;
  anything else raised is a bug (exit 1 and a traceback). Codes: EOK 0; EINPUT, EUSAGE, EFORMAT, ETRUNC,
  EVERSION, ENOENT, EISDIR, EIO, EEMPTY, ELIMIT, EUNSUPPORTED, ECHANGED 2; EGATE 3; EPIPE 141; any other 1.
function E.new(code, message [, exit]) -> error
  an error object; exit defaults to E.exit_code(code), message may be nil (end quietly)
  > local e = require("vp.error").new("EINPUT", "a.vprof: no frames")
  > print(e.code, e.exit, e.message)  --> EINPUT  2  a.vprof: no frames
function E.raise(code, fmt, ...)
  never returns: raise E.new(code, E.format(fmt, ...)), blaming the caller's caller (fmt alone is the message)
  > local E = require "vp.error"
  > local ok, e = pcall(E.raise, "EUSAGE", "params.k must be %s", "a number")
  > print(ok, E.is(e), e.exit)  --> false  true  2
function E.is(x) -> boolean
  true when x is an error object made by this module
  > print(require("vp.error").is("a string"))  --> false
function E.message(x) -> string
  the text of any error value: an error object's message ("" for none), a string, or tostring of anything else
  > print(require("vp.error").message(select(2, pcall(error, "boom", 0))))  --> boom
function E.format(fmt, ...) -> string
  string.format with every string argument shown with visible escapes (vp.fmt.visible): data never adds a line
  or moves a terminal's cursor; fmt alone when there are no arguments
  > print(require("vp.error").format("%s: bad", "a\nb"))
function E.exit_code(code) -> integer
  the exit status of an error code (1 when unknown)
  > print(require("vp.error").exit_code("EGATE"))  --> 3
function E.code_of(status) -> code
  the code an exit status is raised with: the first listed for it ("EOK", "EINPUT", "EGATE"), else "ESCRIPT"
  > print(require("vp.error").code_of(2))  --> EINPUT
function E.check_format(cap, format, who)
  raise EINPUT ("WHO: a FORMAT capture is needed, not ...") unless cap is of that format
  > require("vp.error").check_format(cap, "vprof", "mine")
function E.check_number(v, name, who [, min [, above]])
  raise EUSAGE ("WHO: params.NAME must be a number of at least MIN, not V") unless v is nil or a number >= min
  (> min when above; min defaults to 0; NaN refused)
  > require("vp.error").check_number(2.5, "factor", "mine", 1)
function E.check_count(v, name, who)
  raise EUSAGE unless v is nil or a whole number of at least 0
  > require("vp.error").check_count(5, "causes", "mine")

class vp.output: writing an output file whole, or not at all
  The bytes go to a new file beside the destination, every write and the close are checked, and only then is it
  renamed over the destination: a full disk or an I/O error leaves the destination as it was, and the script ends
  with exit 2 naming the file ("-o out.svg: No space left on device"). A destination that is not a regular file
  (/dev/null, a FIFO) is written in place, still checked; an output that is one of the run's inputs is refused.
function output.check(path [, inputs]) -> true | nil, why
  whether the script can write this file: a directory, a missing or unwritable directory and one of inputs (the
  same device and inode) are refused, why says so; nothing is left created or changed
  > print(require("vp.output").check("/tmp/out.txt", {"examples/sample.vprof"}))  --> true
function output.open(path, what) -> out
  out.file: a Lua file on the new file (what names the option in messages: "-o", "--junit"); out:commit() checks,
  closes and renames it into place, out:abort() removes it; exit 2 when it cannot be created
  > local out = require("vp.output").open("/tmp/out.txt", "-o")
  > out.file:write("text\n")
  > out:commit()
function output.write(path, text, what)
  the whole text into path, as open and commit
  > require("vp.output").write("/tmp/out.txt", "text\n", "-o")
]=]
