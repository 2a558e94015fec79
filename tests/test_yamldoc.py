"""The strict YAML reader: values, marks, and the refusals that keep records safe."""

from __future__ import annotations

from a2a_kb.records import yamldoc


def parse(text: str | bytes) -> yamldoc.Document:
    return yamldoc.parse(text.encode() if isinstance(text, str) else text, "t.yaml")


def rules(doc: yamldoc.Document) -> list[str]:
    return [d.rule for d in doc.problems]


def test_values_and_marks() -> None:
    doc = parse("claims:\n  - id: a\n    versions: [0.3.0, v1.0.0]\n    n: 3\n    ok: true\n")
    assert doc.problems == []
    assert doc.value == {
        "claims": [{"id": "a", "versions": ["0.3.0", "v1.0.0"], "n": 3, "ok": True}]
    }
    assert (doc.marks["/claims/0/id"].line, doc.marks["/claims/0/id"].column) == (2, 5)
    assert doc.marks["/claims/0/versions/1"].line == 3
    assert doc.mark("/claims/0/nothing/here").line == 2  # falls back to the record


def test_dates_stay_text_so_the_validator_can_judge_them() -> None:
    doc = parse("reviewed: 2026-02-30\nother: 2026-01-01\n")
    assert doc.value == {"reviewed": "2026-02-30", "other": "2026-01-01"}


def test_quoted_numbers_stay_strings() -> None:
    assert parse("v: '1'\nw: 1\n").value == {"v": "1", "w": 1}


def test_anchors_and_aliases_are_refused_before_expansion() -> None:
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    doc = parse(bomb)
    assert doc.value is None
    assert rules(doc) == ["yaml-alias"]
    assert doc.problems[0].mark.line == 1


def test_duplicate_keys_are_reported_with_both_places() -> None:
    doc = parse("id: a\nstatement: x\nid: b\n")
    assert rules(doc) == ["duplicate-key"]
    assert doc.problems[0].mark.line == 3
    assert "first at line 1" in doc.problems[0].message


def test_tabs_non_utf8_and_empty_files() -> None:
    assert rules(parse("a:\n\t- b\n")) == ["yaml-syntax"]
    assert "tab" in parse("a:\n\t- b\n").problems[0].message
    bad = parse(b"# fine\nid: \xff\n")
    assert rules(bad) == ["encoding"] and bad.problems[0].mark.line == 2
    assert rules(parse("")) == ["empty-file"]
    assert rules(parse("# only a comment\n")) == ["empty-file"]


def test_custom_tags_are_refused() -> None:
    assert "yaml-tag" in rules(parse("a: !!python/object:os.system x\n"))


def test_deep_nesting_is_refused() -> None:
    deep = "a: " + "[" * 40 + "]" * 40 + "\n"
    assert "too-deep" in rules(parse(deep))


def test_size_limit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 100 + "\n")
    doc = yamldoc.read(path, "big.yaml", max_bytes=50)
    assert rules(doc) == ["file-too-large"]


def test_a_sentence_cut_by_a_comment_is_flagged() -> None:
    doc = parse("statement: pull request #126 was merged\nverdict: verified  # reviewed\nq: 'a #b'\n")
    assert doc.value["statement"] == "pull request"
    assert [(d.rule, d.severity.value, d.mark.line) for d in doc.problems] == [
        ("cut-by-comment", "warning", 1)
    ]
