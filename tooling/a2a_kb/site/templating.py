"""The Jinja environment of the site's templates: autoescaping on, undefined names fail.

Templates write Markdown with raw HTML blocks. Record text reaches them as plain strings;
autoescaping makes it inert in HTML, and the `md` filter makes it inert in Markdown too.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from . import escape

VERDICT_LABELS = {
    "verified": "verified",
    "contradicted": "contradicted",
    "unverifiable": "unverifiable",
    "quote-missing": "quote missing",
    "stale": "stale",
    "drifted": "drifted",
}


def _short(commit: Any, n: int = 7) -> str:
    return str(commit or "")[:n]


def _lines(lines: Any) -> str:
    """'L12' or 'L12–L20' from a [start, end] pair; '' when there are none."""
    if not isinstance(lines, list | tuple) or len(lines) != 2 or not lines[0]:
        return ""
    start, end = lines
    return f"L{start}" if not end or end == start else f"L{start}–L{end}"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("a2a_kb", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Markdown attribute lists (`## Values {#values}`) start like Jinja comments.
        comment_start_string="{##",
        comment_end_string="##}",
    )
    env.filters["md"] = escape.markdown
    env.filters["prose"] = escape.prose
    env.filters["url"] = escape.safe_url
    env.filters["script_json"] = escape.script_json
    env.filters["mermaid_id"] = escape.mermaid_id
    env.filters["short"] = _short
    env.filters["lines"] = _lines
    env.globals["VERDICT_LABELS"] = VERDICT_LABELS
    return env


def render(template: str, **context: Any) -> str:
    """Render `templates/<template>` with `context`."""
    return environment().get_template(template).render(**context)
