// A directory only this user can enter, for files a view page's data lands in. atrium's own
// directory must be a real directory of this user (never a symbolic link) and loses any group
// or other permission bits; a directory the operator named is created the same way when missing
// and otherwise used as the operator set it up. (POSIX only: Windows has no uid or mode bits
// here, so there it is only created.)
import { chmodSync, lstatSync, mkdirSync, type Stats } from "node:fs";
import { DIR_MODE_PRIVATE, MODE_GROUP_OTHER } from "./wire.js";

export type DirCheck = { ok: true } | { ok: false; reason: string };

const PRIVATE = DIR_MODE_PRIVATE;

function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** Makes `dir` ready to hold private files; `own` is true for atrium's own directory. */
export function privateDir(dir: string, own: boolean): DirCheck {
  try {
    let st = lstat(dir);
    if (st === undefined) {
      mkdirSync(dir, { recursive: true, mode: PRIVATE });
      st = lstatSync(dir);
    } else if (!own) {
      return st.isDirectory() || st.isSymbolicLink() ? { ok: true } : { ok: false, reason: `${dir} is not a directory` };
    }
    if (st.isSymbolicLink()) return { ok: false, reason: `${dir} is a symbolic link; atrium writes view files only into a real directory of its own` };
    if (!st.isDirectory()) return { ok: false, reason: `${dir} is not a directory` };
    const uid = process.getuid?.();
    if (uid === undefined) return { ok: true };
    if (st.uid !== uid) return { ok: false, reason: `${dir} belongs to another user (uid ${st.uid}), so files written there would not be private` };
    if ((st.mode & MODE_GROUP_OTHER) !== 0) chmodSync(dir, PRIVATE);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: `${dir} cannot be used: ${(e as Error).message}` };
  }
}
