"""``python -m tapeviz.lessons``: see :mod:`tapeviz.lessons.command`."""

import sys

from tapeviz.lessons.command import main

sys.exit(main())
