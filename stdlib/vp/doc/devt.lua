-- vp.doc.devt: documentation of the .devt (event profiler) model and its
-- writer. Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse([=[
class vp.devt: event profiler export (.devt)
  The client's debugevent overlay exported with debugevent_export: a header, a visibility bitfield and up to
  four groups of 9-byte events {time1, time2, type}. Opening validates every group's framing once; events are
  decoded lazily. A group total that disagrees with the events present, more than 4 groups, and bytes after
  the last group are warnings. A file that ends inside a group keeps every complete event, sets truncated and
  warns with the offset; vp.open(path, {strict = true}) refuses it instead. Bytes are read through a window,
  never mapped: a file truncated while open raises an ECHANGED error naming it on the next read.
${CAPTURE}
field time
  u32 time from the header
  > print(cap.time)
field unknown
  the header's second u32, meaning unknown
  > print(cap.unknown)
field graph_duration
  u32, matches the debugevent.graphDuration setting
  > print(cap.graph_duration)
field prefix
  u16 entry count of the visibility bitfield
  > print(cap.prefix)
field bitfield
  the bitfield's raw bytes (((prefix >> 6) + 1) << 3 of them), as a string
  > print(#cap.bitfield)
field bits
  0-based positions of the set bits of the bitfield
  > print(table.concat(cap.bits, ' '))
field group_count
  number of groups in the file (4 seen in practice; those read when truncated)
  > print(cap.group_count)
field event_count
  events over all groups; also #cap
  > print(cap.event_count)
field trailing_bytes
  bytes after the last group that were ignored (0 normally)
  > print(cap.trailing_bytes)
field truncated
  true when the file ends inside a group (the complete events are kept)
  > print(cap.truncated)
operator # #cap
  number of events over all groups
  > print(#cap)
method cap:groups() -> iterator
  every group in file order
  > for g in cap:groups() do print(g.index, g.name, #g) end
method cap:group(i | name) -> group | nil
  a group by 1-based index (out of range raises) or name ("frames", "updates", "weapon_inputs", "weapons"; nil
  when no group has it)
  > print(#cap:group("frames"))
method cap:events() -> iterator of event, group
  every event of every group in file order, with its group
  > for ev, g in cap:events() do print(g.name, ev.time1, ev.type_name) end
method cap:event_stats([max_types]) -> table
  the events grouped in C (no table per event): {events, first_time, last_time, frame_intervals (Series of the
  intervals between successive Frame events by time1), by_type = [{group, group_name, type, type_name,
  type_uncertain, count, intervals (Series)}] (the max_types pairs with the most events, by group then type;
  default all), more_types = {buckets, events} (the pairs not listed)}; what events.lua reads
  > print(cap:event_stats().frame_intervals:percentile(95))
method cap:summary() -> {{name =, value =}, ...}
  rows for info.lua: time, graph_duration, prefix, groups, events, events per group (the four known groups and
  the largest others, then more_groups and events_in_more_groups when there are more than 8), time1 range
  > for _, r in ipairs(cap:summary()) do print(r.name, r.value) end
method cap:close()
  release the file; later use of the capture or its groups raises
  > cap:close()

class vp.devt.group: event group of a .devt capture
  One of the four groups, which line up with the debugevent filters: frames, updates, weapon inputs, weapons.
  A group keeps its capture alive; using it after cap:close() raises "capture is closed". Events are plain
  tables: index (1-based in the group), group (1-based index), time1, time2 (u32; time1 is read as the event
  time in ms by events.lua, an assumption), type (number), type_name, type_uncertain (true for 5..7: later
  protocol definitions name 5 ReloadEnd and swap 6 and 7). Types past 10 are named type_N.
field index
  1-based position in the file
  > print(g.index)
field name
  "frames", "updates", "weapon_inputs", "weapons", or "group_N" past the fourth
  > print(g.name)
${COUNTED}
operator # #g
  number of events in the group
  > print(#g)
method g:events() -> iterator
  the group's events in file order
  > for ev in g:events() do print(ev.time1, ev.time2, ev.type, ev.type_name) end
method g:event(i) -> event
  event i (1-based), random access; out of range raises
  > print(g:event(1).type_name)
method g:totable() -> table
  every field as a plain table, the events included
  > local copy = g:totable()
operator == g1 == g2
  true for the same group of the same capture
  > print(cap:group(1) == cap:group(1))

class vp.devt.writer: writer for .devt files (vp.writer("devt", path, opts))
  Builds a .devt in memory (tests, examples, broken files) and writes it when closed. opts: time, unknown,
  graph_duration, prefix, bitfield (raw bytes; default zeros of the right size), group_count (default: the
  number of groups written). The header comes first; groups and raw bytes follow in call order.
extends vp.writer
method w:group(events [, {total =, chunks = {...}}])
  append a group: u32 total (default #events) and the events as a chunked array; chunks lists the count bytes
  to write instead of the exact rule
  > w:group({{time1 = 10, time2 = 12, type = 0}, {20, 21, 1}})
]=], {
  COUNTED = doc.counted_fields("g", "events", "group"),
  CAPTURE = doc.capture_fields("devt", "total mismatches, extra groups, trailing bytes"),
})
