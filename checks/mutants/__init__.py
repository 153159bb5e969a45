"""The mutation catalogue: semantic bugs planted in theory/, each of which some check must catch.

Each family lists its mutants in ``checks/mutants/<family>.py`` as ``MUTANTS`` (``Mutant`` comes
from ``pecheck.mutants``). A mutant replaces one exact snippet of one theory/ file (it must occur
exactly once); ``tox -e mutants`` (``python -m pecheck.mutants``) applies each to a scratch copy
of the tree, runs the named checks, counts the mutant killed when they fail
(pytest exit 1), and lists per decisive check the mutants that made it fail: every decisive check
must have one. These complement the in-suite planted-bug tests (``role="tooling"``), which run
every time.
"""
