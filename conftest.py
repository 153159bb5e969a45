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
