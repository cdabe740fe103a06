// An OpenAI-compatible endpoint (POST /v1/chat/completions) in front of a local client, so
// other installs can use this workstation's GPU with their ordinary endpoint client.
// response_format json_schema becomes the grammar; the answer is checked against the schema.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ModelError } from '../types.js';
import type { JsonSchema, ModelClient } from '../types.js';

export interface LocalEndpointOptions {
  client: ModelClient;
  port: number;
  /** Default 127.0.0.1; bind another address only behind TLS and a key. */
  host?: string;
  /** When set, requests must carry `Authorization: Bearer <key>`. */
  key?: string | null;
  /** Largest accepted request body, bytes (default 1 MiB). */
  maxBody?: number;
}

export interface LocalEndpoint {
  /** Base URL, e.g. http://127.0.0.1:8123/v1 */
  url: string;
  close(): Promise<void>;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface ChatBody {
  messages?: Array<{ role?: unknown; content?: unknown }>;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  response_format?: { type?: unknown; json_schema?: { name?: unknown; schema?: unknown } };
}

async function readBody(req: IncomingMessage, limit: number): Promise<ChatBody> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'request body too large');
    chunks.push(chunk);
  }
  try {
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (typeof body !== 'object' || body === null) throw new Error('not an object');
    return body;
  } catch {
    throw new HttpError(400, 'request body is not a JSON object');
  }
}

const text = (role: string, body: ChatBody) =>
  (body.messages ?? [])
    .filter((m) => m.role === role && typeof m.content === 'string')
    .map((m) => m.content as string)
    .join('\n\n');

export async function startLocalEndpoint(options: LocalEndpointOptions): Promise<LocalEndpoint> {
  const { client, key } = options;
  const host = options.host ?? '127.0.0.1';
  const limit = options.maxBody ?? 1 << 20;
  let counter = 0;

  const handle = async (req: IncomingMessage, signal: AbortSignal) => {
    const path = (req.url ?? '').split('?')[0];
    if (key && req.headers.authorization !== `Bearer ${key}`) throw new HttpError(401, 'bad key');
    if (req.method === 'GET' && path === '/v1/models') {
      return { object: 'list', data: [{ id: 'local', object: 'model', owned_by: 'local' }] };
    }
    if (path !== '/v1/chat/completions') throw new HttpError(404, 'not found');
    if (req.method !== 'POST') throw new HttpError(405, 'use POST');
    const body = await readBody(req, limit);
    const format = body.response_format;
    const schema = format?.json_schema?.schema;
    if (format?.type !== 'json_schema' || typeof schema !== 'object' || schema === null) {
      throw new HttpError(400, 'response_format must be {type: "json_schema", json_schema}');
    }
    const maxTokens = body.max_tokens ?? body.max_completion_tokens ?? 1024;
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1) {
      throw new HttpError(400, 'max_tokens must be a positive integer');
    }
    const name = format.json_schema?.name;
    const answer = await client.call(
      {
        purpose: typeof name === 'string' ? name : 'endpoint',
        system: text('system', body),
        user: text('user', body),
        schema: schema as JsonSchema,
        max_tokens: maxTokens as number,
      },
      signal,
    );
    counter += 1;
    const { prompt_tokens, completion_tokens } = answer.usage;
    return {
      id: `chatcmpl-local-${counter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: answer.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: JSON.stringify(answer.value) },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
    };
  };

  const server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('client went away'));
    });
    const reply = (status: number, payload: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    handle(req, abort.signal).then(
      (payload) => reply(200, payload),
      (error: unknown) => {
        const status =
          error instanceof HttpError
            ? error.status
            : error instanceof ModelError
              ? error.kind === 'invalid_answer'
                ? 502
                : 503
              : 500;
        const message = error instanceof Error ? error.message : 'internal error';
        reply(status, { error: { message, type: status < 500 ? 'invalid_request' : 'server' } });
      },
    );
  });
  server.listen(options.port, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
