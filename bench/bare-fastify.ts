// The baseline of the ingest benchmark: a bare Fastify app (the service's own fastify
// version) with one route that parses the same JSON body and answers 201 with a small
// JSON. No auth, no schema, no ledger, no logger: what HTTP + JSON alone cost on this
// machine. Started as a child process by events-ingest.bench.ts; prints {"port":N} when
// it listens and stops on SIGTERM.
import Fastify from 'fastify';

const app = Fastify({ logger: false });

app.post('/bare', async (req, reply) => {
  const body = req.body as { type?: unknown } | null;
  return reply
    .code(201)
    .send({ ok: true, type: typeof body?.type === 'string' ? body.type : null });
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port })}\n`);

process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
