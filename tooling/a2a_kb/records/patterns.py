"""Regular expressions written by record authors (`op: matches` and `op: not-matches`).

A claim file is proposed by anyone, so its patterns are hostile until proven otherwise.
Python's `re` backtracks: `(.*.*)*$$x` against a few dozen characters runs for longer
than the universe has existed, and a claim carrying it would hang `check`, the site
build and CI. Patterns therefore run on RE2, whose matching time is linear in the text and
whose memory is capped; what RE2 cannot do in linear time (look-around, back-references)
it refuses to compile, and validation reports that with the claim's place.

The one entry point is `compile_pattern`: validation calls it to report a bad
pattern, the check calls it to run one, so nothing can pass the first and hang the second.
"""

from __future__ import annotations

import functools
from typing import Any

# re2 is imported where a pattern is compiled: validating versions and sources alone (a
# diff) compiles none.

MAX_PATTERN_LENGTH = 1_000
# RE2 compiles to an automaton; a pattern such as (x{1000}){1000} would need gigabytes.
# Past this much memory RE2 refuses to compile it, and validation says so.
MAX_PATTERN_MEMORY = 8 * 1024 * 1024


class PatternError(ValueError):
    """A pattern that cannot be run safely; the message says why, for a diagnostic."""


def _options() -> Any:
    import re2

    options = re2.Options()
    options.max_mem = MAX_PATTERN_MEMORY
    options.log_errors = False  # the error becomes a diagnostic, not a line on stderr
    return options


# Room for every pattern of a large KB (the real one has ~600): validation compiles each, the
# check runs each, and an eviction in between means compiling it again (a pattern with a
# bounded gap such as [\s\S]{0,160} takes RE2 milliseconds).
@functools.lru_cache(maxsize=8192)
def compile_pattern(pattern: str) -> Any:
    """The compiled RE2 pattern, or `PatternError` saying what is wrong with it."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(
            f"the pattern is {len(pattern):,} characters long, over the limit of {MAX_PATTERN_LENGTH:,}"
        )
    import re2

    try:
        return re2.compile(pattern, _options())
    except re2.error as e:
        reason = e.args[0] if e.args else "invalid"
        text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        if "(?=" in text or "(?!" in text or "(?<" in text:
            text += " (look-ahead and look-behind cannot run in linear time)"
        elif "\\" in text and any(text.rstrip().endswith(f"\\{n}") for n in "123456789"):
            text += " (back-references cannot run in linear time)"
        elif "pattern too large" in text:
            text = f"the pattern needs more than {MAX_PATTERN_MEMORY // (1024 * 1024)} MiB to compile"
        raise PatternError(text) from e


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` is found anywhere in `text` (Python `re.search` semantics)."""
    return compile_pattern(pattern).search(text) is not None
