"""Capture kit: run the real A2A Python SDK through every lifecycle path, record the wire.

A scripted agent (:mod:`.agent`) runs inside the SDK's own JSON-RPC server (:mod:`.server`,
uvicorn on 127.0.0.1). Each scenario (:mod:`.scenarios`) drives it with raw JSON-RPC over
HTTP (:mod:`.wire`, through the recording :mod:`.session`), and its transcript
(:mod:`.transcript`) is normalized (:mod:`.normalize`) into a golden file under captures/.
:func:`run_captures` (:mod:`.runner`) writes the files, or compares them with ``check``.

Only this module and :mod:`.runner` import without the SDK installed; the rest need the
``sdk`` extra.

May import: the top-level modules and :mod:`a2a_kb.sources.cache` (atomic writes).
"""

from .runner import (
    SDK_PACKAGE,
    VARIANT_ENV,
    CaptureReport,
    ScenarioOutcome,
    run_captures,
    sdk_version,
)

__all__ = [
    "SDK_PACKAGE",
    "VARIANT_ENV",
    "CaptureReport",
    "ScenarioOutcome",
    "run_captures",
    "sdk_version",
]
