// Tool vectors on disk, so a restart embeds only new or changed tools. One file per model under
// the state directory (<state>/embeddings/, private: 0700, files 0600), keyed by a hash of the
// model id and the embedded text; written whole to a temporary file and renamed into place;
// at most EMBED_CACHE_BYTES_MAX per file, the least recently seen vectors dropped first.
// A file that is unreadable, too large or not in this format is ignored (and later replaced).
//
// Format: a little-endian u32 header length, the header (JSON: format, model, dims, keys), then
// one float32 vector per key, in key order.
import { createHash } from "node:crypto";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import { EMBED_CACHE_BYTES_MAX } from "../decisions/generated/spec.js";
import { FILE_MODE_PRIVATE } from "../support/wire.js";
import { privateDir } from "../views/private-dir.js";

const FORMAT = "atrium-vectors-1";
const HEADER_LENGTH_BYTES = Uint32Array.BYTES_PER_ELEMENT;
const FLOAT_BYTES = Float32Array.BYTES_PER_ELEMENT;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The cache key of one text under one model. */
export const vectorKey = (modelId: string, text: string) => sha256(`${modelId}\n${text}`);

export class VectorCache {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly file: string | undefined;

  /** `dir` undefined: kept in memory only (no state directory to write to). */
  constructor(private readonly dir: string | undefined, private readonly modelId: string, private readonly dims: number) {
    this.file = dir === undefined ? undefined : join(dir, `${sha256(modelId)}.vec`);
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
      const start = HEADER_LENGTH_BYTES + headerBytes;
      const width = this.dims * FLOAT_BYTES;
      if (bytes.length - start !== keys.length * width) return 0;
      keys.forEach((key, i) => {
        if (typeof key !== "string") return;
        const from = bytes.byteOffset + start + i * width;
        this.vectors.set(key, new Float32Array(bytes.buffer.slice(from, from + width)));
      });
      return this.vectors.size;
    } catch {
      return 0;
    }
  }

  get(key: string): Float32Array | undefined {
    return this.vectors.get(key);
  }

  put(key: string, vector: Float32Array): void {
    this.vectors.delete(key);
    this.vectors.set(key, vector);
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
      if (v) this.put(key, v); // moves it last: the most recently seen
    }
    const recentFirst = [...this.vectors.keys()].reverse();
    const keys: string[] = [];
    const fixed = HEADER_LENGTH_BYTES + Buffer.byteLength(JSON.stringify({ format: FORMAT, model: this.modelId, dims: this.dims, endian: endianness(), keys: [] }));
    let size = fixed;
    for (const key of recentFirst) {
      const more = Buffer.byteLength(JSON.stringify(key)) + 1 + this.dims * FLOAT_BYTES;
      if (size + more > EMBED_CACHE_BYTES_MAX) break;
      keys.push(key);
      size += more;
    }
    const kept = new Set(keys);
    for (const key of [...this.vectors.keys()]) if (!kept.has(key)) this.vectors.delete(key);
    const header = Buffer.from(JSON.stringify({ format: FORMAT, model: this.modelId, dims: this.dims, endian: endianness(), keys }), "utf8");
    const length = Buffer.alloc(HEADER_LENGTH_BYTES);
    length.writeUInt32LE(header.length, 0);
    const body = Buffer.concat([length, header, ...keys.map((k) => Buffer.from(this.vectors.get(k)!.buffer, this.vectors.get(k)!.byteOffset, this.dims * FLOAT_BYTES))]);
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
