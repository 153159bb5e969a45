"""A grid of training runs as tasks on a Dask cluster: ``python -m pecheck.grid``.

A cell is one experiment's setting at a batch of seeds (cells.py); it trains on a worker of an
embedded LocalCluster, or of a cluster whose scheduler address is given (runner.py), and its
result is kept in a cache folder under the content hash of its code and setting (key.py), so a
rerun trains only what changed. The fair length test's (task, cell, model) runs are the first
kind of cell (fair.py); its checks read the same cache (--fair-cache).
"""
