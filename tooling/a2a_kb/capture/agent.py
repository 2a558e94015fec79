"""The scripted agent the capture scenarios drive: an SDK `AgentExecutor` with set moves.

The first text part of a new task's message names a script (`script:complete`,
`script:ask-input` …); the agent plays it with the SDK's own `TaskUpdater` and event
queue, so everything on the wire is what the SDK makes of a real agent's events. A task
that is waiting for input or for auth resumes with the same moves whatever its script:
working, one artifact that echoes the answer, completed.

Nothing here sleeps. Where a scenario needs the agent to hold still (a task that must
still be working when the client polls or cancels it), the agent waits on a named
`Gates` gate that the runner opens from its own thread, or on a gate nobody opens.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Awaitable, Callable

from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import Message, TaskState, TaskStatus, TaskStatusUpdateEvent

from ..errors import ConfigurationError

STANDARD = "standard"
# Instead of returning at input-required, the agent goes on and completes the task without
# the answer. It exists only to show that `capture --check` notices a behaviour change.
CONTINUE_AFTER_INPUT_REQUIRED = "continue-after-input-required"
VARIANTS = (STANDARD, CONTINUE_AFTER_INPUT_REQUIRED)

_INTERRUPTED = (TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED)

Play = Callable[[TaskUpdater, RequestContext, dict[str, str]], Awaitable[None]]


class Gates:
    """Named one-shot gates: the agent waits on one, the runner opens it from another thread.

    The events live on the server's event loop (asyncio events are not thread-safe), so
    `open` hands the work to that loop instead of touching an event itself.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._events: dict[str, asyncio.Event] = {}
        self._guard = threading.Lock()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Attach the gates to the server's loop (called once the server is up)."""
        with self._guard:
            self._loop = loop

    def _event(self, name: str) -> asyncio.Event:
        # Runs on the server loop only, so creation never races.
        return self._events.setdefault(name, asyncio.Event())

    async def wait(self, name: str) -> None:
        await self._event(name).wait()

    def open(self, name: str) -> None:
        with self._guard:
            loop = self._loop
        if loop is None:
            raise ConfigurationError("the capture server is not running, so no gate can open")
        loop.call_soon_threadsafe(lambda: self._event(name).set())


def _text(context: RequestContext) -> str:
    return context.get_user_input().strip()


def script_of(text: str) -> tuple[str, dict[str, str]]:
    """The script a message names, and its options.

    Examples:
        >>> script_of("script:gated gate=02")
        ('gated', {'gate': '02'})
        >>> script_of("blue")
        ('', {})
    """
    words = text.split()
    if not words or not words[0].startswith("script:"):
        return "", {}
    options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    return words[0].removeprefix("script:"), options


def _say(updater: TaskUpdater, text: str) -> Message:
    return updater.new_agent_message([new_text_part(text)])


async def _answer(updater: TaskUpdater, text: str, name: str = "answer") -> None:
    await updater.add_artifact([new_text_part(text)], name=name)


class ScriptedAgent(AgentExecutor):
    """An agent whose every move is fixed by the script its task was started with."""

    def __init__(self, gates: Gates, variant: str = STANDARD) -> None:
        if variant not in VARIANTS:
            raise ConfigurationError(
                f"unknown scripted-agent variant {variant!r} (tip: one of {', '.join(VARIANTS)})"
            )
        self.gates = gates
        self.variant = variant
        self._plays: dict[str, Play] = {
            "complete": self._complete,
            "gated": self._gated,
            "chunks": self._chunks,
            "ask-input": self._ask_input,
            "ask-auth": self._ask_auth,
            "reject": self._reject,
            "fail": self._fail,
            "raise": self._raise,
            "hold": self._hold,
            "refer": self._refer,
            "status-after-terminal": self._status_after_terminal,
        }

    # the executor interface -------------------------------------------------------------

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        current = context.current_task
        if current is not None and current.status.state in _INTERRUPTED:
            await self._resume(updater, context)
            return
        if current is None and context.message is not None:
            # The SDK wants the Task itself before any status update of a new task.
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        name, options = script_of(_text(context))
        play = self._plays.get(name)
        if play is None:
            await updater.reject(_say(updater, f"unknown script {name!r}"))
            return
        await play(updater, context, options)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel(_say(updater, "stopped on request"))

    # scripts ------------------------------------------------------------------------------

    async def _complete(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await _answer(u, "done")
        await u.complete()

    async def _gated(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await self.gates.wait(o.get("gate", ""))
        await _answer(u, "done after the gate opened")
        await u.complete()

    async def _chunks(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        # The agent picks the id itself, as the second chunk must name the first one's.
        chunk_of = str(uuid.uuid4())
        await u.add_artifact([new_text_part("first half, ")], artifact_id=chunk_of, name="report")
        await u.add_artifact(
            [new_text_part("second half")], artifact_id=chunk_of, name="report",
            append=True, last_chunk=True,
        )
        await u.complete()

    async def _ask_input(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.requires_input(_say(u, "which colour?"))
        if self.variant == CONTINUE_AFTER_INPUT_REQUIRED:
            await u.start_work()
            await _answer(u, "went on without an answer")
            await u.complete()

    async def _ask_auth(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.requires_auth(_say(u, "sign in to continue"))

    async def _resume(self, u: TaskUpdater, c: RequestContext) -> None:
        await u.start_work()
        await _answer(u, f"resumed with: {_text(c)}")
        await u.complete()

    async def _reject(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.reject(_say(u, "this agent will not do that"))

    async def _fail(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await _answer(u, "first step done", name="partial")
        await u.failed(_say(u, "the second step failed"))

    async def _raise(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await _answer(u, "first step done", name="partial")
        raise RuntimeError("scripted crash in the second step")

    async def _hold(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        # A gate nobody opens: the task stays working until it is canceled.
        await self.gates.wait(f"never:{u.task_id}")

    async def _refer(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        named = list(c.message.reference_task_ids) if c.message is not None else []
        handed = [f"{t.id} ({TaskState.Name(t.status.state)})" for t in c.related_tasks]
        await _answer(
            u,
            f"referenceTaskIds: {', '.join(named) or 'none'}; "
            f"tasks the SDK handed the agent: {', '.join(handed) or 'none'}",
        )
        await u.complete()

    async def _status_after_terminal(
        self, u: TaskUpdater, c: RequestContext, o: dict[str, str]
    ) -> None:
        await u.start_work()
        await _answer(u, "done")
        await u.complete()
        # TaskUpdater itself refuses any update after a terminal one (RuntimeError), so the
        # late status goes straight onto the SDK's event queue, as a hand-written agent's
        # would.
        late = TaskStatusUpdateEvent(
            task_id=u.task_id,
            context_id=u.context_id,
            status=TaskStatus(state=TaskState.TASK_STATE_WORKING, message=_say(u, "still going")),
        )
        await u.event_queue.enqueue_event(late)
