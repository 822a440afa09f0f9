// Hosts cache the shell by its ui:// URI, so its bytes are pinned to the URI in
// glue/views/shell-version.json. Changing the shell means: bump the version segment of
// SHELL_URI (ui://atrium/view/vN → vN+1) and record the new digest.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHELL_URI, shellHtml } from "../glue/views/shell-page.js";

const VERSION_FILE = "glue/views/shell-version.json";
const pinned = JSON.parse(readFileSync(new URL(`../${VERSION_FILE}`, import.meta.url), "utf8")) as { uri: string; sha256: string };
const digest = createHash("sha256").update(shellHtml(), "utf8").digest("hex");
const versionOf = (uri: string) => Number(/^ui:\/\/atrium\/view\/v(\d+)$/.exec(uri)?.[1] ?? NaN);

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: new URL("..", import.meta.url), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();

/** The pin in the latest release (the nearest git tag), or undefined before the first release or without git. */
function releasedPin(): { tag: string; uri: string; sha256: string } | undefined {
  try {
    const tag = git("describe", "--tags", "--abbrev=0", "HEAD");
    return { tag, ...JSON.parse(git("show", `${tag}:${VERSION_FILE}`)) };
  } catch {
    return undefined;
  }
}

describe("shell version pin", () => {
  it("records exactly the served URI and the digest of the shell's bytes", () => {
    expect(Object.keys(pinned).sort()).toEqual(["sha256", "uri"]);
    expect(versionOf(SHELL_URI)).toBeGreaterThanOrEqual(1);
    expect(pinned.uri, `SHELL_URI changed: record it in ${VERSION_FILE} together with the new digest`).toBe(SHELL_URI);
    expect(
      digest,
      `the shell's bytes changed but ${VERSION_FILE} still pins ${pinned.uri}: hosts cache by URI, so bump the version ` +
        `segment of SHELL_URI (ui://atrium/view/v${versionOf(SHELL_URI) + 1}) and set "sha256": "${digest}" ` +
        `(only a URI that no release ever served may be re-pinned)`,
    ).toBe(pinned.sha256);
  });

  it("never re-pins new bytes under a URI that a release already served", () => {
    const released = releasedPin();
    if (!released || released.sha256 === pinned.sha256) return; // no release yet, or the released bytes
    expect(
      versionOf(pinned.uri),
      `the shell's bytes differ from release ${released.tag}, which served ${released.uri}: use ui://atrium/view/v${versionOf(released.uri) + 1}`,
    ).toBeGreaterThan(versionOf(released.uri));
  });
});
