"""`python -m compaction.cli`: the same as the `compaction` script."""

import sys

from compaction.cli import main

sys.exit(main())
