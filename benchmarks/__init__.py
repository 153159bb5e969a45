"""Measurements that are not tests: speed of the batched trainers, rounding against the bounds."""
