// A bounded tail of a child's stderr: enough to explain a failure in doctor and in
// `unavailable` errors, never unbounded memory for a chatty child.
export class StderrRing {
  private chunks: string[] = [];
  private size = 0;
  constructor(private readonly maxBytes: number) {}

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.maxBytes && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
    if (this.size > this.maxBytes) {
      this.chunks[0] = this.chunks[0].slice(this.size - this.maxBytes);
      this.size = this.maxBytes;
    }
  }

  /** The last `lines` lines (whole buffer when omitted). */
  tail(lines?: number): string {
    const text = this.chunks.join("");
    if (lines === undefined) return text;
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  }
}
