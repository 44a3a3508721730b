"""The code under evaluation, read and understood, never run: units of source files in
their languages (`unit.py`, `languages.py`, `walk.py`, `extract.py`), parsed
(`parsers.py`, `cst.py`, `identifiers.py`), scoped (`scope.py`, `suppressions.py`) and
their imports read into one graph per project (`import_statements.py`,
`module_names.py`, `names.py`, `import_graph.py`)."""
