// Finds the system Chromium (Debian package) and launches it headless through playwright-core.
// A missing browser is an error naming the install command: the browser suites never skip.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const INSTALL_COMMAND = "apt-get update && apt-get install -y chromium";

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
  if (!existsSync(path)) throw new Error(INSTALL_COMMAND);
  return path;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
