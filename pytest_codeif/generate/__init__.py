"""Generated benchmarks: `codeif generate pacific` (answer tasks from a pool of chained
instructions) and `codeif generate constraints` (code-constraint tasks from base
problems). Each command's module gives `add_arguments(parser)` and `run(args) -> int`."""
