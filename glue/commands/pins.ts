// `atrium pins [list] | accept <connector> [tool@digest…] | reject <connector> [tool…]`: the
// operator's review of pinned tool definitions (spec/pins.md). list shows, per configured
// connector, each pending change with a readable diff (glue/pins/diff.ts), what it means now
// (quarantined, callable and approval-only at once, auto-accepted, rejected) and its short digest
// (PIN_SHOWN_DIGEST_CHARS hex of its sha256); accept is bound to what was shown: it makes a pending
// definition the pin only when given that digest (tool@digest), and when a tool is named without
// one, or its pending definition changed since it was shown, it shows the change as it is now and
// accepts nothing (so a definition nobody reviewed never becomes the pin); reject drops the
// pending change and keeps the old pin (the tool stays quarantined while its server lists the new
// definition). A running atrium notices the file change and judges again.
import type { AtriumConfig, ConnectorConfig } from "../config/schema.js";
import { core } from "../decisions/core.js";
import { PinAccept, PinAnswer, PinReason, PIN_SHOWN_DIGEST_CHARS } from "../decisions/generated/spec.js";
import { pinGivenOf } from "../decisions/facts/pins.js";
import { codeName } from "../decisions/code-names.js";
import { pinReasonText } from "../decisions/messages.js";
import { PinFile, recordFor, whereOf, type ConnectorPins, type PinData, type ToolPins } from "../pins/pin-file.js";
import { pinFactsOf } from "../pins/facts.js";
import { diffLines } from "../pins/diff.js";
import type { PinStorage } from "../pins/pin-storage.js";

const out = (line: string) => process.stdout.write(`${line}\n`);
const say = (line: string) => process.stderr.write(`${line}\n`);

const recordOf = (data: PinData, c: ConnectorConfig): ConnectorPins | undefined => recordFor(data, { id: c.id, where: whereOf(c) });

/** `atrium pins` where the pins are: the shared store when atrium.store is set (a team's replicas judge by it), else this machine's pin file. */
export async function runPins(config: AtriumConfig, words: string[]): Promise<number> {
  if (!config.store) return pinsCommand(config, words);
  const { openSharedPins } = await import("../store/pins-client.js");
  const shared = await openSharedPins(config.store);
  try {
    if (shared.problem) {
      say(`atrium pins: the pins are kept in ${shared.pins.where}, which did not answer: ${shared.problem}`);
      return 1;
    }
    const code = pinsCommand(config, words, shared.pins);
    await shared.pins.flush();
    return code;
  } catch (e) {
    say(`atrium pins: ${(e as Error).message}; run atrium pins again`);
    return 1;
  } finally {
    await shared.close();
  }
}

export function pinsCommand(config: AtriumConfig, words: string[], file: PinStorage = new PinFile()): number {
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
    `    digest: ${shownDigest(p.digest)} (to accept this definition: ${tool.name}@${shownDigest(p.digest)})`,
    ...p.flags.map((f) => `    flagged: ${f.reason}`),
    ...diffLines(tool.accepted?.definition, p.definition).map((l) => `    ${l}`),
  ];
}

function list(config: AtriumConfig, file: PinStorage): number {
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
    out(`  accept what is shown: atrium pins accept ${c.id} ${changes.map(shownName).join(" ")}    reject: atrium pins reject ${c.id} [tool…]`);
  }
  out(pending ? `${pending} pending change(s); pins are kept in ${file.where}` : `no pending changes; pins are kept in ${file.where}`);
  return 0;
}

/** The part of a digest `atrium pins` shows and `accept` must be given. */
const shownDigest = (digest: string) => digest.slice(0, PIN_SHOWN_DIGEST_CHARS);
const shownName = (t: ToolPins) => `${t.name}@${shownDigest(t.pending!.digest)}`;

/** A word of accept or reject: a tool's name and, after its last "@", the digest the operator was shown (a pending tool whose own name has an "@" is its name). */
function wordOf(word: string, pending: readonly ToolPins[]): { name: string; digest?: string } {
  const at = word.lastIndexOf("@");
  return at < 0 || pending.some((t) => t.name === word) ? { name: word } : { name: word.slice(0, at), digest: word.slice(at + 1).toLowerCase() };
}

function decide(c: ConnectorConfig, words: string[], accept: boolean, file: PinStorage): number {
  const data = file.load();
  const record = recordOf(data, c);
  const pending = record?.tools.filter((t) => t.pending) ?? [];
  const named = words.map((w) => wordOf(w, pending));
  const chosen = named.length ? pending.filter((t) => named.some((n) => n.name === t.name)) : pending;
  const unknown = named.filter((n) => !pending.some((t) => t.name === n.name)).map((n) => n.name);
  if (unknown.length || !chosen.length) {
    say(`atrium pins: ${c.id} has no pending change${unknown.length ? ` for ${unknown.join(", ")}` : ""}; pending: ${pending.map((t) => t.name).join(", ") || "none"} (see atrium pins)`);
    return 1;
  }
  // Accept takes only what was shown (N9): every chosen change must be named with its shown digest, else nothing is accepted.
  const verdicts = chosen.map((t) => {
    const given = named.find((n) => n.name === t.name)?.digest;
    return { t, given, answer: accept ? core().pinAccept(pinGivenOf(given, t.pending!.digest)) : PinAccept.accept };
  });
  const unbound = verdicts.filter((v) => v.answer !== PinAccept.accept);
  if (unbound.length) {
    const unreadable = data.unreadableSince !== undefined;
    for (const { t, given, answer } of unbound) {
      say(answer === PinAccept.unnamed ? `atrium pins: ${c.id}.${t.name} was named without the digest atrium pins shows; here is its pending change:`
        : answer === PinAccept.changed_since_shown ? `atrium pins: ${c.id}.${t.name} changed since it was shown (shown ${given}, pending now ${shownDigest(t.pending!.digest)}); review it again:`
        : `atrium pins: ${JSON.stringify(given)} is not the digest of ${c.id}.${t.name}'s pending change (${PIN_SHOWN_DIGEST_CHARS} hex characters, as atrium pins shows); here is its pending change:`);
      for (const l of pendingLines(c, record!, t, unreadable)) out(l);
    }
    say(`atrium pins: nothing was accepted; to accept what is shown now: atrium pins accept ${c.id} ${chosen.map(shownName).join(" ")}`);
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
  out(`a running atrium notices the change within moments; pins are kept in ${file.where}`);
  return 0;
}
