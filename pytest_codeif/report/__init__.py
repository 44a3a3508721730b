"""Outcome records, their aggregation into the summary, the terminal section and the
JSON report; gathered on the controller (see `reporter.py`)."""
