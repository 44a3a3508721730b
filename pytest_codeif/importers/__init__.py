"""Turn other benchmarks' data into task files."""
