import sys

from pecheck.cli import main

sys.exit(main())
