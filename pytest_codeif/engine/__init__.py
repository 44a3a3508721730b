"""Where a verdict is reached. Data flows one way: each task's code read and parsed once
(`units.py`), planned and decided ahead or at its item (`schedule.py`), the code run in
the sandbox by one owner (`sandbox_runs.py`: the functional pool, measurements, probes),
a constraint decided and mapped to a `Verdict` (`verdicts.py`), its evidence located
(`evidence.py`) and cached (`cache_keys.py`, `verdict_cache.py`); ruff and mypy batched
(`tool_batches.py`); what a check sees (`context.py`). `engine.py` builds the parts."""
