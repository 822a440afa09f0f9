// The config atrium runs with now: what serve started with, replaced whole by each reload that
// applies (config/reload.ts). Readers take `current` once, when their work starts (a run, a
// call), so a reload changes what new work gets and never what work in progress has.
import type { AtriumConfig } from "./schema.js";

export class RunningConfig {
  constructor(private config: AtriumConfig) {}

  get current(): AtriumConfig {
    return this.config;
  }

  replace(next: AtriumConfig): void {
    this.config = next;
  }
}
