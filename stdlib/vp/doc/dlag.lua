-- vp.doc.dlag: documentation of the .dlag (lag profiler) model and its
-- writer. Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

-- What a measurement and a tail record both have: their samples (who: the
-- name the examples give the record).
local function samples(who)
  return doc.expand([=[
operator # #${who}
  number of samples
  > print(#${who})
method ${who}:samples() -> iterator
  the samples in file order; samples are plain tables: index (1-based), value (f32), time (u32, unit unknown,
  probably ms), unknown (u32)
  > for s in ${who}:samples() do print(s.time, s.value) end
method ${who}:sample(i) -> sample
  sample i (1-based), random access; out of range raises
  > print(${who}:sample(1).value)
method ${who}:values() -> Series
  the sample values as a vp.Series (decoded in C)
  > print(${who}:values():percentile(95))
method ${who}:times() -> Series
  the sample times as a vp.Series
  > local t = ${who}:times(); print(t:max() - t:min())
method ${who}:totable() -> table
  every field as a plain table, the samples included
  > local copy = ${who}:totable()
operator == ${who} == other
  true for the same record of the same capture
  > print(cap:hop(1) == cap:hop(1))
]=], { who = who })
end

return doc.parse([=[
class vp.dlag: lag profiler export (.dlag)
  The client's debuglag overlay exported with debuglag_export: one block of samples per measurement in index
  order from 1, the graph states, the traceroute host and tail records (probably traceroute hops) to the end
  of the file. Measurement names are positional (the table has 73 entries; 1962 builds have 72 and 1946 builds
  71, and which one 1946 lacks is not known). Opening validates everything once; samples are decoded lazily. A
  file that ends inside a part (a tail record that does not parse included) keeps every complete record before
  it, sets truncated and warns with the offset; vp.open(path, {strict = true}) refuses it instead.
${CAPTURE}
field time
  u32 time from the header
  > print(cap.time)
field measurement_count
  number of measurement blocks in the file (those read when truncated); also #cap
  > print(cap.measurement_count)
operator # #cap
  number of measurements
  > print(#cap)
field measurements_with_samples
  measurements that have at least one sample
  > print(cap.measurements_with_samples)
field sample_count
  samples over all measurements
  > print(cap.sample_count)
field graph_state_count
  number of graph states
  > print(cap.graph_state_count)
field traceroute_host
  the traceroute host, "" when traceroute was off, nil when the file ends before it
  > print(cap.traceroute_host)
field hop_count
  number of tail records
  > print(cap.hop_count)
field trailing_bytes
  bytes at the end that did not make a complete tail record
  > print(cap.trailing_bytes)
field truncated
  true when the file ends inside a part (every complete record is kept)
  > print(cap.truncated)
method cap:measurements() -> iterator
  every measurement in index order
  > for ms in cap:measurements() do print(ms.index, ms.name, #ms) end
method cap:measurement(index | name) -> measurement | nil
  by index (out of range raises), by name (exact, then ignoring case; the first match, so 59 needs its index),
  or measurement_N; nil when no name matches
  > print(cap:measurement("Socket RTT"):values():mean())
method cap:graph_states() -> iterator
  graph states as tables: index, measurement_count, bitfield (raw bytes), bits (0-based set positions), offset
  and scale ({x, y, z, w}), print_titles (boolean), unknown, file_offset
  > for gs in cap:graph_states() do print(gs.measurement_count, gs.scale.y) end
method cap:graph_state(i) -> table
  graph state i (1-based); out of range raises
  > print(cap:graph_state(1).print_titles)
method cap:hops() -> iterator
  the tail records (probably traceroute hops) in file order
  > for hop in cap:hops() do print(hop.address, hop.name, #hop) end
method cap:hop(i) -> hop
  tail record i (1-based); out of range raises
  > print(cap:hop(1).address)
method cap:summary() -> {{name =, value =}, ...}
  rows for info.lua: time, measurements, samples, graph states, traceroute host, hops
  > for _, r in ipairs(cap:summary()) do print(r.name, r.value) end
method cap:close()
  release the file; later use of the capture or its children raises
  > cap:close()

class vp.dlag.measurement: measurement of a .dlag capture
  One measurement's samples. Keeps its capture alive; using it after cap:close() raises "capture is closed".
field index
  1-based position in the file, which is the measurement index
  > print(ms.index)
field name
  name from the 73-entry table by index (1 Client Frame .. 73 RPM), else measurement_N
  > print(ms.name)
field page
  overlay page: (index - 1) // 8
  > print(ms.page)
${COUNTED}
${SAMPLES ms}

class vp.dlag.hop: tail record of a .dlag capture (probably a traceroute hop)
  {u8[4] address, chunked samples, NUL-terminated string, u8, u32, f32 x 4, u8}; the fields whose meaning is
  not known are named unknown_*. Keeps its capture alive.
field index
  1-based position among the tail records
  > print(hop.index)
field address
  the u8[4] read as a dotted IPv4 address ("10.0.0.1")
  > print(hop.address)
field address_bytes
  the same 4 bytes as a list of numbers
  > print(hop.address_bytes[1])
field name
  the record's NUL-terminated string (probably the hop's host name)
  > print(hop.name)
field unknown_u8_1
  the u8 after the string, meaning unknown
  > print(hop.unknown_u8_1)
field unknown_u32
  the u32 after it, meaning unknown
  > print(hop.unknown_u32)
field unknown_floats
  the 4 f32 after it as a list, meaning unknown
  > print(hop.unknown_floats[1])
field unknown_u8_2
  the record's last u8, meaning unknown
  > print(hop.unknown_u8_2)
field count
  samples present (also #hop)
  > print(hop.count)
field file_offset
  byte offset of the record in the file
  > print(hop.file_offset)
field capture
  the capture this record belongs to
  > print(hop.capture.path)
${SAMPLES hop}

class vp.dlag.writer: writer for .dlag files (vp.writer("dlag", path, opts))
  Builds a .dlag in memory and writes it when closed. opts: time, measurement_count (default: the number
  written), complete (default true: finishing adds the empty graph-state array and host that were not written).
  Parts go in file order; writing a later part completes the skipped ones.
extends vp.writer
method w:measurement(samples [, {total =, chunks = {...}}])
  append the next measurement: u32 total (default #samples) and the samples ({value =, time =, unknown =} or
  {v, t, u}) as a chunked array
  > w:measurement({{value = 35.5, time = 1000, unknown = 0}})
method w:graph_states(states [, {chunks = {...}}])
  the graph-state array; a state is {measurement_count =, bitfield = bytes, offset = {x, y, z, w}, scale =
  {...}, print_titles =, unknown =}
  > w:graph_states({{measurement_count = 72, scale = {1, 1, 1, 1}}})
method w:traceroute_host(host [, {nul = false}])
  the traceroute host string (nul = false leaves out its terminator)
  > w:traceroute_host("example.org")
method w:hop{address =, samples =, chunks =, name =, unknown_u8_1 =, unknown_u32 =, unknown_floats =, unknown_u8_2 =}
  append a tail record
  > w:hop{address = "10.0.0.1", name = "gw", samples = {{1.5, 10, 0}}}
]=], {
  COUNTED = doc.counted_fields("ms", "samples", "measurement"),
  CAPTURE = doc.capture_fields("dlag", "total mismatches, an unreadable tail record"),
  SAMPLES = samples,
})
