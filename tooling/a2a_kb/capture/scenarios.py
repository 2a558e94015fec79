"""The lifecycle paths the capture kit records, one small function each.

A scenario's name is its transcript's file name without `.http`; its title heads the
transcript. Each one starts its own tasks, so all of them can share one server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .session import TERMINAL, Session, task_ids

WORKING = {"working"}


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    play: Callable[[Session], None]

    @property
    def number(self) -> str:
        return self.name.split("-", 1)[0]


def blocking_complete(s: Session) -> None:
    s.send("script:complete")


def nonblocking_poll(s: Session) -> None:
    task_id, _ = task_ids(s.send("script:gated gate=02", return_immediately=True))
    s.poll_task(task_id, until=WORKING)
    s.open_gate("02")
    s.poll_task(task_id, until=TERMINAL)


def streaming(s: Session) -> None:
    s.read(s.stream_message("script:chunks"))


def input_required(s: Session) -> None:
    first = s.read(s.stream_message("script:ask-input"))
    task_id, context_id = task_ids(first[0]) if first else ("", "")
    s.read(s.stream_message("blue", task_id=task_id, context_id=context_id))


def auth_required(s: Session) -> None:
    first = s.read(s.stream_message("script:ask-auth"))
    task_id, context_id = task_ids(first[0]) if first else ("", "")
    s.send("credentials: token-123", task_id=task_id, context_id=context_id)


def blocking_input_required(s: Session) -> None:
    task_id, context_id = task_ids(s.send("script:ask-input"))
    s.send("blue", task_id=task_id, context_id=context_id)


def rejected(s: Session) -> None:
    s.send("script:reject")


def failed_reported(s: Session) -> None:
    events = s.read(s.stream_message("script:fail"))
    s.get_task(task_ids(events[0])[0] if events else "")


def failed_raises(s: Session) -> None:
    events = s.read(s.stream_message("script:raise"))
    s.get_task(task_ids(events[0])[0] if events else "")
    # The client names the context, so the task can be found even if the reply names none.
    reply = s.send("script:raise", context_id="client-context-08")
    task_id = task_ids(reply)[0]
    if not task_id and not s.supports("ListTasks"):
        s.note(f"the reply names no task, and protocol {s.dialect.version} has no ListTasks to find it")
        return
    if not task_id:
        listing = s.call("ListTasks", {"contextId": "client-context-08"})
        tasks = listing.get("result", {}).get("tasks", []) if isinstance(listing, dict) else []
        task_id = tasks[0]["id"] if tasks else ""
    s.get_task(task_id)


def cancel_working(s: Session) -> None:
    stream = s.stream_message("script:hold")
    events = s.read(stream, 2)  # the task, then its move to working
    task_id = task_ids(events[0])[0] if events else ""
    s.cancel_task(task_id)
    s.read(stream)
    s.get_task(task_id)


def cancel_completed(s: Session) -> None:
    task_id, _ = task_ids(s.send("script:complete"))
    s.cancel_task(task_id)
    s.get_task(task_id)


def message_to_completed(s: Session) -> None:
    task_id, context_id = task_ids(s.send("script:complete"))
    s.send("one more thing", task_id=task_id, context_id=context_id)
    s.read(s.stream_message("one more thing", task_id=task_id, context_id=context_id))
    s.get_task(task_id)


def subscribe_completed(s: Session) -> None:
    task_id, _ = task_ids(s.send("script:complete"))
    s.read(s.stream("SubscribeToTask", {"id": task_id}))


def subscribe_input_required(s: Session) -> None:
    first = s.read(s.stream_message("script:ask-input"))
    task_id, context_id = task_ids(first[0]) if first else ("", "")
    subscription = s.stream("SubscribeToTask", {"id": task_id})
    s.read(subscription, 1)
    s.note("the subscription is still open; the answer goes in on a second connection")
    s.send("blue", task_id=task_id, context_id=context_id)
    s.read(subscription)


def follow_up_reference(s: Session) -> None:
    task_id, context_id = task_ids(s.send("script:complete"))
    s.send("script:refer", context_id=context_id, reference_task_ids=[task_id])


def status_after_terminal(s: Session) -> None:
    events = s.read(s.stream_message("script:status-after-terminal"))
    s.get_task(task_ids(events[0])[0] if events else "")


# --- the points the suite tests and the first captures left open ---------------------------


def context_generated(s: Session) -> None:
    s.send("script:complete")
    s.send("script:complete", context_id="client-context-17")


def context_inferred(s: Session) -> None:
    task_id, _ = task_ids(s.send("script:ask-input"))
    s.send("blue", task_id=task_id)


def context_mismatch(s: Session) -> None:
    task_id, _ = task_ids(s.send("script:ask-input"))
    s.send("blue", task_id=task_id, context_id="client-context-19")
    s.get_task(task_id)


def unknown_task(s: Session) -> None:
    s.get_task("no-such-task")
    s.cancel_task("no-such-task")
    s.read(s.stream("SubscribeToTask", {"id": "no-such-task"}))
    s.send("hello", task_id="no-such-task")


def history_length(s: Session) -> None:
    task_id, context_id = task_ids(s.send("script:ask-input"))
    s.send("blue", task_id=task_id, context_id=context_id)
    s.get_task(task_id)
    s.get_task(task_id, history_length=0)
    s.get_task(task_id, history_length=1)


def cancel_input_required(s: Session) -> None:
    task_id, _ = task_ids(s.send("script:ask-input"))
    s.cancel_task(task_id)
    s.get_task(task_id)


def cancel_twice(s: Session) -> None:
    stream = s.stream_message("script:hold")
    events = s.read(stream, 2)
    task_id = task_ids(events[0])[0] if events else ""
    s.cancel_task(task_id)
    s.read(stream)
    s.cancel_task(task_id)
    s.get_task(task_id)


def two_subscribers(s: Session) -> None:
    task_id, context_id = task_ids(s.send("script:ask-input"))
    first = s.stream("SubscribeToTask", {"id": task_id})
    second = s.stream("SubscribeToTask", {"id": task_id})
    s.read(first, 1)
    s.read(second, 1)
    s.note("both subscriptions are open; the answer goes in on a third connection")
    s.send("blue", task_id=task_id, context_id=context_id)
    s.read(first)
    s.read(second)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("01-blocking-complete", "Blocking SendMessage; the agent completes with an artifact.",
             blocking_complete),
    Scenario("02-nonblocking-poll",
             "SendMessage with returnImmediately, then GetTask polls while the agent works.",
             nonblocking_poll),
    Scenario("03-streaming", "SendStreamingMessage; an artifact arrives in two chunks.", streaming),
    Scenario("04-input-required",
             "The agent asks for input; the client answers on the same taskId and contextId.",
             input_required),
    Scenario("05-auth-required",
             "The agent asks for auth (streamed); the client resumes with a blocking SendMessage.",
             auth_required),
    Scenario("06-rejected", "The agent rejects the task before doing any work.", rejected),
    Scenario("07-failed-reported",
             "The agent does some work, then reports failure itself.", failed_reported),
    Scenario("08-failed-raises",
             "The agent does some work, then raises (streamed, then blocking).", failed_raises),
    Scenario("09-cancel-working", "CancelTask while the agent is working; the stream is open.",
             cancel_working),
    Scenario("10-cancel-completed", "CancelTask on a task that has completed.", cancel_completed),
    Scenario("11-message-to-completed",
             "A message (blocking, then streaming) to a task that has completed.",
             message_to_completed),
    Scenario("12-subscribe-completed", "SubscribeToTask on a task that has completed.",
             subscribe_completed),
    Scenario("13-subscribe-input-required",
             "SubscribeToTask on a task waiting for input, then the input arrives.",
             subscribe_input_required),
    Scenario("14-follow-up-reference",
             "A new task in the same context that names the first in referenceTaskIds.",
             follow_up_reference),
    Scenario("15-status-after-terminal",
             "The agent puts a working status on the queue after completing.",
             status_after_terminal),
    Scenario("16-blocking-input-required",
             "Blocking SendMessage to an agent that asks for input, then a blocking answer.",
             blocking_input_required),
    Scenario("17-context-generated",
             "A message without a contextId, then one with a contextId the client chose.",
             context_generated),
    Scenario("18-context-inferred",
             "The answer to a task waiting for input names its taskId only, no contextId.",
             context_inferred),
    Scenario("19-context-mismatch",
             "The answer to a task waiting for input names its taskId with another contextId.",
             context_mismatch),
    Scenario("20-unknown-task",
             "GetTask, CancelTask, SubscribeToTask and a message on a taskId that does not exist.",
             unknown_task),
    Scenario("21-history-length",
             "GetTask on a finished two-turn task: all history, historyLength 0, historyLength 1.",
             history_length),
    Scenario("22-cancel-input-required", "CancelTask on a task waiting for input.",
             cancel_input_required),
    Scenario("23-cancel-twice", "CancelTask on a working task, then again once it is canceled.",
             cancel_twice),
    Scenario("24-two-subscribers",
             "Two SubscribeToTask streams on a task waiting for input, then the input arrives.",
             two_subscribers),
)


def select(only: list[str] | None) -> tuple[list[Scenario], list[str]]:
    """The scenarios named by `only` (full names or their numbers), and unknown names."""
    if not only:
        return list(SCENARIOS), []
    chosen: list[Scenario] = []
    unknown: list[str] = []
    for wanted in only:
        match = [sc for sc in SCENARIOS if wanted in (sc.name, sc.number)]
        if match:
            chosen.extend(sc for sc in match if sc not in chosen)
        else:
            unknown.append(wanted)
    return [sc for sc in SCENARIOS if sc in chosen], unknown
