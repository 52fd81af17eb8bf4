-- vp.doc.vp: documentation of the `vp` module functions and of vp.Series.
-- Read by vp.doc (the REPL's help() and tools/gen_readme.lua).
return {
  {
    class = "vp",
    title = "the vp module",
    doc = "Loaded by vpscript and set as the global `vp`; from stock lua5.4, `local vp = require \"vp\"` "
      .. "with vp.so on LUA_CPATH and the stdlib on LUA_PATH.",
    members = {
      {
        name = "open", kind = "function",
        sig = "vp.open(path [, opts]) -> cap | nil, message, code",
        doc = "open a capture; the format comes from the content, else the extension, "
          .. "or opts.format; on failure returns nil, the message \"<path>: at byte N: ...\" and the "
          .. "code (e.g. \"ENOENT\")",
        example = 'local cap = assert(vp.open("examples/sample.vprof"))\nprint(cap.format, cap.size)',
      },
      {
        name = "detect", kind = "function",
        sig = "vp.detect(path) -> format | nil, message, code",
        doc = "the format id vp.open would use for path, without parsing the file; nil, the message "
          .. "and the code as vp.open's when it cannot tell",
        example = 'print(vp.detect("examples/sample.vprof"))  --> vprof',
      },
      {
        name = "formats", kind = "function",
        sig = "vp.formats() -> {{name=, description=, extensions={...}}, ...}",
        doc = "every supported format with its description and file extensions",
        example = 'for _, f in ipairs(vp.formats()) do print(f.name, f.description) end',
      },
      {
        name = "writer", kind = "function",
        sig = "vp.writer(format, path [, opts]) -> writer",
        doc = "a writer that builds a capture file of a binary format (tests, examples, "
          .. "deliberately broken files); raises when the format has no writer",
        example = 'local w = vp.writer("vprof", "/tmp/t.vprof")',
      },
      {
        name = "Series", kind = "function",
        sig = "vp.Series(list | series) -> Series",
        doc = "a numeric column (vp.Series) from a list of numbers, or a new handle on a Series",
        example = "local s = vp.Series{3, 1, 2}\nprint(s:mean(), s:max())  --> 2.0  3.0",
      },
      {
        name = "version", kind = "field",
        sig = "vp.version",
        doc = "the vpscript version string",
        example = "print(vp.version)",
      },
    },
  },
  {
    class = "vp.Series",
    title = "numeric column",
    doc = "An immutable column of doubles kept in C (frame times, per-frame node times, samples). "
      .. "Statistics and operations run in C over the whole column and return new Series or plain "
      .. "values, so a question about a million frames takes milliseconds. Empty series: mean, min, "
      .. "max, stddev, percentile and median are NaN, argmax and argmin nil, sum 0. NaN is a missing "
      .. "value: arithmetic and diff propagate it, where/filter/count_above/top never select it, "
      .. "median, rolling, histogram and cumsum skip it (min, max, mean and percentile predate the "
      .. "rule: percentile ranks NaN above every number).",
    members = {
      {
        name = "#", kind = "operator",
        sig = "#s -> integer",
        doc = "number of values",
        example = "print(#cap:frame_times())",
      },
      {
        name = "[i]", kind = "operator",
        sig = "s[i] -> number | nil",
        doc = "value i (1-based); nil outside 1..#s",
        example = "local ft = cap:frame_times()\nprint(ft[1], ft[#ft])",
      },
      {
        name = "+", kind = "operator",
        sig = "s + t, s + x, x + s -> Series",
        doc = "element-wise sum with a Series of the same length or a number; unequal lengths raise "
          .. "\"Series lengths differ: N and M\"",
        example = "local rest = cap:frame_times() - cap:series(\"Root/CEngine::Frame/CL_Render\", \"time_ms\")",
      },
      {
        name = "-", kind = "operator",
        sig = "s - t, s - x, x - s, -s -> Series",
        doc = "element-wise difference (and negation), as +",
        example = "local over = cap:frame_times() - 16.7",
      },
      {
        name = "*", kind = "operator",
        sig = "s * t, s * x, x * s -> Series",
        doc = "element-wise product, as +",
        example = "local us = cap:frame_times() * 1000",
      },
      {
        name = "/", kind = "operator",
        sig = "s / t, s / x, x / s -> Series",
        doc = "element-wise quotient, as + (IEEE: x / 0 is an infinity, 0 / 0 NaN)",
        example = "local fps = 1000 / cap:frame_times()",
      },
      {
        name = "sum", kind = "method",
        sig = "s:sum() -> number",
        doc = "sum of the values (0 when empty)",
        example = "print(vp.Series{1, 2, 3}:sum())  --> 6.0",
      },
      {
        name = "mean", kind = "method",
        sig = "s:mean() -> number",
        doc = "arithmetic mean",
        example = "print(cap:frame_times():mean())",
      },
      {
        name = "min", kind = "method",
        sig = "s:min() -> number",
        doc = "smallest value",
        example = "print(vp.Series{3, 1, 2}:min())  --> 1.0",
      },
      {
        name = "max", kind = "method",
        sig = "s:max() -> number",
        doc = "largest value",
        example = "print(vp.Series{3, 1, 2}:max())  --> 3.0",
      },
      {
        name = "argmax", kind = "method",
        sig = "s:argmax() -> integer | nil",
        doc = "1-based index of the largest value (the first one on ties)",
        example = "local ft = cap:frame_times()\nprint('slowest frame', ft:argmax(), ft:max())",
      },
      {
        name = "argmin", kind = "method",
        sig = "s:argmin() -> integer | nil",
        doc = "1-based index of the smallest value (the first one on ties)",
        example = "print(vp.Series{3, 1, 2}:argmin())  --> 2",
      },
      {
        name = "stddev", kind = "method",
        sig = "s:stddev() -> number",
        doc = "population standard deviation (divides by n, not n - 1)",
        example = "print(vp.Series{2, 4, 4, 4, 5, 5, 7, 9}:stddev())  --> 2.0",
      },
      {
        name = "percentile", kind = "method",
        sig = "s:percentile(p) -> number",
        doc = "nearest-rank percentile, p in 0..100: the value at rank ceil(p/100*n) of the "
          .. "ascending order (rank 1 for p = 0), the definition laige uses; no interpolation",
        example = "local ft = cap:frame_times()\nprint(ft:percentile(50), ft:percentile(99))",
      },
      {
        name = "median", kind = "method",
        sig = "s:median() -> number",
        doc = "the middle value of the numbers (NaN skipped), the mean of the two middle ones for an "
          .. "even count; NaN when there is no number",
        example = "print(vp.Series{1, 2, 3, 10}:median())  --> 2.5",
      },
      {
        name = "where", kind = "method",
        sig = "s:where(x [, op]) | s:where(pred) -> {i, ...}",
        doc = "the positions (frame numbers for a per-frame column) whose value v satisfies v op x "
          .. "(op \">\" by default, or \">=\", \"<\", \"<=\", \"==\", \"~=\"; NaN never does), in C; "
          .. "or where pred(v, i) is true, which calls Lua once per value",
        example = "for _, i in ipairs(cap:frame_times():where(50)) do print(i, cap:frame(i).tick) end",
      },
      {
        name = "count_above", kind = "method",
        sig = "s:count_above(x) -> integer",
        doc = "how many values are strictly above x (#s:where(x) without the list)",
        example = "print(cap:frame_times():count_above(33.3), \"frames under 30 FPS\")",
      },
      {
        name = "filter", kind = "method",
        sig = "s:filter(x [, op]) | s:filter(pred) -> Series",
        doc = "the values where() selects, in order, as a new Series",
        example = "print(cap:frame_times():filter(20, \"<=\"):mean())",
      },
      {
        name = "rolling", kind = "method",
        sig = "s:rolling(window [, \"mean\"|\"median\"|\"max\"]) -> Series",
        doc = "trailing window statistic: value i is the mean (default), median or max of the numbers "
          .. "among values i - window + 1 .. i (the first ones use the shorter windows they have); "
          .. "NaN where a window holds no number",
        example = "local baseline = cap:frame_times():rolling(30, \"median\")",
      },
      {
        name = "histogram", kind = "method",
        sig = "s:histogram(bins | {edge, ...}) -> {edges, counts, below, above, missing}",
        doc = "counts per bin: `bins` equal-width bins from the smallest to the largest number, or the "
          .. "given increasing edges; bin j holds edges[j] <= v < edges[j+1], the last one also its upper "
          .. "edge; below/above count values outside explicit edges, missing the NaN",
        example = "local h = cap:frame_times():histogram({0, 8.3, 16.7, 33.3, 1000})\n"
          .. "print(table.concat(h.counts, \" \"))",
      },
      {
        name = "cumsum", kind = "method",
        sig = "s:cumsum() -> Series",
        doc = "running sum (compensated); NaN where the value is NaN, left out of the sum",
        example = "local elapsed_ms = cap:frame_times():cumsum()",
      },
      {
        name = "diff", kind = "method",
        sig = "s:diff() -> Series",
        doc = "differences of neighbours, #s - 1 values: d[i] = s[i + 1] - s[i] (frame i + 1 minus frame i)",
        example = "print(cap:frame_times():diff():max(), \"ms: the largest jump\")",
      },
      {
        name = "sort", kind = "method",
        sig = "s:sort() -> Series",
        doc = "the values in ascending order, NaN last",
        example = "local sorted = cap:frame_times():sort()\nprint(sorted[1], sorted[#sorted])",
      },
      {
        name = "top", kind = "method",
        sig = "s:top(k) -> {i, ...}",
        doc = "the positions of the k largest numbers, largest first (the earlier one first on ties); "
          .. "fewer when there are fewer numbers",
        example = "for _, i in ipairs(cap:frame_times():top(5)) do print(i, cap:frame_times()[i]) end",
      },
      {
        name = "totable", kind = "method",
        sig = "s:totable() -> {number, ...}",
        doc = "the values as a new Lua list",
        example = "for i, v in ipairs(vp.Series{1, 2}:totable()) do print(i, v) end",
      },
      {
        name = "slice", kind = "method",
        sig = "s:slice(i [, j]) -> Series",
        doc = "a new Series of values i..j (1-based, inclusive; j defaults to #s; clamped to 1..#s, "
          .. "empty when i > j)",
        example = "local first100 = cap:frame_times():slice(1, 100)",
      },
    },
  },
}
