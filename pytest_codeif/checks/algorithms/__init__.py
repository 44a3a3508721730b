"""Recognisers of algorithms that instructions name (Miller-Rabin, FNV-1a, Kadane, merge
sort, Dijkstra, a B-tree...), one module per family, gathered in `catalogue.py` and
judged by the `named-algorithm` check."""
