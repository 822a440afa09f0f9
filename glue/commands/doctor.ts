// `atrium doctor`: starts every connector and writes a report on stdout (it is the command's
// output: `atrium doctor > report.txt` keeps it): health, each connector's protocol revision
// (how it was reached, how its list stays fresh), tool counts, how many tools are read-only vs
// approval-required and why, the reason for each failure (a remote connector that needs a login
// names `atrium auth login`), pending changes of pinned tool definitions (`atrium pins`), operator lists that name tools a
// server does not have, a readOnlyTools line to review for unannotated tools, and what an atrium
// serving the same config file last did with an edit of it (doctor-reload.ts), and tool names
// refused at listing for a control, bidi or zero-width character. A failed connector's stderr is
// shown once per distinct line, with how often it came (each start repeats it). Every line goes
// through the one escaper (support/text/escape.ts): a server's words (its stderr, its errors)
// never reach the terminal raw.
// Exit 0 only when every enabled connector is ready, none has a quarantined tool, and every operator list applies.
import { createApp } from "../app.js";
import type { AtriumConfig } from "../config/schema.js";
import { classReasonText } from "../decisions/messages.js";
import { dataFlowSuggestion, readOnlySuggestion, unlistedTools } from "./doctor-advice.js";
import { DOCTOR_STDERR_TAIL_LINES } from "../decisions/generated/spec.js";
import { tokenStore } from "../auth/store.js";
import { oauthOffered } from "../auth/offered.js";
import { loginWords } from "./auth.js";
import { reloadLines } from "./doctor-reload.js";
import { whereOf } from "../pins/pin-file.js";
import { semanticReport } from "../embeddings/doctor-line.js";
import { toolText } from "../embeddings/tool-text.js";
import { escapeShown } from "../support/text/escape.js";

type App = ReturnType<typeof createApp>;
type Connector = App["registry"]["connectors"][number];

/** `configWarnings` are the config's labelled warning lines (or ""), shown in the report; `file`: the config file, whose serving atrium's last reload is shown. */
export async function doctor(config: AtriumConfig, source: string, version: string, configWarnings = "", file?: string): Promise<number> {
  // With atrium.store the pins are the team's, in the store (unread when it does not answer: every tool without a pin quarantined).
  const shared = config.store ? await (await import("../store/pins-client.js")).openSharedPins(config.store) : undefined;
  const app = createApp(config, version, undefined, undefined, undefined, { shared: false, pins: shared?.pins });
  const out: string[] = [`atrium ${version} doctor`, `config: ${source}`, ...configWarnings.split("\n").filter(Boolean), ...(file ? reloadLines(file) : []), ...(shared ? [`pins: kept in ${shared.pins.where}${shared.problem ? `, which did not answer (${shared.problem}): tools without an accepted pin show as quarantined` : ""}`] : []), ""];
  await app.registry.startAll();
  let failed = 0;
  let warned = 0;
  let quarantining = 0;
  for (const c of app.registry.connectors) {
    const where = c.config.kind === "stdio" ? [c.config.command, ...c.config.args].join(" ") : c.config.url;
    const { lines, unlisted, quarantined } = c.state === "ready" ? readyReport(app, c) : { lines: [], unlisted: 0, quarantined: 0 };
    const warn = unlisted > 0 || quarantined > 0;
    if (unlisted) warned++;
    if (quarantined) quarantining++;
    out.push(`${c.state === "ready" ? (warn ? "warn" : "ok  ") : c.state === "disabled" ? "off " : "FAIL"} ${c.id} (${c.config.kind}: ${where})`, ...lines);
    if (c.state === "ready" && oauthOffered(c.config) && tokenStore().get(c.id, c.config.url)?.tokens) out.push(`     login: ${loginWords(c.config)} (tokens are kept in ${tokenStore().where().words})`);
    if (c.state !== "ready" && c.state !== "disabled") {
      failed++;
      out.push(`     ${c.problem ?? c.state}`);
      if (c.state === "needs_auth") out.push(`     needs login: run \`atrium auth login ${c.id}\` (tokens are kept in ${tokenStore().where().words})`);
      if (c.state === "retrying") out.push(`     atrium serve keeps trying in the background: ${config.lifecycle.startRetries - c.attempts + 1} more attempt(s), the next ${Math.max(0, (c.nextAttemptAt ?? Date.now()) - Date.now())} ms after this one failed, each wait doubling up to ${config.lifecycle.restartMaxMs} ms`);
      const tail = distinctLines(c.stderr.tail(), DOCTOR_STDERR_TAIL_LINES);
      if (tail.length) out.push("     stderr:", ...tail.map((l) => `       ${l}`));
    }
  }
  const entries = app.catalog.entries().map(toolText);
  await app.registry.stopAll();
  await shared?.close();
  const search = await semanticReport(config.search, entries);
  const enabled = config.connectors.filter((c) => !c.disabled).length;
  out.push(...(config.connectors.length ? [""] : []), ...search.lines, ...summary(source, config.connectors.length, enabled, { failed, warned, quarantining }));
  process.stdout.write(out.map((line) => escapeShown(line)).join("\n") + "\n");
  return enabled > 0 && failed === 0 && warned === 0 && quarantining === 0 && !search.problem ? 0 : 1;
}

/** The last `max` distinct lines of a child's stderr, each once, in the order they last came, with a count when repeated. */
function distinctLines(text: string, max: number): string[] {
  const counts = new Map<string, number>();
  for (const line of text.trimEnd().split("\n")) {
    if (!line.trim()) continue;
    const n = counts.get(line) ?? 0;
    counts.delete(line); // re-inserted last: the order is that of each line's last appearance
    counts.set(line, n + 1);
  }
  return [...counts].slice(-max).map(([line, n]) => (n > 1 ? `${line}  (× ${n})` : line));
}

/** The lines under a ready connector, and its problems (the connector then shows `warn`): operator list entries without effect, quarantined tools. */
function readyReport(app: App, c: Connector): { lines: string[]; unlisted: number; quarantined: number } {
  const mine = app.catalog.entries().filter((e) => e.connectorId === c.id);
  const ro = mine.filter((e) => e.safety === "read_only").length;
  const lines = [protocolLine(c), `     ${mine.length} tools: ${ro} read-only, ${mine.length - ro} approval-required`];
  const unannotated = mine.filter((e) => e.reason === "read_only_absent").map((e) => e.name);
  const counts = new Map<string, number>();
  for (const e of mine) if (e.safety === "approval" && e.reason !== "read_only_absent") counts.set(e.reason, (counts.get(e.reason) ?? 0) + 1);
  for (const [reason, n] of counts) lines.push(`       ${n} × ${classReasonText[reason as keyof typeof classReasonText] ?? reason}`);
  for (const e of mine.filter((e) => e.reason === "promotion_refused_destructive")) lines.push(`       ! ${e.name}: listed in readOnlyTools but marked destructive; left behind approval`);

  const pending = app.pins.pending({ id: c.id, where: whereOf(c.config) });
  const quarantined = mine.filter((e) => e.pin?.quarantined).map((e) => e.name);
  if (pending.length || quarantined.length) {
    const changes = pending.length ? `${pending.length} pending change(s) of tool definitions (${pending.join(", ")})` : "";
    const held = quarantined.length ? `${quarantined.length} tool(s) quarantined, no path runs them: ${quarantined.join(", ")}` : "";
    lines.push(`     ${quarantined.length ? "! " : ""}pins: ${[changes, held].filter(Boolean).join("; ")}; review with \`atrium pins\`, then \`atrium pins accept ${c.id}\` or \`atrium pins reject ${c.id}\``);
  }
  const unlisted = unlistedTools(c.config, c.tools.map((t) => t.name));
  for (const u of unlisted) {
    const near = u.nearest.length ? `; did you mean ${u.nearest.map((n) => JSON.stringify(n)).join(" or ")}?` : "";
    lines.push(`     ! ${u.list} lists ${JSON.stringify(u.name)}, but ${c.id} has no tool by that name, so the entry has no effect${near}`);
  }
  if (unannotated.length) {
    lines.push(`     ${unannotated.length} ${unannotated.length === 1 ? "tool has" : "tools have"} no readOnlyHint annotation and ${unannotated.length === 1 ? "needs" : "need"} approval`);
    const destructive = new Set(c.tools.filter((t) => (t.annotations as { destructiveHint?: unknown } | undefined)?.destructiveHint === true).map((t) => t.name));
    const line = readOnlySuggestion(c.config.readOnlyTools, unannotated.filter((n) => !destructive.has(n)));
    if (line) lines.push(`       suggestion to review (not applied): these names look read-only; if those tools only read, set in mcpServers.${c.id}:`, `         ${line}`);
    else lines.push(`       if some of them only read, list them in mcpServers.${c.id}.readOnlyTools`);
  }
  const where = c.config.kind === "stdio" ? [c.config.command, ...c.config.args].join(" ") : c.config.url;
  const flow = dataFlowSuggestion(c.id, where, c.config);
  if (flow.settings.length) lines.push(`     data-flow guard: this looks like a server that ${flow.looks.join(" and ")}; if so, set in mcpServers.${c.id}: ${flow.settings.join(", ")} (a suggestion, not applied; docs/reference.md, "The data-flow guard")`);
  const refused = [...c.refusedNames];
  if (refused.length) lines.push(`     ! refused ${refused.length} tool name(s) with a control, bidi or zero-width character (not listed, not callable): ${refused.map((n) => `"${escapeShown(n)}"`).join(", ")}`);
  // A refused name is a warning like an operator list entry without effect.
  return { lines, unlisted: unlisted.length + refused.length, quarantined: quarantined.length };
}

/** The revision a ready connector speaks, how atrium reached it, and how its list stays fresh. */
function protocolLine(c: Connector): string {
  const fresh = c.freshness.length ? `follows list changes by ${c.freshness.join("; ")}` : "announces no list changes";
  return `     protocol ${c.revision ?? "unknown"}, by ${c.revisionHow ?? "initialize"}; ${fresh}`;
}

function summary(source: string, configured: number, enabled: number, { failed, warned, quarantining }: { failed: number; warned: number; quarantining: number }): string[] {
  if (configured === 0) {
    return [
      "no connectors configured: atrium would serve no tools",
      `add one under "mcpServers" in ${source}, for example:`,
      `  "mcpServers": { "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/dir"] } }`,
    ];
  }
  if (enabled === 0) return [`every connector is disabled: atrium would serve no tools (remove "disabled": true from one in ${source})`];
  const parts = [];
  if (failed) parts.push(`${failed} connector(s) failed`);
  if (quarantining) parts.push(`${quarantining} connector(s) with quarantined tools: review with \`atrium pins\``);
  if (warned) parts.push(`${warned} connector(s) with a readOnlyTools/approvalTools entry that has no effect (marked warn)`);
  return [parts.length ? parts.join("; ") : "all connectors healthy"];
}
