// `atrium pins [list] | accept <connector> [tool…] | reject <connector> [tool…]`: the operator's
// review of pinned tool definitions (spec/pins.md). list shows, per configured connector, each
// pending change with a readable diff (glue/pins/diff.ts) and what it means now (quarantined,
// callable and approval-only at once, auto-accepted, rejected); accept makes the pending
// definition the pin (every pending one of the connector when no tool is named); reject drops it
// and keeps the old pin (the tool stays quarantined while its server lists the new definition).
// A running atrium notices the file change and judges again.
import type { AtriumConfig, ConnectorConfig } from "../config/schema.js";
import { core } from "../decisions/core.js";
import { PinAnswer, PinReason } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { pinReasonText } from "../decisions/messages.js";
import { PinFile, recordFor, whereOf, type ConnectorPins, type PinData, type ToolPins } from "../pins/pin-file.js";
import { pinFactsOf } from "../pins/facts.js";
import { diffLines } from "../pins/diff.js";

const out = (line: string) => process.stdout.write(`${line}\n`);
const say = (line: string) => process.stderr.write(`${line}\n`);

const recordOf = (data: PinData, c: ConnectorConfig): ConnectorPins | undefined => recordFor(data, { id: c.id, where: whereOf(c) });

export function pinsCommand(config: AtriumConfig, words: string[], file = new PinFile()): number {
  const [action, id, ...tools] = words;
  if (action === "list") return list(config, file);
  const c = config.connectors.find((x) => x.id === id);
  if (!c) {
    say(`atrium pins: no connector named ${JSON.stringify(id)}; connectors: ${config.connectors.map((x) => x.id).join(", ") || "none"}`);
    return 1;
  }
  return decide(c, tools, action === "accept", file);
}

/** One pending change in words: what it means now, and the diff against the accepted pin. */
export function pendingLines(c: ConnectorConfig, record: ConnectorPins, tool: ToolPins, unreadable: boolean): string[] {
  const p = tool.pending!;
  const { facts } = pinFactsOf(p, record, tool, p.flags.length > 0, unreadable, c.pins);
  const d = core().pinGate(facts);
  const reason = codeName(PinReason, d.reason) ?? "invalid_facts";
  const rejected = tool.rejected === p.digest;
  const now = p.autoAccepted ? "auto-accepted (recorded as its pin; accept to acknowledge)"
    : d.answer === PinAnswer.quarantined ? `quarantined: ${pinReasonText[reason]}`
    : `callable: ${pinReasonText[reason]}`;
  return [
    `  ${tool.name}: ${p.state.replace("_", " ")}, seen ${p.firstSeen}${rejected ? ", rejected" : ""}`,
    `    now: ${now}`,
    ...p.flags.map((f) => `    flagged: ${f.reason}`),
    ...diffLines(tool.accepted?.definition, p.definition).map((l) => `    ${l}`),
  ];
}

function list(config: AtriumConfig, file: PinFile): number {
  const data = file.load();
  let pending = 0;
  if (data.unreadableSince) out(`an earlier pin file could not be read and was set aside at ${data.unreadableSince}: tools without an accepted pin are quarantined until accepted`);
  for (const c of config.connectors) {
    const record = recordOf(data, c);
    const changes = record?.tools.filter((t) => t.pending) ?? [];
    const policy = c.pins === "pin" ? "" : ` (pins: "${c.pins}")`;
    if (!record) {
      out(`${c.id}${policy}: no pins yet (atrium pins its tools the first time it lists them)`);
      continue;
    }
    const rejected = record.tools.filter((t) => t.rejected && !t.pending).map((t) => `  ${t.name}: a change was rejected; it stays quarantined while its server lists that definition`);
    if (!changes.length) {
      out(`${c.id}${policy}: ${record.tools.length} tools pinned, no pending change`);
      rejected.forEach(out);
      continue;
    }
    pending += changes.length;
    out(`${c.id}${policy}: ${changes.length} pending change(s)`);
    for (const t of changes) for (const l of pendingLines(c, record, t, data.unreadableSince !== undefined)) out(l);
    rejected.forEach(out);
    out(`  accept: atrium pins accept ${c.id} [tool…]    reject: atrium pins reject ${c.id} [tool…]`);
  }
  out(pending ? `${pending} pending change(s); pins are kept in ${file.path}` : `no pending changes; pins are kept in ${file.path}`);
  return 0;
}

function decide(c: ConnectorConfig, named: string[], accept: boolean, file: PinFile): number {
  const data = file.load();
  const record = recordOf(data, c);
  const pending = record?.tools.filter((t) => t.pending) ?? [];
  const chosen = named.length ? pending.filter((t) => named.includes(t.name)) : pending;
  const unknown = named.filter((n) => !pending.some((t) => t.name === n));
  if (unknown.length || !chosen.length) {
    say(`atrium pins: ${c.id} has no pending change${unknown.length ? ` for ${unknown.join(", ")}` : ""}; pending: ${pending.map((t) => t.name).join(", ") || "none"} (see atrium pins)`);
    return 1;
  }
  for (const t of chosen) {
    const p = t.pending!;
    if (accept) {
      t.accepted = { digest: p.digest, bodyDigest: p.bodyDigest, definition: p.definition };
      delete t.rejected;
    } else if (!p.autoAccepted) {
      t.rejected = p.digest;
    }
    delete t.pending;
    out(`${accept ? "accepted" : "rejected"} ${c.id}.${t.name}${!accept && p.autoAccepted ? " (it was already recorded under auto-accept; only the notice is dropped)" : accept ? "" : ": it stays quarantined while its server lists this definition"}`);
  }
  file.save(data);
  out(`a running atrium notices the change within moments; pins are kept in ${file.path}`);
  return 0;
}
