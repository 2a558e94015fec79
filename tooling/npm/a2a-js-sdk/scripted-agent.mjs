// The capture kit's scripted agent inside the A2A JavaScript SDK's own JSON-RPC server.
//
// It plays the same scripts as the Python agent (tooling/a2a_kb/capture/agent.py): the first
// text part of a new task's message names one (`script:complete`, `script:ask-input` …), and
// a task waiting for input or auth resumes with the same moves whatever its script. Every
// event goes through the SDK's event bus, so the wire shows what the SDK makes of them.
//
// It listens on 127.0.0.1 only, on the port the OS gives, and prints `LISTENING <port>` once
// ready. The runner opens a gate with POST /_capture/gates/<name> and asks POST
// /_capture/settle/<taskId> before it resumes a task; nothing else is served beside the SDK's routes. Nothing here sleeps: a held agent waits on a gate.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler } from '@a2a-js/sdk/server/express';

const HOST = '127.0.0.1';
// The release actually installed, for the transcript header (a different one fails the check).
const sdkPackage = createRequire(import.meta.url).resolve('@a2a-js/sdk').replace(/dist\/index\.c?js$/, 'package.json');
const sdkVersion = JSON.parse(readFileSync(sdkPackage, 'utf8')).version;
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

// Named one-shot gates: the agent waits on one, the runner opens it over HTTP.
const gates = new Map();
function gate(name) {
  if (!gates.has(name)) {
    let open;
    const opened = new Promise((resolve) => { open = resolve; });
    gates.set(name, { opened, open });
  }
  return gates.get(name);
}

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

function userText(context) {
  const part = context.userMessage?.parts?.find((p) => p.content?.$case === 'text');
  return (part?.content.value ?? '').trim();
}

function scriptOf(words) {
  const [first = '', ...rest] = words.split(/\s+/);
  if (!first.startsWith('script:')) return ['', {}];
  const options = Object.fromEntries(rest.filter((w) => w.includes('=')).map((w) => w.split(/=(.*)/s).slice(0, 2)));
  return [first.slice('script:'.length), options];
}

class Moves {
  constructor(bus, taskId, contextId) {
    Object.assign(this, { bus, taskId, contextId });
  }

  say(words) {
    return {
      messageId: randomUUID(), contextId: this.contextId, taskId: this.taskId, role: Role.ROLE_AGENT,
      parts: [text(words)], metadata: undefined, extensions: [], referenceTaskIds: [],
    };
  }

  status(state, words) {
    this.bus.publish(AgentEvent.statusUpdate({
      taskId: this.taskId, contextId: this.contextId, metadata: undefined,
      status: { state, message: words === undefined ? undefined : this.say(words), timestamp: new Date().toISOString() },
    }));
  }

  artifact(words, name = 'answer', { artifactId = randomUUID(), append = false, lastChunk = false } = {}) {
    this.bus.publish(AgentEvent.artifactUpdate({
      taskId: this.taskId, contextId: this.contextId, append, lastChunk, metadata: undefined,
      artifact: { artifactId, name, description: '', parts: [text(words)], metadata: undefined, extensions: [] },
    }));
  }
}

const plays = {
  async complete(m) { m.status(TaskState.TASK_STATE_WORKING); m.artifact('done'); m.status(TaskState.TASK_STATE_COMPLETED); },
  async gated(m, context, options) {
    m.status(TaskState.TASK_STATE_WORKING);
    await gate(options.gate ?? '').opened;
    m.artifact('done after the gate opened');
    m.status(TaskState.TASK_STATE_COMPLETED);
  },
  async chunks(m) {
    m.status(TaskState.TASK_STATE_WORKING);
    const artifactId = randomUUID();
    m.artifact('first half, ', 'report', { artifactId });
    m.artifact('second half', 'report', { artifactId, append: true, lastChunk: true });
    m.status(TaskState.TASK_STATE_COMPLETED);
  },
  async 'ask-input'(m) { m.status(TaskState.TASK_STATE_WORKING); m.status(TaskState.TASK_STATE_INPUT_REQUIRED, 'which colour?'); },
  async 'ask-auth'(m) { m.status(TaskState.TASK_STATE_WORKING); m.status(TaskState.TASK_STATE_AUTH_REQUIRED, 'sign in to continue'); },
  async reject(m) { m.status(TaskState.TASK_STATE_REJECTED, 'this agent will not do that'); },
  async fail(m) {
    m.status(TaskState.TASK_STATE_WORKING);
    m.artifact('first step done', 'partial');
    m.status(TaskState.TASK_STATE_FAILED, 'the second step failed');
  },
  async raise(m) {
    m.status(TaskState.TASK_STATE_WORKING);
    m.artifact('first step done', 'partial');
    throw new Error('scripted crash in the second step');
  },
  async hold(m) { m.status(TaskState.TASK_STATE_WORKING); await gate(`never:${m.taskId}`).opened; },
  async refer(m, context) {
    m.status(TaskState.TASK_STATE_WORKING);
    const named = context.userMessage?.referenceTaskIds ?? [];
    const handed = (context.referenceTasks ?? []).map((t) => `${t.id} (TASK_STATE_${TaskState[t.status?.state]?.replace('TASK_STATE_', '')})`);
    m.artifact(`referenceTaskIds: ${named.join(', ') || 'none'}; tasks the SDK handed the agent: ${handed.join(', ') || 'none'}`);
    m.status(TaskState.TASK_STATE_COMPLETED);
  },
  async 'status-after-terminal'(m) {
    m.status(TaskState.TASK_STATE_WORKING);
    m.artifact('done');
    m.status(TaskState.TASK_STATE_COMPLETED);
    m.status(TaskState.TASK_STATE_WORKING, 'still going');
  },
};

function newTask(context) {
  return {
    id: context.taskId, contextId: context.contextId, artifacts: [], metadata: undefined,
    history: [context.userMessage],
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
  };
}

class ScriptedAgent {
  async execute(context, bus) {
    const m = new Moves(bus, context.taskId, context.contextId);
    const current = context.task;
    // The SDK wants a Task (or a Message) as the first event of every execution, a
    // follow-up on an existing task included.
    bus.publish(AgentEvent.task(current ?? newTask(context)));
    if (current && INTERRUPTED.has(current.status?.state)) {
      m.status(TaskState.TASK_STATE_WORKING);
      m.artifact(`resumed with: ${userText(context)}`);
      m.status(TaskState.TASK_STATE_COMPLETED);
    } else {
      const [name, options] = scriptOf(userText(context));
      const play = plays[name];
      if (play === undefined) m.status(TaskState.TASK_STATE_REJECTED, `unknown script '${name}'`);
      else await play(m, context, options);
    }
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    const m = new Moves(bus, taskId, '');
    m.status(TaskState.TASK_STATE_CANCELED, 'stopped on request');
    bus.finished();
  }
}

const port = { value: 0 };
const agentCard = () => ({
  name: 'a2a-kb scripted agent',
  description: 'Plays fixed scripts so that every lifecycle path can be recorded.',
  version: '1.0.0',
  supportedInterfaces: [{ url: `http://${HOST}:${port.value}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
  provider: undefined,
  documentationUrl: undefined,
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'script', name: 'script', description: 'Plays the script a message names.', tags: ['capture'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
  iconUrl: undefined,
});

const handler = new DefaultRequestHandler(agentCard(), new InMemoryTaskStore(), new ScriptedAgent());
const app = express();
app.post('/_capture/gates/:name', (req, res) => { gate(req.params.name).open(); res.status(204).end(); });
// The runner asks before it resumes a task. Nothing to wait for here: a2a-sdk 0.3 needs it
// (see tooling/capture-agents/a2a_sdk_03_agent.py); this SDK never raced in the captures.
app.post('/_capture/settle/:taskId', (req, res) => { res.status(204).end(); });
app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(0, HOST, () => {
  port.value = server.address().port;
  process.stdout.write(`LISTENING ${port.value} ${sdkVersion}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
