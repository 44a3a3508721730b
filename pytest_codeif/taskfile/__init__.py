"""Where a YAML task file is read: loaded with the position of every node
(`yamlload.py`), validated against the schema built from the registered checks
(`schema.py`), and turned into `Task` objects with every problem located (`parse.py`,
`model.py`); many responses per task (`responses.py`) and the cache of parsed files
between runs (`parsed_cache.py`). `collection/` makes pytest items of the tasks."""
