// The task control room's state machine: a synthetic A2A task driven one active second at a
// time. This module never touches the DOM, the network or the clock, so node's test runner
// can exercise it directly (tests/simulator/) and the page (sim-ui.js) only wires it up.
//
// The rules are not typed in here. They come from the lifecycle document the site build
// emits at api/v1/lifecycle.json, so the simulator cannot disagree with the state table:
//
//   {
//     "schema_version": 1,
//     "generated_at": "2026-09-24T12:00:00Z",
//     "latest": "1.0.1",                      // id of the newest release; the default version
//     "versions": {
//       "1.0.1": {
//         "title": "v1.0.1",                  // what the version picker shows
//         "states": [                         // every state of the version, in source order
//           {"name": "submitted",             // canonical lowercase name (a2a_kb.facts)
//            "spelling": "TASK_STATE_SUBMITTED",
//            "class": "active",               // active | interrupted | terminal | unclassified
//            "description": "One sentence."},
//           ...
//         ],
//         "transitions": [{"from": "submitted", "to": "working"}, ...],
//         "terminal": ["completed", "failed", "canceled", "rejected"],
//         "interrupted": ["input-required", "auth-required"],
//         "has": {"auth-required": true, "rejected": true}   // optional; checked against states
//       },
//       "0.1.0": {...}
//     }
//   }
//
// What the simulated worker does is fixed here (accept or reject, work unit by unit, stop at
// the configured gates, fail or finish); whether each resulting move is allowed, and how each
// state is classified, is looked up in that document. A move the document does not list is
// refused with a SimulationRefusal instead of being made.

export const LIFECYCLE_SCHEMA_VERSION = 1;

const STATE_CLASSES = new Set(["active", "interrupted", "terminal", "unclassified"]);

// States the worker model cannot do without; the optional ones switch features on and off.
const REQUIRED_STATES = ["submitted", "working", "completed", "failed", "canceled"];

// Where each state the worker can end in must be terminal for follow-ups to make sense.
const ENDING_STATES = ["completed", "failed", "canceled", "rejected"];

/** The lifecycle document is unusable as a whole (wrong shape, wrong schema version). */
export class LifecycleDataError extends Error {
  constructor(problems) {
    super(`The lifecycle data is unusable: ${problems.join("; ")}`);
    this.name = "LifecycleDataError";
    this.problems = problems;
  }
}

/** An action the current state, the configuration or the lifecycle data does not allow. */
export class SimulationRefusal extends Error {
  constructor(code, message) {
    super(message);
    this.name = "SimulationRefusal";
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the lifecycle document

/**
 * Check the shape of the document and index each version for quick look-ups.
 *
 * Problems that concern one version only (a transition naming an unknown state, a missing
 * core state) are kept on that version as `problems`, so one bad old version does not take
 * the whole control room down; the picker shows it as unavailable with the reason.
 */
export function readLifecycle(document) {
  const problems = [];
  if (!isObject(document)) {
    throw new LifecycleDataError(["the document is not a JSON object"]);
  }
  if (document.schema_version !== LIFECYCLE_SCHEMA_VERSION) {
    problems.push(
      `schema_version is ${JSON.stringify(document.schema_version)}, ` +
        `this simulator reads ${LIFECYCLE_SCHEMA_VERSION}`,
    );
  }
  if (!isObject(document.versions) || Object.keys(document.versions).length === 0) {
    problems.push("versions is missing or empty");
  }
  if (problems.length > 0) throw new LifecycleDataError(problems);

  const versions = new Map();
  // The build writes the versions in version order (a2a_kb.records.kb.version_key: draft,
  // the releases with a prerelease before its release, then main); the simulator lists them
  // newest first, as every page of the site does, and sorts nothing itself.
  for (const id of Object.keys(document.versions).reverse()) {
    versions.set(id, readVersion(id, document.versions[id]));
  }
  const latest = typeof document.latest === "string" ? document.latest : "";
  if (!versions.has(latest)) {
    throw new LifecycleDataError([`latest names ${JSON.stringify(latest)}, which is not a version`]);
  }
  return Object.freeze({
    latest,
    generatedAt: String(document.generated_at ?? ""),
    versions,
  });
}

function readVersion(id, raw) {
  const problems = [];
  const states = new Map();
  const transitions = new Set();
  const record = isObject(raw) ? raw : {};
  if (!isObject(raw)) problems.push("the version entry is not an object");

  for (const [index, state] of asArray(record.states, "states", problems).entries()) {
    if (!isObject(state) || typeof state.name !== "string" || state.name === "") {
      problems.push(`states[${index}] has no name`);
      continue;
    }
    const stateClass = STATE_CLASSES.has(state.class) ? state.class : "unclassified";
    if (!STATE_CLASSES.has(state.class)) {
      problems.push(`state ${state.name} has an unknown class ${JSON.stringify(state.class)}`);
    }
    states.set(
      state.name,
      Object.freeze({
        name: state.name,
        spelling: typeof state.spelling === "string" ? state.spelling : state.name,
        class: stateClass,
        description: typeof state.description === "string" ? state.description : "",
      }),
    );
  }
  for (const [index, move] of asArray(record.transitions, "transitions", problems).entries()) {
    if (!isObject(move) || !states.has(move.from) || !states.has(move.to)) {
      problems.push(`transitions[${index}] names a state the version does not define`);
      continue;
    }
    transitions.add(transitionKey(move.from, move.to));
  }
  const terminal = new Set(asArray(record.terminal, "terminal", problems));
  const interrupted = new Set(asArray(record.interrupted, "interrupted", problems));
  for (const [name, state] of states) {
    if (terminal.has(name) !== (state.class === "terminal")) {
      problems.push(`state ${name} is classed ${state.class} but the terminal list disagrees`);
    }
    if (interrupted.has(name) !== (state.class === "interrupted")) {
      problems.push(`state ${name} is classed ${state.class} but the interrupted list disagrees`);
    }
  }
  for (const name of REQUIRED_STATES) {
    if (!states.has(name)) problems.push(`the ${name} state is missing`);
  }
  for (const name of ENDING_STATES) {
    if (states.has(name) && !terminal.has(name)) {
      problems.push(`${name} is not terminal, so a finished task could not be followed up`);
    }
  }
  if (isObject(record.has)) {
    for (const [name, flag] of Object.entries(record.has)) {
      if (Boolean(flag) !== states.has(name)) {
        problems.push(`has.${name} is ${flag} but the state list says otherwise`);
      }
    }
  }
  return Object.freeze({
    id,
    title: typeof record.title === "string" && record.title !== "" ? record.title : `v${id}`,
    states,
    transitions,
    terminal,
    interrupted,
    problems: Object.freeze(problems),
  });
}

function asArray(value, field, problems) {
  if (Array.isArray(value)) return value;
  problems.push(`${field} is not a list`);
  return [];
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function transitionKey(from, to) {
  return `${from}\u2192${to}`;
}

/** Whether the version's data lists a direct move from one state to another. */
export function allows(version, from, to) {
  return version.transitions.has(transitionKey(from, to));
}

/** The class the version gives a state ("unclassified" for a state it does not define). */
export function stateClass(version, name) {
  return version.states.get(name)?.class ?? "unclassified";
}

export function isTerminal(version, name) {
  return version.terminal.has(name);
}

// ---------------------------------------------------------------------------------------------
// What a version lets the worker do

// Each optional behaviour and the moves it needs; a version lacking one switches it off.
const FEATURE_MOVES = {
  inputGate: [
    ["working", "input-required"],
    ["input-required", "working"],
  ],
  authGate: [
    ["working", "auth-required"],
    ["auth-required", "working"],
  ],
  reject: [["submitted", "rejected"]],
  fail: [["working", "failed"]],
};

/**
 * Which optional behaviours a version supports, each with the reason when it does not:
 * `{inputGate, authGate, reject, fail}`, each `{available: boolean, reason: string}`.
 */
export function features(version) {
  const result = {};
  for (const [feature, moves] of Object.entries(FEATURE_MOVES)) {
    result[feature] = featureSupport(version, moves);
  }
  return Object.freeze(result);
}

function featureSupport(version, moves) {
  for (const [from, to] of moves) {
    for (const name of [from, to]) {
      if (!version.states.has(name)) {
        return { available: false, reason: `${version.title} has no ${name} state.` };
      }
    }
    if (!allows(version, from, to)) {
      return {
        available: false,
        reason: `${version.title} lists no transition ${from} \u2192 ${to}.`,
      };
    }
  }
  return { available: true, reason: "" };
}

/**
 * How `version` differs from `reference` (usually the latest release), as short sentences:
 * missing and extra states, class changes, and the simulator features that follow.
 */
export function describeDifferences(version, reference) {
  if (version.id === reference.id) return [];
  const notes = [];
  for (const [name] of reference.states) {
    if (!version.states.has(name)) {
      notes.push(`No ${name} state (${reference.title} has one).`);
    }
  }
  for (const [name, state] of version.states) {
    const other = reference.states.get(name);
    if (!other) {
      notes.push(
        `Has the state ${name} (${state.class}), which ${reference.title} lacks; ` +
          "this simulator never enters it.",
      );
    } else if (other.class !== state.class) {
      notes.push(`${name} is ${state.class} here but ${other.class} in ${reference.title}.`);
    }
  }
  const labels = {
    inputGate: "Require input before unit",
    authGate: "Require authorization before unit",
    reject: "Reject before execution",
    fail: "Fail during unit",
  };
  const own = features(version);
  for (const [feature, support] of Object.entries(own)) {
    if (!support.available) notes.push(`${labels[feature]} is unavailable: ${support.reason}`);
  }
  const lost = [...reference.transitions].filter((key) => !version.transitions.has(key));
  const gained = [...version.transitions].filter((key) => !reference.transitions.has(key));
  if (lost.length > 0 || gained.length > 0) {
    notes.push(
      `Transitions: ${lost.length} of ${reference.title}'s are missing here, ` +
        `${gained.length} are found only here.`,
    );
  }
  return notes;
}

// ---------------------------------------------------------------------------------------------
// Configuration and identifiers

export const DEFAULT_CONFIG = Object.freeze({
  workUnits: 4,
  secondsPerUnit: 2,
  inputBeforeUnit: 2,
  authBeforeUnit: 3,
  failDuringUnit: 0,
  rejectBeforeExecution: false,
  acceptsCancellation: true,
});

// Inclusive bounds of each numeric setting; gates may point past the last unit on purpose.
export const CONFIG_LIMITS = Object.freeze({
  workUnits: [1, 10],
  secondsPerUnit: [1, 10],
  inputBeforeUnit: [0, 20],
  authBeforeUnit: [0, 20],
  failDuringUnit: [0, 20],
});

/** Check a configuration against the limits and the version; returns a frozen copy. */
export function checkConfig(version, config) {
  const merged = { ...DEFAULT_CONFIG, ...config };
  for (const [key, [low, high]] of Object.entries(CONFIG_LIMITS)) {
    const value = merged[key];
    if (!Number.isInteger(value) || value < low || value > high) {
      throw new SimulationRefusal(
        "bad-config",
        `${key} must be a whole number from ${low} to ${high}, not ${JSON.stringify(value)}.`,
      );
    }
  }
  for (const key of ["rejectBeforeExecution", "acceptsCancellation"]) {
    if (typeof merged[key] !== "boolean") {
      throw new SimulationRefusal("bad-config", `${key} must be true or false.`);
    }
  }
  const support = features(version);
  const wanted = [
    ["inputGate", merged.inputBeforeUnit > 0],
    ["authGate", merged.authBeforeUnit > 0],
    ["reject", merged.rejectBeforeExecution],
    ["fail", merged.failDuringUnit > 0],
  ];
  for (const [feature, on] of wanted) {
    if (on && !support[feature].available) {
      throw new SimulationRefusal("unsupported", support[feature].reason);
    }
  }
  return Object.freeze(merged);
}

/** Active seconds of an uninterrupted run: one for admission, then every unit. */
export function plannedActiveSeconds(config) {
  return 1 + config.workUnits * config.secondsPerUnit;
}

/**
 * Hands out task and context ids from per-kind counters (task-1, task-2, context-1, …).
 * Deterministic on purpose: the page and the tests see the same ids for the same clicks.
 */
export function createIdSequence() {
  const counters = new Map();
  return {
    next(kind) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return `${kind}-${n}`;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Simulations
//
// A simulation is an immutable value: {version, config, records, cursor}. Each record is a
// snapshot of the task after one event (a step or an action). `cursor` is the record on view;
// it is the last one unless the reader seeked back. Acting on an earlier record cuts the
// later ones off first: that is how resuming from the past discards the later branch.

function freezeSnapshot(snapshot) {
  Object.freeze(snapshot.trace);
  Object.freeze(snapshot.referenceTaskIds);
  if (snapshot.artifact) Object.freeze(snapshot.artifact);
  return Object.freeze(snapshot);
}

function freezeSimulation(version, config, records, cursor) {
  return Object.freeze({ version, config, records: Object.freeze(records), cursor });
}

/** Start a task in a new context: the first record shows it submitted. */
export function createExperiment(version, config, ids) {
  if (version.problems.length > 0) {
    throw new SimulationRefusal(
      "bad-version",
      `${version.title} cannot be simulated: ${version.problems.join("; ")}`,
    );
  }
  const checked = checkConfig(version, config);
  const first = openTask(version, ids.taskId, ids.contextId, [], [
    traceEntry(0, "client", `Sent a message; the agent opened ${ids.taskId} in ${ids.contextId}.`),
  ]);
  return freezeSimulation(version, checked, [first], 0);
}

function openTask(version, taskId, contextId, referenceTaskIds, trace) {
  if (!version.states.has("submitted")) {
    throw new SimulationRefusal("not-in-data", `${version.title} has no submitted state.`);
  }
  return freezeSnapshot({
    taskId,
    contextId,
    referenceTaskIds,
    state: "submitted",
    clock: 0,
    completedUnits: 0,
    unitProgress: 0,
    inputSupplied: false,
    authGranted: false,
    artifact: null,
    outcome: "",
    trace,
    event: "submitted",
  });
}

function traceEntry(clock, actor, text, from = "", to = "") {
  return Object.freeze({ clock, actor, text, from, to });
}

/** The record on view. */
export function present(simulation) {
  return simulation.records[simulation.cursor];
}

/** Move the view to an earlier (or later) record without changing any record. */
export function seek(simulation, index) {
  if (!Number.isInteger(index) || index < 0 || index >= simulation.records.length) {
    throw new SimulationRefusal(
      "no-record",
      `There is no record ${index}; records run from 0 to ${simulation.records.length - 1}.`,
    );
  }
  return freezeSimulation(simulation.version, simulation.config, simulation.records, index);
}

/** How many records an action taken now would discard. */
export function laterRecords(simulation) {
  return simulation.records.length - 1 - simulation.cursor;
}

// Append the outcome of an event to the history as seen from the cursor.
function record(simulation, snapshot) {
  const kept = simulation.records.slice(0, simulation.cursor + 1);
  kept.push(freezeSnapshot(snapshot));
  return freezeSimulation(simulation.version, simulation.config, kept, kept.length - 1);
}

// Every state change goes through here, so no move can bypass the lifecycle data.
function move(simulation, snapshot, to, actor, text, changes = {}) {
  const { version } = simulation;
  if (!allows(version, snapshot.state, to)) {
    throw new SimulationRefusal(
      "not-in-data",
      `${version.title} lists no transition ${snapshot.state} \u2192 ${to}, so the simulator ` +
        "will not make it.",
    );
  }
  const next = { ...snapshot, ...changes, state: to, event: to };
  next.trace = [...snapshot.trace, traceEntry(next.clock, actor, text, snapshot.state, to)];
  return next;
}

function note(snapshot, actor, text, changes = {}) {
  const next = { ...snapshot, ...changes };
  next.trace = [...snapshot.trace, traceEntry(next.clock, actor, text)];
  return next;
}

// ---------------------------------------------------------------------------------------------
// What can be done now

const GATES = {
  "input-required": { flag: "inputSupplied", action: "Supply clarification" },
  "auth-required": { flag: "authGranted", action: "Authorize" },
};

function terminalReason(simulation, snapshot) {
  return (
    `${snapshot.taskId} is ${snapshot.state}, a terminal state in ` +
    `${simulation.version.title}: it never resumes. Use New follow-up task instead.`
  );
}

/**
 * Every action with whether it is possible now and, when it is not, why:
 * `{step, clarify, authorize, cancel, followUp}`, each `{enabled, reason}`.
 * The action functions run the same checks, so the page and the model cannot disagree.
 */
export function availability(simulation) {
  return Object.freeze({
    step: check(() => stepGuard(simulation)),
    clarify: check(() => gateGuard(simulation, "input-required")),
    authorize: check(() => gateGuard(simulation, "auth-required")),
    cancel: check(() => cancelGuard(simulation)),
    followUp: check(() => followUpGuard(simulation)),
  });
}

function check(guard) {
  try {
    guard();
    return { enabled: true, reason: "" };
  } catch (error) {
    if (error instanceof SimulationRefusal) return { enabled: false, reason: error.message };
    throw error;
  }
}

function stepGuard(simulation) {
  const snapshot = present(simulation);
  if (isTerminal(simulation.version, snapshot.state)) {
    throw new SimulationRefusal("terminal", terminalReason(simulation, snapshot));
  }
  const gate = GATES[snapshot.state];
  if (gate) {
    throw new SimulationRefusal(
      "waiting",
      `${snapshot.taskId} is waiting in ${snapshot.state}; time does not run until you use ` +
        `${gate.action}.`,
    );
  }
  if (snapshot.state !== "submitted" && snapshot.state !== "working") {
    throw new SimulationRefusal("idle", `The worker has nothing to do in ${snapshot.state}.`);
  }
}

function gateGuard(simulation, gateState) {
  const snapshot = present(simulation);
  const { version } = simulation;
  if (!version.states.has(gateState)) {
    throw new SimulationRefusal("not-in-data", `${version.title} has no ${gateState} state.`);
  }
  if (isTerminal(version, snapshot.state)) {
    throw new SimulationRefusal("terminal", terminalReason(simulation, snapshot));
  }
  if (snapshot.state !== gateState) {
    throw new SimulationRefusal(
      "wrong-state",
      `Only in ${gateState}; ${snapshot.taskId} is ${snapshot.state}.`,
    );
  }
}

function cancelGuard(simulation) {
  const snapshot = present(simulation);
  const { version, config } = simulation;
  if (isTerminal(version, snapshot.state)) {
    throw new SimulationRefusal(
      "terminal",
      `${snapshot.taskId} is already ${snapshot.state} (terminal); there is nothing to cancel.`,
    );
  }
  if (config.acceptsCancellation && !allows(version, snapshot.state, "canceled")) {
    throw new SimulationRefusal(
      "not-in-data",
      `${version.title} lists no transition ${snapshot.state} \u2192 canceled.`,
    );
  }
}

function followUpGuard(simulation) {
  const snapshot = present(simulation);
  if (!isTerminal(simulation.version, snapshot.state)) {
    throw new SimulationRefusal(
      "not-terminal",
      `Only after a terminal state; ${snapshot.taskId} is ${snapshot.state}.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Actions: each returns a new simulation or throws SimulationRefusal

/**
 * Advance one active second. Admission takes the first second and ends in working or
 * rejected. A step that reaches a gate stops there without spending the second, because
 * waiting is not active time.
 */
export function step(simulation) {
  stepGuard(simulation);
  const { config } = simulation;
  const snapshot = present(simulation);

  if (snapshot.state === "submitted") {
    const clock = snapshot.clock + 1;
    if (config.rejectBeforeExecution) {
      return record(
        simulation,
        move(simulation, snapshot, "rejected", "agent", "Rejected the task before doing any work.", {
          clock,
          outcome: "rejected before execution: no work was done",
        }),
      );
    }
    return record(
      simulation,
      move(simulation, snapshot, "working", "agent", "Accepted the task and started work.", {
        clock,
      }),
    );
  }

  const unit = snapshot.completedUnits + 1;
  if (snapshot.unitProgress === 0) {
    if (config.inputBeforeUnit === unit && !snapshot.inputSupplied) {
      return record(
        simulation,
        move(
          simulation,
          snapshot,
          "input-required",
          "agent",
          `Needs a clarification before unit ${unit}; paused.`,
        ),
      );
    }
    if (config.authBeforeUnit === unit && !snapshot.authGranted) {
      return record(
        simulation,
        move(
          simulation,
          snapshot,
          "auth-required",
          "agent",
          `Needs authorization before unit ${unit}; paused.`,
        ),
      );
    }
  }

  const clock = snapshot.clock + 1;
  const unitProgress = snapshot.unitProgress + 1;
  if (config.failDuringUnit === unit && unitProgress === failingSecond(config)) {
    return record(
      simulation,
      move(simulation, snapshot, "failed", "agent", `Failed during unit ${unit}.`, {
        clock,
        unitProgress,
        outcome: `failed during unit ${unit}; that unit does not count`,
      }),
    );
  }
  if (unitProgress < config.secondsPerUnit) {
    const progressed = { ...snapshot, clock, unitProgress, event: "working" };
    return record(simulation, progressed);
  }

  const completedUnits = unit;
  const finished = note(
    snapshot,
    "agent",
    `Finished unit ${unit} of ${config.workUnits}.`,
    { clock, unitProgress: 0, completedUnits, event: "working" },
  );
  if (completedUnits < config.workUnits) return record(simulation, finished);
  return record(
    simulation,
    move(
      simulation,
      finished,
      "completed",
      "agent",
      `Completed the task and attached the final artifact.`,
      {
        artifact: {
          name: "result",
          units: completedUnits,
          text: `${completedUnits} illustrative units from ${snapshot.taskId}`,
        },
        outcome: "completed: the final artifact is attached",
      },
    ),
  );
}

// A failing unit stops halfway through, so the reader sees it did not finish.
function failingSecond(config) {
  return Math.ceil(config.secondsPerUnit / 2);
}

function resumeGate(simulation, gateState, text) {
  gateGuard(simulation, gateState);
  const snapshot = present(simulation);
  const flag = GATES[gateState].flag;
  return record(
    simulation,
    move(simulation, snapshot, "working", "client", text, { [flag]: true }),
  );
}

/** Answer the input gate: input-required → working. */
export function supplyClarification(simulation) {
  return resumeGate(
    simulation,
    "input-required",
    "Supplied the clarification; the same task resumes.",
  );
}

/** Answer the authorization gate: auth-required → working. */
export function authorize(simulation) {
  return resumeGate(simulation, "auth-required", "Authorized the task; the same task resumes.");
}

/**
 * Ask the worker to stop. If the configuration says it refuses, the task keeps its state and
 * the refusal is recorded; if it accepts, the task ends canceled with no final artifact.
 */
export function requestCancellation(simulation) {
  cancelGuard(simulation);
  const snapshot = present(simulation);
  const asked = note(snapshot, "client", "Requested cancellation.");
  if (!simulation.config.acceptsCancellation) {
    return record(
      simulation,
      note(
        asked,
        "agent",
        `Refused the cancellation; ${snapshot.taskId} stays ${snapshot.state}.`,
        { event: `${snapshot.state} (cancellation refused)` },
      ),
    );
  }
  const units = snapshot.completedUnits;
  return record(
    simulation,
    move(simulation, asked, "canceled", "agent", "Accepted the cancellation and stopped.", {
      artifact: null,
      outcome:
        units > 0
          ? `canceled after ${units} completed unit(s); a canceled task has no final artifact`
          : "canceled before any unit completed",
    }),
  );
}

/**
 * Start a new task in the same context that references the finished one. Its history is
 * separate: the new simulation's records begin with the new task.
 */
export function startFollowUp(simulation, taskId) {
  followUpGuard(simulation);
  const previous = present(simulation);
  const first = openTask(simulation.version, taskId, previous.contextId, [previous.taskId], [
    traceEntry(
      0,
      "client",
      `Sent a follow-up in ${previous.contextId} referencing ${previous.taskId}; ` +
        `the agent opened ${taskId}.`,
    ),
  ]);
  return freezeSimulation(simulation.version, simulation.config, [first], 0);
}
