-- vp.doc.vprof: documentation of the VProf model (captures, frames, nodes,
-- groups). Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse([=[
class vp.vprof: VProf capture (.vprof)
  A Source engine VProf recording. Opening makes one pass that validates the file and keeps one 24-byte record
  per frame (offset, tick, node count, frame time); vp.open(path, {stats = ...}) also computes whole-capture
  statistics in that pass (stats = true for all, or {groups =, fold_hidden =, nodes =}: per-group self-time
  summaries, per-node totals; nodes = a list of names totals only the nodes of those names), else one more pass
  computes them the first time they are needed. vp.open(path, {frames = {first, last}}) holds those frames only
  (--frames A:B; negative numbers count from the end, vp.frames_of is the rule): every figure, pass and
  statistic is over them, and they keep the file's numbers. Frames are read again from the file on demand (the
  file is read through a window, never mapped: a file truncated while open is an error naming both sizes).
  Frame time is the sum of the root's children's inclusive times (the root's own time only when larger); self
  time is a node's time minus its children's, clamped at 0. Frames are numbered as in the file (from 1; a
  capture opened with frames holds first_frame..last_frame), and so are its columns (s[i], s:argmax(),
  s:where(x) are frame numbers cap:frame takes); ticks may repeat or jump.
${CAPTURE}
field first_frame
  the file's number of the first frame the capture holds (1 unless opened with frames); nil when it holds none
  > print(cap.first_frame)
field last_frame
  the file's number of the last frame it holds
  > print(cap.last_frame)
field frame_count
  number of complete frames (also #cap)
  > print(cap.frame_count, #cap)
field node_count
  number of nodes, the root included
  > print(cap.node_count)
field group_count
  number of budget groups known (declared, default or named by a node)
  > print(cap.group_count)
field root
  the root node (named Root, id from the header)
  > print(cap.root.path)
field truncated
  true when the file ended inside a frame; the complete frames are kept
  > if cap.truncated then print(cap.warnings[1]) end
field corrupt
  true when bytes broke the format after a complete frame (a bad token, a node naming an unknown parent): the
  complete frames before the damage are kept, as for truncated, and cap.warnings says where (byte offset) and
  what; vp.open(path, {strict = true}) and --strict refuse such a file (EFORMAT)
  > if cap.corrupt then print(cap.warnings[1]) end
field zero_timings
  true when every node time of every frame is 0 (2013/TF2 captures)
  > print(cap.zero_timings)
field escape_width
  4 or 8: size of the escaped time field (C unsigned long of the writer)
  > print(cap.escape_width)
field escapes_seen
  true when some time needed the escape, so escape_width was observed
  > print(cap.escapes_seen)
field first_group_id
  0 when the file declares every group, 31 when only custom ones
  > print(cap.first_group_id)
field version
  format version from the header (1)
  > print(cap.version)
field root_node_id
  the root's node id from the header
  > print(cap.root_node_id)
method cap:frame(i) -> frame
  frame i (1-based), random access through the index; out of range raises "frame i is out of range 1..n", as
  in every format
  > print(cap:frame(1).frame_ms)
method cap:frames([i [, j]]) -> iterator
  frames i..j in order (default all); an end out of range raises as cap:frame does, j = i - 1 is the empty
  range
  > for fr in cap:frames(100, 200) do print(fr.index, fr.frame_ms) end
method cap:nodes() -> iterator
  every node in pre-order (the engine's sibling order)
  > for n in cap:nodes() do print(n.path) end
method cap:node(id | path) -> node | nil
  a node by its id or path ("Root/CEngine::Frame/...", or relative to the root)
  > local n = cap:node("Root/CEngine::Frame")
  @ arg path alone
method cap:find(pattern [, {lua = true, on = "name"|"path", exact = true}]) -> {node, ...}
  every node a glob matches, in pre-order ({} when none): * any run within one level, ** across levels, ? one
  character, [abc] [a-z] [!abc] a class, \x x itself; matched against the whole name (or the node's own path
  component with its "#2"), or, when the pattern has a /, the path as listed or relative to the root; with lua
  a Lua pattern searched for instead; EUSAGE for a malformed pattern. In C, linear in the nodes whatever the
  stars; with exact, every node whose name is exactly pattern (no glob), wherever it is in the tree
  > for _, n in ipairs(cap:find("Physics*")) do print(n.path) end
  > for _, n in ipairs(cap:find("Simulate", {exact = true})) do print(n.path) end
  @ arg pattern
method cap:groups() -> iterator
  every budget group in id order
  > for g in cap:groups() do print(g.id, g.name) end
method cap:group(id | name) -> group | nil
  a budget group by id or name
  > print(cap:group("Physics").flags)
  @ arg group alone
method cap:frame_times() -> Series
  frame time (ms) of every frame, indexed by frame number (s.first = cap.first_frame)
  > print(cap:frame_times():percentile(99))
method cap:series(node | {node, ...} [, "time_ms"|"self_ms"|"calls"]) -> Series | {Series, ...}
  a node's inclusive time (the default), self time or calls per frame (0 where absent), indexed by frame
  number; given a list of nodes, a list of Series from the same single C pass. Their figures without the
  column: cap:dist; their value counts over stretches of frames: vp.batches_all
  > local s = cap:series("Root/CEngine::Frame", "self_ms")
  @ arg path
method cap:group_self_ms([{fold_hidden = true}]) -> {[group] = Series}
  self time (ms) per frame of every group that has nodes, as columns (one pass, frames x groups of memory,
  kept); fold_hidden counts hidden groups towards the nearest visible ancestor's group. The table also answers
  by group name (cap:group_self_ms().Physics). For statistics, cap:dist("groups") needs no column
  > print(cap:group_self_ms().Physics:count_above(4))
method cap:dist(q [, field | opts]) -> dist | {dist, ...} | {[group] = dist}
  a per-frame quantity summarised (a vp.Dist): the figures its Series would give (exact value counts, the
  exact sum, the first minimum and maximum) without keeping the column. q is "frame_ms" (the frame times, the
  open pass's summary; {first =, last =}: of those frames only), a node or a list of nodes with a field
  ("time_ms" by default, "self_ms", "calls": one pass for the list) or "groups" ({fold_hidden = true}
  folds hidden groups): every group's self time, a table that also answers by group name; what budget.lua
  reads
  > print(cap:dist("frame_ms"):percentile(99), cap:dist("frame_ms"):sum())
  > for g, d in pairs(cap:dist("groups")) do print(g.name, d:mean(), d:percentile(99)) end
  @ arg path
method cap:totals([node] [, i [, j]] [, {sort =, limit =}]) -> list [, count] | row
  node totals over frames i..j (default all): {node, frames, calls, time_ms, self_ms, peak_ms, peak_self_ms,
  peak_frame} summed over the range, every node in pre-order (the whole capture: the statistics of the open
  pass or of one more pass; a range: one pass over it). With sort ("time", "self", "per_call", "peak",
  "peak_over_avg"): the nodes other than the root that exist in the range, largest first (none last, ties by
  path), the first limit (0 = all), and how many there are. Given a node (or its path): that node's row
  > local top, n = cap:totals(nil, nil, {sort = "self", limit = 10})
  > print(cap:totals("Root/CEngine::Frame").calls)
  @ arg path
method cap:summary() -> {{name=, value=}, ...}
  the rows info.lua prints
  > for _, r in ipairs(cap:summary()) do print(r.name, r.value) end
method cap:close()
  release the file now; children then raise "capture is closed"
  > cap:close()

class vp.vprof.frame: VProf frame
  One frame of a capture; decoded on first use. Keeps its capture alive.
field index
  position in the capture, 1-based
  > print(fr.index)
field tick
  the game tick written with the frame
  > print(fr.tick)
field frame_ms
  frame time in ms
  > print(fr.frame_ms)
field offset
  byte offset of the frame in the file
  > print(fr.offset)
field node_count
  nodes that exist in this frame
  > print(fr.node_count)
method fr:time_ms(node) -> number
  inclusive time of a node (node, id or path); 0 if absent
  > print(fr:time_ms("Root/CEngine::Frame"))
  @ arg path
method fr:self_ms(node) -> number
  self time of a node; 0 if absent
  > print(fr:self_ms(cap.root))
  @ arg path
method fr:calls(node) -> integer
  calls of a node in this frame; 0 if absent
  > print(fr:calls(n))
  @ arg path
method fr:nodes() -> iterator of node, time_ms, calls
  the frame's nodes in pre-order
  > for n, ms, calls in fr:nodes() do print(n.path, ms, calls) end

class vp.vprof.node: VProf node
  A node of the tree, keyed by the file's node id (same-named siblings stay separate; the later ones get "#2",
  "#3" in their path). The same node is the same Lua value.
field id
  the file's node id
  > print(n.id)
field name
  the scope name
  > print(n.name)
field path
  names from the root joined by "/", unique by construction: in a name, "/", "#" and "\" are written "\/",
  "\#" and "\\" (and a leading "…" as "\…"), so "/" only separates, "#2" only numbers a same-named sibling,
  and a node literally named "X#2" is "X\#2"; a path longer than 256 bytes is shown elided in the middle,
  "Root/A/B/…[id=N]/Y/Z" (its first components up to 64 bytes, the node's id, its last ones up to 128 bytes
  and its own name), so that listing every node's path stays linear in the file; cap:node() finds a node by
  either form
  > print(n.path)
field full_path
  the path whole, however deep (its length grows with the depth)
  > print(#n.full_path)
field path_order
  the node's position (1 = the root) in the byte order of the full paths: rows sorted by path without building
  one
  > table.sort(list, function(a, b) return a.path_order < b.path_order end)
field parent
  the parent node, nil for the root
  > print(n.parent and n.parent.name)
field group
  the node's budget group
  > print(n.group.name)
field group_id
  the group id as written in the file
  > print(n.group_id)
field depth
  0 for the root
  > print(n.depth)
field first_frame
  the first frame (1-based) in which the node exists; nil when it exists in none (added after the last frame)
  > print(n.first_frame)
field index
  order in which the node was added (root 0)
  > print(n.index)
method n:children() -> iterator
  the node's children in the engine's order
  > for c in cap.root:children() do print(c.name) end

class vp.vprof.group: VProf budget group
  A budget group. Ids are positions in the file's group records, from 0 or from 31 (then 0..30 are the
  engine's default groups).
field id
  positional group id
  > print(g.id)
field name
  group name, unique in the capture: a group named as an earlier one is called "name#2" (the first free
  number), with a warning
  > print(g.name)
field flags
  BUDGETFLAG_* bits (1 client, 2 server, 4 other, 32768 hidden)
  > print(g.flags)
field client
  flags has BUDGETFLAG_CLIENT
  > print(g.client)
field server
  flags has BUDGETFLAG_SERVER
  > print(g.server)
field other
  flags has BUDGETFLAG_OTHER
  > print(g.other)
field hidden
  flags has BUDGETFLAG_HIDDEN
  > print(g.hidden)
field declared
  true when the file has a record for it
  > print(g.declared)
field has_nodes
  true when at least one node is in the group
  > print(g.has_nodes)
]=], {
  CAPTURE = doc.capture_fields("vprof", "truncation, no timings, undeclared groups, ..."),
})
