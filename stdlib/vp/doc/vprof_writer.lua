-- vp.doc.vprof_writer: documentation of the VProf writer (vp.writer("vprof", ...)).
-- Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse([=[
class vp.vprof.writer: VProf writer
  Writes .vprof files (tests, examples and deliberately broken files). The writer keeps its own tree as the
  engine does (a new node is prepended to its parent's children) and writes every frame's timings in pre-order
  over it. group() and node() records are queued and written inside the next frame, groups first. Times are
  microseconds, written in 4 us units truncated; calls are written as min(calls, 65535). Options of
  vp.writer("vprof", path, opts): root_id (0), escape_width (4 or 8: bytes of the escaped time field),
  group_base (0: the file declares every group from "Unaccounted" on, as public engines do; 31: only the groups
  after the 31 defaults), version (1). The file is written as it goes.
extends vp.writer
method w:group(name [, flags]) -> id
  queue an AddBudgetGroup record; returns its positional id (group_base + the number of groups declared before
  it); flags default 0 (1 CLIENT, 2 SERVER, 4 OTHER, 0x8000 HIDDEN)
  > local scripting = w:group("Scripting", 4)
method w:default_groups() -> {name = id}
  queue the spec's 31 default groups (Unaccounted .. Replay) in id order with their flags, as public engines
  write them in the first frame; returns each one's id by name
  > local w = vp.writer("vprof", "/tmp/t.vprof")
  > local gid = w:default_groups()  -- ids 0..30
  > print(gid.Physics)
method w:node(parent_id, name, group_id [, node_id]) -> node_id
  queue an AddNode record and add the node to the tree, prepended to its parent's children; node_id defaults
  to one more than the largest id used (root included); raises on an unknown parent or a duplicate id; the
  group id is written as given
  > local frame = w:node(w.root_id, "CEngine::Frame", 0)
  > local physics = w:node(frame, "Physics", 8)
method w:frame(tick [, times])
  write one frame: StartFrame, tick, the queued records, Timings, one timing per node in pre-order,
  EndOfFrame. times[node_id] = microseconds (calls 1) or {us =, calls =} (us default 0, calls default 1);
  nodes missing from times write 0 time and 0 calls; raises on a node id never added, a negative time, or a
  time escape width 4 cannot hold (writing nothing)
  > w:frame(1000, {[w.root_id] = {us = 0, calls = 1}, [frame] = 14200, [physics] = {us = 3100, calls = 2}})
field root_id
  the header's root node id
field escape_width
  4 or 8
field group_base
  id of the first group record
field version
  the header's version
field frames
  frames written so far (nil once closed)
field node_count
  nodes in the tree, root included (nil once closed)
field group_count
  groups declared so far (nil once closed)
method w:close() -> bytes
  flush and close the file, returning its size (again on a second close); records queued after the last frame
  are dropped; also __close and __gc. Other methods raise "vprof writer is closed" afterwards
  > print(w:close())
]=])
