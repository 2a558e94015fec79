"""The exceptions a2a-kb raises for broken set-up.

Problems in the data (a claim with an unknown source, a quote that is gone) are
`Diagnostic` values, collected and reported together.
Exceptions are for what stops a run: a missing cache, a bad flag, a failed build.
The CLI turns each into a message and an exit code; nothing here prints.
"""

from __future__ import annotations

import errno


class KBError(Exception):
    """Base class of every error a2a-kb raises on purpose."""

    exit_code = 2


class ConfigurationError(KBError):
    """The project, a flag or the environment is set up wrongly (exit 2)."""


class DiskError(KBError):
    """The disk refused a write: a read-only file system, a full disk, no permission (exit 2).

    Raised where a command must write to go on; nothing is half-written (every write is a
    temporary file renamed into place), so fixing the disk and running again is enough.
    """

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(
            f"the file system refused {path}: {reason} (tip: free some space or make it "
            "writable; the source cache can be moved with A2A_KB_CACHE)"
        )


# The errors of a disk that will not take a write, as opposed to a bug.
DISK_ERRNOS = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EFBIG})


def disk_error(error: OSError) -> DiskError | None:
    """The `DiskError` that `error` is, or None when it is another kind of failure."""
    if error.errno not in DISK_ERRNOS:
        return None
    # A copy or a rename names its source first and its destination second: the disk that
    # refused is the destination's.
    return DiskError(error.filename2 or error.filename or "a file", error.strerror or str(error))


class SourceUnavailable(KBError):
    """A source needed for this step is not in the cache; run `a2a-kb fetch` first."""

    def __init__(self, message: str, source_id: str = "") -> None:
        super().__init__(message)
        self.source_id = source_id


class FetchError(KBError):
    """One source could not be fetched or verified; the cache keeps its last good copy."""

    exit_code = 1

    def __init__(self, source_id: str, message: str, status: int | None = None, *,
                 refused: bool = False) -> None:
        super().__init__(f"{source_id}: {message}")
        self.source_id = source_id
        self.reason = message
        self.status = status  # the HTTP status of the last answer, when there was one
        # The server answered and the answer was refused (over the size cap, a redirect to
        # another host): upstream said something, unlike a time-out or a refused connection.
        self.refused = refused


class ExtractError(KBError):
    """An extractor found nothing where it expected something, or could not parse."""

    exit_code = 1


class BuildError(KBError):
    """The site could not be built; the last good site/ is left as it was."""

    exit_code = 1
