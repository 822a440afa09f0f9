// Tool vectors on disk, so a restart embeds only new or changed tools. One file per model under
// the state directory (<state>/embeddings/, private: 0700, files 0600), keyed by a hash of the
// model id and the embedded text; written whole to a temporary file and renamed into place;
// at most EMBED_CACHE_BYTES_MAX per file, the least recently seen vectors dropped first.
// A file that is unreadable, too large or not in this format is ignored (and later replaced).
// While a catalog is embedded the file is written every EMBED_CACHE_SAVE_TOOLS tools, so a
// restart resumes where it stopped and `atrium doctor` can count how far it is (countOf).
//
// Format 2: a little-endian u32 header length, the header (JSON: format, model, dims, endian,
// keys), then one float32 scale per key, then one int8 code vector per key (embedder.ts
// quantize), both in key order. A format 1 file (float32 vectors) is ignored: embedded again once.
import { createHash } from "node:crypto";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import { EMBED_CACHE_BYTES_MAX } from "../decisions/generated/spec.js";
import { FILE_MODE_PRIVATE } from "../support/wire.js";
import { privateDir } from "../support/private-dir.js";
import { stateDir } from "../support/state-dir.js";
import { quantize, type Int8Vector } from "./embedder.js";

const FORMAT = "atrium-vectors-2";
const HEADER_LENGTH_BYTES = Uint32Array.BYTES_PER_ELEMENT;
const SCALE_BYTES = Float32Array.BYTES_PER_ELEMENT;

/** Where atrium keeps its vector files: <state>/embeddings. */
export const vectorCacheDir = () => join(stateDir(), "embeddings");

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The cache key of one text under one model. */
export const vectorKey = (modelId: string, text: string) => sha256(`${modelId}\n${text}`);

/** The vector file of one model under `dir`. */
const fileOf = (dir: string, modelId: string) => join(dir, `${sha256(modelId)}.vec`);

/**
 * How many of `keys` the model's file under `dir` holds now, read from its header alone (doctor:
 * how far atrium serve's embedding is); 0 when the file is absent or unusable.
 */
export function cachedCount(dir: string, modelId: string, keys: Iterable<string>): number {
  try {
    const file = fileOf(dir, modelId);
    if (statSync(file).size > EMBED_CACHE_BYTES_MAX) return 0;
    const bytes = readFileSync(file);
    const header = JSON.parse(bytes.subarray(HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + bytes.readUInt32LE(0)).toString("utf8")) as { format?: unknown; model?: unknown; keys?: unknown };
    if (header.format !== FORMAT || header.model !== modelId || !Array.isArray(header.keys)) return 0;
    const held = new Set(header.keys);
    let n = 0;
    for (const key of keys) if (held.has(key)) n++;
    return n;
  } catch {
    return 0;
  }
}

export class VectorCache {
  private readonly vectors = new Map<string, Int8Vector>();
  private readonly file: string | undefined;

  /** `dir` undefined: kept in memory only (no state directory to write to). */
  constructor(private readonly dir: string | undefined, private readonly modelId: string, private readonly dims: number) {
    this.file = dir === undefined ? undefined : fileOf(dir, modelId);
  }

  /** Reads the file; answers how many vectors it held (0 when absent or unusable). */
  load(): number {
    if (!this.file) return 0;
    try {
      if (statSync(this.file).size > EMBED_CACHE_BYTES_MAX) return 0;
      const bytes = readFileSync(this.file);
      const headerBytes = bytes.readUInt32LE(0);
      const header = JSON.parse(bytes.subarray(HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + headerBytes).toString("utf8")) as { format?: unknown; model?: unknown; dims?: unknown; endian?: unknown; keys?: unknown };
      const keys = header.keys;
      if (header.format !== FORMAT || header.model !== this.modelId || header.dims !== this.dims || header.endian !== endianness() || !Array.isArray(keys)) return 0;
      const scalesAt = HEADER_LENGTH_BYTES + headerBytes;
      const codesAt = scalesAt + keys.length * SCALE_BYTES;
      if (bytes.length - codesAt !== keys.length * this.dims) return 0;
      // The scales copied out (a float32 view needs an aligned offset); the codes stay views of the file's bytes.
      const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset + scalesAt, bytes.byteOffset + codesAt));
      const codes = new Int8Array(bytes.buffer, bytes.byteOffset + codesAt, keys.length * this.dims);
      keys.forEach((key, i) => {
        if (typeof key !== "string" || !Number.isFinite(scales[i]!)) return;
        this.vectors.set(key, { codes: codes.subarray(i * this.dims, (i + 1) * this.dims), scale: scales[i]! });
      });
      return this.vectors.size;
    } catch {
      return 0;
    }
  }

  get(key: string): Int8Vector | undefined {
    return this.vectors.get(key);
  }

  /** Keeps the vector (quantized) as the most recently seen; answers what is kept. */
  put(key: string, vector: Float32Array): Int8Vector {
    const kept = quantize(vector);
    this.keep(key, kept);
    return kept;
  }

  /**
   * Keeps `v` as the key's vector without a copy (ToolVectors hands over views of its block once
   * a catalog is in, so each vector is held once, not once per tool and once in the cache).
   */
  hold(key: string, v: Int8Vector): void {
    if (this.vectors.has(key)) this.vectors.set(key, v);
  }

  private keep(key: string, v: Int8Vector): void {
    this.vectors.delete(key);
    this.vectors.set(key, v);
  }

  /**
   * Writes the file: the `live` keys (the catalog's now) are the most recent, then the others
   * in their order, cut where the file would pass its cap. Never throws (a cache that cannot be
   * written only costs a re-embed after a restart); answers why it did not write, if it did not.
   */
  save(live: Iterable<string>): string | undefined {
    if (!this.file || !this.dir) return undefined;
    for (const key of live) {
      const v = this.vectors.get(key);
      if (v) this.keep(key, v); // moves it last: the most recently seen
    }
    const recentFirst = [...this.vectors.keys()].reverse();
    const keys: string[] = [];
    const fixed = HEADER_LENGTH_BYTES + Buffer.byteLength(JSON.stringify({ format: FORMAT, model: this.modelId, dims: this.dims, endian: endianness(), keys: [] }));
    let size = fixed;
    for (const key of recentFirst) {
      const more = Buffer.byteLength(JSON.stringify(key)) + 1 + SCALE_BYTES + this.dims;
      if (size + more > EMBED_CACHE_BYTES_MAX) break;
      keys.push(key);
      size += more;
    }
    const within = new Set(keys);
    for (const key of [...this.vectors.keys()]) if (!within.has(key)) this.vectors.delete(key);
    const header = Buffer.from(JSON.stringify({ format: FORMAT, model: this.modelId, dims: this.dims, endian: endianness(), keys }), "utf8");
    const length = Buffer.alloc(HEADER_LENGTH_BYTES);
    length.writeUInt32LE(header.length, 0);
    const kept = keys.map((k) => this.vectors.get(k)!);
    const scales = Float32Array.from(kept, (v) => v.scale);
    const body = Buffer.concat([length, header, Buffer.from(scales.buffer), ...kept.map((v) => Buffer.from(v.codes.buffer, v.codes.byteOffset, this.dims))]);
    const dir = privateDir(this.dir, true);
    if (!dir.ok) return dir.reason;
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, body, { mode: FILE_MODE_PRIVATE });
      renameSync(temp, this.file);
      return undefined;
    } catch (e) {
      return `the vector cache ${this.file} could not be written: ${(e as Error).message}`;
    }
  }
}
