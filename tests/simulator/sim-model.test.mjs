// Unit tests of the control room's state machine, without a browser: node --test tests/simulator/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import {
  LifecycleDataError,
  SimulationRefusal,
  authorize,
  availability,
  createExperiment,
  createIdSequence,
  describeDifferences,
  features,
  laterRecords,
  plannedActiveSeconds,
  present,
  readLifecycle,
  requestCancellation,
  seek,
  startFollowUp,
  step,
  supplyClarification,
} from "../../content/assets/simulator/sim-model.js";

const FIXTURE = JSON.parse(
  readFileSync(new URL("./lifecycle.fixture.json", import.meta.url), "utf8"),
);

// A fresh copy each time, so a test that edits the document cannot leak into another.
function fixtureDocument() {
  return structuredClone(FIXTURE);
}

function latestVersion(document = fixtureDocument()) {
  const lifecycle = readLifecycle(document);
  return lifecycle.versions.get(lifecycle.latest);
}

const NO_GATES = { inputBeforeUnit: 0, authBeforeUnit: 0 };

function experiment(config, version = latestVersion()) {
  return createExperiment(version, config, { taskId: "task-1", contextId: "context-1" });
}

// Step until the predicate holds for the record on view, or the worker cannot go on.
function stepUntil(simulation, done) {
  let current = simulation;
  for (let guard = 0; guard < 500; guard += 1) {
    if (done(present(current))) return current;
    if (!availability(current).step.enabled) return current;
    current = step(current);
  }
  throw new Error("the run did not settle in 500 steps");
}

function runToRest(simulation) {
  return stepUntil(simulation, () => false);
}

function refusalCode(action) {
  try {
    action();
  } catch (error) {
    if (error instanceof SimulationRefusal) return error.code;
    throw error;
  }
  return "";
}

describe("reading the lifecycle document", () => {
  it("indexes both fixture versions, newest first, with the latest named", () => {
    const lifecycle = readLifecycle(fixtureDocument());
    assert.equal(lifecycle.latest, "1.0.1");
    assert.deepEqual([...lifecycle.versions.keys()], ["1.0.1", "0.1.0"]);
    for (const version of lifecycle.versions.values()) assert.deepEqual(version.problems, []);
  });

  it("lists the versions newest first in the build's version order, a prerelease before its release", () => {
    const document = fixtureDocument();
    const [oldest, newest] = Object.keys(document.versions);
    const ordered = {};
    for (const id of ["draft", oldest, "1.0.0-rc", "1.0.0", newest, "main"]) {
      ordered[id] = document.versions[id === "draft" || id === "main" || id.startsWith("1.0.0") ? newest : id];
    }
    document.versions = ordered;
    const ids = [...readLifecycle(document).versions.keys()];
    assert.deepEqual(ids, ["main", newest, "1.0.0", "1.0.0-rc", oldest, "draft"]);
  });

  it("refuses a document of another schema version, naming the field", () => {
    const document = fixtureDocument();
    document.schema_version = 2;
    assert.throws(() => readLifecycle(document), (error) => {
      assert.ok(error instanceof LifecycleDataError);
      assert.match(error.message, /schema_version is 2/);
      return true;
    });
  });

  it("refuses a latest that names no version", () => {
    const document = fixtureDocument();
    document.latest = "9.9.9";
    assert.throws(() => readLifecycle(document), LifecycleDataError);
  });

  it("keeps per-version problems on the version and will not simulate it", () => {
    const document = fixtureDocument();
    document.versions["0.1.0"].transitions.push({ from: "working", to: "sleeping" });
    document.versions["0.1.0"].has["auth-required"] = true;
    const lifecycle = readLifecycle(document);
    const old = lifecycle.versions.get("0.1.0");
    assert.equal(old.problems.length, 2);
    assert.match(old.problems.join(" "), /transitions\[\d+\] names a state/);
    assert.match(old.problems.join(" "), /has\.auth-required/);
    assert.equal(
      refusalCode(() => experiment(NO_GATES, old)),
      "bad-version",
    );
    assert.deepEqual(lifecycle.versions.get("1.0.1").problems, []);
  });

  it("flags a class that disagrees with the terminal list", () => {
    const document = fixtureDocument();
    document.versions["1.0.1"].terminal = ["completed", "failed", "canceled"];
    const version = readLifecycle(document).versions.get("1.0.1");
    assert.match(version.problems.join(" "), /rejected is classed terminal/);
  });
});

describe("a run without interruptions", () => {
  it("completes with every unit, the final artifact and the planned active time", () => {
    const config = { ...NO_GATES, workUnits: 3, secondsPerUnit: 2 };
    const done = runToRest(experiment(config));
    const last = present(done);
    assert.equal(last.state, "completed");
    assert.equal(last.completedUnits, 3);
    assert.equal(last.artifact.units, 3);
    assert.equal(last.clock, plannedActiveSeconds(done.config));
    const moves = last.trace.filter((entry) => entry.to).map((entry) => entry.to);
    assert.deepEqual(moves, ["working", "completed"]);
  });

  it("never reaches a gate set past the last unit", () => {
    const done = runToRest(experiment({ workUnits: 2, inputBeforeUnit: 3, authBeforeUnit: 7 }));
    const states = done.records.map((snapshot) => snapshot.state);
    assert.equal(present(done).state, "completed");
    assert.ok(!states.includes("input-required") && !states.includes("auth-required"));
  });
});

describe("rejection versus failure", () => {
  it("reject before execution ends rejected with zero units and no artifact", () => {
    const done = runToRest(experiment({ ...NO_GATES, rejectBeforeExecution: true }));
    const last = present(done);
    assert.equal(last.state, "rejected");
    assert.equal(last.completedUnits, 0);
    assert.equal(last.artifact, null);
    assert.equal(last.clock, 1);
  });

  it("fail during unit 3 ends failed with two units and no artifact", () => {
    const done = runToRest(experiment({ ...NO_GATES, workUnits: 4, failDuringUnit: 3 }));
    const last = present(done);
    assert.equal(last.state, "failed");
    assert.equal(last.completedUnits, 2);
    assert.equal(last.artifact, null);
    assert.match(last.outcome, /unit 3/);
  });

  for (const [name, config] of [
    ["rejected", { ...NO_GATES, rejectBeforeExecution: true }],
    ["failed", { ...NO_GATES, failDuringUnit: 3 }],
  ]) {
    it(`a ${name} task never resumes: clarify, authorize, step and cancel are refused`, () => {
      const done = runToRest(experiment(config));
      assert.equal(present(done).state, name);
      assert.equal(refusalCode(() => supplyClarification(done)), "terminal");
      assert.equal(refusalCode(() => authorize(done)), "terminal");
      assert.equal(refusalCode(() => step(done)), "terminal");
      assert.equal(refusalCode(() => requestCancellation(done)), "terminal");
      const can = availability(done);
      assert.match(can.clarify.reason, /terminal state in v1\.0\.1: it never resumes/);
      assert.equal(can.followUp.enabled, true);
    });
  }
});

describe("follow-up tasks", () => {
  it("gets a new task id in the same context, references the old task, starts fresh", () => {
    const ids = createIdSequence();
    const version = latestVersion();
    const first = createExperiment(version, { ...NO_GATES, failDuringUnit: 1 }, {
      taskId: ids.next("task"),
      contextId: ids.next("context"),
    });
    const failed = runToRest(first);
    const followUp = startFollowUp(failed, ids.next("task"));
    const fresh = present(followUp);
    assert.equal(fresh.taskId, "task-2");
    assert.equal(fresh.contextId, "context-1");
    assert.deepEqual(fresh.referenceTaskIds, ["task-1"]);
    assert.equal(fresh.state, "submitted");
    assert.equal(followUp.records.length, 1);
    assert.match(fresh.trace[0].text, /referencing task-1/);
  });

  it("is refused before the task is terminal", () => {
    const working = step(experiment(NO_GATES));
    assert.equal(present(working).state, "working");
    assert.equal(refusalCode(() => startFollowUp(working, "task-2")), "not-terminal");
    assert.match(availability(working).followUp.reason, /Only after a terminal state/);
  });
});

describe("cancellation", () => {
  it("refused by the worker leaves the task working and records the refusal", () => {
    const config = { ...NO_GATES, acceptsCancellation: false };
    const working = stepUntil(experiment(config), (s) => s.completedUnits === 1);
    const after = requestCancellation(working);
    const last = present(after);
    assert.equal(last.state, "working");
    assert.equal(last.completedUnits, 1);
    assert.match(last.trace.at(-1).text, /Refused the cancellation/);
    assert.equal(present(runToRest(after)).state, "completed");
  });

  it("accepted ends canceled with no final artifact even after units finished", () => {
    const working = stepUntil(experiment(NO_GATES), (s) => s.completedUnits === 2);
    const canceled = requestCancellation(working);
    const last = present(canceled);
    assert.equal(last.state, "canceled");
    assert.equal(last.completedUnits, 2);
    assert.equal(last.artifact, null);
    assert.match(last.outcome, /no final artifact/);
    assert.equal(refusalCode(() => step(canceled)), "terminal");
  });

  it("accepted while waiting at a gate ends canceled too", () => {
    const waiting = stepUntil(experiment({ inputBeforeUnit: 1, authBeforeUnit: 0 }), (s) =>
      s.state === "input-required");
    assert.equal(present(requestCancellation(waiting)).state, "canceled");
  });
});

describe("gates", () => {
  it("the input gate pauses until Supply clarification; Authorize does not open it", () => {
    const config = { workUnits: 3, inputBeforeUnit: 2, authBeforeUnit: 0 };
    const waiting = stepUntil(experiment(config), (s) => s.state === "input-required");
    const snapshot = present(waiting);
    assert.equal(snapshot.completedUnits, 1);
    assert.equal(refusalCode(() => step(waiting)), "waiting");
    assert.equal(refusalCode(() => authorize(waiting)), "wrong-state");
    assert.match(availability(waiting).step.reason, /until you use Supply clarification/);
    const resumed = supplyClarification(waiting);
    assert.equal(present(resumed).state, "working");
    assert.equal(present(resumed).taskId, snapshot.taskId);
    assert.equal(present(resumed).clock, snapshot.clock, "waiting takes no active time");
    assert.equal(present(runToRest(resumed)).state, "completed");
  });

  it("the auth gate pauses until Authorize; Supply clarification does not open it", () => {
    const config = { workUnits: 3, inputBeforeUnit: 0, authBeforeUnit: 3 };
    const waiting = stepUntil(experiment(config), (s) => s.state === "auth-required");
    assert.equal(present(waiting).completedUnits, 2);
    assert.equal(refusalCode(() => step(waiting)), "waiting");
    assert.equal(refusalCode(() => supplyClarification(waiting)), "wrong-state");
    const resumed = authorize(waiting);
    assert.equal(present(resumed).state, "working");
    assert.equal(present(runToRest(resumed)).state, "completed");
  });

  it("two gates on the same unit ask for input first, then authorization", () => {
    const config = { workUnits: 2, inputBeforeUnit: 2, authBeforeUnit: 2 };
    const first = stepUntil(experiment(config), (s) => s.state === "input-required");
    const second = stepUntil(supplyClarification(first), (s) => s.state === "auth-required");
    assert.equal(present(second).completedUnits, 1);
    assert.equal(present(runToRest(authorize(second))).state, "completed");
  });
});

describe("recorded states", () => {
  it("seeking back and resuming discards the later branch", () => {
    const done = runToRest(experiment({ ...NO_GATES, workUnits: 3 }));
    assert.equal(present(done).state, "completed");
    const total = done.records.length;
    const index = done.records.findIndex((s) => s.completedUnits === 1);
    const back = seek(done, index);
    assert.equal(present(back).state, "working");
    assert.equal(back.records.length, total, "seeking alone keeps every record");
    assert.equal(laterRecords(back), total - 1 - index);

    const branched = requestCancellation(back);
    assert.equal(branched.records.length, index + 2);
    assert.equal(branched.cursor, index + 1);
    assert.equal(present(branched).state, "canceled");
    assert.ok(!branched.records.some((s) => s.state === "completed"));
    assert.equal(present(branched).artifact, null);
  });

  it("seeking to a record that does not exist is refused", () => {
    assert.equal(refusalCode(() => seek(experiment(NO_GATES), 3)), "no-record");
  });

  it("records are frozen: a snapshot cannot be edited in place", () => {
    const snapshot = present(step(experiment(NO_GATES)));
    assert.throws(() => {
      snapshot.state = "completed";
    }, TypeError);
  });
});

describe("the lifecycle data decides", () => {
  it("a transition missing from the data is refused, not made", () => {
    const document = fixtureDocument();
    const latest = document.versions["1.0.1"];
    latest.transitions = latest.transitions.filter(
      (t) => !(t.from === "working" && t.to === "completed"),
    );
    const version = latestVersion(document);
    const almost = stepUntil(experiment({ ...NO_GATES, workUnits: 1, secondsPerUnit: 1 }, version),
      (s) => s.state === "working");
    assert.throws(() => step(almost), (error) => {
      assert.ok(error instanceof SimulationRefusal);
      assert.equal(error.code, "not-in-data");
      assert.match(error.message, /no transition working → completed/);
      return true;
    });
  });

  it("cancellation is unavailable where the data has no move to canceled", () => {
    const document = fixtureDocument();
    const latest = document.versions["1.0.1"];
    latest.transitions = latest.transitions.filter((t) => t.to !== "canceled");
    const working = step(experiment(NO_GATES, latestVersion(document)));
    assert.equal(availability(working).cancel.enabled, false);
    assert.match(availability(working).cancel.reason, /no transition working → canceled/);
  });

  it("a configuration that needs a missing move is refused up front", () => {
    const document = fixtureDocument();
    const latest = document.versions["1.0.1"];
    latest.transitions = latest.transitions.filter((t) => t.to !== "failed");
    const version = latestVersion(document);
    assert.equal(refusalCode(() => experiment({ ...NO_GATES, failDuringUnit: 2 }, version)),
      "unsupported");
  });

  it("version 0.1.0 has no authorization gate and no rejection", () => {
    const old = readLifecycle(fixtureDocument()).versions.get("0.1.0");
    const support = features(old);
    assert.equal(support.authGate.available, false);
    assert.match(support.authGate.reason, /v0\.1\.0 has no auth-required state/);
    assert.equal(support.reject.available, false);
    assert.equal(support.inputGate.available, true);
    assert.equal(refusalCode(() => experiment({ authBeforeUnit: 2 }, old)), "unsupported");
    assert.equal(
      refusalCode(() => experiment({ ...NO_GATES, rejectBeforeExecution: true }, old)),
      "unsupported",
    );
    const run = runToRest(experiment({ inputBeforeUnit: 1, authBeforeUnit: 0 }, old));
    assert.equal(present(run).state, "input-required");
    assert.match(availability(run).authorize.reason, /v0\.1\.0 has no auth-required state/);
    assert.equal(present(runToRest(supplyClarification(run))).state, "completed");
  });

  it("the differences of 0.1.0 from the latest name the missing states", () => {
    const lifecycle = readLifecycle(fixtureDocument());
    const notes = describeDifferences(
      lifecycle.versions.get("0.1.0"),
      lifecycle.versions.get("1.0.1"),
    ).join("\n");
    assert.match(notes, /No auth-required state/);
    assert.match(notes, /No rejected state/);
    assert.match(notes, /Has the state unknown \(terminal\), which v1\.0\.1 lacks/);
    assert.match(notes, /Transitions: 6 of v1\.0\.1's are missing here, 0 are found only here/);
    assert.match(notes, /Require authorization before unit is unavailable/);
  });

  it("a gate state that the data leaves unclassified still pauses the task", () => {
    const document = fixtureDocument();
    const old = document.versions["0.1.0"];
    old.states.find((s) => s.name === "input-required").class = "unclassified";
    old.interrupted = [];
    const version = readLifecycle(document).versions.get("0.1.0");
    assert.deepEqual(version.problems, []);
    const waiting = runToRest(experiment({ inputBeforeUnit: 1, authBeforeUnit: 0 }, version));
    assert.equal(present(waiting).state, "input-required");
  });
});

describe("configuration and ids", () => {
  it("refuses numbers outside the limits, naming the setting", () => {
    assert.throws(() => experiment({ workUnits: 0 }), /workUnits must be a whole number from 1/);
    assert.throws(() => experiment({ secondsPerUnit: 1.5 }), /secondsPerUnit/);
  });

  it("hands out ids per kind from counters", () => {
    const ids = createIdSequence();
    assert.deepEqual(
      [ids.next("task"), ids.next("context"), ids.next("task")],
      ["task-1", "context-1", "task-2"],
    );
  });
});
