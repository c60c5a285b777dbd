"""Running programs: `engine` plans each function once (each op's evaluator bound to its
attributes, result types and region runners) and runs the plan; `run` is the entry point
(`evaluate`), `processes` the process grid for collectives, `io` numpy inputs/outputs."""
