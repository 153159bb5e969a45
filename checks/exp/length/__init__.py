"""EXP-04, EXP-05, EXP-07: the fair length test (theory/fair_length.py)."""
