"""Build the site. A build never leaves site/ half-written (serving it: `serve`).

`build` renders into a fresh folder beside site/ and then swaps it in with one atomic
`renameat2(RENAME_EXCHANGE)` (Linux), so at every moment site/ is either the previous
complete build or the new complete one: a failed or killed build leaves the last good site
where it was. Builds of one project are serialised by a lock file.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import BuildError, ConfigurationError
from ..output import terminal_safe
from ..project import Project

# mkdocs-material prints a banner about its successor on every build; it is not a problem
# with the site, and CI logs are easier to read without it.
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

_STAGING_PREFIX = ".site-build-"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _config_file(project: Project) -> Path:
    path = project.root / "mkdocs.yml"
    if not path.is_file():
        raise ConfigurationError(f"no mkdocs.yml in {project.root} (tip: run inside the a2a-kb checkout)")
    return path


@contextlib.contextmanager
def _lock(project: Project) -> Iterator[None]:
    """One build at a time per project; a second one waits for the first."""
    lock_path = project.root / ".cache" / "site-build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class _Problems(logging.Handler):
    """Keeps the warnings and errors MkDocs logs, to say in the BuildError what went wrong."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _TerminalSafe(logging.Formatter):
    """MkDocs' messages quote page titles and record text: shown through the one function
    that makes text safe for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal_safe(super().format(record))


@contextlib.contextmanager
def _log_to_stderr(quiet: bool) -> Iterator[None]:
    """MkDocs reports through logging; show its INFO lines unless `quiet`."""
    logger = logging.getLogger("mkdocs")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_TerminalSafe("%(levelname)-7s -  %(message)s"))
    handler.setLevel(logging.WARNING if quiet else logging.INFO)
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically; False where the system cannot (then nothing moved)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    rename = getattr(libc, "renameat2", None)
    if rename is None:
        return False
    if rename(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(a))


def publish(staging: Path, site: Path) -> None:
    """Make the complete build in `staging` the site, replacing the previous one whole."""
    if not site.exists() and not site.is_symlink():
        os.rename(staging, site)
        return
    if site.is_dir() and not site.is_symlink() and _exchange(staging, site):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the previous build
        return
    # No atomic exchange here: move the old site aside first, so a crash between the two
    # renames leaves a complete build in one of the two places, never a mix.
    previous = site.with_name(f"{_STAGING_PREFIX}previous-{os.getpid()}")
    os.rename(site, previous)
    os.rename(staging, site)
    shutil.rmtree(previous, ignore_errors=True)


def _sweep(project: Project) -> None:
    """Remove staging folders that killed builds left behind (we hold the lock)."""
    for stale in project.root.glob(f"{_STAGING_PREFIX}*"):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)


def build_into(project: Project, target: Path, strict: bool = True, quiet: bool = True,
               previous: Path | None = None, site_url: str | None = None,
               plugins: dict[str, Any] | None = None, log_to_stderr: bool = True) -> None:
    """Run the MkDocs build of `project` into `target` (emptied first); no publishing.

    `previous` is the last published build: in strict mode, pages whose inputs hash the
    same as then are taken from it instead of being rendered again (see `reuse`); a
    non-strict build renders everything, since a replayed page would not repeat its warnings.
    `site_url` replaces mkdocs.yml's (the preview's address); `plugins` are added after
    the configured ones (the preview's, which keep what the build made). `log_to_stderr`
    False: the caller shows MkDocs' messages itself.
    Raises BuildError when MkDocs aborts (in strict mode, on any warning).
    """
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, MkDocsException
    from mkdocs.exceptions import ConfigurationError as MkDocsConfigurationError

    config_file = _config_file(project)
    problems = _Problems()
    logger = logging.getLogger("mkdocs")
    with _log_to_stderr(quiet) if log_to_stderr else contextlib.nullcontext():
        logger.addHandler(problems)
        try:
            config = load_config(str(config_file), site_dir=str(target), strict=strict,
                                 **({"site_url": site_url} if site_url else {}))
            for name, plugin in (plugins or {}).items():
                config.plugins[name] = plugin
            reuse = None
            if strict:
                from .reuse import PageReuse

                reuse = PageReuse(project.root / ".cache" / "site-pages", previous)
                config.plugins["a2a-kb-reuse"] = reuse
            config.plugins.on_startup(command="build", dirty=False)
            try:
                mkdocs_build(config)
            finally:
                config.plugins.on_shutdown()
            if reuse is not None:
                reuse.commit()
        except (Abort, MkDocsConfigurationError, MkDocsException) as e:
            shown = [m for m in problems.messages if m.strip()][:20]
            detail = "".join(f"\n  {m}" for m in shown)
            raise BuildError(f"the site did not build: {e}{detail}") from e
        finally:
            logger.removeHandler(problems)


def build(project: Project, strict: bool = True, quiet: bool = False) -> Path:
    """Build the site into `project.site_dir`; raise BuildError (site/ untouched) on failure."""
    _config_file(project)
    site = project.site_dir
    with _lock(project):
        _sweep(project)
        staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=site.parent))
        try:
            # mkdtemp makes the folder private; the site is meant to be served and read.
            umask = os.umask(0)
            os.umask(umask)
            staging.chmod(0o777 & ~umask)
            build_into(project, staging, strict=strict, quiet=quiet,
                       previous=site if site.is_dir() else None)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        publish(staging, site)
    return site
