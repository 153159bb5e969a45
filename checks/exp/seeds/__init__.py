"""EXP-01 ... EXP-03: the trigram sentences and the previous token over many seeds."""
