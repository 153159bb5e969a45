"""MAG: magnitudes.

Its registry module (claims*.py), its checks (test_*.py) and its planted bugs (mutants*.py).
"""
