"""`python -m warmup run [-o REPORT] -- PROGRAM [ARGS...]` (warmup/_launcher.py; docs/nvtx-tool.md)."""
import sys

from ._launcher import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
