// The token file: one JSON file per user in atrium's state directory (tokens.json), a private
// file (glue/support/private-file.ts: 0600 in a 0700 directory, atomic writes, symbolic links and
// other users' files refused, loose modes repaired with one warning).
import { stateDir } from "../support/state-dir.js";
import { PrivateFile } from "../support/private-file.js";
import { OAUTH_STORE_BYTES_MAX } from "../decisions/generated/spec.js";

export class TokenFile extends PrivateFile {
  constructor(dir: string = stateDir(), warn?: (line: string) => void) {
    super(dir, { name: "tokens.json", maxBytes: OAUTH_STORE_BYTES_MAX, holds: "tokens", linkRemedy: "remove it, then log in again" }, warn);
  }
}
