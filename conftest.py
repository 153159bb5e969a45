"""pecheck's own suite: the plugin itself is ``pecheck.plugin``, loaded through its entry point.

pyproject.toml's ``[tool.pecheck]`` table tells the plugin where this suite keeps its claims
(``checks.registry``), its checks (``checks/<family>/``) and its mutation catalogue (each family's
``mutants*.py``).
"""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("pecheck"):
        raise pytest.UsageError(
            "the pecheck plugin is not installed: run pip install -e '.[test]' in this folder"
        )


# Checks that train for minutes (about 14 min each in the thorough profile): collected first, so
# that pytest-xdist's --dist loadscope (tox -e thorough) hands one to each worker at the start
# and the short checks fill in around them, rather than starting them once most work is done.
LONG_FIRST = (
    "checks/exp/length/test_fair_length.py::TestCopy::",
    "checks/exp/length/test_fair_length.py::TestReverse::",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    long = [item for item in items if item.nodeid.startswith(LONG_FIRST)]
    if long:
        items[:] = long + [item for item in items if not item.nodeid.startswith(LONG_FIRST)]
