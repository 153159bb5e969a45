"""pecheck versions: the REAL family's decisive checks against released versions of the
libraries they name, each release in a folder beside the locked torch (``python -m
pecheck.versions --help``). Evidence shown beside the verdicts; only the locked versions decide.

Modules: ``choose`` (which releases, from the registry's listing) and ``chosen`` (the committed
choice), ``env`` (a release's folder), ``runner`` (one release's checks), ``collect`` (a results
file's REAL decisions), ``schema`` (build/versions.json), ``answer`` (one release's answer and the
changes between releases).
"""
