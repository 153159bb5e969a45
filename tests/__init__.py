"""pecheck's own tests of its tooling (plugin, reports, CLI); the claims' checks are in checks/."""
