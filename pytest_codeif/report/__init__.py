"""Reports, gathered on the controller (see `reporter.py`): outcome records built
(`records.py`), the figures summed from them (`figures/`), and what shows them: the
terminal section, the JSON report, SARIF, annotations, feedback and the HTML page."""
