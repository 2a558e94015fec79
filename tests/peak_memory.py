"""Run `a2a-kb ARGS…` in this process, then write its peak resident memory (VmHWM, in kB)
to the file named by the first argument.

Measured from /proc, not getrusage: a child started by fork + exec inherits its parent's
high-water mark in ru_maxrss, so a child of the (large) test process would seem to use as
much memory as the test process itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

from a2a_kb.cli import main


def _peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return -1


if __name__ == "__main__":
    code = main(sys.argv[2:])
    Path(sys.argv[1]).write_text(str(_peak_kb()))
    sys.exit(code)
