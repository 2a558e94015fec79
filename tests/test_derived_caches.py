"""Derived data is verified, never believed: the facts cache, the query index and the site's
page reuse records are rebuilt when they no longer match what they were made from, and
`a2a-kb fetch` (offline too) says which it found damaged. A damaged source copy is called
damaged, not missing, and a fetch replaces it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MIRROR, REPO


def _kb(root: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "a2a_kb.cli", "--root", str(root), *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**os.environ, "SOURCE_DATE_EPOCH": "1800000000", **(env or {})})


def _flip_everywhere(folder: Path, old: bytes, new: bytes) -> list[Path]:
    assert len(old) == len(new)
    flipped = []
    for path in sorted(folder.glob("*.json")):
        data = path.read_bytes()
        if old in data:
            path.write_bytes(data.replace(old, new))
            flipped.append(path)
    return flipped


@pytest.fixture
def real_copy(real_cache: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The real knowledge base with a private copy of the session's fetched cache."""
    cache = tmp_path / "cache"
    shutil.copytree(real_cache, cache)
    return REPO, {"A2A_KB_CACHE": str(cache)}


def test_a_flipped_byte_in_the_facts_changes_no_state(real_copy: tuple[Path, dict[str, str]]) -> None:
    root, env = real_copy
    before = _kb(root, "states", "--version", "1.0.0", "--format", "json", env=env)
    assert before.returncode == 0, before.stderr
    facts = Path(env["A2A_KB_CACHE"]) / "facts"
    assert _flip_everywhere(facts, b"TASK_STATE_COMPLETED", b"TASK_STATE_COMPLETEX")
    after = _kb(root, "states", "--version", "1.0.0", "--format", "json", env=env)
    assert after.stdout == before.stdout
    assert "COMPLETEX" not in after.stdout


def test_fetch_offline_reports_damaged_facts(real_copy: tuple[Path, dict[str, str]]) -> None:
    root, env = real_copy
    assert _kb(root, "states", "--version", "1.0.0", env=env).returncode == 0  # the facts exist
    facts = Path(env["A2A_KB_CACHE"]) / "facts"
    flipped = _flip_everywhere(facts, b"TASK_STATE_COMPLETED", b"TASK_STATE_COMPLETEX")
    assert flipped
    done = _kb(root, "fetch", "--offline", "--format", "json", env=env)
    report = json.loads(done.stdout)
    named = "\n".join(report.get("derived_removed", []))
    for path in flipped:
        assert path.name in named, named
        assert not path.exists()


def test_a_flipped_byte_in_the_query_index_changes_no_verdict(fixture_kb: Path) -> None:
    first = _kb(fixture_kb, "query", "--id", "v1-terminal-states")
    assert json.loads(first.stdout)[0]["verdict"] == "verified"
    index = fixture_kb.parent / "cache" / "query-index.jsonl"
    data = index.read_bytes()
    assert b'"verified"' in data
    index.write_bytes(data.replace(b'"verified"', b'"verifiex"'))
    again = _kb(fixture_kb, "query", "--id", "v1-terminal-states")
    assert json.loads(again.stdout)[0]["verdict"] == "verified"
    index.write_bytes(data.replace(b'"verified"', b'"verifiex"'))
    done = _kb(fixture_kb, "fetch", "--offline")
    assert "query-index.jsonl" in done.stdout and "derived-damaged" in done.stdout, done.stdout


def test_a_record_file_edited_within_its_timestamp_is_read_again(fixture_kb: Path) -> None:
    """Two writes in one clock tick leave size and times alike; the checksum tells them apart."""
    claims = fixture_kb / "claims" / "states.yaml"
    text = claims.read_text("utf-8")
    assert _kb(fixture_kb, "query", "--id", "v1-terminal-states").returncode == 0
    status = claims.stat()
    edited = text.replace("verdict: verified", "verdict: verifiex", 1)
    assert len(edited) == len(text) and edited != text
    claims.write_text(edited, "utf-8")
    os.utime(claims, ns=(status.st_atime_ns, status.st_mtime_ns))
    found = json.loads(_kb(fixture_kb, "query", "--id", "v1-terminal-states").stdout)
    assert found[0]["verdict"] == "verifiex"


def test_fetch_offline_reports_damaged_page_reuse_records(fixture_kb: Path) -> None:
    from a2a_kb.cache import write_sealed

    store = fixture_kb / ".cache" / "site-pages"
    record, bytecode = store / "render" / f"{'a' * 64}.json", store / "jinja" / "__jinja2_x.cache"
    for path in (record, bytecode):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_sealed(path, b'{"content": "<p>fine</p>"}')
    sound = store / "manifest.json"
    write_sealed(sound, b"{}")
    record.write_bytes(record.read_bytes().replace(b"fine", b"f1ne"))
    bytecode.write_bytes(bytecode.read_bytes()[:-3])
    done = _kb(fixture_kb, "fetch", "--offline")
    assert record.name in done.stdout and bytecode.name in done.stdout, done.stdout
    assert not record.exists() and not bytecode.exists() and sound.exists()


def test_a_damaged_source_copy_is_called_damaged_and_replaced(fixture_kb: Path) -> None:
    assert _kb(fixture_kb, "fetch", "--mirror", str(MIRROR)).returncode == 0
    blobs = sorted((fixture_kb.parent / "cache" / "blobs").glob("*/*"))
    victim = max(blobs, key=lambda p: p.stat().st_size)
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x01
    victim.write_bytes(bytes(data))
    offline = _kb(fixture_kb, "fetch", "--offline")
    assert offline.returncode == 1
    assert "error[cache-damaged]" in offline.stdout and "damaged" in offline.stdout, offline.stdout
    assert "not in the cache" not in offline.stdout
    again = _kb(fixture_kb, "fetch", "--mirror", str(MIRROR), "--format", "json")
    assert again.returncode == 0, again.stdout
    messages = [s["message"] for s in json.loads(again.stdout)["sources"]]
    assert "replaced a damaged cached copy" in messages


def test_a_relative_mirror_path_works(fixture_kb: Path) -> None:
    """The README's offline command: A2A_KB_MIRROR=../shared/mirror make site."""
    relative = os.path.relpath(MIRROR, fixture_kb)
    done = subprocess.run([sys.executable, "-m", "a2a_kb.cli", "fetch"], capture_output=True, text=True,
                          cwd=fixture_kb, env={**os.environ, "A2A_KB_MIRROR": relative}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "internal error" not in done.stderr


# --- derived files rewritten whole, their seal recomputed (issue 26) ---------------------------


def _rewrite_with_a_fresh_digest(path: Path, old: bytes, new: bytes) -> bool:
    """Change ``old`` to ``new`` in the derived file at ``path`` as a tool that knows the
    format would: the payload edited and its sha256 seal line written again (a raw file, as
    descriptors were, is edited in place). True when the file held ``old``."""
    import hashlib

    data = path.read_bytes()
    head, newline, payload = data.partition(b"\n")
    sealed = head.startswith(b"a2a-kb-sealed-") and newline
    body = payload if sealed else data
    if old not in body:
        return False
    body = body.replace(old, new)
    if sealed:
        tag = head.split(b" ", 1)[0]
        body = tag + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    path.write_bytes(body)
    return True


def test_a_facts_file_rewritten_with_its_seal_recomputed_is_not_believed(
        real_copy: tuple[Path, dict[str, str]]) -> None:
    root, env = real_copy
    before = _kb(root, "states", "--version", "1.0.0", "--format", "json", env=env)
    assert before.returncode == 0, before.stderr
    facts = Path(env["A2A_KB_CACHE"]) / "facts"
    rewritten = [p for p in sorted(facts.glob("*.json"))
                 if _rewrite_with_a_fresh_digest(p, b"TASK_STATE_COMPLETED", b"TASK_STATE_COMPLETEX")]
    assert rewritten
    after = _kb(root, "states", "--version", "1.0.0", "--format", "json", env=env)
    assert after.stdout == before.stdout and "COMPLETEX" not in after.stdout


def test_a_compiled_descriptor_with_a_renamed_value_invents_no_change(
        real_copy: tuple[Path, dict[str, str]]) -> None:
    """A renamed enum value in a cached descriptor used to come out of `diff` as a
    `state-renamed` change (exit 0), and `fetch --offline` said nothing of it."""
    root, env = real_copy
    before = _kb(root, "diff", "0.3.0", "1.0.0", "--format", "json", env=env)
    assert before.returncode == 0, before.stderr
    cache = Path(env["A2A_KB_CACHE"])
    shutil.rmtree(cache / "diff")  # what the diff read from each proto: it must read them again
    descriptors = sorted((cache / "descriptors").iterdir())
    rewritten = [p for p in descriptors
                 if _rewrite_with_a_fresh_digest(p, b"TASK_STATE_CANCELED", b"TASK_STATE_CANCELES")]
    assert rewritten, descriptors
    after = _kb(root, "diff", "0.3.0", "1.0.0", "--format", "json", env=env)
    assert after.returncode == 0, after.stderr
    strip = lambda text: json.loads(text) | {"generated_at": None}  # noqa: E731
    assert strip(after.stdout) == strip(before.stdout)
    assert "CANCELES" not in after.stdout
    # Damaged again, fetch --offline names each one it removes.
    for path in rewritten:
        _rewrite_with_a_fresh_digest(path, b"TASK_STATE_CANCELED", b"TASK_STATE_CANCELES")
    done = _kb(root, "fetch", "--offline", "--format", "json", env=env)
    named = "\n".join(json.loads(done.stdout).get("derived_removed", []))
    for path in rewritten:
        assert path.name in named and "compiled descriptor" in named, named


def test_derived_data_from_another_key_is_not_believed(real_copy: tuple[Path, dict[str, str]],
                                                       tmp_path: Path) -> None:
    """A cache restored from another machine (another key) is derived again, whole."""
    root, env = real_copy
    assert _kb(root, "states", "--version", "1.0.0", env=env).returncode == 0
    other = {**env, "A2A_KB_SEAL_KEY": str(tmp_path / "another.key")}
    done = _kb(root, "fetch", "--offline", "--format", "json", env=other)
    removed = json.loads(done.stdout).get("derived_removed", [])
    assert any("facts" in line for line in removed), removed
    assert (tmp_path / "another.key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("where", ["seal.key", "keys/seal.key"])
def test_the_seal_key_is_made_once_and_kept_wherever_it_is_named(where: str, tmp_path: Path) -> None:
    """`A2A_KB_SEAL_KEY` as a bare file name (the working folder) or a path into a folder
    not made yet: the key is written there, and the next process reads the same one."""
    program = ("import sys; from a2a_kb import seal; sys.stdout.write(seal.key().hex())")
    env = {**os.environ, "A2A_KB_SEAL_KEY": where}
    runs = [subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True,
                           text=True, check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] == (tmp_path / where).read_bytes().hex()
    assert len(runs[0]) == 64
