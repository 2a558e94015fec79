// The conformance suite's system under test for the A2A JavaScript SDK.
//
// a2a-tck's 1.0-dev branch describes what its agent does in Gherkin (scenarios/*.feature):
// a message whose messageId starts with a scenario's prefix makes the agent take that
// scenario's steps. The suite generates a Python and a Java agent from those files; this is
// the JavaScript one. It does not read Gherkin itself: tooling/tck/scenarios_json.py runs the
// suite's own parser (codegen/parser.py, with gherkin-official) and hands over each scenario
// with its actions, named by the suite's model classes. Every action kind, state and error
// the scenarios use has a handler below; a scenario with one that has none stops the agent
// before it listens, naming the scenario's file and line (`--check` only does that check).
//
// It serves the SDK's three transports on 127.0.0.1, like the suite's Python agent: JSON-RPC
// at /, HTTP+JSON at /a2a/rest, gRPC on its own port, and the agent card at the well-known path.
//
//   node tck-agent.mjs --scenarios scenarios.json [--check]
//   env: SUT_HOST=127.0.0.1:<http port>  GRPC_PORT=<grpc port>
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import { A2AError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';

const HOST = '127.0.0.1';
const REST_URL = '/a2a/rest';
const STREAMING_TIMEOUT_MS = 2000; // the suite's generated agents wait N x 2 s

// --- the suite's step vocabulary --------------------------------------------------------------

const STATES = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
  input_required: TaskState.TASK_STATE_INPUT_REQUIRED,
  auth_required: TaskState.TASK_STATE_AUTH_REQUIRED,
};

const ERRORS = {
  rejected: () => new A2AError('rejected'),
  unsupported_operation: () => new UnsupportedOperationError(),
  task_not_cancelable: () => new TaskNotCancelableError(),
};

const PARTS = {
  TextPartDef: (p) => ({ content: { $case: 'text', value: p.text }, filename: '', mediaType: '' }),
  FilePartDef: (p) => ({ content: { $case: 'raw', value: Buffer.from('tck') }, filename: p.name, mediaType: p.media_type }),
  FileUrlPartDef: (p) => ({ content: { $case: 'url', value: p.url }, filename: p.name, mediaType: p.media_type }),
  DataPartDef: (p) => ({ content: { $case: 'data', value: JSON.parse(p.json_content) }, filename: '', mediaType: '' }),
};

class Unhandled extends Error {}

function parts(defs) {
  return defs.map((p) => {
    const make = PARTS[p.kind];
    if (make === undefined) throw new Unhandled(`no handler for the part kind ${p.kind}`);
    return { metadata: undefined, ...make(p) };
  });
}

function state(name) {
  if (!(name in STATES)) throw new Unhandled(`no handler for the state "${name}"`);
  return STATES[name];
}

// Each action kind of the suite's model (codegen/model.py) → a step the agent takes. A step
// is built once, when the scenarios are loaded, so a missing handler shows before any run.
const ACTIONS = {
  CompleteTask: (a) => {
    const message = a.message != null ? parts([{ kind: 'TextPartDef', text: a.message }])
      : a.parts?.length ? parts(a.parts) : undefined;
    return (t) => t.status(STATES.completed, message);
  },
  AddArtifact: (a) => {
    const content = parts(a.parts);
    return (t) => t.artifact(content, { append: a.append, lastChunk: a.last_chunk });
  },
  ReturnMessage: (a) => {
    const content = parts(a.parts);
    return (t) => t.reply(content);
  },
  RejectWithError: (a) => {
    const make = ERRORS[a.error_type];
    if (make === undefined) throw new Unhandled(`no handler for the error "${a.error_type}"`);
    return () => { throw make(); };
  },
  UpdateTaskStatus: (a) => {
    const to = state(a.state);
    return (t) => t.status(to);
  },
  WaitForTimeout: (a) => () => sleep(a.multiplier * STREAMING_TIMEOUT_MS),
};

// The suite's emitters put the actions that end a run (CompleteTask, RejectWithError) after
// the others, whatever their place in the scenario ("Then complete the task / And add an
// artifact" adds the artifact first); so does this agent.
const LAST = new Set(['CompleteTask', 'RejectWithError']);

/** A scenario's steps in the order they are taken, or an Unhandled error naming it. */
export function plan(scenario) {
  const where = `${scenario.file}:${scenario.line} "${scenario.name}"`;
  if (!['MessageTrigger', 'StreamingMessageTrigger'].includes(scenario.trigger?.kind)) {
    throw new Unhandled(`${where}: no handler for the trigger ${scenario.trigger?.kind}`);
  }
  const ordered = [...scenario.actions.filter((a) => !LAST.has(a.kind)),
    ...scenario.actions.filter((a) => LAST.has(a.kind))];
  return ordered.map((action) => {
    const make = ACTIONS[action.kind];
    if (make === undefined) throw new Unhandled(`${where}: no handler for the action ${action.kind}`);
    try {
      return { kind: action.kind, take: make(action) };
    } catch (e) {
      throw e instanceof Unhandled ? new Unhandled(`${where}: ${e.message}`) : e;
    }
  });
}

// --- one execution --------------------------------------------------------------------------

/** The moves of one execution, through the SDK's event bus. */
class Turn {
  constructor(bus, context) {
    Object.assign(this, { bus, taskId: context.taskId, contextId: context.contextId, context });
    this.opened = false;
    this.chunked = undefined; // the artifactId of an artifact still being appended to
  }

  // The SDK's AgentExecutor contract: the first event of every execution is a Task or a
  // Message (its server rejects a stream that begins with an update). The suite's Python
  // agent gets the same from its SDK's TaskUpdater; here the Task is put first explicitly.
  open() {
    if (this.opened) return;
    this.opened = true;
    const task = this.context.task ?? {
      id: this.taskId, contextId: this.contextId, artifacts: [], metadata: undefined,
      history: [this.context.userMessage],
      status: { state: STATES.submitted, message: undefined, timestamp: new Date().toISOString() },
    };
    this.bus.publish(AgentEvent.task(task));
  }

  message(content) {
    return {
      messageId: randomUUID(), contextId: this.contextId, taskId: this.taskId, role: Role.ROLE_AGENT,
      parts: content, metadata: undefined, extensions: [], referenceTaskIds: [],
    };
  }

  status(to, content) {
    this.open();
    this.bus.publish(AgentEvent.statusUpdate({
      taskId: this.taskId, contextId: this.contextId, metadata: undefined,
      status: { state: to, message: content && this.message(content), timestamp: new Date().toISOString() },
    }));
  }

  artifact(content, { append = false, lastChunk = false } = {}) {
    this.open();
    const artifactId = (append && this.chunked) || randomUUID();
    this.chunked = append && !lastChunk ? artifactId : undefined;
    this.bus.publish(AgentEvent.artifactUpdate({
      taskId: this.taskId, contextId: this.contextId, append, lastChunk, metadata: undefined,
      artifact: { artifactId, name: '', description: '', parts: content, metadata: undefined, extensions: [] },
    }));
  }

  reply(content) {
    const { taskId, ...message } = this.message(content);
    this.bus.publish(AgentEvent.message({ ...message, taskId: this.context.task ? taskId : '' }));
  }
}

class TckAgent {
  constructor(scenarios) {
    // longest prefix first: "tck-artifact-file-url" before "tck-artifact-file"
    this.routes = scenarios.map((s) => ({ scenario: s, prefix: s.trigger.prefix, steps: plan(s) }))
      .sort((a, b) => b.prefix.length - a.prefix.length);
  }

  async execute(context, bus) {
    const turn = new Turn(bus, context);
    const id = context.userMessage?.messageId ?? '';
    const route = this.routes.find((r) => id.startsWith(r.prefix));
    try {
      if (route === undefined) {
        // the suite's agents answer an unknown prefix by completing the task with a note
        turn.status(STATES.completed, parts([{ kind: 'TextPartDef', text: `Unhandled messageId prefix: ${id}` }]));
      } else {
        for (const step of route.steps) await step.take(turn);
      }
    } finally {
      bus.finished();
    }
  }

  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: '', metadata: undefined,
      status: { state: STATES.canceled, message: undefined, timestamp: new Date().toISOString() },
    }));
    bus.finished();
  }
}

// --- serving --------------------------------------------------------------------------------

function agentCard(httpPort, grpcPort) {
  const url = `http://${HOST}:${httpPort}`;
  const iface = (where, protocolBinding) => ({ url: where, protocolBinding, protocolVersion: '1.0', tenant: '' });
  return {
    name: 'A2A JavaScript SDK System Under Test (SUT)',
    description: 'a2a-tck scenarios played by @a2a-js/sdk (a2a-kb)',
    version: '1.0.0',
    supportedInterfaces: [iface(url, 'JSONRPC'), iface(`${url}${REST_URL}`, 'HTTP+JSON'),
      iface(`${HOST}:${grpcPort}`, 'GRPC')],
    provider: { organization: 'A2A Project', url: 'https://github.com/a2aproject' },
    documentationUrl: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [{ id: 'tck', name: 'TCK Conformance', description: 'Handles TCK conformance test messages',
      tags: ['tck'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
    iconUrl: undefined,
  };
}

function main() {
  const { values } = parseArgs({ options: { scenarios: { type: 'string' }, check: { type: 'boolean' } } });
  if (!values.scenarios) {
    process.stderr.write('usage: node tck-agent.mjs --scenarios FILE [--check]\n');
    process.exit(2);
  }
  const scenarios = JSON.parse(readFileSync(values.scenarios, 'utf8'));
  let agent;
  try {
    agent = new TckAgent(scenarios);
  } catch (e) {
    if (!(e instanceof Unhandled)) throw e;
    process.stderr.write(`tck-agent: ${e.message}\n`);
    process.exit(1);
  }
  if (values.check) { // each scenario, its prefix and the steps it takes, in that order
    for (const { scenario: s, steps } of agent.routes) {
      process.stdout.write(`${s.file}:${s.line}\t${s.trigger.prefix}\t${steps.map((t) => t.kind).join(',')}\n`);
    }
    return;
  }
  const [, port = '9999'] = (process.env.SUT_HOST ?? '').split(':');
  const grpcPort = Number(process.env.GRPC_PORT || Number(port) + 1);
  const handler = new DefaultRequestHandler(agentCard(port, grpcPort), new InMemoryTaskStore(), agent);
  const users = { userBuilder: UserBuilder.noAuthentication };

  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler: handler, ...users }));
  grpcServer.bindAsync(`${HOST}:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      process.stderr.write(`tck-agent: gRPC cannot listen on ${HOST}:${grpcPort}: ${error.message}\n`);
      process.exit(1);
    }
    const app = express();
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
    app.use(REST_URL, restHandler({ requestHandler: handler, ...users }));
    app.use('/', jsonRpcHandler({ requestHandler: handler, ...users }));
    const server = app.listen(Number(port), HOST, () => process.stdout.write(`LISTENING ${port} ${grpcPort}\n`));
    for (const signal of ['SIGTERM', 'SIGINT']) {
      process.on(signal, () => { grpcServer.forceShutdown(); server.close(() => process.exit(0)); });
    }
  });
}

main();
