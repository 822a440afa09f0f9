// One private per-user file in atrium's state directory (the token file, the pin file): mode 0600
// inside a 0700 directory, written atomically (a temporary file in the same directory, then a
// rename), read under a byte cap. A file that is a symbolic link or belongs to another user is
// refused, never read; a file with group or other permission bits is repaired to 0600 with one
// warning on stderr.
import { chmodSync, closeSync, fstatSync, lstatSync, openSync, renameSync, rmSync, writeFileSync, constants } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { privateDir } from "./private-dir.js";
import { FILE_MODE_PRIVATE, MODE_GROUP_OTHER } from "./wire.js";
import { readFdCapped } from "./read-capped.js";

/** Why the file cannot be used (the message says which file and why; never its content). */
export class PrivateFileRefused extends Error {}

/** How one kind of private file is named and spoken of. */
export interface PrivateFileKind {
  /** The file's name in the directory, e.g. "tokens.json". */
  name: string;
  /** The byte cap of a read (a bound of spec/bounds.md). */
  maxBytes: number;
  /** What the file holds, for messages: "tokens", "pins". */
  holds: string;
  /** What the operator can do about a symbolic link in its place. */
  linkRemedy: string;
}

export class PrivateFile {
  readonly path: string;
  private warned = false;

  constructor(readonly dir: string, private readonly kind: PrivateFileKind, private readonly warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
    this.path = join(dir, kind.name);
  }

  /** The file's text, or undefined when there is none yet; throws PrivateFileRefused when it may not be read. */
  read(): string | undefined {
    const st = this.lstat();
    if (st === undefined) return undefined;
    const { holds } = this.kind;
    if (st.isSymbolicLink()) throw new PrivateFileRefused(`${this.path} is a symbolic link; atrium reads ${holds} only from a regular file of its own (${this.kind.linkRemedy})`);
    if (!st.isFile()) throw new PrivateFileRefused(`${this.path} is not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new PrivateFileRefused(`${this.path} belongs to another user (uid ${st.uid}); atrium does not read it`);
    // O_NOFOLLOW: a link swapped in after the check above is refused by the kernel.
    const fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const fst = fstatSync(fd);
      const tooLarge = () => new PrivateFileRefused(`${this.path} is larger than ${this.kind.maxBytes} bytes; atrium does not read it`);
      if (fst.size > this.kind.maxBytes) throw tooLarge();
      if ((fst.mode & MODE_GROUP_OTHER) !== 0 && uid !== undefined) {
        chmodSync(this.path, FILE_MODE_PRIVATE);
        if (!this.warned) this.warn(`atrium: ${this.path} could be read by other users; its mode is now 0600`);
        this.warned = true;
      }
      const text = readFdCapped(fd, this.kind.maxBytes); // never past the cap, even if it grew since fstat
      if (text === undefined) throw tooLarge();
      return text;
    } finally {
      closeSync(fd);
    }
  }

  /** Replaces the file's content atomically. */
  write(text: string): void {
    const dir = privateDir(this.dir, true);
    if (!dir.ok) throw new PrivateFileRefused(dir.reason);
    if (this.lstat()?.isSymbolicLink()) throw new PrivateFileRefused(`${this.path} is a symbolic link; atrium does not write ${this.kind.holds} through it`);
    const tmp = join(this.dir, `.${this.kind.name}-${randomUUID()}.tmp`);
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
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }
}
