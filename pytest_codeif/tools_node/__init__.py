"""Biome and the TypeScript compiler, each run once per distinct configuration over many
JavaScript and TypeScript files, as `tools.py` runs ruff and mypy for Python.

`found.py` says where the tools are (and what to install when they are not), `biome.py`
runs Biome's linter, `tsc.py` the TypeScript compiler, `runs.py` holds what both give
back. Both tools get their whole configuration from the task, never from a file beside
the code.
"""

from __future__ import annotations

from pytest_codeif.tools_node.biome import (
    BIOME_GROUPS,
    BiomeConfig,
    BiomeRules,
    biome_configuration,
    biome_rules,
    run_biome,
)
from pytest_codeif.tools_node.found import (
    NODE_TOOLS_ENV,
    TscTools,
    biome_binary,
    biome_missing,
    missing_tool_message,
    node_tool_versions,
    tsc_missing,
    tsc_tools,
    typescript_package,
)
from pytest_codeif.tools_node.runs import NodeRun
from pytest_codeif.tools_node.tsc import (
    TSC_DEFAULTS,
    TscConfig,
    TscProgram,
    program_wide,
    run_tsc,
    tsc_options,
)

__all__ = [
    "BIOME_GROUPS",
    "NODE_TOOLS_ENV",
    "TSC_DEFAULTS",
    "BiomeConfig",
    "BiomeRules",
    "NodeRun",
    "TscConfig",
    "TscProgram",
    "TscTools",
    "biome_binary",
    "biome_configuration",
    "biome_missing",
    "biome_rules",
    "missing_tool_message",
    "node_tool_versions",
    "program_wide",
    "run_biome",
    "run_tsc",
    "tsc_missing",
    "tsc_options",
    "tsc_tools",
    "typescript_package",
]
