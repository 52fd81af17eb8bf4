-- vp.doc.vp: documentation of the `vp` module functions, of vp.Series and of
-- the members every writer has (vp.writer).
-- Read by vp.doc (the REPL's help() and tools/gen_docs.lua).
local doc = require "vp.doc"

return doc.parse [=[
class vp: the vp module
  Loaded by vpscript and set as the global `vp`; from stock lua5.4, `local vp = require "vp"` with vp.so on
  LUA_CPATH and the stdlib on LUA_PATH.
function vp.open(path [, opts]) -> cap | nil, message, code
  open a capture; the format comes from the content, else the extension, or opts.format; on failure returns
  nil, the message "<path>: at byte N: ..." and the code (e.g. "ENOENT")
  > local cap = assert(vp.open("examples/sample.vprof"))
  > print(cap.format, cap.size)
function vp.open_all(paths [, opts]) -> caps, failures
  vp.open of every path with the same options, at once: the VProf captures each on a thread of its own (the
  runs of a comparison or a gate read together on a machine's spare processors; opts.progress(done, total)
  sees the bytes of all of them), the others one after another; caps[i] is path i's capture or false, and
  failures[i] = {message, code} says why where it is false
  > local caps, failures = vp.open_all({"examples/runs/base/run1.vprof", "examples/runs/new/run1.vprof"})
  > print(#caps, caps[1].frame_count, next(failures))  --> 2 3000 nil
function vp.batches_all(requests) -> {result, ...}
  VProf nodes' value counts over stretches of frames, for vp.infer, several captures at once: each request is
  {cap, nodes, field, {batches = cuts [, groups = true | {group, ...}]}} and gives a list of
  vp.infer.batched, one a node (the stretches [cuts[i], cuts[i + 1]) of the capture's frames; groups also
  makes every group's, or those listed, in the same pass, kept for their d:batches: a group left out makes
  its own when asked); each capture's passes run on a thread of its own (vp.compare's tested nodes and
  groups on both sides)
  > local a = vp.open("examples/runs/base/run1.vprof")
  > local r = vp.batches_all({{a, {a.root}, "time_ms", {batches = {0, 1500, 3000}}}})
  > print(#r[1], r[1][1]:percentile(50))
function vp.detect(path) -> format | nil, message, code
  the format id vp.open would use for path, without parsing the file; nil, the message and the code as
  vp.open's when it cannot tell
  > print(vp.detect("examples/sample.vprof"))  --> vprof
function vp.formats() -> {{name=, description=, extensions={...}}, ...}
  every supported format with its description and file extensions
  > for _, f in ipairs(vp.formats()) do print(f.name, f.description) end
function vp.sha256(bytes) -> hex
  the SHA-256 digest of a string, as 64 lowercase hex digits (C, FIPS 180-4): vp.history's content hash
  > print(vp.sha256("abc"))  --> ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
function vp.sha256_file(path) -> hex | nil, message, code
  the SHA-256 digest of a file's bytes, read in 1 MiB windows; nil, the message and the code as vp.open's for
  a file that cannot be read (a directory, a FIFO, an empty file)
  > print(vp.sha256_file("examples/sample.vprof"))
function vp.writer(format, path [, opts]) -> writer
  a writer that builds a capture file of a binary format (tests, examples, deliberately broken files): a
  vp.<format>.writer, with the members of vp.writer and its format's; raises when the format has no writer
  > local w = vp.writer("vprof", "/tmp/t.vprof")
function vp.Series(list | series [, first]) -> Series
  a numeric column (vp.Series) from a list of numbers, indexed from first (1 by default), or a new handle on a
  Series (its indices, or from first)
  > local s = vp.Series{3, 1, 2}
  > print(s:mean(), s:max())  --> 2.0  3.0
function vp.Dist(series | list [, unit]) -> Dist
  the values of a Series (or of a list of numbers, made a Series) summarised as a vp.Dist, for values that are
  whole multiples >= 0 of unit (1 by default; a VProf capture's ms are multiples of 0.004): anything else, NaN
  included, raises. The Series is its column (d:series(), d[i], d:batches(cuts)); it has no top_sum
  > local d = vp.Dist{3, 1, 2, 3}
  > print(d:percentile(50), d:argmax())  --> 2.0  1
function vp.frames_of(frames, n) -> first, last | nil
  the rule every --frames range follows (vp.open's frames): frames = {first, last} or {first =, last =},
  either may be nil (from the first, to the last), a negative number counts from the end (-1 the last);
  clamped to 1..n; nothing when no frame of 1..n is left
  > print(vp.frames_of({-600}, 4000))  --> 3401  4000
field version vp.version
  the vpscript version string
  > print(vp.version)

class vp.Series: numeric column
  An immutable column of doubles kept in C (frame times, per-frame node times, samples). Statistics and
  operations run in C over the whole column and return new Series or plain values, so a question about a
  million frames takes milliseconds. NaN is a missing value, one rule wherever it stands: every statistic
  (sum, mean, min, max, argmax, argmin, stddev, percentile, median, rolling, histogram, cumsum, windows) is
  of the numbers and skips it; arithmetic and diff propagate it; where/filter/count_above/top never select
  it; sort puts it last. With no number (an empty series, or NaN only): mean, min, max, stddev, percentile
  and median are NaN, argmax and argmin nil, sum 0; `#s` counts every value, s:count() the numbers. A Series
  is indexed from s.first: a capture's columns by its frame numbers (a capture opened with frames 1001..4000
  gives s.first = 1001), so that s[i], s:argmax(), s:where(x), s:top(k), s:hitches() and s:windows() name
  frames cap:frame(i) takes; operations that keep the order keep the indices (slice, rolling, cumsum, abs,
  arithmetic; diff starts one later), values that lost their place (sort, filter, totable) count from 1.
  Arithmetic pairs equal indices: Series of different frames raise.
field first s.first
  the index of the first value (1, or a capture's first frame number)
  > print(cap:frame_times().first)
field last s.last
  the index of the last value (s.first + #s - 1)
  > print(cap:frame_times().last)
operator # #s -> integer
  number of values
  > print(#cap:frame_times())
operator [i] s[i] -> number | nil
  the value at index i (s.first .. s.last); nil outside
  > local ft = cap:frame_times()
  > print(ft[ft.first], ft[ft.last])
operator + s + t, s + x, x + s -> Series
  element-wise sum with a Series of the same length or a number; unequal lengths raise "Series lengths differ:
  N and M"
  > local rest = cap:frame_times() - cap:series("Root/CEngine::Frame/CL_Render", "time_ms")
operator - s - t, s - x, x - s, -s -> Series
  element-wise difference (and negation), as +
  > local over = cap:frame_times() - 16.7
operator * s * t, s * x, x * s -> Series
  element-wise product, as +
  > local us = cap:frame_times() * 1000
operator / s / t, s / x, x / s -> Series
  element-wise quotient, as + (IEEE: x / 0 is an infinity, 0 / 0 NaN)
  > local fps = 1000 / cap:frame_times()
method s:count() -> integer
  how many values are numbers (#s less the NaN)
  > print(vp.Series{1, 0/0, 3}:count())  --> 2
method s:sum() -> number
  sum of the numbers: exact, then rounded once, so the order of the values does not matter (0 when there is
  no number)
  > print(vp.Series{1, 2, 3}:sum())  --> 6.0
method s:mean() -> number
  arithmetic mean of the numbers
  > print(cap:frame_times():mean())
method s:min() -> number
  smallest number
  > print(vp.Series{3, 1, 2}:min())  --> 1.0
method s:max() -> number
  largest number
  > print(vp.Series{3, 1, 2}:max())  --> 3.0
  > print(vp.Series{0/0, 1, 3}:max(), vp.Series{1, 0/0, 3}:max())  --> 3.0  3.0
method s:argmax() -> integer | nil
  1-based index of the largest number (the first one on ties); nil when there is no number
  > local ft = cap:frame_times()
  > print('slowest frame', ft:argmax(), ft:max())
method s:argmin() -> integer | nil
  1-based index of the smallest number (the first one on ties); nil when there is no number
  > print(vp.Series{3, 1, 2}:argmin())  --> 2
method s:stddev() -> number
  population standard deviation of the numbers (divides by their count, not count - 1)
  > print(vp.Series{2, 4, 4, 4, 5, 5, 7, 9}:stddev())  --> 2.0
method s:percentile(p) -> number
  nearest-rank percentile, p in 0..100: the number at rank ceil(p/100*n) of the n numbers (NaN skipped) in
  ascending order (rank 1 for p = 0), the definition laige uses; no interpolation
  > local ft = cap:frame_times()
  > print(ft:percentile(50), ft:percentile(99))
method s:median() -> number
  the middle value of the numbers (NaN skipped), the mean of the two middle ones for an even count; NaN when
  there is no number
  > print(vp.Series{1, 2, 3, 10}:median())  --> 2.5
method s:where(x [, op]) | s:where(pred) -> {i, ...}
  the positions (frame numbers for a per-frame column) whose value v satisfies v op x (op ">" by default, or
  ">=", "<", "<=", "==", "~="; NaN never does), in C; or where pred(v, i) is true, which calls Lua once per
  value
  > for _, i in ipairs(cap:frame_times():where(50)) do print(i, cap:frame(i).tick) end
method s:count_above(x) -> integer
  how many values are strictly above x (#s:where(x) without the list)
  > print(cap:frame_times():count_above(33.3), "frames under 30 FPS")
method s:filter(x [, op]) | s:filter(pred) -> Series
  the values where() selects, in order, as a new Series
  > print(cap:frame_times():filter(20, "<="):mean())
method s:rolling(window [, "mean"|"median"|"max"]) -> Series
  trailing window statistic: value i is the mean (default), median or max of the numbers among values i -
  window + 1 .. i (the first ones use the shorter windows they have); NaN where a window holds no number
  > local baseline = cap:frame_times():rolling(30, "median")
method s:histogram(bins | {edge, ...}) -> {edges, counts, below, above, missing}
  counts per bin: `bins` equal-width bins from the smallest to the largest number, or the given increasing
  edges; bin j holds edges[j] <= v < edges[j+1], the last one also its upper edge; below/above count values
  outside explicit edges, missing the NaN
  > local h = cap:frame_times():histogram({0, 8.3, 16.7, 33.3, 1000})
  > print(table.concat(h.counts, " "))
method s:cumsum() -> Series
  running sum (compensated); NaN where the value is NaN, left out of the sum
  > local elapsed_ms = cap:frame_times():cumsum()
method s:diff() -> Series
  differences of neighbours, #s - 1 values: d[i] = s[i + 1] - s[i] (frame i + 1 minus frame i)
  > print(cap:frame_times():diff():max(), "ms: the largest jump")
method s:abs() -> Series
  |s[i]| (NaN stays NaN): with diff, the frame-to-frame change of a frame time, however it went
  > print(cap:frame_times():diff():abs():percentile(99), "ms: p99 frame pacing jitter")
method s:windows(width [, clock]) -> {{first, last, start, span}, ...}
  consecutive windows of `width` on a clock (a Series of one duration per value; s itself by default, as for
  frame times in ms): each window ends with the value at which the clock reaches the next multiple of width
  (one value longer than width makes a window alone), the last one with the series; first and last are
  indices (from s.first, as s[i]), start the clock where it begins, span what it covers. Statistics per minute:
  s:slice(w.first, w.last) of each
  > local ft = cap:frame_times()
  > for _, w in ipairs(ft:windows(60000)) do print(w.first, w.last, ft:slice(w.first, w.last):percentile(99)) end
method s:sort() -> Series
  the values in ascending order, NaN last
  > local sorted = cap:frame_times():sort()
  > print(sorted[1], sorted[#sorted])
method s:top(k) -> {i, ...}
  the positions of the k largest numbers, largest first (the earlier one first on ties); fewer when there are
  fewer numbers
  > for _, i in ipairs(cap:frame_times():top(5)) do print(i, cap:frame_times()[i]) end
method s:hitches{factor =, window =, min_excess_ms =, threshold_ms =} -> {{frame, frame_ms, baseline_ms}, ...}
  the hitch frames of a column of frame times by hitches.lua's rule (vp.hitches: factor 2.5, window 30,
  min_excess_ms 5; threshold_ms the absolute rule), frame its index (from s.first); NaN is a missing value, never a
  hitch nor in a baseline. In C, the rule vp.hitches.core.detect applies to a VProf capture
  > for _, h in ipairs(vp.Series{10, 11, 40, 10}:hitches{}) do print(h.frame, h.baseline_ms) end  --> 3 10.5
method s:totable() -> {number, ...}
  the values as a new Lua list
  > for i, v in ipairs(vp.Series{1, 2}:totable()) do print(i, v) end
method s:slice(i [, j]) -> Series
  a new Series of the values at indices i..j (inclusive; j defaults to s.last; clamped to s.first..s.last,
  empty when i > j), which keeps them: its first is i
  > local first100 = cap:frame_times():slice(1, 100)

class vp.Dist: per-frame quantity, summarised
  A per-frame quantity summarised: exact counts of its values in integer units (a VProf capture's 4 us, or
  calls) with the first minimum and maximum and their frames. It answers what a Series of the values would,
  by the same method names and with the same numbers (the exact sum, first minimum and maximum, nearest-rank
  percentiles from exact counts), in memory proportional to the distinct values instead of the frames; the
  column itself only when asked for (series, totable, d[i]). cap:dist makes them: a VProf group's self time,
  the frame times, a node's time, self time or calls; a dist keeps its capture alive. vp.Dist(series, unit)
  makes one of a column's values.
operator # #d -> integer
  number of frames
  > print(#d)
operator [i] d[i] -> number
  frame i's value: builds the columns (series)
  > print(d[1])
method d:sum() -> number
  sum of the values (exact, rounded once, as Series:sum)
  > print(d:sum())
method d:mean() -> number
  sum / n (NaN when empty)
  > print(d:mean())
method d:min() -> number
  smallest value (NaN when empty)
  > print(d:min())
method d:max() -> number
  largest value (NaN when empty)
  > print(d:max())
method d:argmin() -> integer | nil
  the frame of the first smallest value, numbered as the capture's columns (from its first frame)
  > print(d:argmin())
method d:argmax() -> integer | nil
  the frame of the first largest value, numbered as argmin
  > print(d:argmax())
method d:percentile(p) -> number
  nearest-rank percentile, p in 0..100: the value at rank ceil(p/100*n), exactly Series:percentile's
  > print(d:percentile(99))
method d:stddev() -> number
  population standard deviation over the counts (may differ from a Series' in the last bits: the squares are
  added by value, not in frame order)
  > print(d:stddev())
method d:counts() -> {[value] = count}, n
  each distinct value and how often it came, and n, the number of values
  > local c, n = d:counts()
method d:series() -> Series
  the column itself (of a capture's: one pass for every group, kept; of vp.Dist(s): s)
  > print(d:series():totable()[1])
method d:totable() -> {number, ...}
  the values in frame order (builds the column)
  > print(#d:totable())
method d:batches(cuts) -> vp.infer.batched
  the value counts of each stretch of consecutive frames [cuts[i], cuts[i + 1]) (cuts ascending from 0 to #d),
  what vp.infer's batch means, quantiles and order statistics read: one pass over the frames, no column
  > local b = d:batches({0, #d // 2, #d})
method d:top_sum(k) -> number
  of the frame times' summary (cap:dist("frame_ms")) only, others raise: the sum (ms) of the k slowest frame
  times, those above the k-th largest in frame order, then that one for the rest (the sum the low-FPS figures
  divide by k)
  > print(1000 / (cap:dist("frame_ms"):top_sum(40) / 40))

class vp.writer: what every capture writer has
  vp.writer(format, path [, opts]) returns a writer of class vp.<format>.writer (vp.vprof.writer,
  vp.devt.writer, vp.dlag.writer, vp.dm.writer, vp.dw.writer): these members and its format's own. The writers
  are Lua (vp.write and vp.write.<format>), built with string.pack from the format specs alone: a writer and its
  reader share nothing but the spec, so a round trip through both checks one reading of the spec against
  another. The file is created when the writer is opened (a path that cannot be written fails there); .vprof,
  .dm and .dw are written as they go, .devt and .dlag built in memory (their headers count what follows) and
  written when closed.
method w:tell() -> n
  the offset the next write lands at: bytes written so far
  > print(w:tell())
method w:raw(bytes) -> offset
  append bytes as they are (deliberately broken files); returns the offset they start at
  > local at = w:raw("\0\1")
method w:truncate(n)
  cut the file to n bytes: w:data() shows the cut, and closing makes it; a cut past the end changes nothing
  > w:truncate(w:tell() - 4)
method w:data() -> string
  the file as closing it now would leave it; the writer stays open
  > local bytes = w:data()
method w:close() -> bytes
  finish the file and return its size (again on a second close); also __close and __gc; other methods raise
  "<fmt> writer is closed" afterwards
  > print(w:close())
field path
  the file being written
  > print(w.path)
field closed
  true once closed
  > print(w.closed)
field bytes
  bytes written so far, as w:tell(); the file size once closed
  > print(w.bytes)
]=]
