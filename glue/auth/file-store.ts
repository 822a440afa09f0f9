// The token file: one JSON file per user in atrium's state directory (tokens.json), mode 0600
// inside a 0700 directory, written atomically (a temporary file in the same directory, then a
// rename). A file that is a symbolic link or belongs to another user is refused, never read; a
// file with group or other permission bits is repaired to 0600 with one warning on stderr.
import { chmodSync, closeSync, fstatSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, constants } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { privateDir } from "../views/private-dir.js";
import { stateDir } from "../support/state-dir.js";
import { FILE_MODE_PRIVATE, MODE_GROUP_OTHER } from "../support/wire.js";
import { OAUTH_STATE_BYTES, OAUTH_STORE_BYTES_MAX } from "../decisions/generated/spec.js";

/** Why the token file cannot be used (the message says which file and why; never its content). */
class TokenFileRefused extends Error {}

export class TokenFile {
  readonly path: string;
  private warned = false;

  constructor(readonly dir: string = stateDir(), private readonly warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
    this.path = join(dir, "tokens.json");
  }

  /** The file's text, or undefined when there is none yet. */
  read(): string | undefined {
    let st;
    try {
      st = lstatSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    if (st.isSymbolicLink()) throw new TokenFileRefused(`${this.path} is a symbolic link; atrium reads tokens only from a regular file of its own (remove it, then log in again)`);
    if (!st.isFile()) throw new TokenFileRefused(`${this.path} is not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new TokenFileRefused(`${this.path} belongs to another user (uid ${st.uid}); atrium does not read it`);
    // O_NOFOLLOW: a link swapped in after the check above is refused by the kernel.
    const fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const fst = fstatSync(fd);
      if (fst.size > OAUTH_STORE_BYTES_MAX) throw new TokenFileRefused(`${this.path} is larger than ${OAUTH_STORE_BYTES_MAX} bytes; atrium does not read it`);
      if ((fst.mode & MODE_GROUP_OTHER) !== 0 && uid !== undefined) {
        chmodSync(this.path, FILE_MODE_PRIVATE);
        if (!this.warned) this.warn(`atrium: ${this.path} could be read by other users; its mode is now 0600`);
        this.warned = true;
      }
      return readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  }

  /** Replaces the file's content atomically. */
  write(text: string): void {
    const dir = privateDir(this.dir, true);
    if (!dir.ok) throw new TokenFileRefused(dir.reason);
    const existing = this.lstat();
    if (existing?.isSymbolicLink()) throw new TokenFileRefused(`${this.path} is a symbolic link; atrium does not write tokens through it`);
    const tmp = join(this.dir, `.tokens-${randomBytes(OAUTH_STATE_BYTES).toString("hex")}.tmp`);
    try {
      writeFileSync(tmp, text, { mode: FILE_MODE_PRIVATE, flag: "wx" });
      renameSync(tmp, this.path);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  }

  private lstat() {
    try {
      return lstatSync(this.path);
    } catch {
      return undefined;
    }
  }
}
