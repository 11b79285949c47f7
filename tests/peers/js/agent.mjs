// The "Echo Agent" of tests/peers/sdk_agent.py, written again on the official JavaScript
// SDK's own server classes (@a2a-js/sdk): so a2a-inspect is also judged against wire
// behaviour neither we nor the Python SDK wrote (Express JSON-RPC and REST, grpc-js, the
// SDK's 0.3 compatibility layer).
//
//   node agent.mjs [--bindings jsonrpc,rest,grpc] [--compat] [--no-0.3-interfaces] [--hold-timeout SECONDS]
//
// --bindings   which bindings are served, and listed on the card, in that order (any subset)
// --compat     the 0.3 compatibility layer on every binding served (legacyCompat on the
//              JSON-RPC, REST and card handlers; the 0.3 gRPC service beside the 1.0 one);
//              the card lists each interface under 1.0, then again under 0.3
// --no-0.3-interfaces
//              with --compat, the card lists the 1.0 interfaces only, as the SDK's own
//              compat-v1-server sample does: its card handler then refuses a request
//              without A2A-Version (read as 0.3) with -32009
//
// HTTP and gRPC listen on 127.0.0.1, port 0. When ready it prints one JSON line on stdout:
//   {"base": "http://127.0.0.1:P", "card": ".../.well-known/agent-card.json",
//    "jsonrpc": URL|null, "rest": URL|null, "grpc": "127.0.0.1:G"|null, "compat": bool}
// It exits when its stdin closes: a test run that dies never leaves it behind.
//
// Behaviour, keyed on the first word of the user's text (case-insensitive), as sdk_agent.py:
//   anything else  working "echoing...", three artifact chunks (append, lastChunk), completed "done"
//   ask            input-required with QUESTION; the next message on that task is echoed
//   fail           failed with FAILED_TEXT
//   hold           like echo, but each chunk waits until a test releases it (see below), the
//                  task is canceled, or --hold-timeout passes (then it goes on): the task stays
//                  working for as long as a test needs, whatever the load, and never forever
//   msg            a single Message "echo: <text>" instead of a Task
// Cancel of a running or input-required task ends it canceled with CANCELED_TEXT; a held
// task publishes nothing after that.
//
// Test control (not A2A; the same routes as sdk_agent.py, so the same helpers drive both):
//   GET  /_peer/tasks/{id}/parked?at=N&timeout=S  answers once the task waits before chunk N
//   POST /_peer/tasks/{id}/release?steps=N|all    lets N more chunks go

import { randomUUID } from 'node:crypto';

import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';

import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

const AGENT_NAME = 'JS Echo Agent';
const QUESTION = 'What should I echo? Reply on this taskId.';
const WORKING_TEXT = 'echoing...';
const DONE_TEXT = 'done';
const FAILED_TEXT = 'failing as requested';
const CANCELED_TEXT = 'canceled by request';
const ARTIFACT_NAME = 'echo';
const BINDINGS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };
const JSONRPC_PATH = '/a2a/jsonrpc';
const REST_PATH = '/a2a/rest';

function parseArgs(argv) {
  const options = { bindings: ['jsonrpc', 'rest', 'grpc'], compat: false, list03: true, holdTimeout: 30 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--compat') options.compat = true;
    else if (arg === '--no-0.3-interfaces') options.list03 = false;
    else if (arg === '--bindings') options.bindings = argv[++i].split(',').filter(Boolean);
    else if (arg === '--hold-timeout') options.holdTimeout = Number(argv[++i]);
    else throw new Error(`unknown argument ${arg}`);
  }
  const unknown = options.bindings.filter((b) => !(b in BINDINGS));
  if (unknown.length || !options.bindings.length) throw new Error(`--bindings: one or more of ${Object.keys(BINDINGS)}`);
  if (!(options.holdTimeout > 0)) throw new Error('--hold-timeout: a positive number of seconds');
  return options;
}

// The chunks sdk_agent.py streams, so tests can share their expectations.
function echoChunks(text) {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) words.push('(no text)');
  if (words.length === 1) return ['echo: ', `${words[0]} `, '.'];
  if (words.length === 2) return ['echo: ', `${words[0]} `, words[1]];
  return [`echo: ${words[0]} `, `${words.slice(1, -1).join(' ')} `, words.at(-1)];
}

const textPart = (text) => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined });

function agentMessage(taskId, contextId, text) {
  return { messageId: randomUUID(), taskId, contextId, role: Role.ROLE_AGENT, parts: [textPart(text)],
           metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function status(taskId, contextId, state, text) {
  return AgentEvent.statusUpdate({
    taskId, contextId, metadata: undefined,
    status: { state, message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
              timestamp: new Date().toISOString() },
  });
}

function userText(message) {
  return (message?.parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join(' ');
}

// Where one `hold` task waits: before chunk `parked`, until `released` passes it, the
// task is canceled, or the bounded time is up. Waiters are woken by `changed()`.
class Gate {
  constructor() {
    this.parked = -1;
    this.released = 0;
    this.canceled = false;
    this.waiters = new Set();
  }

  changed() {
    for (const wake of this.waiters) wake();
  }

  // Resolves true once `ready()` holds, false after `seconds`.
  until(ready, seconds) {
    if (ready()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        if (!ready()) return;
        done(true);
      };
      const timer = setTimeout(() => done(false), seconds * 1000);
      const done = (value) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(value);
      };
      this.waiters.add(wake);
    });
  }
}

class Gates {
  constructor() {
    this.gates = new Map();
  }

  get(taskId) {
    // A test may ask where a task is parked before the task reaches its gate.
    let gate = this.gates.get(taskId);
    if (!gate) this.gates.set(taskId, (gate = new Gate()));
    return gate;
  }
}

class EchoExecutor {
  constructor(gates, holdTimeout) {
    this.gates = gates;
    this.holdTimeout = holdTimeout;
  }

  async execute(requestContext, eventBus) {
    const { taskId, contextId } = requestContext;
    const existing = requestContext.task;
    const text = userText(requestContext.userMessage);
    const keyword = (text.trim().split(/\s+/)[0] ?? '').toLowerCase();
    // The reply to a question is data, not a command: "ask again" as an answer echoes.
    const answering = existing?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;

    if (!existing && keyword === 'msg') {
      eventBus.publish(AgentEvent.message(agentMessage('', contextId, `echo: ${text}`)));
      return;
    }
    this.gates.get(taskId).contextId = contextId;  // for a cancel, which is told only the task id
    // The SDK wants a task (or a message) first on every turn, a follow-up's too.
    eventBus.publish(AgentEvent.task(existing ?? {
      id: taskId, contextId, artifacts: [], metadata: undefined, history: [requestContext.userMessage],
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    }));
    if (!answering && keyword === 'ask') {
      eventBus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
      return;
    }
    if (!answering && keyword === 'fail') {
      eventBus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, FAILED_TEXT));
      return;
    }

    const held = keyword === 'hold' && !answering;
    const gate = this.gates.get(taskId);
    eventBus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, WORKING_TEXT));
    const chunks = echoChunks(text);
    for (const [i, chunk] of chunks.entries()) {
      if (held) {
        gate.parked = i;
        gate.changed();
        await gate.until(() => gate.released > i || gate.canceled, this.holdTimeout);
      }
      // cancelTask has published the final status: nothing may follow it.
      if (gate.canceled) return;
      eventBus.publish(AgentEvent.artifactUpdate({
        taskId, contextId, append: i > 0, lastChunk: i === chunks.length - 1, metadata: undefined,
        artifact: { artifactId: `echo-${taskId.slice(0, 8)}`, name: ARTIFACT_NAME, description: '',
                    parts: [textPart(chunk)], metadata: undefined, extensions: [] },
      }));
    }
    eventBus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, DONE_TEXT));
  }

  async cancelTask(taskId, eventBus) {
    // The handler waits on the bus for the final status; a held execute() wakes up,
    // sees `canceled` and returns without publishing.
    const gate = this.gates.get(taskId);
    gate.canceled = true;
    eventBus.publish(status(taskId, gate.contextId ?? '', TaskState.TASK_STATE_CANCELED, CANCELED_TEXT));
    gate.changed();
  }
}

function buildCard(options, httpBase, grpcPort) {
  const versions = options.compat && options.list03 ? [A2A_PROTOCOL_VERSION, '0.3'] : [A2A_PROTOCOL_VERSION];
  const urls = { jsonrpc: `${httpBase}${JSONRPC_PATH}`, rest: `${httpBase}${REST_PATH}`, grpc: `127.0.0.1:${grpcPort}` };
  return {
    name: AGENT_NAME,
    description: 'Echoes text back in streamed artifact chunks; "ask ..." asks for input. Built on @a2a-js/sdk.',
    // The compat layer's 0.3 view of the card keeps only the interfaces of a 0.3 version
    // (and refuses the card without one): the same URLs are listed again under 0.3.
    supportedInterfaces: versions.flatMap((protocolVersion) => options.bindings.map((b) => ({
      url: urls[b], protocolBinding: BINDINGS[b], tenant: '', protocolVersion }))),
    provider: { organization: 'a2a-inspect tests', url: 'https://example.invalid' },
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{
      id: 'echo', name: 'Echo', description: 'Echo the input, streamed as 3 artifact chunks.',
      tags: ['echo', 'test'], examples: ['hello world', 'ask me', 'msg hi', 'fail', 'hold on'],
      inputModes: [], outputModes: [], securityRequirements: [],
    }],
    signatures: [],
  };
}

function listen(app) {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
    server.on('error', reject);
  });
}

function bindGrpc(server) {
  return new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const gates = new Gates();
  const executor = new EchoExecutor(gates, options.holdTimeout);
  const grpc = options.bindings.includes('grpc') ? new Server() : null;
  const grpcPort = grpc ? await bindGrpc(grpc) : 0;

  const app = express();
  // The card's URLs name the port, which is known only once the server listens: the
  // handler reads the card on every request, so it is filled in then.
  const card = buildCard(options, 'http://127.0.0.1:0', grpcPort);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const legacyCompat = { enabled: options.compat };
  const userBuilder = UserBuilder.noAuthentication;

  app.get('/_peer/tasks/:id/parked', async (req, res) => {
    const gate = gates.get(req.params.id);
    const at = Number(req.query.at ?? 0);
    const ok = await gate.until(() => gate.parked >= at, Number(req.query.timeout ?? 10));
    res.status(ok ? 200 : 408).json({ parked: gate.parked, released: gate.released });
  });
  app.post('/_peer/tasks/:id/release', (req, res) => {
    const gate = gates.get(req.params.id);
    gate.released += req.query.steps === 'all' ? 1 << 30 : Number(req.query.steps ?? 1);
    gate.changed();
    res.json({ parked: gate.parked, released: gate.released });
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  if (options.bindings.includes('jsonrpc')) {
    app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat }));
  }
  if (options.bindings.includes('rest')) {
    app.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder, legacyCompat }));
  }
  if (grpc) {
    const grpcUsers = GrpcUserBuilder.noAuthentication;
    grpc.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: grpcUsers }));
    if (options.compat) {
      grpc.addService(LegacyA2AService, legacyGrpcService({ requestHandler: handler, userBuilder: grpcUsers }));
    }
  }

  const http = await listen(app);
  const base = `http://127.0.0.1:${http.address().port}`;
  Object.assign(card, buildCard(options, base, grpcPort));
  const urls = Object.fromEntries(Object.keys(BINDINGS).map((b) => [b, null]));
  for (const i of card.supportedInterfaces) {
    urls[Object.keys(BINDINGS).find((b) => BINDINGS[b] === i.protocolBinding)] = i.url;
  }
  process.stdout.write(`${JSON.stringify({ base, card: `${base}/${AGENT_CARD_PATH}`, ...urls, compat: options.compat })}\n`);

  const stop = () => {
    http.closeAllConnections?.();
    http.close();
    grpc?.forceShutdown();
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

main().catch((err) => {
  process.stderr.write(`agent.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
