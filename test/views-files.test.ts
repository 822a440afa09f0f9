// Offline view files are private and bounded: where they go (the user's state directory, or
// the operator's directory), their modes, refusing a directory that cannot be private, the
// atomic write, and retention by count and by age (spec/budgets.md view_files_kept,
// view_file_age_ms), touching only atrium's own file names.
import { randomUUID } from "node:crypto";
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { core } from "../glue/decisions/core.js";
import { Budget, EnvelopeFlag } from "../glue/decisions/generated/spec.js";
import { stateDir } from "../glue/support/state-dir.js";
import { deliverView } from "../glue/views/delivery.js";
import { writeOfflineView } from "../glue/views/offline-file.js";
import { ResultStash } from "../glue/results/stash.js";

const mode = (p: string) => statSync(p).mode & 0o777;
const page = { html: "<h1>private</h1>" };
let root: string;
const saved = { state: process.env.ATRIUM_STATE_DIR, xdg: process.env.XDG_STATE_HOME };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "atrium-files-"));
  process.env.ATRIUM_STATE_DIR = join(root, "state");
  delete process.env.XDG_STATE_HOME;
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const [k, v] of [["ATRIUM_STATE_DIR", saved.state], ["XDG_STATE_HOME", saved.xdg]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(root, { recursive: true, force: true });
});

/** What writeOfflineView gave back, as a path (the test fails on a refusal). */
function written(r: unknown): string {
  expect(r).toHaveProperty("path");
  return (r as { path: string }).path;
}

describe("the state directory", () => {
  it("is $ATRIUM_STATE_DIR, else $XDG_STATE_HOME/atrium (absolute only), else the platform's per-user place", () => {
    expect(stateDir({ ATRIUM_STATE_DIR: "/x/state", XDG_STATE_HOME: "/y" }, "linux", "/home/me")).toBe("/x/state");
    expect(stateDir({ XDG_STATE_HOME: "/y/state" }, "linux", "/home/me")).toBe("/y/state/atrium");
    expect(stateDir({ XDG_STATE_HOME: "relative/state" }, "linux", "/home/me")).toBe("/home/me/.local/state/atrium");
    expect(stateDir({}, "linux", "/home/me")).toBe("/home/me/.local/state/atrium");
    expect(stateDir({}, "darwin", "/Users/me")).toBe("/Users/me/Library/Application Support/atrium");
    expect(stateDir({ LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" }, "win32", "C:\\Users\\me")).toBe("C:\\Users\\me\\AppData\\Local\\atrium");
    expect(stateDir({}, "win32", "C:\\Users\\me")).toBe("C:\\Users\\me\\AppData\\Local\\atrium");
  });
});

describe("offline view files", () => {
  it("land in $XDG_STATE_HOME/atrium/views, a 0700 directory, as 0600 files, with no temporary file left", () => {
    delete process.env.ATRIUM_STATE_DIR;
    process.env.XDG_STATE_HOME = join(root, "xdg");
    const id = randomUUID();
    const path = written(writeOfflineView(id, page, null));
    expect(path).toBe(join(root, "xdg", "atrium", "views", `view-${id}.html`));
    expect(mode(join(root, "xdg", "atrium", "views"))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(readFileSync(path, "utf8")).toContain("<h1>private</h1>");
    expect(readdirSync(join(root, "xdg", "atrium", "views"))).toEqual([`view-${id}.html`]);
  });

  it("an existing views directory of this user with group or other bits is made 0700", () => {
    const dir = join(root, "state", "views");
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    expect(mode(dir)).toBe(0o755);
    written(writeOfflineView(randomUUID(), page, null));
    expect(mode(dir)).toBe(0o700);
  });

  it("a views directory that is a symbolic link is refused: no file anywhere, and the model is told why", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o777 });
    mkdirSync(join(root, "state"));
    symlinkSync(elsewhere, join(root, "state", "views"));
    const r = writeOfflineView(randomUUID(), page, null);
    expect(r).toEqual({ refused: expect.stringMatching(/symbolic link/) });
    expect(readdirSync(elsewhere)).toEqual([]);
    const d = await deliverView(EnvelopeFlag.view_file, page, { store: new ResultStash({ ttlMs: 1000, maxBytes: 100_000 }).for("local"), directory: null });
    expect(d?.note).toMatchObject({ delivery: "none", note: expect.stringMatching(/not written .*symbolic link/) });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a views directory owned by another user is refused, and nothing is written into it", () => {
    const dir = join(root, "state", "views");
    mkdirSync(dir, { recursive: true, mode: 0o777 });
    if (process.getuid?.() === 0) chownSync(dir, 65534, 65534);
    else vi.spyOn(process, "getuid").mockReturnValue(lstatSync(dir).uid + 1);
    expect(writeOfflineView(randomUUID(), page, null)).toEqual({ refused: expect.stringMatching(/belongs to another user/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("the operator's directory overrides the location, is created 0700 when missing, and holds 0600 files", () => {
    const dir = join(root, "operator", "views");
    const path = written(writeOfflineView(randomUUID(), page, dir));
    expect(path.startsWith(dir)).toBe(true);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(existsSync(join(root, "state"))).toBe(false);
  });

  it(`keeps only the newest view_files_kept (${core().limitDefault(Budget.view_files_kept)}) view files, and never touches other names`, () => {
    const kept = core().limitDefault(Budget.view_files_kept);
    const dir = join(root, "state", "views");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = Date.now() / 1000;
    const old: string[] = [];
    for (let i = 0; i < kept + 10; i++) {
      const name = `view-${randomUUID()}.html`;
      writeFileSync(join(dir, name), "x");
      utimesSync(join(dir, name), now - 3600 - i * 60, now - 3600 - i * 60); // i = 0 is the newest
      old.push(name);
    }
    const foreign = ["notes.txt", "view-mine.html", "view-ABCDEF00-0000-4000-8000-000000000000.html", `${old[0]}.bak`];
    for (const f of foreign) { writeFileSync(join(dir, f), "keep me"); utimesSync(join(dir, f), now - 86400 * 365, now - 86400 * 365); }
    const path = written(writeOfflineView(randomUUID(), page, null));
    const left = readdirSync(dir);
    const views = left.filter((n) => /^view-[0-9a-f-]{36}\.html$/.test(n));
    expect(views.length).toBe(kept);
    expect(views).toContain(path.slice(dir.length + 1));
    expect(new Set(views)).toEqual(new Set([path.slice(dir.length + 1), ...old.slice(0, kept - 1)]));
    for (const f of foreign) expect(left).toContain(f);
  });

  it(`removes view files older than view_file_age_ms (${core().limitDefault(Budget.view_file_age_ms)} ms) and stale temporary files, keeping younger ones`, () => {
    const ageS = core().limitDefault(Budget.view_file_age_ms) / 1000;
    const dir = join(root, "state", "views");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = Date.now() / 1000;
    const young = `view-${randomUUID()}.html`, stale = `view-${randomUUID()}.html`;
    const staleTemp = `.view-${randomUUID()}.html.0123456789ab.tmp`, freshTemp = `.view-${randomUUID()}.html.ba9876543210.tmp`;
    for (const [name, t] of [[young, now - ageS + 3600], [stale, now - ageS - 3600], [staleTemp, now - ageS - 3600], [freshTemp, now - 5]] as const) {
      writeFileSync(join(dir, name), "x");
      utimesSync(join(dir, name), t, t);
    }
    const path = written(writeOfflineView(randomUUID(), page, null));
    expect(new Set(readdirSync(dir))).toEqual(new Set([young, freshTemp, path.slice(dir.length + 1)]));
  });
});
