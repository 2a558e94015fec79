"""The Python API page opens with a session a reader will paste: it must run as printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from a2a_kb.project import Project
from a2a_kb.records.validate import validate
from a2a_kb.site.render import reference
from conftest import REPO


def test_the_python_api_pages_example_runs_against_the_real_knowledge_base(real_cache: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", reference.page(), re.S)
    assert blocks, "the page has no example"
    program = blocks[0] + "\nprint(len(result.results), table['version'])\n"
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "A2A_KB_CACHE": str(real_cache)}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    count, version = done.stdout.split()
    assert int(count) > 800
    assert version == validate(Project.at(REPO)).latest.id  # "latest" is the newest release
