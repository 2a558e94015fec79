"""`python -m a2a_kb.cli`: the command line, as the `a2a-kb` script runs it."""

import sys

from . import main

sys.exit(main())
