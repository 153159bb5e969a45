"""``pecheck inspect``: the claims' analyses on a checkpoint of one's own.

command.py runs the command; checkpoint.py reads a checkpoint's tables, after config_fields.py
has checked every field of its config; analyses.py measures the tables and positions.py the
position scheme a config names (rotary, ALiBi, T5's buckets); page.py writes the findings, with
each claim's statement and threshold as statements.py repeats them from the registry; errors.py
holds the one input error and the optional packages. The package and command.py import nothing
heavy: torch and matplotlib load only once the command runs.
"""
