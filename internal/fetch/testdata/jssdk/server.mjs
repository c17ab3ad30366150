// A2A servers of the official JavaScript SDK (@a2a-js/sdk) for
// internal/fetch's probe tests: one request handler over a counting task
// store, served as JSON-RPC (/jsonrpc) and HTTP+JSON (/rest) by express
// and as gRPC on a port of its own, all on loopback. GET /count answers
// the store's counts, so a test can tell whether a call created a task.
// The ports go to standard output as one JSON line.
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { grpcService, A2AService } from '@a2a-js/sdk/server/grpc';

class CountingStore extends InMemoryTaskStore {
  saves = 0;
  ids = new Set();
  async save(task, context) {
    this.saves++;
    this.ids.add(task.id);
    return super.save(task, context);
  }
}

// Every message gets a completed task: a message sent leaves one in the
// store.
const executor = {
  async execute(requestContext, eventBus) {
    eventBus.publish(AgentEvent.task({
      id: requestContext.taskId,
      contextId: requestContext.contextId,
      status: { state: 3 /* TASK_STATE_COMPLETED */ },
      history: [],
      artifacts: [],
    }));
    eventBus.finished();
  },
  async cancelTask() {},
};

// The card must list every interface, gRPC's included, and the gRPC
// server must have its service before it binds its port: the service asks
// the handler, made once both ports are known, through this forwarder.
let handler;
const forwarder = new Proxy({}, {
  get: (_target, name) => (...args) => handler[name](...args),
});
const gs = new grpc.Server();
gs.addService(A2AService, grpcService({ requestHandler: forwarder, userBuilder: UserBuilder.noAuthentication }));

const app = express();
const server = app.listen(0, '127.0.0.1', () => gs.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, grpcPort) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
  const httpPort = server.address().port;
  const base = `http://127.0.0.1:${httpPort}`;
  const card = {
    name: 'Ledger',
    description: 'Summarises ledgers.',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${base}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `http://127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'summarise', name: 'Summarise', description: 'Summarises ledgers.', tags: ['finance'] }],
  };
  const store = new CountingStore();
  handler = new DefaultRequestHandler(card, store, executor);
  app.get('/count', (_req, res) => res.json({ tasks: store.ids.size, saves: store.saves }));
  app.use('/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  console.log(JSON.stringify({ http: httpPort, grpc: grpcPort }));
}));
// The test closes standard input to stop the servers.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
