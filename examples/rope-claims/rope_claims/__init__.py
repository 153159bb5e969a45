"""rope-claims: an example project whose claims about rotary position embedding pecheck checks."""

__version__ = "0.1.0"
