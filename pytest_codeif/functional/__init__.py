"""Functional tests and measurements: the harnesses that run inside the sandbox (a
supervisor holding the result channel, a worker running the code: `supervisor.py`,
`harness.py`, `pytest_harness.py`, `measure_harness.py`) and the trusted side that
starts them and turns what they report into verdicts (`run.py`, `measure.py`,
`plain.py`, `growth.py`, `input_inference.py`)."""
