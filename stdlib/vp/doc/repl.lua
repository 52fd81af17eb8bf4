-- vp.doc.repl: documentation of vp.repl, the Lua side of the REPL (the
-- printer, completion, help); in the REPL it is the global `repl`. Read by
-- vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse [=[
class vp.repl: the REPL's printer, completion and help
  The Lua side of `vpscript -i`; in the REPL it is the global `repl`, whose settings change how values print
  for the rest of the session. Scripts can use it too: `print(require("vp.repl").format(t))`.
function repl.format(value [, {depth, items, width, string_len}]) -> text, cut
  a readable rendering: keys in natural order, captures, nodes, frames and groups with their key timings; cut:
  nil, or {depth = true} and/or {items = true} when something was left out
  > local text, cut = require("vp.repl").format({a = {b = {c = {d = 1}}}})
  > print(text, cut and cut.depth)
function repl.describe(value) -> string
  how the REPL shows a userdata: a VProf capture, node, frame or group with its key timings, anything else
  through __tostring
  > print(require("vp.repl").describe(cap.root))
function repl.show(...)
  print values as the REPL does, then a line naming the setting when one was cut, and under a lone nil that a
  lookup of the chunk gave (repl.source) what was missing and the nearest names (repl.nil_hint)
  > require("vp.repl").show({1, 2}, "x")
function repl.totals_hint(value) -> string | nil
  the line the REPL prints under a node's totals (a row of cap:totals, or the list of them): time_ms and
  self_ms there are totals, where the node's own line shows per-frame figures; nil for anything else
  > print(require("vp.repl").totals_hint(cap:totals(cap.root)))
function repl.nil_hint(source [, name]) -> string | nil
  "-- no key 'Physic' in cap:group_self_ms() (did you mean 'Physics'?)": the lookup `name` of the chunk source
  (its last one without name), a field (x.k, x["k"]) or a group or node by name (cap:group("..."),
  cap:node("...")), when it found nothing; nil otherwise. What cap:* returns is unchanged: the REPL says it
  > print(require("vp.repl").nil_hint('cap:group("Physic")'))
function repl.cut_hint(cut) -> string | nil
  the "-- nested tables cut at depth 3 ..." line for format's cut, nil when nothing was cut
  > print(require("vp.repl").cut_hint({depth = true}))
function repl.natural_less(a, b) -> boolean
  true when string a comes before b as people count (digit runs compare as numbers: x2 before x10)
  > print(require("vp.repl").natural_less("group 2", "group 10"))  --> true
function repl.complete(line [, env]) -> start, candidates
  Tab's completions for the text before the cursor; start: where the word being completed begins (1-based),
  each of the candidates replaces line:sub(start)
  > print(require("vp.repl").complete("cap:fr", {cap = cap}))
function repl.error_text(msg [, max]) -> string
  an error message with a short traceback (at most max frames, 6), the interpreter's own frames dropped;
  indexing a nil that a lookup gave adds repl.nil_hint's line, indexing a nil global says it is nil
  > print(require("vp.repl").error_text(debug.traceback("boom")))
function repl.help_text([x]) -> string
  what help(x) prints
  > print(require("vp.repl").help_text("Series:median"))
field source
  the chunk the REPL runs, set before each one (repl.show and repl.error_text read it)
  > print(require("vp.repl").source)
field depth
  how deep nested tables print (default 3); `repl.depth = 5` in the REPL
field items
  how many entries of a table print (default 50)
field width
  the width a table prints on one line within (default 78)
field string_len
  how much of a long string prints (default 200)
field defaults
  the defaults of depth, items, width and string_len
]=]
