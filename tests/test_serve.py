"""`a2a-kb serve`: its address is checked before the first build, an address that reaches
other machines is said out loud, and a request path with a NUL is a 400, not a 500 with a
traceback. Every server here listens on 127.0.0.1 (0.0.0.0 is only announced: the test
stops the command before the build is over and anything is bound)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_kb.site.vendor import vendor_dir
from conftest import REPO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(address: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "a2a_kb.cli", "--root", str(REPO), "serve",
                             "--address", address],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.fixture
def env(real_cache: Path) -> dict[str, str]:
    return {**os.environ, "A2A_KB_CACHE": str(real_cache), "A2A_KB_VENDOR": str(vendor_dir(REPO))}


def _stop(child: subprocess.Popen[str]) -> tuple[str, str]:
    if child.poll() is None:
        child.terminate()
    try:
        return child.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        child.kill()
        return child.communicate()


def test_a_busy_port_is_refused_before_any_build(env: dict[str, str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        started = time.monotonic()
        child = _serve(f"127.0.0.1:{port}", env)
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=15)
        _, err = _stop(child)
    assert child.returncode == 2, err[-1000:]
    assert f"port {port} on 127.0.0.1 is already in use" in err, err[-1000:]
    assert "internal error" not in err and "Traceback" not in err
    assert "Building documentation" not in err
    assert time.monotonic() - started < 15


@pytest.mark.parametrize(("address", "words"), [
    ("127.0.0.1:99999", "port from 1 to 65535"), ("127.0.0.1:http", "port from 1 to 65535"),
    (":8000", "not HOST:PORT"), ("8000", "not HOST:PORT"), ("192.0.2.77:8000", "no network interface"),
    ("no-such-host.invalid:8000", "does not resolve"),
])
def test_an_invalid_address_is_a_usage_error(address: str, words: str, env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-m", "a2a_kb.cli", "--root", str(REPO), "serve",
                           "--address", address], capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 2, done.stderr[-1000:]
    assert words in done.stderr, done.stderr[-1000:]
    assert "internal error" not in done.stderr and "Building documentation" not in done.stderr


def test_serving_on_every_interface_is_announced(env: dict[str, str]) -> None:
    child = _serve(f"0.0.0.0:{_free_port()}", env)
    try:
        assert child.stderr is not None
        first = child.stderr.readline()
    finally:
        _stop(child)
    assert "warning" in first and "every network interface" in first and "127.0.0.1" in first, first


@pytest.fixture
def preview(env: dict[str, str]) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    port = _free_port()
    child = _serve(f"127.0.0.1:{port}", env)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if child.poll() is not None:
            pytest.fail(f"serve exited {child.returncode}: {_stop(child)[1][-1000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.5)
    else:
        _stop(child)
        pytest.fail("the preview did not come up")
    yield port, child
    _stop(child)


def _raw_get(port: int, target: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = b""
        while piece := s.recv(65536):
            answer += piece
    return answer


@pytest.mark.slow
def test_a_nul_in_the_request_path_is_a_bad_request(preview: tuple[int, subprocess.Popen[str]]) -> None:
    port, child = preview
    assert _raw_get(port, b"/").startswith(b"HTTP/1.0 200") or b" 200 " in _raw_get(port, b"/")[:40]
    for target in (b"/%00", b"/claims/%00.html", b"/x%0d%0aSet-Cookie:%20a=b"):
        answer = _raw_get(port, target)
        assert answer.split(b"\r\n", 1)[0].endswith(b"400 Bad Request"), answer[:200]
    _, err = _stop(child)
    assert "Traceback" not in err and "500 Internal Server Error" not in err, err[-2000:]
