"""The SDK's own JSON-RPC server, run by uvicorn on 127.0.0.1 in a background thread.

The app is assembled the way the SDK's documentation assembles one: its JSON-RPC routes
around its default request handler and in-memory task store. The only setting that is not
a default is the request context builder, which is told to hand the agent the tasks a
message names in `referenceTaskIds` so the follow-up scenario can show what it saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from types import TracebackType

import uvicorn
from a2a.server.agent_execution import SimpleRequestContextBuilder
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

from ..errors import ConfigurationError
from .agent import ScriptedAgent
from .wire import LOCAL_HOST

RPC_PATH = "/"
_START_SECONDS = 10.0
# asyncio reports tasks the SDK left pending when they are collected; OpenTelemetry (when
# installed, the SDK traces through it) reports spans closed in the wrong context.
_SERVER_LOGGERS = ("a2a", "uvicorn", "sse_starlette", "asyncio", "opentelemetry")


def agent_card() -> AgentCard:
    return AgentCard(
        name="a2a-kb scripted agent",
        description="Plays fixed scripts so that every lifecycle path can be recorded.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url=f"http://{LOCAL_HOST}{RPC_PATH}", protocol_binding="JSONRPC",
                protocol_version="1.0",
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="script", name="script", description="Plays the script a message names.",
                tags=["capture"],
            )
        ],
    )


def build_app(agent: ScriptedAgent) -> Starlette:
    store = InMemoryTaskStore()
    handler = DefaultRequestHandler(
        agent_executor=agent,
        task_store=store,
        agent_card=agent_card(),
        request_context_builder=SimpleRequestContextBuilder(
            should_populate_referred_tasks=True, task_store=store
        ),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        agent.gates.bind(asyncio.get_running_loop())
        yield
        await handler.aclose()  # no agent task may outlive the server's loop

    return Starlette(routes=create_jsonrpc_routes(handler, rpc_url=RPC_PATH), lifespan=lifespan)


class ServerLog(logging.Handler):
    """Keeps what the SDK and uvicorn log during a run, instead of letting it reach stderr."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


@contextlib.contextmanager
def captured_server_log() -> Iterator[ServerLog]:
    """Route the server-side loggers into a ServerLog for the duration, then restore them."""
    log = ServerLog()
    saved: list[tuple[logging.Logger, bool, int]] = []
    for name in _SERVER_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.propagate, logger.level))
        logger.addHandler(log)
        logger.propagate = False
        if logger.level == logging.NOTSET or logger.level > logging.WARNING:
            logger.setLevel(logging.WARNING)
    try:
        yield log
    finally:
        for logger, propagate, level in saved:
            logger.removeHandler(log)
            logger.propagate = propagate
            logger.setLevel(level)


class LocalServer:
    """uvicorn serving `app` on a free port of 127.0.0.1 from a daemon thread."""

    def __init__(self, app: Starlette) -> None:
        self._server = uvicorn.Server(
            uvicorn.Config(
                app, log_config=None, access_log=False, lifespan="on",
                timeout_graceful_shutdown=2,
            )
        )
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://{LOCAL_HOST}:{self.port}{RPC_PATH}"

    def __enter__(self) -> LocalServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOCAL_HOST, 0))
        self.port = sock.getsockname()[1]
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]},
            name="a2a-kb-capture-server", daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + _START_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self._stop()
                raise ConfigurationError(
                    f"the SDK server did not start on {LOCAL_HOST}:{self.port} "
                    f"within {_START_SECONDS:.0f} s"
                )
            time.sleep(0.01)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop()

    def _stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=_START_SECONDS)
        # Collect now what the server's loop left behind, so whatever it reports on the way
        # out lands in this run's server log rather than on stderr at some later moment.
        gc.collect()
