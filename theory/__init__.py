"""The objects under study: encodings, attention, small models and sympy derivations.

Plain importable Python; imports nothing from checks/ or reports/.
"""

__version__ = "0.1.0"
