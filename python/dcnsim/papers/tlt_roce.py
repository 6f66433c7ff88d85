"""The RoCE half of the TLT reproduction lives in :mod:`dcnsim.papers.tlt.roce`; this name
stays importable for code written against it (``from dcnsim.papers import tlt_roce`` gives
that same module object)."""

import sys

from .tlt import roce

sys.modules[__name__] = roce
