"""Vendored browser assets: Mermaid, pinned by version and npm integrity, kept out of git.

mkdocs-material loads Mermaid from a CDN unless a `mermaid` global already exists, so the
site ships its own copy. `python -m a2a_kb.site.vendor` (`make vendor`) asks npm, the
registry's own client, for the pinned tarball, checks its sha512 integrity against the pin
below, and keeps `dist/mermaid.min.js` in `.cache/vendor/` (gitignored). The build only
reads that copy; it never downloads.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..cache import atomic_write
from ..errors import BuildError, FetchError


@dataclass(frozen=True)
class VendoredPackage:
    """One npm package the site ships a file of, pinned as the registry describes it."""

    name: str
    version: str
    integrity: str  # the registry's dist.integrity: "sha512-<base64>" of the tarball
    member: str  # the file inside the tarball the site needs
    sha256: str  # of that file, so a damaged copy in the cache is noticed
    license: str

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def filename(self) -> str:
        return Path(self.member).name


# From `npm view mermaid@11.17.2 dist`; change both together.
MERMAID = VendoredPackage(
    name="mermaid",
    version="11.17.2",
    integrity="sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg==",
    member="package/dist/mermaid.min.js",
    sha256="581ed7d74bd9048d0e3a91363927d72ef22942d7722546b27f7cc29e35390eb8",
    license="MIT",
)


def vendor_dir(root: Path) -> Path:
    """Where vendored files live: $A2A_KB_VENDOR, else <project>/.cache/vendor."""
    override = os.environ.get("A2A_KB_VENDOR")
    return Path(override) if override else root / ".cache" / "vendor"


def vendored_path(root: Path, package: VendoredPackage = MERMAID) -> Path:
    return vendor_dir(root) / f"{package.name}-{package.version}" / package.filename


def _intact(path: Path, package: VendoredPackage) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == package.sha256
    except OSError:
        return False


def require(root: Path, package: VendoredPackage = MERMAID) -> Path:
    """The vendored file, verified, or a BuildError that says how to get it."""
    path = vendored_path(root, package)
    if not _intact(path, package):
        state = "damaged" if path.exists() else "missing"
        raise BuildError(
            f"{package.spec} is {state} at {path} "
            "(tip: run `make vendor`; the site must not load it from a CDN)"
        )
    return path


def integrity_of(tarball: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode("ascii")


def unpack(package: VendoredPackage, tarball: bytes) -> bytes:
    """The needed member of a tarball whose integrity matches the pin."""
    found = integrity_of(tarball)
    if found != package.integrity:
        raise FetchError(package.spec, f"tarball integrity is {found}, pinned {package.integrity}")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        try:
            member = archive.extractfile(package.member)
        except KeyError as e:
            raise FetchError(package.spec, f"the tarball has no {package.member}") from e
        if member is None:
            raise FetchError(package.spec, f"{package.member} in the tarball is not a file")
        return member.read()


def _npm_pack(package: VendoredPackage, workdir: Path) -> bytes:
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError(package.spec, "npm is not installed (tip: install Node.js 18+ with npm)")
    try:
        subprocess.run(
            [npm, "pack", package.spec, "--silent", "--pack-destination", str(workdir)],
            check=True, capture_output=True, timeout=300, text=True,
        )
    except subprocess.CalledProcessError as e:
        raise FetchError(package.spec, f"npm pack failed: {e.stderr.strip() or e}") from e
    except subprocess.TimeoutExpired as e:
        raise FetchError(package.spec, "npm pack took longer than 300 s") from e
    tarballs = sorted(workdir.glob("*.tgz"))
    if len(tarballs) != 1:
        raise FetchError(package.spec, f"npm pack left {len(tarballs)} tarballs, expected one")
    return tarballs[0].read_bytes()


def ensure(root: Path, package: VendoredPackage = MERMAID) -> Path:
    """Vendor `package` unless a copy is already there; returns the file's path."""
    path = vendored_path(root, package)
    if _intact(path, package):
        return path
    with tempfile.TemporaryDirectory(prefix="a2a-kb-vendor-") as tmp:
        tarball = _npm_pack(package, Path(tmp))
    content = unpack(package, tarball)
    if hashlib.sha256(content).hexdigest() != package.sha256:
        raise FetchError(package.spec, f"{package.member} does not match its pinned sha256")
    atomic_write(path, content)
    path.chmod(0o644)
    return path


def main() -> int:
    """`python -m a2a_kb.site.vendor [ROOT]`: vendor the site's browser assets."""
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    try:
        path = ensure(root)
    except FetchError as e:
        print(f"vendor: {e}", file=sys.stderr)
        return 1
    print(f"vendor: {MERMAID.spec} at {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
