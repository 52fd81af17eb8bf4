-- Gate rules for event profiler exports (.devt): frame pacing from the
-- Frame events (events.lua). `vpscript check.lua examples/rules/devt.lua CAPTURE.devt`.
return {
  { metric = "events.frame_interval.p95_ms", max = 20 },
  { metric = "events.frame_interval.max_ms", max = 500 },
  { metric = "events.mean_fps", min = 55 },
  { metric = "events.low_1pct_fps", min = 15 },
}
