// doctor's lines about live reload: what the atrium serving this same config file last did with
// it (loaded it, applied an edit, refused one and why, by config path), read from the status file
// that process writes (config/reload-status.ts). Nothing when no serving atrium wrote one for it.
import { readReloadStatus } from "../config/reload-status.js";

export function reloadLines(file: string): string[] {
  const s = readReloadStatus(file);
  if (!s) return [];
  const who = alive(s.pid) ? `atrium serve (pid ${s.pid})` : `the atrium serve that ran as pid ${s.pid} (no longer running)`;
  if (s.event === "applied") {
    const parts = [s.added.length ? `added ${s.added.join(", ")}` : "", s.removed.length ? `removed ${s.removed.join(", ")}` : "", s.restarted.length ? `restarted ${s.restarted.join(", ")}` : ""].filter(Boolean);
    const fixed = s.restartNeeded.length ? `; ${s.restartNeeded.join(", ")} keep their values until it restarts` : "";
    return [`reload: ${who} applied an edit at ${s.at}: ${parts.join("; ") || "no connector changed"}${fixed}`];
  }
  return [
    `reload: ${who} refused an edit at ${s.at} and kept serving the config it had:`,
    ...s.errors.map((e) => `  error: ${e.path ? `${e.path}: ` : ""}${e.message}`),
    ...(s.moreErrors ? [`  … and ${s.moreErrors} more`] : []),
  ];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
