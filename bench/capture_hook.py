"""An MkDocs hook that saves what the a2a-kb plugin hands to MkDocs, as plain files.

Hooks run after the plugins, so this sees each page's Markdown once the plugin has
resolved its macros, every file the plugin generated, and the navigation it expanded.
It writes them under ``$A2A_KB_BENCH_CAPTURE``: ``docs/`` (a docs folder that needs no
plugin) and ``config.json`` (the nav and extra_javascript). The benchmark then builds
``docs/`` with the same theme and the other plugins to see what the plugin itself costs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

_OUT = Path(os.environ.get("A2A_KB_BENCH_CAPTURE", "capture"))


def _docs() -> Path:
    return _OUT / "docs"


def on_config(config: Any) -> Any:
    _OUT.mkdir(parents=True, exist_ok=True)
    saved = {"nav": config.nav, "extra_javascript": [str(s) for s in config.extra_javascript]}
    (_OUT / "config.json").write_text(json.dumps(saved), "utf-8")
    return config


def on_files(files: Any, config: Any) -> Any:
    docs_dir = str(Path(config.docs_dir).resolve())
    for file in files:
        if file.src_uri.endswith(".md"):
            continue  # pages are saved as Markdown after the plugin has read them
        mine = file.generated_by is not None or (
            file.abs_src_path and str(Path(file.abs_src_path).resolve()).startswith(docs_dir)
        )
        if mine:
            target = _docs() / file.src_uri
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(file.content_bytes)
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    target = _docs() / page.file.src_uri
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(markdown, "utf-8")
    return markdown
