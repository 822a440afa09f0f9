// Suspicious tool definitions (glue/pins/suspicious.ts, suspicious-patterns.json): a poisoned
// fixture — an <IMPORTANT> block asking for another tool's config, "ignore all previous
// instructions", data sent elsewhere behind the user's back, zero-width and bidirectional
// characters, instructions in a parameter's description, an overlong description — is flagged;
// the 304 captured real tools (test/bench/search/catalogs) and the real npm servers of the suite,
// started through a real atrium, raise no flag and no quarantine.
import { afterEach, describe, expect, it } from "vitest";
import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { flagsOf } from "../glue/pins/suspicious.js";
import { PIN_DESCRIPTION_CHARS_MAX } from "../glue/decisions/generated/spec.js";
import data from "../glue/pins/suspicious-patterns.json" with { type: "json" };
import { npmBin, repo, startAtrium, type Atrium } from "./harness/atrium-client.js";

const poisoned = JSON.parse(readFileSync(join(repo, "test/fixtures/poisoned-tools.json"), "utf8")) as { name: string; description: string; inputSchema: unknown }[];
const catalogs = join(repo, "test/bench/search/catalogs");

describe("the patterns", () => {
  it("each has an id, a pattern that compiles and a reason", () => {
    expect(data.patterns.length).toBeGreaterThan(0);
    for (const p of data.patterns) {
      expect(p.id).toMatch(/^[a-z_]+$/);
      expect(p.reason.length).toBeGreaterThan(0);
      expect(() => new RegExp(p.pattern, "iu")).not.toThrow();
    }
  });

  it("flag every poisoned definition of the fixture, with its reason, and not its plain tool", () => {
    const flags = Object.fromEntries(poisoned.map((t) => [t.name, flagsOf(t).map((f) => f.id)]));
    expect(flags.add).toEqual(expect.arrayContaining(["instruction_tag", "secret_files", "read_before_use"]));
    expect(flags.weather).toContain("override_instructions");
    expect(flags.notes).toEqual(expect.arrayContaining(["send_elsewhere", "hide_from_user"]));
    expect(flags.hidden).toEqual(["invisible_characters"]);
    expect(flags.bidi).toEqual(["bidirectional_characters"]);
    expect(flags.schema_poison).toEqual(expect.arrayContaining(["instruction_tag", "role_change", "other_tools"]));
    expect(flags.plain).toEqual([]);
    const tag = flagsOf({ description: "x\u{E0041}\u{E0042}y", inputSchema: {} });
    expect(tag.map((f) => f.id)).toEqual(["invisible_characters"]);
  });

  it("flag a description longer than PIN_DESCRIPTION_CHARS_MAX", () => {
    expect(flagsOf({ description: "word ".repeat(PIN_DESCRIPTION_CHARS_MAX / 5 + 1), inputSchema: {} }).map((f) => f.id)).toEqual(["too_long"]);
    expect(flagsOf({ description: "a".repeat(PIN_DESCRIPTION_CHARS_MAX), inputSchema: {} })).toEqual([]);
  });

  it("flag none of the 304 captured real tools", () => {
    let n = 0;
    const flagged: string[] = [];
    for (const f of readdirSync(catalogs).filter((x) => x.endsWith(".json"))) {
      const c = JSON.parse(readFileSync(join(catalogs, f), "utf8")) as { server: string; tools: { name: string; title?: string; description?: string; inputSchema?: unknown }[] };
      for (const t of c.tools) {
        n++;
        const hit = flagsOf({ title: t.title, description: t.description ?? "", inputSchema: t.inputSchema });
        if (hit.length) flagged.push(`${c.server}.${t.name}: ${hit.map((h) => h.id).join(", ")}`);
      }
    }
    expect(n).toBe(304);
    expect(flagged).toEqual([]);
  });
});

describe("real servers through atrium", () => {
  let a: Atrium | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await a?.close();
    a = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("the real npm servers of the suite raise no flag: every tool is pinned and callable, none quarantined", async () => {
    const files = mkdtempSync(join(tmpdir(), "atrium-pins-real-"));
    dirs.push(files);
    a = await startAtrium({
      config: {
        mcpServers: {
          everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] },
          fs: { command: npmBin("mcp-server-filesystem"), args: [files] },
          memory: { command: npmBin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(files, "memory.jsonl") } },
          vanilla: { command: npmBin("mcp-server-basic-vanillajs"), args: ["--stdio"] },
          monitor: { command: npmBin("mcp-system-monitor-server"), args: ["--stdio"] },
        },
      },
    });
    const found = await a.json("search_tools", { query: "", limit: 50 });
    for (let page = found; page.nextCursor; ) {
      page = await a.json("search_tools", { query: "", limit: 50, cursor: page.nextCursor });
      found.results.push(...page.results);
    }
    expect(found.unavailable ?? []).toEqual([]);
    const connectors = new Set(found.results.map((r: any) => r.address.split(".")[0]));
    expect([...connectors].sort()).toEqual(["everything", "fs", "memory", "monitor", "vanilla"]);
    expect(found.results.filter((r: any) => r.quarantined).map((r: any) => r.address)).toEqual([]);
    const pins = JSON.parse(readFileSync(join(a.dir, "state", "pins.json"), "utf8"));
    const pending = pins.connectors.flatMap((c: any) => c.tools.filter((t: any) => t.pending).map((t: any) => `${c.id}.${t.name}`));
    expect(pending).toEqual([]);
    expect(pins.connectors.reduce((n: number, c: any) => n + c.tools.length, 0)).toBe(found.total);
  });
});
