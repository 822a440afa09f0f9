// Where atrium keeps per-user state (offline view files, the token file of remote logins, the pin file, the activity log).
// Nothing here creates the directory: each user of it makes its own subdirectory private.
import { homedir } from "node:os";
import { posix, resolve, win32 } from "node:path";

/**
 * The user's atrium state directory:
 *   $ATRIUM_STATE_DIR                                  when set (tests use it to keep out of the real home)
 *   %LOCALAPPDATA%\atrium                              on Windows (else ~\AppData\Local\atrium)
 *   $XDG_STATE_HOME/atrium                             when set to an absolute path (not on Windows)
 *   ~/Library/Application Support/atrium               on macOS
 *   ~/.local/state/atrium                              elsewhere
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (env.ATRIUM_STATE_DIR) return resolve(env.ATRIUM_STATE_DIR);
  if (platform === "win32") {
    const local = env.LOCALAPPDATA && win32.isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : win32.join(home, "AppData", "Local");
    return win32.join(local, "atrium");
  }
  // The XDG base directory spec ignores relative values.
  const xdg = env.XDG_STATE_HOME;
  if (xdg && posix.isAbsolute(xdg)) return posix.join(xdg, "atrium");
  if (platform === "darwin") return posix.join(home, "Library", "Application Support", "atrium");
  return posix.join(home, ".local", "state", "atrium");
}
