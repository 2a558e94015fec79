"""The diff from compiled descriptors: per binding, with the encodings each change breaks,
on the real sources (compiled by protoc from the grpcio-tools wheel)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from a2a_kb import cli
from a2a_kb.errors import ExtractError
from a2a_kb.knowledge.diff import descriptors, proto, scope, sides


def run_json(root: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code = cli.main(["--root", str(root), "diff", *argv, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def one(changes: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    found = [c for c in changes if all(c[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


@pytest.fixture(scope="module")
def v030_to_v100(real_cache: Path) -> dict[str, Any]:
    from a2a_kb import compare, load

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(real_cache))
        return compare(load(Path(__file__).resolve().parents[1]), "0.3.0", "1.0.0").as_json()


def test_every_shared_binding_and_the_migration(v030_to_v100: dict[str, Any]) -> None:
    bindings = {b["binding"]: b for b in v030_to_v100["bindings"]}
    assert set(bindings) == {"grpc", "json"}
    assert bindings["grpc"]["old"] == "0.3.0:grpc" and not bindings["grpc"]["migration"]
    assert bindings["json"]["migration"] and bindings["json"]["old_source"] == "json-schema@v0.3.0"
    assert bindings["json"]["new_source"] == "proto@v1.0.0"
    assert {c["binding"] for c in v030_to_v100["changes"]} >= {"grpc", "rest", "json"}


def test_package_rename_breaks_every_grpc_method(v030_to_v100: dict[str, Any]) -> None:
    renamed = one(v030_to_v100["changes"], kind="package-renamed")
    assert (renamed["old"], renamed["new"]) == ("a2a.v1", "lf.a2a.v1")
    assert renamed["binding"] == "grpc" and "binary" in renamed["breaks"]
    assert renamed["severity"] == "wire-breaking"


def test_field_4_of_status_update_event_is_reused(v030_to_v100: dict[str, Any]) -> None:
    reused = one(v030_to_v100["changes"], kind="field-number-reused", subject="TaskStatusUpdateEvent#4")
    assert reused["old"] == "bool final" and reused["new"] == "google.protobuf.Struct metadata"
    assert "binary" in reused["breaks"] and reused["severity"] == "wire-breaking"
    sides_seen = {loc["side"]: loc for loc in reused["locations"]}
    assert sides_seen["old"]["source"] == "grpc-proto@v0.3.0"
    assert sides_seen["new"]["source"] == "proto@v1.0.0"
    for loc in sides_seen.values():
        assert loc["lines"][0] > 0 and f"#L{loc['lines'][0]}" in loc["permalink"]


def test_cancelled_to_canceled_breaks_protojson_only(v030_to_v100: dict[str, Any]) -> None:
    renamed = one(v030_to_v100["changes"], kind="state-renamed", subject="TaskState.canceled",
                  binding="grpc")
    assert (renamed["old"], renamed["new"]) == ("TASK_STATE_CANCELLED", "TASK_STATE_CANCELED")
    assert "binary" not in renamed["breaks"] and "json" in renamed["breaks"]
    # the bytes are the same, but the .proto's ProtoJSON and HTTP+JSON spell the value anew
    levels = {g["encoding"]: g["level"] for g in renamed["grades"]}
    assert levels == {"binary": "compatible", "protojson": "breaking", "http": "breaking"}
    assert renamed["severity"] == "wire-breaking"


def test_task_status_field_2_is_a_rename_that_breaks_no_encoding(v030_to_v100: dict[str, Any]) -> None:
    grpc = [c for c in v030_to_v100["changes"]
            if c["binding"] == "grpc" and c["subject"].startswith("TaskStatus")]
    rename = one(grpc, kind="field-renamed", subject="TaskStatus#2")
    assert (rename["old"], rename["new"]) == ("update", "message")
    assert not {"binary", "json"} & set(rename["breaks"])
    assert not [c for c in grpc if c["kind"] == "field-number-reused" and c["subject"] == "TaskStatus#2"]


def test_required_annotation_is_not_wire_breaking(v030_to_v100: dict[str, Any]) -> None:
    required = [c for c in v030_to_v100["changes"] if c["kind"] == "field-required-changed"
                and c["binding"] == "grpc"]
    assert required and all(c["breaks"] == ["behaviour"] for c in required)
    assert all(c["severity"] == "behavioural" for c in required)


def test_request_type_change_of_create_push_config(v030_to_v100: dict[str, Any]) -> None:
    changed = one(v030_to_v100["changes"], kind="method-signature-changed",
                  subject="A2AService.CreateTaskPushNotificationConfig")
    assert changed["old"].startswith("(CreateTaskPushNotificationConfigRequest)")
    assert changed["new"].startswith("(TaskPushNotificationConfig)") and "binary" in changed["breaks"]


def test_migration_reads_what_the_envelopes_carry(v030_to_v100: dict[str, Any]) -> None:
    json_changes = [c for c in v030_to_v100["changes"] if c["binding"] == "json"]
    final = one(json_changes, kind="field-removed", subject="TaskStatusUpdateEvent.final")
    assert final["severity"] == "wire-breaking"
    canceled = one(json_changes, kind="state-renamed", subject="TaskState.canceled")
    assert canceled["new"] == "TASK_STATE_CANCELED"
    # v0.3.0's SendMessageRequest is a JSON-RPC envelope; what it carries is compared
    assert not [c for c in json_changes if c["subject"] == "SendMessageRequest.jsonrpc"]


def test_every_change_links_both_sides(v030_to_v100: dict[str, Any]) -> None:
    for change in v030_to_v100["changes"]:
        if change["binding"] == "prose":
            continue
        assert {loc["side"] for loc in change["locations"]} == {"old", "new"}, change
        for loc in change["locations"]:
            assert loc["permalink"].startswith("https://github.com/a2aproject/A2A/blob/")


def test_agent_card_is_out_of_scope(v030_to_v100: dict[str, Any]) -> None:
    assert not [c for c in v030_to_v100["changes"] if c["subject"].startswith(("AgentCard", "AgentSkill"))]


def test_json_name_change_in_v026(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(real_kb_env, capsys, "0.2.5:grpc", "0.2.6:grpc")
    assert data["old"] == "0.2.5:grpc" and [b["binding"] for b in data["bindings"]] == ["grpc"]
    changed = one(data["changes"], kind="field-json-name-changed", subject="TaskStatus.update")
    assert (changed["old"], changed["new"], changed["breaks"]) == ("update", "message", ["json"])
    # a gRPC client never sees a JSON name; every HTTP+JSON client of 0.2.5 does
    grades = {g["encoding"]: g for g in changed["grades"]}
    assert grades["binary"]["level"] == "compatible"
    assert grades["http"]["level"] == grades["protojson"]["level"] == "breaking"
    assert set(grades["http"]["directions"]) == {"old client → new server", "new client → old server"}
    assert "'message'" in grades["http"]["why"] and "'update'" in grades["http"]["why"]
    assert changed["severity"] == "wire-breaking"
    assert data["encodings"]["http"]["breaking"] == 3 and data["encodings"]["binary"]["breaking"] == 0


def test_narrowing_to_one_binding(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(real_kb_env, capsys, "0.3.0:grpc", "1.0.0:grpc")
    assert {c["binding"] for c in data["changes"]} <= {"grpc", "rest", "prose"}


def test_unknown_binding_is_a_usage_error(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--root", str(real_kb_env), "diff", "0.3.0:soap", "1.0.0"]) == 2
    assert "unknown binding 'soap'" in capsys.readouterr().err
    assert cli.main(["--root", str(real_kb_env), "diff", "0.1.0:grpc", "1.0.0:grpc"]) == 2
    assert "has no grpc binding" in capsys.readouterr().err


def test_scope_is_computed_from_the_rpcs(real_kb_env: Path) -> None:
    from a2a_kb import load
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook

    kb = load(real_kb_env)
    reader = sides.Reader(FactBook(kb, Cache(kb.project.cache_dir)), kb.project.cache_dir)
    found = scope.proto_scope(reader.proto(kb.sources["proto@v1.0.0"]))
    assert "A2AService.GetExtendedAgentCard" not in found.operations
    assert {"A2AService.SendMessage", "A2AService.ListTasks", "A2AService.SubscribeToTask",
            "A2AService.CreateTaskPushNotificationConfig"} <= found.operations
    assert {"TaskState", "Task", "TaskStatusUpdateEvent", "AuthenticationInfo"} <= found.types
    assert "AgentCard" not in found.types


def test_descriptors_are_cached_by_sha256_and_recompiled_when_damaged(real_kb_env: Path,
                                                                      tmp_path: Path) -> None:
    from a2a_kb import load
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook

    kb = load(real_kb_env)
    source = kb.sources["proto@v1.0.0"]
    text = FactBook(kb, Cache(kb.project.cache_dir)).text(source)
    first = descriptors.compile_proto(source, text, tmp_path)
    [cached] = list((tmp_path / "descriptors").iterdir())
    assert cached.name.startswith(source.sha256)
    cached.write_bytes(b"\xff not a descriptor set")
    assert descriptors.compile_proto(source, text, tmp_path) == first
    proto_file = descriptors.read(source, first)
    assert proto_file.package == "lf.a2a.v1"
    assert proto_file.messages["TaskStatusUpdateEvent"].fields[4].lines[0] > 0


def test_protoc_errors_name_the_source_and_line(real_kb_env: Path, tmp_path: Path) -> None:
    from a2a_kb import load

    source = load(real_kb_env).sources["proto@v1.0.0"]
    with pytest.raises(ExtractError, match=r"proto@v1\.0\.0.*a2a\.proto:3:"):
        descriptors.compile_proto(source, 'syntax = "proto3";\n\nmessage {\n', tmp_path)
    assert not (tmp_path / "descriptors").exists()


def test_reserved_number_reuse_is_reported(real_kb_env: Path) -> None:
    """A field added on a number the old version reserved (v1.0.0-rc reserves field 4 of
    TaskStatusUpdateEvent, v1.0.0 gives it to `metadata`)."""
    from a2a_kb import load
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook

    kb = load(real_kb_env)
    reader = sides.Reader(FactBook(kb, Cache(kb.project.cache_dir)), kb.project.cache_dir)
    new = reader.proto(kb.sources["proto@v1.0.0"])
    old_text = reader.book.text(kb.sources["proto@v1.0.0"]).replace(
        "google.protobuf.Struct metadata = 4;", "reserved 4;", 1)
    source = kb.sources["proto@v1.0.0"]
    old = descriptors.read(source, descriptors.compile_proto(source, old_text, kb.project.cache_dir))
    changes = proto.compare(old, new)
    gone = [c for c in changes if c.kind == "reserved-removed" and c.subject == "TaskStatusUpdateEvent"]
    assert gone and "binary" in gone[0].breaks
    added = [c for c in changes if c.kind == "field-added" and c.subject == "TaskStatusUpdateEvent.metadata"]
    assert added and "reserved" in added[0].note


@pytest.fixture(scope="module")
def rc_to_v100(real_cache: Path) -> dict[str, Any]:
    from a2a_kb import compare, load

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(real_cache))
        return compare(load(Path(__file__).resolve().parents[1]), "1.0.0-rc", "1.0.0").as_json()


def test_a_field_that_moves_number_is_one_change_judged_from_both_peers(
        rc_to_v100: dict[str, Any]) -> None:
    grpc = [c for c in rc_to_v100["changes"] if c["binding"] == "grpc"]
    # metadata left 5 for the 4 the release candidate had reserved; 5 is now free: binary
    moved = one(grpc, kind="field-renumbered", subject="TaskStatusUpdateEvent.metadata")
    assert (moved["old"], moved["new"], moved["breaks"]) == (5, 4, ["binary"])
    assert not [c for c in grpc if c["kind"] in ("field-added", "field-removed")
                and c["subject"] == "TaskStatusUpdateEvent.metadata"]
    # id and tenant swapped numbers: both strings, so the bytes parse (buf's WIRE rules are
    # silent) but an old peer's task id lands in tenant: binary-breaking, and said why
    for message in ("CancelTaskRequest", "SubscribeToTaskRequest"):
        swapped = one(grpc, kind="field-renumbered", subject=f"{message}.id")
        assert (swapped["old"], swapped["new"], swapped["breaks"]) == (1, 2, ["binary"])
        assert swapped["severity"] == "wire-breaking"
        binary = next(g for g in swapped["grades"] if g["encoding"] == "binary")
        assert binary["level"] == "breaking" and "id is read as tenant" in binary["why"]
        protojson = next(g for g in swapped["grades"] if g["encoding"] == "protojson")
        assert protojson["level"] == "compatible"  # ProtoJSON matches by name


def test_the_protoc_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert descriptors.protoc_version() == version("grpcio-tools")


def test_what_is_kept_reads_back_as_what_was_read(real_kb_env: Path) -> None:
    from a2a_kb import load
    from a2a_kb.cache import Cache
    from a2a_kb.knowledge.check import FactBook
    from a2a_kb.knowledge.diff import schema

    kb = load(real_kb_env)
    book = FactBook(kb, Cache(kb.project.cache_dir))

    def again(dumped: Any) -> Any:
        return json.loads(json.dumps(dumped))

    protos = [s for s in kb.sources.values() if s.kind == "proto" and s.pinned]
    schemas = [s for s in kb.sources.values() if s.kind == "json-schema" and s.pinned
               and s.path.endswith("a2a.json")]
    assert len(protos) >= 8 and len(schemas) >= 6
    for source in protos:
        model = descriptors.read(source, descriptors.compile_proto(source, book.text(source),
                                                                   kb.project.cache_dir))
        assert descriptors._undump(source, again(descriptors._dump(model))) == model, source.id
    for source in schemas:
        description = schema.from_schema(source, book.text(source))
        assert schema._undump(source, again(schema._dump(description))) == description, source.id


def test_a_diff_of_compiled_protos_needs_no_protobuf_and_a_damaged_model_is_read_again(
        real_kb_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil
    import subprocess
    import sys

    before = run_json(real_kb_env, capsys, "0.3.0:grpc", "1.0.0:grpc")  # keeps both models
    cache = tmp_path / "cache"
    shutil.copytree(Path(os.environ["A2A_KB_CACHE"]), cache)
    from a2a_kb import load

    kb = load(real_kb_env)
    compared = {kb.sources[s].sha256 for s in ("grpc-proto@v0.3.0", "proto@v1.0.0")}
    kept = sorted(p for p in (cache / "diff").glob("*.protoc-*.json") if p.name.split(".")[0] in compared)
    assert len(kept) == 2
    program = ("import sys\nfrom a2a_kb import cli\n"
               "code = cli.main(['--root', sys.argv[1], 'diff', '0.3.0:grpc', '1.0.0:grpc'])\n"
               "print(code, 'google.protobuf' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", program, str(real_kb_env)],
                          env={**os.environ, "A2A_KB_CACHE": str(cache)},
                          capture_output=True, text=True, check=False)
    assert done.stderr.split() == ["0", "False"], done.stderr
    from a2a_kb.cache import read_sealed
    from a2a_kb.knowledge.derived import sweep
    from a2a_kb.project import Project

    missing, flipped = kept[0], kept[1:]
    for path in kept:  # a flipped byte breaks the seal
        data = bytearray(path.read_bytes())
        data[-2] ^= 1
        path.write_bytes(bytes(data))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("A2A_KB_CACHE", str(cache))
        missing.unlink()  # missing is no damage: nothing to report, read again all the same
        removed = sweep(Project.at(real_kb_env))  # what `a2a-kb fetch` reports
        assert all(p.name in "".join(removed) for p in flipped) and missing.name not in "".join(removed)
        assert cli.main(["--root", str(real_kb_env), "diff", "0.3.0:grpc", "1.0.0:grpc",
                         "--format", "json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["changes"] == before["changes"]  # read again from the descriptors, and kept
    assert all(read_sealed(path) is not None for path in kept)


def test_the_prose_reads_only_the_facts_a_diff_keeps(real_kb_env: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A diff keeps of each source only the facts prose.reads names: with every fact of
    every source instead, every consecutive pair gives the same changes."""
    import itertools

    from a2a_kb import load
    from a2a_kb.knowledge import diff

    kb = load(real_kb_env)
    pairs = [*itertools.pairwise(v.id for v in kb.ordered_versions), ("draft", "main")]

    def changes() -> list[Any]:
        return [diff.diff(kb, a, b).as_json()["changes"] for a, b in pairs]

    kept = changes()
    # (no pair changes a JSON-RPC error definition, so the error: facts are witnessed by none)
    assert {"class-changed", "error-mapping-changed"} <= {c["kind"] for found in kept for c in found}
    monkeypatch.setattr(sides.Reader, "prose_facts", lambda self, source: self.book.facts(source))
    assert changes() == kept


# --- the cases issue 27 found, each held here ---------------------------------------------------


def _rest(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in data["changes"] if c["binding"] == "rest"]


def test_task_routes_are_in_scope_and_a_renamed_push_route_is_reported(
        real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(real_kb_env, capsys, "0.2.4", "0.2.5")
    rest = _rest(data)
    # the `{parent=task/*/pushNotifications}` route (singular `task/`) is a task operation
    gone = one(rest, kind="http-route-removed", subject="A2AService.CreateTaskPushNotification")
    assert gone["severity"] == "wire-breaking"
    assert [g["directions"] for g in gone["grades"]] == [["old client → new server"]]
    one(rest, kind="http-route-added", subject="A2AService.CreateTaskPushNotificationConfig")
    assert {c["subject"] for c in rest if c["kind"] == "http-route-removed"} == {
        "A2AService.CreateTaskPushNotification", "A2AService.GetTaskPushNotification",
        "A2AService.ListTaskPushNotification"}


def test_a_path_binding_another_field_is_not_a_broken_url(
        real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # v0.2.3 binds the same URL to `name` instead of `id`: a client sends what it sent
    data = run_json(real_kb_env, capsys, "0.2.2", "0.2.3")
    cancel = [c for c in _rest(data) if c["subject"] == "A2AService.CancelTask"]
    assert cancel and all(c["severity"] == "compatible" for c in cancel)
    # a body mapping `config` → `*` that takes the same keys breaks nobody
    data = run_json(real_kb_env, capsys, "1.0.0-rc", "1.0.0")
    create = [c for c in _rest(data) if c["subject"] == "A2AService.CreateTaskPushNotificationConfig"]
    assert create and all(c["kind"] == "http-body-changed" and c["severity"] == "compatible" for c in create)


def test_a_v0_url_reaching_a_tenant_route_is_behavioural(v030_to_v100: dict[str, Any]) -> None:
    rest = _rest(v030_to_v100)
    captured = one(rest, kind="http-route-changed", subject="A2AService.SendMessage",
                   old="POST /v1/message:send")
    assert captured["severity"] == "behavioural" and "'v1' as tenant" in captured["note"]


def test_params_widened_to_any_of_keep_every_old_request_valid(
        real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(real_kb_env, capsys, "0.2.4", "0.2.5")
    widened = one(data["changes"], kind="field-type-changed",
                  subject="GetTaskPushNotificationConfigRequest.params")
    assert widened["severity"] == "compatible"
    assert widened["grades"] == [{"encoding": "jsonrpc", "level": "compatible", "directions": [],
                                  "why": widened["note"]}]


def test_auth_required_moves_to_interrupted_in_the_proto_comments(v030_to_v100: dict[str, Any]) -> None:
    moved = one(v030_to_v100["changes"], kind="class-changed", subject="TaskState.auth-required")
    assert (moved["old"], moved["new"]) == ("not-interrupted-or-terminal", "interrupted")
    assert {loc["source"] for loc in moved["locations"]} == {"grpc-proto@v0.3.0", "proto@v1.0.0"}


def test_fail_on_takes_a_level_per_encoding(real_kb_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def code(*flags: str) -> int:
        result = cli.main(["--root", str(real_kb_env), "diff", "0.2.5", "0.2.6", *flags])
        capsys.readouterr()
        return result

    assert code("--fail-on", "wire-breaking") == 1  # every HTTP+JSON client of 0.2.5 breaks
    assert code("--fail-on", "any=breaking") == 1
    assert code("--fail-on", "http=breaking") == 1
    assert code("--fail-on", "binary=breaking") == 0  # the bytes are the same
    assert code("--fail-on", "binary=breaking", "--fail-on", "protojson=breaking") == 1
    assert code("--fail-on", "http=fatal") == 2  # a usage error, not a pass


def test_every_pair_in_one_run(real_kb_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = run_json(real_kb_env, capsys, "--all")
    pairs = [(p["old"], p["new"]) for p in data["pairs"]]
    assert len(pairs) == 91 == len(set(pairs))  # 14 versions, every ordered pair once
    assert ("draft", "main") in pairs and ("0.3.0", "1.0.0") in pairs
    one_pair = next(p for p in data["pairs"] if (p["old"], p["new"]) == ("0.3.0", "1.0.0"))
    assert len(one_pair["changes"]) == len(run_json(real_kb_env, capsys, "0.3.0", "1.0.0")["changes"])
    assert cli.main(["--root", str(real_kb_env), "diff", "--all", "--out", str(tmp_path),
                     "--format", "markdown"]) == 0
    assert len(list(tmp_path.glob("*-to-*.md"))) == 91
    for argv in (["--all", "0.3.0", "1.0.0"], ["0.3.0"], ["0.3.0", "1.0.0", "--out", str(tmp_path)]):
        assert cli.main(["--root", str(real_kb_env), "diff", *argv]) == 2
    capsys.readouterr()


def test_what_json_schema_diff_found_the_diff_missing(real_kb_env: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Three kinds of JSON-RPC change json-schema-diff found and the diff graded compatible
    or did not report: a state added to a response (v0.1.0 → v0.2.0), an error message no
    longer pinned by `const` (the same pair), and null no longer accepted in a request
    (draft → v0.1.0). Each is breaking for an old client that validates what it is sent."""
    data = run_json(real_kb_env, capsys, "0.1.0", "0.2.0")
    added = one(data["changes"], kind="state-added", subject="TaskState.rejected")
    assert [(g["encoding"], g["level"], g["directions"]) for g in added["grades"]] == [
        ("jsonrpc", "breaking", ["old client → new server"])]
    released = one(data["changes"], kind="field-const-changed", subject="TaskNotFoundError.message")
    assert (released["old"], released["new"]) == ("Task not found", "any")
    assert released["grades"][0]["level"] == "breaking"
    assert "validates responses" in released["grades"][0]["why"]
    data = run_json(real_kb_env, capsys, "draft", "0.1.0")
    dropped = one(data["changes"], kind="field-null-changed", subject="TaskIdParams.metadata")
    assert dropped["grades"][0]["directions"] == ["old client → new server"]
    assert "request that carries it is refused" in dropped["grades"][0]["why"]
