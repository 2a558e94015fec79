"""The capture kit's scripted agent inside the JSON-RPC server of an a2a-sdk 0.3 release.

The 0.3 line has other server classes and types than the 1.x line the main environment
holds, so this runs on its own: `.cache/sdk/a2a-sdk-0.3/bin/python` (the Makefile makes that
environment) runs this file, which imports nothing of a2a_kb. It plays the same scripts as
tooling/a2a_kb/capture/agent.py, with the 0.3 SDK's own TaskUpdater and event queue.

It listens on 127.0.0.1 only, on a port the OS gives, and prints ``LISTENING <port>`` once
ready, with the SDK release it runs. The runner opens a gate with POST /_capture/gates/<name>,
and before it resumes a task asks POST /_capture/settle/<taskId> to wait until the SDK has
released the task's previous run. Only that wait polls; the agent itself never sleeps.
An interrupted state is sent as the end of its stream (``final: true``), the way the 0.3
protocol tells a client that the agent now waits for it.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import socket
import sys
import uuid
from typing import Any

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext, SimpleRequestContextBuilder
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    Part,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a.utils import new_task
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

HOST = "127.0.0.1"
SETTLE_SECONDS = 5.0
INTERRUPTED = (TaskState.input_required, TaskState.auth_required)

_gates: dict[str, asyncio.Event] = {}


def gate(name: str) -> asyncio.Event:
    return _gates.setdefault(name, asyncio.Event())


def text(words: str) -> list[Part]:
    return [Part(root=TextPart(text=words))]


def script_of(words: str) -> tuple[str, dict[str, str]]:
    parts = words.split()
    if not parts or not parts[0].startswith("script:"):
        return "", {}
    return parts[0].removeprefix("script:"), dict(w.split("=", 1) for w in parts[1:] if "=" in w)


class ScriptedAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        u = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        current = context.current_task
        if current is not None and current.status.state in INTERRUPTED:
            await u.start_work()
            await u.add_artifact(text(f"resumed with: {context.get_user_input().strip()}"), name="answer")
            await u.complete()
            return
        if current is None and context.message is not None:
            await event_queue.enqueue_event(new_task(context.message))
        name, options = script_of(context.get_user_input().strip())
        play = getattr(self, "play_" + name.replace("-", "_"), None)
        if play is None:
            await u.reject(u.new_agent_message(text(f"unknown script {name!r}")))
            return
        await play(u, context, options)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        u = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await u.cancel(u.new_agent_message(text("stopped on request")))

    async def play_complete(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.add_artifact(text("done"), name="answer")
        await u.complete()

    async def play_gated(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await gate(o.get("gate", "")).wait()
        await u.add_artifact(text("done after the gate opened"), name="answer")
        await u.complete()

    async def play_chunks(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        chunk_of = str(uuid.uuid4())
        await u.add_artifact(text("first half, "), artifact_id=chunk_of, name="report")
        await u.add_artifact(text("second half"), artifact_id=chunk_of, name="report",
                             append=True, last_chunk=True)
        await u.complete()

    async def play_ask_input(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.requires_input(u.new_agent_message(text("which colour?")), final=True)

    async def play_ask_auth(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.requires_auth(u.new_agent_message(text("sign in to continue")), final=True)

    async def play_reject(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.reject(u.new_agent_message(text("this agent will not do that")))

    async def play_fail(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.add_artifact(text("first step done"), name="partial")
        await u.failed(u.new_agent_message(text("the second step failed")))

    async def play_raise(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.add_artifact(text("first step done"), name="partial")
        raise RuntimeError("scripted crash in the second step")

    async def play_hold(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await gate(f"never:{u.task_id}").wait()

    async def play_refer(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        named = list(c.message.reference_task_ids or []) if c.message is not None else []
        handed = [f"{t.id} ({t.status.state.value})" for t in c.related_tasks]
        said = (f"referenceTaskIds: {', '.join(named) or 'none'}; "
                f"tasks the SDK handed the agent: {', '.join(handed) or 'none'}")
        await u.add_artifact(text(said), name="answer")
        await u.complete()

    async def play_status_after_terminal(self, u: TaskUpdater, c: RequestContext, o: dict[str, str]) -> None:
        await u.start_work()
        await u.add_artifact(text("done"), name="answer")
        await u.complete()
        # TaskUpdater refuses an update after a terminal one, so the late status goes on the
        # queue directly, as a hand-written agent's would.
        await u.event_queue.enqueue_event(TaskStatusUpdateEvent(
            task_id=u.task_id, context_id=u.context_id, final=False,
            status=TaskStatus(state=TaskState.working, message=u.new_agent_message(text("still going"))),
        ))


def agent_card(port: int) -> AgentCard:
    return AgentCard(
        name="a2a-kb scripted agent",
        description="Plays fixed scripts so that every lifecycle path can be recorded.",
        url=f"http://{HOST}:{port}/",
        version="1.0.0",
        protocol_version="0.3.0",
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="script", name="script", description="Plays the script a message names.",
                           tags=["capture"])],
    )


async def open_gate(request: Request) -> Response:
    gate(request.path_params["name"]).set()
    return Response(status_code=204)


def settle_route(handler: DefaultRequestHandler) -> Route:
    """Wait until the handler has released a task's last run (bounded by SETTLE_SECONDS).

    The 0.3 handler releases a run in a background task after its reply is sent; a message
    that arrives before that taps the closing queue and gets -32603 with no message. The
    runner asks here before it resumes a task, so that the transcript does not depend on
    who wins that race. ``_running_agents`` is the handler's own registry of runs.
    """

    async def settle(request: Request) -> Response:
        task_id = request.path_params["task_id"]
        for _ in range(int(SETTLE_SECONDS / 0.01)):
            if task_id not in handler._running_agents:
                break
            await asyncio.sleep(0.01)
        return Response(status_code=204)

    return Route("/_capture/settle/{task_id}", settle, methods=["POST"])


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((HOST, 0))
    port = sock.getsockname()[1]
    store = InMemoryTaskStore()
    handler = DefaultRequestHandler(
        agent_executor=ScriptedAgent(), task_store=store,
        request_context_builder=SimpleRequestContextBuilder(should_populate_referred_tasks=True,
                                                            task_store=store),
    )
    app: Any = A2AStarletteApplication(agent_card=agent_card(port), http_handler=handler).build(rpc_url="/")
    app.router.routes.insert(0, Route("/_capture/gates/{name}", open_gate, methods=["POST"]))
    app.router.routes.insert(0, settle_route(handler))
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", access_log=False, lifespan="off"))
    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        print(f"LISTENING {port} {importlib.metadata.version('a2a-sdk')}", flush=True)

    server.startup = startup  # type: ignore[method-assign]
    server.run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
