"""`python -m warmup run [-o REPORT] -- PROGRAM [ARGS...]` (warmup/_launcher.py; docs/nvtx-tool.md), and
`python -m warmup try ... -- PROGRAM [ARGS...]` (warmup-report's try; docs/try.md).

Started so, the package's __init__ launches and exits before this module runs (and before the
native module loads: _launcher.launching). This launches where that did not: the package run as
__main__ by runpy, or by a Python before 3.10, which has no sys.orig_argv."""
import sys

from ._launcher import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
