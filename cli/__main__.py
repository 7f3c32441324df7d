"""``python -m euchre_env.cli``: the ``euchre`` command."""

import sys

from euchre_env.cli.main import main

sys.exit(main())
