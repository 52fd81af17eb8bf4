-- Regression rules for several runs a side (the runs are the independent
-- units: Welch's t on their values gives each change its 95 % interval):
--   vpscript check.lua examples/rules/vprof_runs.lua examples/runs/new --runs --baseline examples/runs/base
-- ci_above = P fails only when the whole interval lies above a P %
-- regression: worse by more than P % beyond reasonable doubt, whatever the
-- noise between runs.
return {
  { metric = "frame_ms.mean", ci_above = 1 },
  { metric = "frame_ms.p99", ci_above = 5 },
  { metric = "low_1pct_fps", ci_above = 5 },
  { metric = "group.Physics.mean_ms", ci_above = 10 },
  { metric = "group.World Rendering.mean_ms", max_regress_pct = 5, significant = true },
}
