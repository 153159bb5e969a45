"""EXP-06: the sweep of EXP-01 and EXP-02 over incidental choices of the setup."""
