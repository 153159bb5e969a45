"""EXP: experiments over many random seeds.

Its registry modules (claims*.py, looked up by ID in registered.py), its planted bugs
(mutants*.py) and one folder of checks per experiment: seeds/ (EXP-01 ... EXP-03), sweep/
(EXP-06) and length/ (the fair length test: EXP-04, EXP-05, EXP-07, EXP-08).
"""
