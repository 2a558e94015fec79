// Wires the control room's markup (content/simulator.md) to the state machine in
// sim-model.js. Everything the reader sees is computed from the model's simulation value;
// this module only reads the form, schedules Play's ticks and writes text into the page.
// KB text is always written with textContent, never parsed as HTML.

import {
  CONFIG_LIMITS,
  SimulationRefusal,
  authorize,
  availability,
  createExperiment,
  createIdSequence,
  describeDifferences,
  features,
  isTerminal,
  laterRecords,
  plannedActiveSeconds,
  present,
  readLifecycle,
  requestCancellation,
  seek,
  startFollowUp,
  stateClass,
  step,
  supplyClarification,
} from "./sim-model.js";

// At 1×, Play spreads the planned active path over this many milliseconds.
const PLAY_SPAN_MS = 60_000;

const GATE_ACTIONS = {
  "input-required": "Supply clarification",
  "auth-required": "Authorize",
};

/** Load the lifecycle data named by the root's data-api attribute and start the room. */
export async function mount(root) {
  if (root.dataset.simMounted) return;
  root.dataset.simMounted = "true";
  const notice = root.querySelector("[data-sim-notice]");
  const address = new URL(root.dataset.api, document.baseURI);
  let lifecycle;
  try {
    const response = await fetch(address);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    lifecycle = readLifecycle(await response.json());
  } catch (error) {
    notice.textContent =
      `The control room could not load its lifecycle data from ${address.pathname} ` +
      `(${error.message}). It needs the api/v1/lifecycle.json file the site build writes.`;
    return;
  }
  notice.hidden = true;
  const room = new ControlRoom(root, lifecycle);
  root.querySelector("[data-sim-room]").hidden = false;
  room.start("Control room ready.");
}

class ControlRoom {
  constructor(root, lifecycle) {
    this.root = root;
    this.lifecycle = lifecycle;
    this.version = lifecycle.versions.get(lifecycle.latest);
    this.ids = createIdSequence();
    this.simulation = null;
    this.timer = null;
    this.problem = "";
    this.remembered = new Map();

    this.versionPicker = root.querySelector("[data-sim-version]");
    this.speedPicker = root.querySelector("[data-sim-speed]");
    this.status = root.querySelector("[data-sim-status]");
    this.settings = [...root.querySelectorAll("[data-sim-setting]")];

    this.fillVersionPicker();
    this.versionPicker.addEventListener("change", () => {
      this.version = this.lifecycle.versions.get(this.versionPicker.value);
      this.start(`Switched to ${this.version.title}.`);
    });
    for (const input of this.settings) {
      input.addEventListener("change", () => this.start("Configuration changed."));
    }
    this.speedPicker.addEventListener("change", () => {
      if (this.timer !== null) this.schedule();
    });
    for (const button of root.querySelectorAll("[data-sim-action]")) {
      button.addEventListener("click", () => {
        if (button.getAttribute("aria-disabled") === "true") return;
        this.act(button.dataset.simAction);
      });
    }
    root.querySelector("[data-sim-records]").addEventListener("click", (event) => {
      const button = event.target.closest("[data-sim-record]");
      if (button) this.revisit(Number(button.dataset.simRecord));
    });
  }

  fillVersionPicker() {
    for (const version of this.lifecycle.versions.values()) {
      const option = document.createElement("option");
      option.value = version.id;
      const latest = version.id === this.lifecycle.latest ? " (latest)" : "";
      option.textContent = `${version.title}${latest}`;
      if (version.problems.length > 0) {
        option.disabled = true;
        option.textContent += " (data incomplete)";
        option.title = version.problems.join("; ");
      }
      this.versionPicker.append(option);
    }
    this.versionPicker.value = this.version.id;
  }

  // A fresh experiment: new ids, the form's configuration, the picked version.
  start(reason) {
    this.stop();
    this.applyFeatures();
    const config = this.readConfig();
    if (config === null) return;
    try {
      this.simulation = createExperiment(this.version, config, {
        taskId: this.ids.next("task"),
        contextId: this.ids.next("context"),
      });
      this.problem = "";
    } catch (error) {
      if (!(error instanceof SimulationRefusal)) throw error;
      this.simulation = null;
      this.problem = error.message;
    }
    this.render();
    const snapshot = this.simulation && present(this.simulation);
    this.announce(
      snapshot
        ? `${reason} Fresh experiment: ${snapshot.taskId} submitted in ${snapshot.contextId}.`
        : this.problem,
    );
  }

  // Switch off the settings the picked version cannot simulate, and say why beside them.
  applyFeatures() {
    const support = features(this.version);
    for (const input of this.root.querySelectorAll("[data-sim-feature]")) {
      const feature = support[input.dataset.simFeature];
      const why = this.root.querySelector(`[data-sim-why="${input.dataset.simFeature}"]`);
      const key = input.dataset.simSetting;
      if (!feature.available && !input.disabled) {
        this.remembered.set(key, input.type === "checkbox" ? input.checked : input.value);
        if (input.type === "checkbox") input.checked = false;
        else input.value = "0";
      } else if (feature.available && input.disabled && this.remembered.has(key)) {
        if (input.type === "checkbox") input.checked = this.remembered.get(key);
        else input.value = this.remembered.get(key);
        this.remembered.delete(key);
      }
      input.disabled = !feature.available;
      why.textContent = feature.available ? "" : `${feature.reason} Off for this version.`;
    }
  }

  readConfig() {
    const config = {};
    const problems = [];
    for (const input of this.settings) {
      const key = input.dataset.simSetting;
      if (input.type === "checkbox") {
        config[key] = input.checked;
        continue;
      }
      const [low, high] = CONFIG_LIMITS[key];
      const value = input.value.trim() === "" ? Number.NaN : Number(input.value);
      const valid = Number.isInteger(value) && value >= low && value <= high;
      input.setAttribute("aria-invalid", valid ? "false" : "true");
      if (valid) config[key] = value;
      else problems.push(`${labelOf(input)} must be a whole number from ${low} to ${high}.`);
    }
    if (problems.length === 0) return config;
    this.simulation = null;
    this.problem = `${problems.join(" ")} The experiment waits until the settings are valid.`;
    this.render();
    this.announce(this.problem);
    return null;
  }

  act(action) {
    if (action === "play") return this.play();
    if (action === "pause") return this.pause();
    if (action === "restart") return this.start("Restarted.");
    this.stop();
    this.apply(action);
  }

  // Run one model action, keep the result, and tell the reader what changed.
  apply(action) {
    const before = present(this.simulation);
    const discarded = laterRecords(this.simulation);
    const actions = {
      step: (s) => step(s),
      clarify: (s) => supplyClarification(s),
      authorize: (s) => authorize(s),
      cancel: (s) => requestCancellation(s),
      followUp: (s) => startFollowUp(s, this.ids.next("task")),
    };
    try {
      this.simulation = actions[action](this.simulation);
      this.problem = "";
    } catch (error) {
      if (!(error instanceof SimulationRefusal)) throw error;
      this.stop();
      this.problem = error.message;
      this.render();
      this.announce(error.message);
      return false;
    }
    this.render();
    const after = present(this.simulation);
    const parts = [];
    if (discarded > 0 && action !== "followUp") {
      parts.push(`Discarded ${discarded} later record(s).`);
    }
    if (after.taskId !== before.taskId) {
      parts.push(
        `New task ${after.taskId} in ${after.contextId}, referencing ${before.taskId}: submitted.`,
      );
    } else if (after.state !== before.state) {
      parts.push(this.describeState(after));
    } else if (action === "cancel") {
      parts.push(`The worker refused cancellation; ${after.taskId} stays ${after.state}.`);
    }
    if (parts.length > 0) this.announce(parts.join(" "));
    return true;
  }

  describeState(snapshot) {
    const { version } = this.simulation;
    const cls = stateClass(version, snapshot.state);
    let text = `${snapshot.taskId} is now ${snapshot.state} (${cls}).`;
    if (GATE_ACTIONS[snapshot.state]) text += ` Waiting for ${GATE_ACTIONS[snapshot.state]}.`;
    if (isTerminal(version, snapshot.state)) text += " It will not resume.";
    return text;
  }

  play() {
    if (!this.simulation || !availability(this.simulation).step.enabled) return;
    this.announce(`Playing at ${this.speedPicker.value}×.`);
    this.schedule();
    this.render();
  }

  pause() {
    if (this.timer === null) return;
    this.stop();
    this.render();
    this.announce(`Paused at ${present(this.simulation).clock} s of active time.`);
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  schedule() {
    if (this.timer) clearTimeout(this.timer);
    const speed = Number(this.speedPicker.value) || 1;
    const delay = PLAY_SPAN_MS / plannedActiveSeconds(this.simulation.config) / speed;
    this.timer = setTimeout(() => this.tick(), delay);
  }

  tick() {
    // The page may have been replaced (instant navigation); a detached room stops itself.
    if (!this.root.isConnected) return this.stop();
    if (!this.apply("step")) return;
    if (availability(this.simulation).step.enabled) {
      this.schedule();
      return;
    }
    this.stop();
    this.render();
  }

  revisit(index) {
    this.stop();
    this.simulation = seek(this.simulation, index);
    this.render();
    const snapshot = present(this.simulation);
    const later = laterRecords(this.simulation);
    this.announce(
      `Viewing record ${index + 1} of ${this.simulation.records.length}: ${snapshot.taskId} ` +
        `${snapshot.state}.` +
        (later > 0 ? ` Resuming here discards ${later} later record(s).` : ""),
    );
  }

  announce(text) {
    this.status.textContent = text;
  }

  // -------------------------------------------------------------------------------------------
  // Rendering: a pure function of this.simulation and this.timer, repeated after each change.

  render() {
    this.renderVersionNotes();
    this.renderControls();
    this.renderInspector();
    this.renderRecords();
    this.renderTrace();
  }

  renderVersionNotes() {
    const box = this.root.querySelector("[data-sim-version-notes]");
    const latest = this.lifecycle.versions.get(this.lifecycle.latest);
    const list = document.createElement("ul");
    const states = document.createElement("li");
    states.textContent = `States: ${[...this.version.states.values()]
      .map((state) => `${state.name} (${state.class})`)
      .join(", ")}.`;
    list.append(states);
    const notes = describeDifferences(this.version, latest);
    for (const text of notes) {
      const item = document.createElement("li");
      item.textContent = text;
      list.append(item);
    }
    const lead = document.createElement("p");
    lead.textContent =
      this.version.id === latest.id
        ? `${latest.title} is the latest release in the data.`
        : `How ${this.version.title} differs from ${latest.title}:`;
    box.replaceChildren(lead, list);
  }

  renderControls() {
    const playing = this.timer !== null;
    const can = this.simulation
      ? availability(this.simulation)
      : Object.fromEntries(
          ["step", "clarify", "authorize", "cancel", "followUp"].map((name) => [
            name,
            { enabled: false, reason: this.problem },
          ]),
        );
    const reasons = {
      ...can,
      play: playing ? { enabled: false, reason: "Already playing." } : can.step,
      pause: playing
        ? { enabled: true, reason: "" }
        : { enabled: false, reason: "Nothing is playing." },
      restart: { enabled: true, reason: "" },
    };
    for (const button of this.root.querySelectorAll("[data-sim-action]")) {
      const { enabled, reason } = reasons[button.dataset.simAction];
      if (enabled) {
        button.removeAttribute("aria-disabled");
        button.removeAttribute("title");
      } else {
        button.setAttribute("aria-disabled", "true");
        button.title = reason;
      }
    }
    // A reason shared by several controls of one panel is shown once there; the others keep
    // it for their accessible description only.
    const shownIn = new Map();
    for (const why of this.root.querySelectorAll("[data-sim-why]")) {
      const entry = reasons[why.dataset.simWhy];
      if (!entry) continue;
      why.textContent = entry.enabled ? "" : entry.reason;
      const quiet = why.hasAttribute("data-sim-quiet");
      const panel = why.closest(".a2a-sim__panel");
      if (!shownIn.has(panel)) shownIn.set(panel, new Set());
      const repeated = shownIn.get(panel).has(why.textContent);
      if (!quiet) shownIn.get(panel).add(why.textContent);
      why.classList.toggle("a2a-sim__sr", quiet || repeated);
    }
  }

  renderInspector() {
    const show = (name) => this.root.querySelector(`[data-sim-show="${name}"]`);
    if (!this.simulation) {
      for (const name of ["taskId", "contextId", "references", "units", "clock", "artifact"]) {
        show(name).textContent = "—";
      }
      show("state").replaceChildren("—");
      show("description").textContent = this.problem;
      return;
    }
    const snapshot = present(this.simulation);
    const { config, version } = this.simulation;
    const state = version.states.get(snapshot.state);
    show("taskId").textContent = snapshot.taskId;
    show("contextId").textContent = snapshot.contextId;
    show("references").textContent =
      snapshot.referenceTaskIds.length > 0 ? snapshot.referenceTaskIds.join(", ") : "None";
    const name = document.createElement("span");
    name.className = "a2a-sim__statename";
    name.dataset.class = state.class;
    name.textContent = snapshot.state;
    const badge = document.createElement("span");
    badge.className = "a2a-sim__class";
    badge.textContent = state.class;
    show("state").replaceChildren(name, " ", badge);
    show("units").textContent = `${snapshot.completedUnits} of ${config.workUnits}`;
    show("clock").textContent =
      `${snapshot.clock} s of ${plannedActiveSeconds(config)} s planned`;
    show("artifact").textContent = snapshot.artifact
      ? `${snapshot.artifact.name}: ${snapshot.artifact.text}`
      : `None${snapshot.outcome ? ` (${snapshot.outcome})` : " yet"}`;
    show("description").textContent =
      `${state.spelling} in ${version.title}: ${state.description}` +
      (this.problem ? ` ${this.problem}` : "");
  }

  renderRecords() {
    const list = this.root.querySelector("[data-sim-records]");
    const records = this.simulation ? this.simulation.records : [];
    const { cursor, config } = this.simulation ?? { cursor: -1, config: null };
    // Reuse the items already there so a focused record button keeps its focus.
    while (list.children.length > records.length) list.lastElementChild.remove();
    records.forEach((snapshot, index) => {
      let item = list.children[index];
      if (!item) {
        item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "a2a-sim__record";
        button.dataset.simRecord = String(index);
        item.append(button);
        list.append(item);
      }
      const button = item.firstElementChild;
      const later = index > cursor;
      const units = `${snapshot.completedUnits}/${config.workUnits} units`;
      button.textContent =
        `${index + 1}. ${snapshot.clock} s · ${snapshot.event} · ${units}` +
        (later ? " · later branch" : "");
      button.classList.toggle("is-later", later);
      if (index === cursor) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    });
    const current = list.children[cursor];
    if (current && !this.root.contains(document.activeElement?.closest("[data-sim-records]"))) {
      scrollWithin(list, current);
    }
  }

  renderTrace() {
    const list = this.root.querySelector("[data-sim-trace]");
    const trace = this.simulation ? present(this.simulation).trace : [];
    const items = trace.map((entry) => {
      const item = document.createElement("li");
      const clock = document.createElement("span");
      clock.className = "a2a-sim__clock";
      clock.textContent = `${entry.clock} s`;
      const actor = document.createElement("span");
      actor.className = "a2a-sim__actor";
      actor.textContent = entry.actor;
      item.append(clock, " ", actor, " ", entry.text);
      if (entry.to) {
        const change = document.createElement("span");
        change.className = "a2a-sim__move";
        change.textContent = `${entry.from} → ${entry.to}`;
        item.append(" ", change);
      }
      return item;
    });
    list.replaceChildren(...items);
    if (list.lastElementChild) scrollWithin(list, list.lastElementChild);
  }
}

// Scroll a list so an item is visible without moving the page itself.
function scrollWithin(list, item) {
  const top = item.offsetTop - list.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

function labelOf(input) {
  return input.labels?.[0]?.textContent.trim() ?? input.id;
}

function mountAll() {
  for (const root of document.querySelectorAll(".a2a-sim[data-api]")) mount(root);
}

// Material's instant navigation swaps pages without reloading scripts and announces each
// page on document$; without it, the module runs once per page load.
if (typeof window.document$?.subscribe === "function") {
  window.document$.subscribe(mountAll);
} else {
  mountAll();
}
