"""Where numbers are summed: the figures every report shows, from outcome records alone.

`summary` (tallies by check, category, level, task; the gate's figures), `decay` (by level
and by constraints per task), `groups` (the summary per group of a metadata key, with
pass@k and satisfaction@k) and `rounds` (what each round fixed and broke). Pure functions
of records in any order; the terminal (`report/terminal.py`), the JSON report, SARIF and
the HTML page only show what these sum.
"""
