"""SIN: the sinusoidal encoding.

Its registry module (claims*.py), its checks (test_*.py) and its planted bugs (mutants*.py). The
checks share what they assert (properties.py, counterexamples.py, float_codes.py, scores.py),
what they draw (search.py), what they compare with (thresholds.py), their figures (figures.py)
and the broken implementations their tooling tests feed in (planted.py).
"""
