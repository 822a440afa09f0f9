// How every atrium command but `serve` (whose stdout is JSON-RPC: transport/bounded-stdio.ts ends
// that) meets a stdout that fails. A reader that went away (`atrium pins | head -1`: EPIPE) ends the
// command, quietly, with EXIT_OUTPUT_CLOSED, the status of a Unix tool ended by SIGPIPE; any other
// failure (a full disk under `> report.txt`) ends it with one line on stderr and exit 1.
// Before either exit, the cleanups a command registered (`atrium demo` closes its own atrium child)
// run to their end, so nothing the command started outlives it. Each cleanup bounds its own wait
// (the SDK's stdio close ends its child within its kill ladder).
// A stderr that fails is ignored: it is where messages go, there is nowhere left to say so.
import { EXIT_OUTPUT_CLOSED } from "../support/wire.js";

const READER_GONE = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ECONNRESET"]);
const cleanups = new Set<() => Promise<unknown>>();

/** Registers work to finish before the command ends on a failed stdout; returns its removal. */
export function beforeOutputClosedExit(cleanup: () => Promise<unknown>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

let ending = false;

/** True once stdout has failed: the command's own ending (or its failure, "Not connected" from a
 *  session being closed) is no longer reported; this module's exit is the command's end. */
export function outputClosedEnding(): boolean {
  return ending;
}

export function endQuietlyWhenOutputCloses(): void {
  process.stderr.on("error", () => {});
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (ending) return; // later writes meet the same closed pipe
    ending = true;
    const gone = READER_GONE.has(e.code ?? "");
    if (!gone) process.stderr.write(`atrium: cannot write the output (${e.code ?? e.message})\n`);
    void Promise.allSettled([...cleanups].map((c) => c())).then(() => process.exit(gone ? EXIT_OUTPUT_CLOSED : 1));
  });
}
