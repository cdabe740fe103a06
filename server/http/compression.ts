// Answers over 1 KB go out compressed (br, else gzip) when the client accepts it; smaller
// ones are not worth the CPU. Request bodies are not inflated: senders post plain JSON, and
// an inflated body would slip past the body limit. A hijacked reply (the live stream) never
// reaches the compressing hook, so nothing buffers its events.
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Smallest answer compressed, in bytes. */
export const COMPRESS_THRESHOLD = 1024;

export function useCompression(app: FastifyInstance): void {
  void app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESS_THRESHOLD,
    // Brotli at its library default quality (4) costs about what gzip's default does and
    // packs JSON tighter; no deflate (ambiguous framing in the wild), no zstd (Node 22.15+).
    encodings: ['br', 'gzip'],
  });
}
