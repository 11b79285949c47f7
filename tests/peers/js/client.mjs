#!/usr/bin/env node
// A command-line client on @a2a-js/sdk's own client classes: the official JS SDK as a
// caller, for tests that point it at a2a-mock (live or --replay) and read what it got.
//
//   node client.mjs URL TRANSPORT OPERATION [TEXT] [--task ID] [--context ID]
//                   [--return-immediately] [--history N] [--timeout SECONDS]
//
// URL is the agent's base URL (its card is read from /.well-known/agent-card.json, or
// --card-path). TRANSPORT: jsonrpc, rest, grpc, or auto (the card's own preference).
// OPERATION: send, stream, get, cancel, resubscribe. The dialect follows the card, as
// the SDK's users get it: a 1.0 card gets the 1.0 transports, a 0.3 one the SDK's
// legacy transports (compat/v0_3), chosen by the factories with legacyCompat on.
//
// Output: stdout has one JSON line per response or stream event, each in the shape of
// a 1.0 StreamResponse (ProtoJSON: {"task": ...}, {"message": ...}, {"statusUpdate":
// ...}, {"artifactUpdate": ...}); exit 0. On failure one line {"error": {...}} and
// exit 1. stderr has one line {"client": {...}} naming the transport the SDK chose.
// The whole run is bounded by --timeout (default 20 s): past it, an error line and
// exit 1, whatever the agent is doing.
//
//   node client.mjs --serve
//
// The same calls, one per line read from stdin (see serve() below), for a caller that
// makes many: the test suite.

import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { Message, Role, StreamResponse, Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

const TRANSPORTS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC', auto: null };
const OPERATIONS = ['send', 'stream', 'get', 'cancel', 'resubscribe'];
// Past this many stream events the client stops reading: a test peer never sends more,
// and an agent that never stops must not fill the test's memory.
const MAX_EVENTS = 10_000;

function errorLine(err) {
  const out = { name: err?.name ?? 'Error', message: String(err?.message ?? err) };
  // The code the agent answered with, wherever the SDK keeps it: the JSON-RPC
  // envelope's, the HTTP status of a REST error, the gRPC status of a gRPC one.
  for (const key of ['envelopeCode', 'code', 'statusCode', 'reason', 'transport']) {
    if (err && err[key] !== undefined && typeof err[key] !== 'object') out[key] = err[key];
  }
  if (err?.data !== undefined) out.data = err.data;
  if (err?.cause?.message) out.cause = String(err.cause.message);
  return out;
}

class UsageError extends Error {
  name = 'UsageError';
}

// One call: ARGV as on the command line; its lines go to out (stdout's) and note
// (stderr's). Resolves to the exit code, never rejects.
async function call(argv, out, note) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        task: { type: 'string' },
        context: { type: 'string' },
        'card-path': { type: 'string' },
        history: { type: 'string' },
        'return-immediately': { type: 'boolean', default: false },
        timeout: { type: 'string', default: '20' },
      },
    });
    checked(parsed);
  } catch (err) {
    out({ error: { name: 'UsageError', message: err.message } });
    return 1;
  }
  const [url, transport, operation, text] = parsed.positionals;
  const opts = parsed.values;
  const timeout = Number(opts.timeout);
  // The overall bound: card, connection and every event included. The timer is not
  // unref'd on purpose: it must fire even while a gRPC call holds the loop.
  let deadline;
  const late = new Promise((resolve) => {
    deadline = setTimeout(() => resolve({ name: 'TimeoutError', message: `no end within ${timeout} s` }), timeout * 1000);
  });
  const done = run(url, TRANSPORTS[transport], operation, text, opts, AbortSignal.timeout(timeout * 1000), out, note).then(
    () => null,
    (err) => errorLine(err)
  );
  const error = await Promise.race([done, late]);
  clearTimeout(deadline);
  if (error === null) return 0;
  out({ error });
  return 1;
}

function checked(parsed) {
  const [url, transport, operation, text] = parsed.positionals;
  const opts = parsed.values;
  const timeout = Number(opts.timeout);
  if (!url || !transport || !operation) {
    throw new UsageError('usage: client.mjs URL TRANSPORT OPERATION [TEXT] [--task ID] [--context ID] [--timeout S]');
  } else if (!(transport in TRANSPORTS)) {
    throw new UsageError(`transport must be one of ${Object.keys(TRANSPORTS).join(', ')}, not ${JSON.stringify(transport)}`);
  } else if (!OPERATIONS.includes(operation)) {
    throw new UsageError(`operation must be one of ${OPERATIONS.join(', ')}, not ${JSON.stringify(operation)}`);
  } else if (!(timeout > 0 && timeout <= 600)) {
    throw new UsageError('--timeout must be a number of seconds, more than 0 and at most 600');
  } else if ((operation === 'send' || operation === 'stream') && text === undefined) {
    throw new UsageError(`${operation} needs the message text`);
  } else if (['get', 'cancel', 'resubscribe'].includes(operation) && !opts.task) {
    throw new UsageError(`${operation} needs --task ID`);
  }
}

// --serve: one call per JSON line on stdin ({"id": N, "argv": [...]}), one after the
// other, each answered as JSON lines {"id": N, "out": LINE}, {"id": N, "note": TEXT}
// and last {"id": N, "end": CODE}. The suite's calls pay node's and the SDK's start-up
// once, not once each; a call is as alone as in its own process but for what the SDK
// caches (nothing between factories). Ends when stdin closes.
async function serve() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const { id, argv } = JSON.parse(line);
    const send = (obj) => process.stdout.write(JSON.stringify({ id, ...obj }) + '\n');
    const code = await call(argv, (value) => send({ out: value }), (text) => send({ note: text }));
    send({ end: code });
  }
  process.exit(0);
}

if (process.argv[2] === '--serve') {
  serve();
} else {
  const code = await call(
    process.argv.slice(2),
    (value) => process.stdout.write(JSON.stringify(value) + '\n'),
    (text) => process.stderr.write(text + '\n')
  );
  // gRPC channels keep the event loop alive: end here, once stdout is flushed.
  process.stdout.write('', () => process.exit(code));
}

function result(value) {
  // sendMessage answers a Task or a Message; print it wrapped as a StreamResponse is.
  return 'messageId' in value ? { message: Message.toJSON(value) } : { task: Task.toJSON(value) };
}

async function run(url, binding, operation, text, opts, signal, print, note) {
  const legacyCompat = { enabled: true };
  const transports = [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })];
  if (binding === null || binding === 'GRPC') {
    // Loaded only when it may be used: @grpc/grpc-js adds a fifth to the start-up time.
    const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
    transports.push(new GrpcTransportFactory({ legacyCompat }));
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
      transports,
      preferredTransports: binding ? [binding] : undefined,
    })
  );
  const client = await factory.createFromUrl(url, opts['card-path']);
  const chosen = client.transport;
  note(
    JSON.stringify({
      client: {
        transport: Object.getPrototypeOf(chosen).constructor.name,
        protocolName: chosen.protocolName,
        protocolVersion: client.protocolVersion,
      },
    })
  );
  if (binding && chosen.protocolName !== binding) {
    throw new Error(`the card lists no ${binding} interface (the SDK chose ${chosen.protocolName})`);
  }
  const options = { signal };
  const history = opts.history === undefined ? undefined : Number(opts.history);
  switch (operation) {
    case 'send':
      print(result(await client.sendMessage(request(text, opts), options)));
      return;
    case 'stream':
      await drain(client.sendMessageStream(request(text, opts), options), print);
      return;
    case 'get':
      print({ task: Task.toJSON(await client.getTask({ tenant: '', id: opts.task, historyLength: history }, options)) });
      return;
    case 'cancel':
      print({ task: Task.toJSON(await client.cancelTask({ tenant: '', id: opts.task, metadata: undefined }, options)) });
      return;
    case 'resubscribe':
      await drain(client.resubscribeTask({ tenant: '', id: opts.task }, options), print);
      return;
  }
}

async function drain(stream, print) {
  let n = 0;
  for await (const event of stream) {
    print(StreamResponse.toJSON(event));
    if (++n >= MAX_EVENTS) throw new Error(`more than ${MAX_EVENTS} stream events`);
  }
}

// The message the way the SDK's own samples build one (src/samples/cli.ts): every field
// of the proto type given, a text part with its media type, empty metadata and lists.
function request(text, opts) {
  const message = {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    taskId: opts.task ?? '',
    contextId: opts.context ?? '',
    extensions: [],
    metadata: {},
    referenceTaskIds: [],
  };
  const configuration = opts['return-immediately']
    ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }
    : undefined;
  return { tenant: '', message, configuration, metadata: {} };
}
