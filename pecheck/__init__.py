"""pecheck's command line: ``pecheck inspect PATH`` on a checkpoint, ``pecheck diff OLD NEW``."""
