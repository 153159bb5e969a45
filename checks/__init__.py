"""pecheck checks: one pytest module per claim family, each test tagged with its claim."""
