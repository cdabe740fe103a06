// A tiny GGUF v3 model written from scratch (no download): llama architecture, 2 layers,
// 64-dim embeddings, a 260-token byte vocabulary ("llama" tokenizer), random f32 weights from
// a fixed seed. It answers nonsense, but loads in milliseconds through the real llama.cpp
// path and, constrained by a grammar, always produces valid JSON, deterministically.
import { writeFile } from 'node:fs/promises';

const ALIGN = 32;
// GGUF value types.
const T = { U32: 4, I32: 5, F32: 6, BOOL: 7, STR: 8, ARR: 9 } as const;
type T = (typeof T)[keyof typeof T];
type Meta = [key: string, type: T, value: number | string | boolean | [T, Array<number | string>]];

export interface TinyModelOptions {
  layers?: number;
  embd?: number;
  heads?: number;
  ff?: number;
  context?: number;
  seed?: number;
}

/** The GGUF bytes of the tiny model. Same options, same bytes. */
export function tinyGguf(options: TinyModelOptions = {}): Buffer {
  const { layers = 2, embd = 64, heads = 4, ff = 128, context = 2048, seed = 42 } = options;
  const tokens = ['<unk>', '<s>', '</s>'];
  for (let b = 0; b < 256; b++) tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  // A 260th, normal token so the vocabulary is not only control and byte tokens.
  tokens.push('\u2581');
  const vocab = tokens.length;
  const types = tokens.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1));
  const meta: Meta[] = [
    ['general.architecture', T.STR, 'llama'],
    ['general.name', T.STR, 'tiny-test'],
    ['general.alignment', T.U32, ALIGN],
    ['llama.context_length', T.U32, context],
    ['llama.embedding_length', T.U32, embd],
    ['llama.block_count', T.U32, layers],
    ['llama.feed_forward_length', T.U32, ff],
    ['llama.attention.head_count', T.U32, heads],
    ['llama.attention.head_count_kv', T.U32, heads],
    ['llama.attention.layer_norm_rms_epsilon', T.F32, 1e-5],
    ['llama.rope.dimension_count', T.U32, embd / heads],
    ['llama.vocab_size', T.U32, vocab],
    ['tokenizer.ggml.model', T.STR, 'llama'],
    ['tokenizer.ggml.tokens', T.ARR, [T.STR, tokens]],
    ['tokenizer.ggml.scores', T.ARR, [T.F32, tokens.map(() => 0)]],
    ['tokenizer.ggml.token_type', T.ARR, [T.I32, types]],
    ['tokenizer.ggml.unknown_token_id', T.U32, 0],
    ['tokenizer.ggml.bos_token_id', T.U32, 1],
    ['tokenizer.ggml.eos_token_id', T.U32, 2],
    ['tokenizer.ggml.add_bos_token', T.BOOL, true],
  ];
  // GGUF dims are innermost first: a [rows × cols] matrix is written as [cols, rows].
  const tensors: Array<[string, number[]]> = [
    ['token_embd.weight', [embd, vocab]],
    ['output_norm.weight', [embd]],
    ['output.weight', [embd, vocab]],
  ];
  for (let i = 0; i < layers; i++) {
    const p = `blk.${i}.`;
    tensors.push(
      [`${p}attn_norm.weight`, [embd]],
      [`${p}attn_q.weight`, [embd, embd]],
      [`${p}attn_k.weight`, [embd, embd]],
      [`${p}attn_v.weight`, [embd, embd]],
      [`${p}attn_output.weight`, [embd, embd]],
      [`${p}ffn_norm.weight`, [embd]],
      [`${p}ffn_gate.weight`, [embd, ff]],
      [`${p}ffn_up.weight`, [embd, ff]],
      [`${p}ffn_down.weight`, [ff, embd]],
    );
  }

  const parts: Buffer[] = [];
  const u32 = (n: number) => parts.push(Buffer.from(new Uint32Array([n]).buffer));
  const u64 = (n: number) => parts.push(Buffer.from(new BigUint64Array([BigInt(n)]).buffer));
  const str = (s: string) => (u64(Buffer.byteLength(s)), parts.push(Buffer.from(s, 'utf8')));
  const scalar = (type: T, v: number | string | boolean): void => {
    if (type === T.STR) return void str(v as string);
    if (type === T.BOOL) return void parts.push(Buffer.from([v ? 1 : 0]));
    const b = Buffer.alloc(4);
    if (type === T.F32) b.writeFloatLE(v as number);
    else if (type === T.I32) b.writeInt32LE(v as number);
    else b.writeUInt32LE(v as number);
    parts.push(b);
  };
  parts.push(Buffer.from('GGUF', 'ascii'));
  u32(3);
  u64(tensors.length);
  u64(meta.length);
  for (const [key, type, value] of meta) {
    str(key);
    u32(type);
    if (type !== T.ARR) scalar(type, value as number | string | boolean);
    else {
      const [elem, items] = value as [T, Array<number | string>];
      u32(elem);
      u64(items.length);
      for (const item of items) scalar(elem, item);
    }
  }
  const sizes = tensors.map(([, dims]) => dims.reduce((a, b) => a * b, 1) * 4);
  const pad = (n: number) => Math.ceil(n / ALIGN) * ALIGN;
  let offset = 0;
  tensors.forEach(([name, dims], i) => {
    str(name);
    u32(dims.length);
    dims.forEach(u64);
    u32(0); // GGML_TYPE_F32
    u64(offset);
    offset += pad(sizes[i] ?? 0);
  });
  const header = Buffer.concat(parts);
  const data = Buffer.alloc(pad(header.length) - header.length + offset);
  let at = pad(header.length) - header.length;
  let state = seed >>> 0;
  const random = () => {
    // mulberry32: a fixed-seed PRNG, uniform in [0, 1).
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // output.weight rows of the bytes 0x80..0xFF are zero, so the model never emits a stray
  // UTF-8 byte: llama.cpp's grammar counts such bytes differently from JS string lengths.
  const silent = (name: string, k: number) =>
    name === 'output.weight' && Math.floor(k / embd) >= 3 + 0x80 && Math.floor(k / embd) < 259;
  tensors.forEach(([name, dims], i) => {
    const norm = name.endsWith('norm.weight');
    const count = dims.reduce((a, b) => a * b, 1);
    for (let k = 0; k < count; k++) {
      const w = norm ? 1 : (random() - 0.5) * 0.2;
      data.writeFloatLE(silent(name, k) ? 0 : w, at + k * 4);
    }
    at += pad(sizes[i] ?? 0);
  });
  return Buffer.concat([header, data]);
}

/** Writes the tiny model to `path` and returns the path. */
export async function writeTinyGguf(path: string, options?: TinyModelOptions): Promise<string> {
  await writeFile(path, tinyGguf(options));
  return path;
}
