-- Gate rules for movement traces (.dm): server corrections as movement.lua
-- finds them. `vpscript check.lua examples/rules/dm.lua CAPTURE.dm`.
return {
  { metric = "movement.corrections", max = 5 },
  { metric = "movement.correction_max", max = 10, optional = true },
}
