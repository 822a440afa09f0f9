// Where the pins are kept: one interface for the pin file of one machine (pin-file.ts) and the
// shared store replicas use (store/shared-pins.ts). Reads are synchronous (a listing is judged in
// the middle of building a catalog); a shared store keeps the pins in memory and writes behind.
import type { PinData } from "./pin-file.js";

export interface PinStorage {
  /** Where the pins are, for messages: a file's path, or the shared store. */
  readonly where: string;
  /** The pins as they are now (a copy the caller may change and save). */
  load(): PinData;
  /** Keeps `data` as the pins. */
  save(data: PinData): void;
  /** Calls `changed` when another process or replica changed the pins (`atrium pins accept`); never keeps the process alive. */
  watch(changed: () => void): void;
}
