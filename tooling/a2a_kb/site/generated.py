"""Generated pages kept between builds: a family's pages are rendered again only when an
input it declares (see `inputs` and `pages.FAMILIES`) changed.

A family's pages (or one part's: a claims file's page) are filed under a key: the
fingerprint (code, templates, mkdocs.yml, the template libraries' versions), the family,
the part, the URL style, and the digest of every aspect it declares. An `@shown` aspect
is not in the key: the record names the claims its pages named and the digest of that
field of those claims, and is believed only while that digest is still the same. Records
are sealed JSON (`SealedJson`): a damaged one is rendered
again. Rendering is pure, so a record is written as soon as it is made; what the build no
longer needs is removed at the end of generation.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ..knowledge.digest import SealedJson, code_version, digest, library_versions
from .data import SiteData
from .inputs import SHOWN, Digests, named_claims
from .pages import FAMILIES, STAND_IN_TIME, Family, Pages

FORMAT = 1


def fingerprint(config_file: Path | None) -> str:
    """What every generated page depends on besides the site data."""
    config = config_file.read_bytes() if config_file is not None and config_file.is_file() else b""
    return digest(str(FORMAT), code_version(), library_versions(("jinja2", "markupsafe")), config)


class GeneratedPages:
    """The store of generated pages (`.cache/site-pages/generated/`)."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.store = SealedJson(folder)
        self.fingerprint = fingerprint
        self.rendered: list[str] = []  # family or family/part, this build
        self.kept = 0

    def generate(self, data: SiteData, use_directory_urls: bool = True) -> dict[str, str]:
        """`pages.generate`, taking what did not change from earlier builds."""
        digests = Digests(data)
        result: dict[str, str] = {}
        used: list[str] = []
        for name, family in FAMILIES.items():
            for part in family.part_names(data):
                key, pages = self._pages(name, family, part, data, digests, use_directory_urls)
                used.append(key)
                for src_uri, content in pages:
                    result[src_uri] = content
        self.store.keep_only(used)
        return result

    def _pages(self, name: str, family: Family, part: str, data: SiteData, digests: Digests,
               use_directory_urls: bool) -> tuple[str, Pages]:
        reads = family.reads_of(part)
        shown = [a.removesuffix(SHOWN) for a in reads if a.endswith(SHOWN)]
        key = digest(self.fingerprint, name, part, str(use_directory_urls),
                     *(f"{a}={digests.of(a)}" for a in reads if not a.endswith(SHOWN)))
        found = _pages_of(self.store.read(key), shown, digests)
        if found is not None:
            self.kept += 1
            return key, _stamp(found, data) if family.stamped else found
        pages = family.render(_stand_in(data) if family.stamped else data, part, use_directory_urls)
        named = named_claims((content for _, content in pages), data.kb) if shown else None
        record: dict[str, Any] = {
            "format": FORMAT, "pages": pages,
            "shown": {a: {"claims": named, "digest": digests.shown(a, named)} for a in shown},
        }
        self.store.write(key, record)
        self.rendered.append(f"{name}/{part}" if part else name)
        return key, _stamp(pages, data) if family.stamped else pages


def _stand_in(data: SiteData) -> SiteData:
    return dataclasses.replace(data, generated_at=STAND_IN_TIME)


def _stamp(pages: Pages, data: SiteData) -> Pages:
    """Pages rendered at the stand-in time, with the build's time written in."""
    return [(src_uri, content.replace(STAND_IN_TIME, data.generated_at)) for src_uri, content in pages]


def _pages_of(record: Any, shown: list[str], digests: Digests) -> Pages | None:
    """The pages of a record while it is whole and what it shows is unchanged, else None."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    pages, seen = record.get("pages"), record.get("shown")
    if not isinstance(pages, list) or not isinstance(seen, dict) or set(seen) != set(shown):
        return None
    for aspect, entry in seen.items():
        if not isinstance(entry, dict):
            return None
        claims = entry.get("claims")
        if claims is not None and not (isinstance(claims, list) and all(isinstance(c, str) for c in claims)):
            return None
        if entry.get("digest") != digests.shown(aspect, claims):
            return None
    if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pages):
        return None
    return [(p[0], p[1]) for p in pages]
