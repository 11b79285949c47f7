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

function fail(error, code = 1) {
  process.stdout.write(JSON.stringify({ error }) + '\n', () => process.exit(code));
}

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

function usage(message) {
  fail({ name: 'UsageError', message });
}

let parsed;
try {
  parsed = parseArgs({
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
} catch (err) {
  usage(err.message);
}

if (parsed) {
  const [url, transport, operation, text] = parsed.positionals;
  const opts = parsed.values;
  const timeout = Number(opts.timeout);
  if (!url || !transport || !operation) {
    usage('usage: client.mjs URL TRANSPORT OPERATION [TEXT] [--task ID] [--context ID] [--timeout S]');
  } else if (!(transport in TRANSPORTS)) {
    usage(`transport must be one of ${Object.keys(TRANSPORTS).join(', ')}, not ${JSON.stringify(transport)}`);
  } else if (!OPERATIONS.includes(operation)) {
    usage(`operation must be one of ${OPERATIONS.join(', ')}, not ${JSON.stringify(operation)}`);
  } else if (!(timeout > 0 && timeout <= 600)) {
    usage('--timeout must be a number of seconds, more than 0 and at most 600');
  } else if ((operation === 'send' || operation === 'stream') && text === undefined) {
    usage(`${operation} needs the message text`);
  } else if (['get', 'cancel', 'resubscribe'].includes(operation) && !opts.task) {
    usage(`${operation} needs --task ID`);
  } else {
    // The overall bound: card, connection and every event included. The timer is not
    // unref'd on purpose: it must fire even while a gRPC call holds the loop.
    const deadline = setTimeout(
      () => fail({ name: 'TimeoutError', message: `no end within ${timeout} s` }),
      timeout * 1000
    );
    run(url, TRANSPORTS[transport], operation, text, opts, AbortSignal.timeout(timeout * 1000)).then(
      () => {
        clearTimeout(deadline);
        // gRPC channels keep the event loop alive: end here, once stdout is flushed.
        process.stdout.write('', () => process.exit(0));
      },
      (err) => {
        clearTimeout(deadline);
        fail(errorLine(err));
      }
    );
  }
}

function print(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function result(value) {
  // sendMessage answers a Task or a Message; print it wrapped as a StreamResponse is.
  return 'messageId' in value ? { message: Message.toJSON(value) } : { task: Task.toJSON(value) };
}

async function run(url, binding, operation, text, opts, signal) {
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
  process.stderr.write(
    JSON.stringify({
      client: {
        transport: Object.getPrototypeOf(chosen).constructor.name,
        protocolName: chosen.protocolName,
        protocolVersion: client.protocolVersion,
      },
    }) + '\n'
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
      await drain(client.sendMessageStream(request(text, opts), options));
      return;
    case 'get':
      print({ task: Task.toJSON(await client.getTask({ tenant: '', id: opts.task, historyLength: history }, options)) });
      return;
    case 'cancel':
      print({ task: Task.toJSON(await client.cancelTask({ tenant: '', id: opts.task, metadata: undefined }, options)) });
      return;
    case 'resubscribe':
      await drain(client.resubscribeTask({ tenant: '', id: opts.task }, options));
      return;
  }
}

async function drain(stream) {
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
