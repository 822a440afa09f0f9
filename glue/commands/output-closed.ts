// How every atrium command but `serve` (whose stdout is JSON-RPC: transport/bounded-stdio.ts ends
// that) meets a stdout that fails. A reader that went away (`atrium pins | head -1`: EPIPE) ends the
// command at once, quietly, with EXIT_OUTPUT_CLOSED, the status of a Unix tool ended by SIGPIPE;
// any other failure (a full disk under `> report.txt`) ends it with one line on stderr and exit 1.
// A stderr that fails is ignored: it is where messages go, there is nowhere left to say so.
import { EXIT_OUTPUT_CLOSED } from "../support/wire.js";

const READER_GONE = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ECONNRESET"]);

export function endQuietlyWhenOutputCloses(): void {
  process.stderr.on("error", () => {});
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (READER_GONE.has(e.code ?? "")) process.exit(EXIT_OUTPUT_CLOSED);
    process.stderr.write(`atrium: cannot write the output (${e.code ?? e.message})\n`);
    process.exit(1);
  });
}
