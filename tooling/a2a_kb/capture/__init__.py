"""Capture kit: run real A2A SDKs through every lifecycle path, record the wire.

Each SDK build (`builds`: a2a-sdk 1.3.0 in this process, an a2a-sdk 0.3 release in its
own environment, @a2a-js/sdk under Node) runs an equivalent scripted agent inside the SDK's
own JSON-RPC server on 127.0.0.1; the in-process one is `agent` in `server`.
Scenarios speak A2A 1.0 operations, and a `dialect` spells them for each protocol.
Each scenario (`scenarios`) drives it with raw JSON-RPC over HTTP (`wire`,
through the recording `session`), and its transcript (`transcript`) is
normalized (`normalize`) into a golden file under captures/<build>/.
`run_captures` (`runner`) writes the files, or compares them with `check`.

Only this module and `runner` import without the SDK installed; the rest need the
`sdk` extra.

May import: the top-level modules (the cache's atomic writes among them).
"""

from .builds import BUILDS, Build
from .runner import (
    SDK_PACKAGE,
    VARIANT_ENV,
    BuildRun,
    CaptureReport,
    ScenarioOutcome,
    run_captures,
    sdk_version,
)

__all__ = [
    "BUILDS",
    "SDK_PACKAGE",
    "VARIANT_ENV",
    "Build",
    "BuildRun",
    "CaptureReport",
    "ScenarioOutcome",
    "run_captures",
    "sdk_version",
]
