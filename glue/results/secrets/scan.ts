// Finds the credentials in a text: where each is and what kind it is (`aws`, `github`,
// `privatekey`, `jwt`, …). The rules are secretlint's recommended preset
// (@secretlint/secretlint-rule-preset-recommend): a maintained, widely used set of
// credential rules, each written against its provider's documented token format and tested for
// false positives and ReDoS, updated as providers add formats; own-rules.ts adds the kinds the
// contract names that it lacks.
//
// The preset's rules run here directly through secretlint's rule interface (@secretlint/types),
// not through @secretlint/core's lintSource: on a result with many findings lintSource costs time
// quadratic in their number (its duplicate filter compares every message with every later one:
// 16,000 findings in 656 KB took 19.6 s), and each call leaves about a hundred performance marks
// in the process that are never cleared (its profiler), which a long-running server cannot
// afford. Two rules of the preset are left out: filter-comments (a `secretlint-disable` comment in
// a downstream's text would switch redaction off) and gcp (it reads a file by path, and judges a
// whole file as a service-account key; such a key's private key is found by privatekey). The AWS
// rule also looks for access key IDs (off by default in the preset); its account-ID findings are
// dropped (an account ID is no credential).
//
// A text is read in passes of SECRET_SCAN_PASS_CHARS, each reading SECRET_SCAN_OVERLAP_CHARS
// into the next (longer than any credential the rules match), with a turn of the event loop
// between them: the cost is linear in the text, and one large result does not hold other
// requests up for long. The preset is loaded on the first scan, not when atrium starts.
import type { SecretLintRuleContext, SecretLintRuleCreator, SecretLintRuleReportDescriptor, SecretLintSourceCode } from "@secretlint/types";
import { SECRET_SCAN_OVERLAP_CHARS, SECRET_SCAN_PASS_CHARS, SECRET_VALUE_REACH_CHARS } from "../../decisions/generated/spec.js";
import { OWN_RULES } from "./own-rules.js";

/** A credential at [start, end) of the text scanned. */
export interface Finding { start: number; end: number; kind: string }

const PRESET_LEFT_OUT = new Set(["@secretlint/secretlint-rule-filter-comments", "@secretlint/secretlint-rule-gcp"]);
const RULE_OPTIONS: Readonly<Record<string, object>> = { "@secretlint/secretlint-rule-aws": { enableIDScanRule: true } };
const MESSAGES_DROPPED = new Set(["AWSAccountID"]);

interface PresetRule { creator: SecretLintRuleCreator; kind: string; options: object }
let preset: Promise<PresetRule[]> | undefined;

function presetRules(): Promise<PresetRule[]> {
  preset ??= import("@secretlint/secretlint-rule-preset-recommend").then(({ rules }) =>
    (rules as SecretLintRuleCreator[]).filter((r) => !PRESET_LEFT_OUT.has(r.meta.id)).map((creator) => ({ creator, kind: kindOf(creator.meta.id), options: RULE_OPTIONS[creator.meta.id] ?? {} })),
  );
  return preset;
}

/** "@secretlint/secretlint-rule-aws" → "aws". */
const kindOf = (ruleId: string) => ruleId.slice(ruleId.lastIndexOf("/") + 1).replace(/^secretlint-rule-/, "");

/** Every credential in `text`, overlapping findings merged (the first one's kind names the whole), in order. */
export async function findSecrets(text: string): Promise<Finding[]> {
  if (text.length === 0) return [];
  const rules = await presetRules();
  const found: Finding[] = [];
  for (let from = 0; ; from += SECRET_SCAN_PASS_CHARS) {
    if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = from + SECRET_SCAN_PASS_CHARS + SECRET_SCAN_OVERLAP_CHARS;
    await scanPass(text.slice(from, end), rules, (f) => found.push({ start: f.start + from, end: f.end + from, kind: f.kind }));
    if (end >= text.length) break;
  }
  return merged(found);
}

async function scanPass(content: string, rules: PresetRule[], add: (f: Finding) => void): Promise<void> {
  const source = sourceOf(content);
  for (const rule of rules) {
    const handler = rule.creator.create(contextFor(content, rule.kind, add), rule.options);
    await handler.file?.(source);
  }
  for (const own of OWN_RULES) {
    for (const m of content.matchAll(own.pattern)) {
      const [start, end] = m.indices?.groups?.secret ?? [m.index, m.index + m[0].length];
      add({ start, end, kind: own.kind });
    }
  }
}

/** The rule context secretlint's interface defines, reporting into `add`. A report names its
 * range and, in its data, the secret: where that string starts within SECRET_VALUE_REACH_CHARS
 * of the range's start and overlaps the range, it is what is covered (the AWS rule's range starts
 * at the key's name and is as long as the key), else the range as reported. */
function contextFor(content: string, kind: string, add: (f: Finding) => void): SecretLintRuleContext {
  const translate = (messageId: string, data?: Record<string, unknown>) => ({ message: messageId, messageId, data });
  return {
    sharedOptions: {},
    createTranslator: () => translate as never,
    ignore: () => {},
    report(d: SecretLintRuleReportDescriptor) {
      if (MESSAGES_DROPPED.has(d.message.messageId)) return;
      const [start, end] = d.range;
      let named = false;
      for (const value of Object.values((d.message.data ?? {}) as Record<string, unknown>)) {
        if (typeof value !== "string" || value.length === 0) continue;
        const at = content.slice(start, start + SECRET_VALUE_REACH_CHARS + value.length).indexOf(value);
        if (at < 0 || at >= Math.min(SECRET_VALUE_REACH_CHARS, end - start)) continue;
        add({ start: start + at, end: start + at + value.length, kind });
        named = true;
      }
      if (!named) add({ start, end, kind });
    },
  };
}

/** A source as a rule reads it: text with no file behind it. Positions are never asked for by the rules run here. */
function sourceOf(content: string): SecretLintSourceCode {
  const noPositions = (): never => { throw new Error("atrium's secret scan offers no line positions"); };
  return { content, hasBOM: false, filePath: undefined, physicalFilePath: undefined, contentType: "text", ext: "", getFilePath: () => undefined, getPhysicalFilePath: () => undefined, locationToRange: noPositions, rangeToLocation: noPositions, positionToIndex: noPositions, indexToPosition: noPositions };
}

function merged(found: Finding[]): Finding[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of found) {
    const last = out.at(-1);
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ ...f });
  }
  return out;
}
