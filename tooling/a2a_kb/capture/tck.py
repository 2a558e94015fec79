"""The official conformance suite, a2a-tck, run by its own runner against SDK builds.

For each build: the suite's files at its pinned branch head are copied out of the mirror
(each checked against the sha256 MANIFEST.tsv gives), the build's system under test is
started on 127.0.0.1 in its own virtual environment, and the suite's `run_tck.py` runs
every transport the build serves. What the suite reports — its verdict per requirement and
transport (`reports/compatibility.json`) and each test's outcome and reason
(`reports/junitreport.xml`) — is written to `captures/tck/<branch>/<build>.json`, or,
with `--check`, compared with that file: a verdict that changed names its requirement,
build and transport.

The builds, their environments (`make tck`) and the port of the suite's SUT are in
`tooling/tck/`. The suite has no JavaScript SUT: for `@a2a-js/sdk` its scenarios are read
by its own parser (`tooling/tck/scenarios_json.py`) and played by
`tooling/npm/a2a-js-sdk/tck-agent.mjs`.

Why it is long: running the conformance suite is one sequence per build (copy the suite with
its hashes checked, start the system under test on 127.0.0.1, run the suite's runner, read
its two reports, record, compare); each step is a short function and the sequence reads top
to bottom.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import re
import socket
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError
from .builds import LOCAL_HOST

RECORD_VERSION = 1
TRANSPORTS = ("jsonrpc", "grpc", "http_json")
_RUN_SECONDS = 900.0
_START_SECONDS = 60.0


@dataclass(frozen=True)
class Suite:
    branch: str
    commit: str
    runner_venv: str  # the runner's environment, made by `make tck`
    # "registry": 1.0-dev's runner, a verdict per requirement id (compatibility.json) and JUnit
    # XML; "categories": 0.3.x's, pytest-json-report files per category and no requirement ids
    layout: str = "registry"

    @property
    def ref(self) -> str:  # the MANIFEST.tsv ref of its files
        return f"tck-{self.branch}"


SUITES = {
    "1.0-dev": Suite("1.0-dev", "357c4a87afa2818731590647cccbea31c31733a2", ".cache/tck/runner-1.0-dev"),
    "0.3.x": Suite("0.3.x", "eb1f804c27ea25db8805264d9ed2d7ca077a7776", ".cache/tck/runner-0.3.x",
                   "categories"),
}


@dataclass(frozen=True)
class TckBuild:
    """One SDK build the suite runs against, through one system under test."""

    key: str  # the file name under captures/tck/<branch>/
    suite: Suite
    package: str
    sut: str  # the suite's SUT folder
    main: str  # the script in it that serves
    patch: str  # the port of that SUT to the build, under tooling/tck/ ('' for none)
    venv: str  # its environment, made by `make tck` (a node_modules folder for Node), from the root
    transports: tuple[str, ...] = TRANSPORTS
    notes: tuple[str, ...] = field(default=())
    # "python": the suite's own SUT, run by `venv`'s interpreter; "node": the JavaScript
    # agent `main` (under `venv`'s parent), playing the scenarios the suite's parser read
    runtime: str = "python"

    def python(self, root: Path) -> Path:
        return root / self.venv / "bin" / "python"

    def ready(self, root: Path) -> bool:
        return (root / self.venv).is_dir() if self.runtime == "node" else self.python(root).exists()


BUILDS = {
    "a2a-sdk-1.3.0": TckBuild(
        "a2a-sdk-1.3.0", SUITES["1.0-dev"], "a2a-sdk", "sut/a2a-python", "sut_agent.py",
        "tooling/tck/sut-a2a-python-on-a2a-sdk-1.3.0.patch", ".cache/tck/sut-a2a-sdk-1.3.0",
        notes=("the suite's sut/a2a-python, generated from its scenarios/*.feature, ported to the "
               "released a2a-sdk 1.3.0 by tooling/tck/sut-a2a-python-on-a2a-sdk-1.3.0.patch",)),
    "a2a-sdk-0.3": TckBuild(
        "a2a-sdk-0.3", SUITES["0.3.x"], "a2a-sdk", "python-sut/tck_core_agent", "__main__.py",
        "tooling/tck/python-sut-on-a2a-sdk-0.3.patch", ".cache/sdk/a2a-sdk-0.3", ("jsonrpc",),
        notes=("the suite's 0.3.x python-sut (JSON-RPC only), on the a2a-sdk 0.3 build of the capture kit, "
               "ported by tooling/tck/python-sut-on-a2a-sdk-0.3.patch",)),
    "a2a-js-sdk-1.3.0": TckBuild(
        "a2a-js-sdk-1.3.0", SUITES["1.0-dev"], "@a2a-js/sdk", "scenarios",
        "tooling/npm/a2a-js-sdk/tck-agent.mjs", "", "tooling/npm/a2a-js-sdk/node_modules", runtime="node",
        notes=("tooling/npm/a2a-js-sdk/tck-agent.mjs: the suite's scenarios/*.feature, read by the "
               "suite's own parser (tooling/tck/scenarios_json.py), played scenario by scenario through "
               "@a2a-js/sdk 1.3.0",)),
}


# --- the suite's files, from the mirror -----------------------------------------------------


def suite_files(mirror: Path, suite: Suite) -> list[tuple[str, str, Path]]:
    """(path in the suite, sha256, file in the mirror) for every file of the suite's head."""
    manifest = mirror / "MANIFEST.tsv"
    if not manifest.is_file():
        raise ConfigurationError(f"the mirror {mirror} has no MANIFEST.tsv (set A2A_KB_MIRROR to the mirror)")
    found = []
    with manifest.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["ref"] == suite.ref and row["commit"] == suite.commit:
                local = mirror / row["url"].split("://", 1)[1]
                found.append((row["path"], row["sha256"], local))
    if not found:
        raise ConfigurationError(f"the mirror {mirror} holds no files of a2a-tck {suite.branch} at "
                                 f"{suite.commit[:7]} (MANIFEST.tsv ref {suite.ref})")
    return found


def copy_suite(mirror: Path, suite: Suite, dest: Path) -> None:
    for path, sha256, local in suite_files(mirror, suite):
        data = local.read_bytes() if local.is_file() else b""
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ConfigurationError(f"{local}: missing or not the file MANIFEST.tsv names (sha256 "
                                     f"{sha256[:12]}…); fetch the mirror again")
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


# --- one run ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOCAL_HOST, 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _serving(build: TckBuild, root: Path, suite_dir: Path, log: Path) -> Iterator[str]:
    """The build's SUT listening on 127.0.0.1: its base URL."""
    http_port, grpc_port = _free_port(), _free_port()
    env = {**os.environ, "SUT_HOST": f"{LOCAL_HOST}:{http_port}", "GRPC_PORT": str(grpc_port),
           "SUT_PORT": str(http_port)}
    if build.runtime == "node":
        scenarios = scenarios_json(build, root, suite_dir)
        argv, cwd = ["node", str(root / build.main), "--scenarios", str(scenarios)], root
    else:
        argv, cwd = [str(build.python(root)), build.main], suite_dir / build.sut
    with log.open("wb") as out:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_for(f"http://{LOCAL_HOST}:{http_port}/.well-known/agent-card.json", process, log)
            yield f"http://{LOCAL_HOST}:{http_port}"
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def scenarios_json(build: TckBuild, root: Path, suite_dir: Path) -> Path:
    """The suite's scenarios, read by its own parser in the runner's environment, as the
    JSON file the JavaScript agent plays."""
    features = sorted(str(p.relative_to(suite_dir)) for p in (suite_dir / build.sut).glob("*.feature"))
    if not features:
        raise ConfigurationError(f"a2a-tck {build.suite.commit[:7]} has no {build.sut}/*.feature")
    runner = root / build.suite.runner_venv / "bin" / "python"
    done = subprocess.run([str(runner), "-B", str(root / "tooling" / "tck" / "scenarios_json.py"), *features],
                          cwd=suite_dir, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ConfigurationError(f"the suite's parser could not read {build.sut}/*.feature: "
                                 f"{done.stderr.strip().splitlines()[-1:] or done.returncode}")
    target = suite_dir.parent / "scenarios.json"
    target.write_text(done.stdout, "utf-8")
    return target


def _wait_for(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    import requests

    deadline = time.monotonic() + _START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text("utf-8", "replace").strip().splitlines()[-3:]
            raise ConfigurationError(f"the system under test exited ({process.returncode}): "
                                     + " / ".join(tail))
        with contextlib.suppress(requests.RequestException):
            if requests.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise ConfigurationError(f"the system under test did not answer {url} within {_START_SECONDS:.0f} s")


def run(build: TckBuild, root: Path, mirror: Path) -> dict[str, Any]:
    """The suite against `build`: its record."""
    runner = root / build.suite.runner_venv / "bin" / "python"
    runner_ready = (root / build.suite.runner_venv / "bin" / "python").exists()
    for venv, ready in ((build.venv, build.ready(root)), (build.suite.runner_venv, runner_ready)):
        if not ready:
            raise ConfigurationError(f"{venv} is missing (tip: run `make tck`)")
    work = root / ".cache" / "tck" / "runs"
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work, prefix=f"{build.key}-") as tmp:
        suite_dir = Path(tmp) / "a2a-tck"
        copy_suite(mirror, build.suite, suite_dir)
        if build.patch:
            done = subprocess.run(["patch", "-s", "-p1", "-d", str(suite_dir), "-i", str(root / build.patch)],
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise ConfigurationError(f"{build.patch} does not apply to a2a-tck {build.suite.commit[:7]}: "
                                         f"{(done.stdout + done.stderr).strip()[:300]}")
        with _serving(build, root, suite_dir, Path(tmp) / "sut.log") as url:
            if build.suite.layout == "categories":
                # without a compliance report asked for, its runner deletes the per-category files
                argv = ["--sut-url", url, "--category", "all",
                        "--compliance-report", "reports/compliance.json"]
            else:
                argv = ["--sut-host", url, "--transport", ",".join(build.transports)]
            done = subprocess.run([str(runner), "run_tck.py", *argv], cwd=suite_dir, capture_output=True,
                                  text=True, check=False, timeout=_RUN_SECONDS)
        reports = suite_dir / "reports"
        version = _version(build, root)
        if build.suite.layout == "categories":
            found = sorted(reports.glob("*_results.json"))  # not compliance.json: the files it scores
            if not found:
                raise ConfigurationError(f"a2a-tck wrote no report (exit {done.returncode}): "
                                         f"{done.stdout.strip()[-300:]}")
            by_category = {f.name.removesuffix("_results.json"): json.loads(f.read_text("utf-8"))
                           for f in found}
            return category_record(build, by_category, version, url)
        if not (reports / "compatibility.json").is_file() or not (reports / "junitreport.xml").is_file():
            raise ConfigurationError(f"a2a-tck wrote no report (exit {done.returncode}): "
                                     f"{done.stdout.strip()[-300:]}")
        return record(build, json.loads((reports / "compatibility.json").read_text("utf-8")),
                      (reports / "junitreport.xml").read_text("utf-8"), version, url)


def _version(build: TckBuild, root: Path) -> str:
    if build.runtime == "node":
        manifest = root / build.venv / build.package / "package.json"
        return str(json.loads(manifest.read_text("utf-8"))["version"])
    done = subprocess.run([str(build.python(root)), "-c",
                           f"import importlib.metadata as m; print(m.version({build.package!r}))"],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


# --- the record --------------------------------------------------------------------------------

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_SECONDS = re.compile(r"\b\d+\.\d+\s*s\b")


def reason(text: str, url: str) -> str:
    """A report's message as one stable line: its first line, with the run's URL, ids and
    timings written as placeholders."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    host = url.split("://", 1)[-1]
    line = line.replace(url, "<sut>").replace(host, "<sut>")
    line = re.sub(rf"{re.escape(LOCAL_HOST)}:\d+", "<sut>", line)
    line = re.sub(r"/\S*/a2a-tck/", "", line)  # the run's own copy of the suite
    return _SECONDS.sub("<t>", _UUID.sub("<id>", line))[:400]


def _junit_key(nodeid: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit XML gives the test `nodeid`."""
    path, *parts = nodeid.split("::")
    module = path.removesuffix(".py").replace("/", ".")
    return ".".join([module, *parts[:-1]]), parts[-1]


_PREFIXES = {"JSONRPC-": "jsonrpc", "GRPC-": "grpc", "HTTP_JSON-": "http_json", "CARD-": "agent_card"}


def _transport(nodeid: str, requirement: str, transports: list[str]) -> str:
    """The transport a test ran over: its parameter, its folder, its requirement's binding,
    its name's suffix, or else the transports its requirement was run over, joined by +."""
    param = re.search(r"\[(?:.*-)?(grpc|jsonrpc|http_json)\]$", nodeid)
    if param:
        return param.group(1)
    parts = re.split(r"[/.]", nodeid)  # a path, or the dotted classname of a test no requirement lists
    folder = parts[2] if len(parts) > 2 and parts[:2] == ["tests", "compatibility"] else ""
    if folder in (*TRANSPORTS, "agent_card"):
        return folder
    prefix = next((t for p, t in _PREFIXES.items() if requirement.startswith(p)), "")
    suffix = re.search(r"_(grpc|jsonrpc|http_json|rest)$", nodeid)
    if prefix or suffix:
        return prefix or {"rest": "http_json"}.get(suffix.group(1), suffix.group(1))  # type: ignore[union-attr]
    return "+".join(sorted(transports)) or "unknown"  # one test, every transport its requirement ran over


def record(build: TckBuild, report: dict[str, Any], junit: str, version: str, url: str) -> dict[str, Any]:
    owners: dict[tuple[str, str], tuple[str, str]] = {}
    requirements = {}
    for rid, found in sorted(report["per_requirement"].items()):
        requirements[rid] = {"level": found["level"], "status": found["status"],
                             "transports": dict(sorted(found["transports"].items())),
                             "errors": sorted({reason(e, url) for e in found["errors"]})}
        for nodeid in found["test_ids"]:
            owners[_junit_key(nodeid)] = (rid, nodeid)
    tests = []
    for case in ET.fromstring(junit).iter("testcase"):
        key = (case.get("classname", ""), case.get("name", ""))
        rid, nodeid = owners.get(key, ("", f"{key[0]}::{key[1]}"))
        outcome, why = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, why = "failed", child.get("message") or child.text or ""
            elif child.tag == "skipped":
                xfail = (child.get("type") or "").endswith("xfail")
                outcome, why = ("xfailed" if xfail else "skipped"), child.get("message") or ""
        ran_over = list(requirements.get(rid, {}).get("transports", {}))
        tests.append({"test": nodeid, "requirement": rid, "transport": _transport(nodeid, rid, ran_over),
                      "outcome": outcome, "reason": reason(why, url)})
    return _record(build, version, requirements, tests)


def category_record(build: TckBuild, reports: dict[str, dict[str, Any]], version: str,
                    url: str) -> dict[str, Any]:
    """The 0.3.x suite's reports (pytest-json-report, one per category: mandatory,
    capabilities, quality, features, transport-equivalence) as a record. That branch names
    no requirement ids: each test stands for itself, its category as its level."""
    tests = []
    for category, report in sorted(reports.items()):
        for test in report.get("tests", []):
            outcome = {"error": "failed"}.get(test["outcome"], test["outcome"])
            why = ""
            for phase in ("setup", "call", "teardown"):
                step = test.get(phase) or {}
                if step.get("outcome") in ("failed", "skipped") or step.get("crash"):
                    crash = step.get("crash") or {}
                    longrepr = step.get("longrepr") or ""
                    if isinstance(longrepr, list) and len(longrepr) == 3:  # a skip: [path, line, message]
                        longrepr = longrepr[2]
                    why = crash.get("message") or str(longrepr)
                    break
            tests.append({"test": test["nodeid"], "requirement": "", "category": category,
                          "transport": "+".join(build.transports), "outcome": outcome,
                          "reason": reason(why, url)})
    return _record(build, version, {}, tests)


def _record(build: TckBuild, version: str, requirements: dict[str, Any],
            tests: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "record_version": RECORD_VERSION,
        "suite": {"repository": "a2aproject/a2a-tck", "branch": build.suite.branch,
                  "commit": build.suite.commit},
        "build": {"key": build.key, "package": build.package, "version": version,
                  "transports": list(build.transports), "sut": build.sut, "notes": list(build.notes)},
        "requirements": requirements,
        "tests": sorted(tests, key=lambda t: t["test"]),
    }


def dumps(found: dict[str, Any]) -> str:
    return json.dumps(found, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def path_of(captures: Path, build: TckBuild) -> Path:
    return captures / "tck" / build.suite.branch / f"{build.key}.json"


def differences(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What changed between two records of one build, one line each, naming the requirement,
    the build and the transport."""
    key = now["build"]["key"]
    lines = []
    if recorded.get("build", {}).get("version") != now["build"]["version"]:
        lines.append(f"{key}: the build is {now['build']['version']} now, "
                     f"{recorded.get('build', {}).get('version')} when recorded")
    old, new = recorded.get("requirements", {}), now["requirements"]
    for rid in sorted(old.keys() | new.keys()):
        a, b = old.get(rid, {}).get("transports", {}), new.get(rid, {}).get("transports", {})
        for transport in sorted(a.keys() | b.keys()):
            if a.get(transport) != b.get(transport):
                lines.append(f"{rid} on {key} over {transport}: recorded {a.get(transport, 'absent')}, "
                             f"now {b.get(transport, 'absent')}")
    before = {t["test"]: t for t in recorded.get("tests", [])}
    for test in now["tests"]:
        was = before.pop(test["test"], None)
        if was is None or (was["outcome"], was["reason"]) != (test["outcome"], test["reason"]):
            lines.append(f"{test['requirement'] or test['test']} on {key} over {test['transport'] or '-'}: "
                         f"{test['test']} was {was['outcome'] if was else 'absent'}, now {test['outcome']}"
                         + (f" ({test['reason']})" if test["reason"] else ""))
    lines += [f"{t['requirement'] or t['test']} on {key}: {t['test']} recorded, not run now"
              for t in before.values()]
    return lines


def run_all(root: Path, captures: Path, mirror: Path, *, check: bool,
            only: list[str] | None = None,
            progress: Callable[[int, int, str], None] | None = None) -> tuple[list[str], bool]:
    """Run the suite against each build; write its record, or compare with it. The lines
    to show, and whether every record held.

    The builds run at once, each with its own copy of the suite and its own ports: a run
    spends nearly all its time waiting on the suite's timeouts (about 3 s of CPU in two
    minutes), so three at once take as long as the longest. `progress` hears of each build
    as it ends."""
    unknown = sorted(set(only or []) - BUILDS.keys())
    if unknown:
        raise ConfigurationError(f"no suite build {', '.join(unknown)} (known: {', '.join(BUILDS)})")
    builds = [BUILDS[k] for k in (only or BUILDS)]
    found_by_key: dict[str, dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=len(builds), thread_name_prefix="a2a-kb-tck") as pool:
        running = {pool.submit(run, build, root, mirror): build for build in builds}
        for future in as_completed(running):
            found_by_key[running[future].key] = future.result()
            if progress is not None:
                progress(len(found_by_key), len(builds), running[future].key)
    out: list[str] = []
    ok = True
    for build in builds:
        found = found_by_key[build.key]
        target = path_of(captures, build)
        counts = {o: sum(t["outcome"] == o for t in found["tests"]) for o in
                  ("passed", "failed", "xfailed", "skipped")}
        summary = ", ".join(f"{n} {o}" for o, n in counts.items())
        if check:
            if not target.is_file():
                raise ConfigurationError(f"{target} is missing (tip: run `make capture`)")
            changed = differences(json.loads(target.read_text("utf-8")), found)
            out.append(f"{target.relative_to(captures.parent)}: {'unchanged' if not changed else 'CHANGED'} "
                       f"({summary})")
            out += [f"  {line}" for line in changed]
            ok = ok and not changed
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".json.tmp")
            tmp.write_text(dumps(found), "utf-8")
            tmp.replace(target)
            out.append(f"{target.relative_to(captures.parent)}: written ({summary})")
    return out, ok
