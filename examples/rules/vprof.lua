-- Gate rules for VProf captures: `vpscript check.lua examples/rules/vprof.lua CAPTURE
-- [--baseline BASE]`. The file runs in a sandbox and returns a list of rules;
-- metric names: docs/metrics-table.md. The regression rules need --baseline
-- (drop them, or keep a baseline capture from the last good build).
return {
  -- absolute limits: a 60 fps target with room for spikes
  { metric = "frame_ms.p99", max = 33.3 },
  { metric = "frame_ms.mean", max = 16.7 },
  { metric = "low_1pct_fps", min = 20 },
  { metric = "stutter_pct", max = 2 },
  { metric = "hitches", max = 10 },
  -- budget groups, by name (spaces are fine)
  { metric = "group.Physics.p99_ms", max = 8 },
  { metric = "group.World Rendering.mean_ms", max = 8, optional = true },
  -- one node by path (relative to the root works too)
  { metric = "node.CEngine::Frame.calls_per_frame", max = 1, optional = true },
}
