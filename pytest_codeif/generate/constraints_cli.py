"""`codeif generate constraints`: arguments and entry point (placeholder, being built)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""


def run(args: argparse.Namespace) -> int:
    """The command's exit status."""
    raise NotImplementedError
