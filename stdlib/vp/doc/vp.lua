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
          .. "or opts.format; on failure returns nil, \"<path>: at byte N: ...\", code (e.g. \"ENOENT\")",
        example = 'local cap = assert(vp.open("examples/sample.vprof"))\nprint(cap.format, cap.size)',
      },
      {
        name = "detect", kind = "function",
        sig = "vp.detect(path) -> format | nil, message, code",
        doc = "the format id vp.open would use for path, without parsing the file",
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
      .. "Statistics run in C. Empty series: mean, min, max, stddev and percentile are NaN, "
      .. "argmax and argmin nil, sum 0.",
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
        name = "totable", kind = "method",
        sig = "s:totable() -> {number, ...}",
        doc = "the values as a new Lua list",
        example = "for i, v in ipairs(vp.Series{1, 2}:totable()) do print(i, v) end",
      },
      {
        name = "slice", kind = "method",
        sig = "s:slice(i [, j]) -> Series",
        doc = "a new Series of values i..j (1-based, inclusive; j defaults to #s; clamped to 1..#s)",
        example = "local first100 = cap:frame_times():slice(1, 100)",
      },
    },
  },
}
