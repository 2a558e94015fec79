"""Where each generated page and file lives in the site, and the anchors inside them.

One place for every path, so links between pages cannot disagree with the pages.
"""

from __future__ import annotations

import re

STATES_INDEX = "states/index.md"
TRANSITIONS = "transitions.md"
CONFLICTS = "conflicts.md"
VERSIONS_INDEX = "versions/index.md"
CLAIMS = "claims.md"
SOURCES = "sources.md"
OTHERS = "others.md"
PROPOSALS = "proposals.md"
API_INDEX = "api/index.md"
PYTHON_API = "reference/python.md"
SDK_MATRIX = "sdk/index.md"
CONFORMANCE = "conformance.md"
RELIABILITY = "quality/reliability.md"
PERFORMANCE = "quality/performance.md"
SITE_QUALITY = "quality/site.md"
STRUCTURE = "quality/structure.md"
API_DIR = "api/v1"
RECORD_SCHEMAS_DIR = "schemas"
MERMAID_JS = "assets/vendor/mermaid.min.js"
DIAGRAMS_JS = "assets/kb/diagrams.js"  # draws a page's diagrams with MERMAID_JS, when in view
# Search: the theme's page script fetches SEARCH_INDEX; the build leaves it the index's
# configuration only, and SEARCH_WORKER (beside the theme's worker, which it loads) fetches
# the documents from SEARCH_DOCUMENTS inside the worker, off the page's main thread.
SEARCH_INDEX = "search/search_index.json"
SEARCH_DOCUMENTS = "search/search_index.full.json"
SEARCH_WORKER = "assets/javascripts/workers/kb-search.js"


def state_table(version: str) -> str:
    return f"states/{version}.md"


def version_page(version: str) -> str:
    return f"versions/{version}.md"


def diff_page(old: str, new: str) -> str:
    return f"versions/{old}-to-{new}.md"


# The pages the site audit (tests/test_site_quality.py) holds to Lighthouse and axe-core: one of
# each kind a reader meets, with the Quality > Site quality page's name for it.
AUDITED_PAGES = (
    ("Home", "index.md"),
    ("State tables", STATES_INDEX),
    ("State table of v1.0.0", "states/1.0.0.md"),
    ("Conflicts", CONFLICTS),
    ("Claims", CLAIMS),
    ("Claims of one file (operations)", "claims/operations.md"),
    ("Task control room", "simulator.md"),
    ("Diff 0.3.0 → 1.0.0", "versions/0.3.0-to-1.0.0.md"),
    ("SDK behaviour matrix", SDK_MATRIX),
    ("Conformance matrix", CONFORMANCE),
    ("Python API", PYTHON_API),
)


def sdk_page(sdk: str) -> str:
    """The timeline of one SDK read from its source (`a2a-go`)."""
    return f"sdk/{_slug(sdk)}.md"


def capture_page(scenario: str) -> str:
    """The page of one capture transcript, by its build and scenario
    (`a2a-sdk-1.3.0/04-input-required`)."""
    return f"sdk/captures/{scenario}.md"


def api_file(name: str) -> str:
    return f"{API_DIR}/{name}.json"


def api_schema(name: str) -> str:
    return f"{API_DIR}/schemas/{name}.schema.json"


def claims_topic_page(topic: str) -> str:
    """The page that shows one claims file (`claims/cancellation.yaml`) in full: each claim
    with what its checks compared, version by version, and the lines they read."""
    return f"claims/{topic}.md"


def claim_topic(claim_file: str) -> str:
    """The topic a claim's file names: `claims/in-task-auth.yaml` → `in-task-auth`."""
    topic = re.sub(r"\.ya?ml$", "", claim_file.replace("\\", "/").rsplit("/", 1)[-1]) or "claims"
    return f"{topic}-claims" if topic == "index" else topic  # claims/index.md is the claims page


def claim_anchor(claim_id: str) -> str:
    """Claim ids are kebab-case already: the id is its own permanent anchor."""
    return claim_id


def conflict_anchor(conflict_id: str) -> str:
    return conflict_id.lower()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def source_anchor(source_id: str) -> str:
    return f"source-{_slug(source_id)}"


def state_anchor(state: str) -> str:
    return f"state-{_slug(state)}"


def behaviour_anchor(behaviour: str) -> str:
    """The matrix row of one SDK behaviour key (`stream-close-interrupted`)."""
    return f"behaviour-{_slug(behaviour)}"


def sdk_anchor(sdk: str) -> str:
    """The matrix column of one SDK (`a2a-python`)."""
    return f"sdk-{_slug(sdk)}"


def line_anchor(line: int) -> str:
    """One line of a capture transcript, numbered as in the file (GitHub's style)."""
    return f"L{line}"
