// Reads a regular file of at most `maxBytes` bytes, never more: a larger file (or one that grew
// while it was read) is refused unread past the cap. Symbolic links are followed only when the
// caller allows it (a config file may be one; atrium's own state files may not).
import { closeSync, fstatSync, openSync, readSync, constants } from "node:fs";

export type CappedRead = { ok: true; text: string } | { ok: false; missing: boolean; message: string };

export function readFileCapped(path: string, maxBytes: number, opts: { followLinks: boolean }): CappedRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (opts.followLinks ? 0 : constants.O_NOFOLLOW));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === "ENOENT", message: code === "ENOENT" ? "file not found" : code === "ELOOP" ? "it is a symbolic link" : (e as Error).message };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, missing: false, message: "it is not a regular file" };
    const tooLarge = { ok: false, missing: false, message: `it is larger than ${maxBytes} bytes` } as const;
    if (st.size > maxBytes) return tooLarge;
    const text = readFdCapped(fd, maxBytes);
    return text === undefined ? tooLarge : { ok: true, text };
  } catch (e) {
    return { ok: false, missing: false, message: (e as Error).message };
  } finally {
    closeSync(fd);
  }
}

/** The text of an open file, read to at most `maxBytes` bytes; undefined when there is more (it grew past the cap). */
export function readFdCapped(fd: number, maxBytes: number): string | undefined {
  const buf = Buffer.alloc(maxBytes + 1);
  let n = 0;
  for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
  return n > maxBytes ? undefined : buf.subarray(0, n).toString("utf8");
}
