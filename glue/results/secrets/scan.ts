// Finds the credentials in a text: where each is and what kind it is (`aws`, `github`,
// `privatekey`, `jwt`, …). The rules are secretlint's recommended preset
// (@secretlint/secretlint-rule-preset-recommend): a maintained, widely used set of
// credential rules, each written against its provider's documented token format and tested for
// false positives and ReDoS, updated as providers add formats; own-rules.ts adds the kinds the
// contract names that it lacks.
//
// The preset's rules run here directly through secretlint's rule interface (rule-context.ts),
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
import type { SecretLintRuleCreator } from "@secretlint/types";
import { SECRET_SCAN_OVERLAP_CHARS, SECRET_SCAN_PASS_CHARS } from "../../decisions/generated/spec.js";
import { mergeFindings, type Finding } from "./findings.js";
import { OWN_RULES } from "./own-rules.js";
import { ruleContext, ruleSource } from "./rule-context.js";

const PRESET_LEFT_OUT = new Set(["@secretlint/secretlint-rule-filter-comments", "@secretlint/secretlint-rule-gcp"]);
const RULE_OPTIONS: Readonly<Record<string, object>> = { "@secretlint/secretlint-rule-aws": { enableIDScanRule: true } };

interface PresetRule { creator: SecretLintRuleCreator; kind: string; options: object }
let preset: Promise<PresetRule[]> | undefined;

function presetRules(): Promise<PresetRule[]> {
  preset ??= import("@secretlint/secretlint-rule-preset-recommend").then(({ rules }) =>
    (rules as SecretLintRuleCreator[]).filter((r) => !PRESET_LEFT_OUT.has(r.meta.id)).map((creator) => ({ creator, kind: kindOf(creator.meta.id), options: RULE_OPTIONS[creator.meta.id] ?? {} })),
  );
  return preset;
}

/** "@secretlint/secretlint-rule-aws" → "aws". */
const kindOf = (ruleId: string) => ruleId.slice(ruleId.lastIndexOf("/") + 1).replace("secretlint-rule-", "");

/** Every credential in `text`, overlapping findings merged (findings.ts), in order. */
export async function findSecrets(text: string): Promise<Finding[]> {
  const rules = await presetRules();
  const found: Finding[] = [];
  for (let from = 0; ; from += SECRET_SCAN_PASS_CHARS) {
    const end = from + SECRET_SCAN_PASS_CHARS + SECRET_SCAN_OVERLAP_CHARS;
    await scanPass(text.slice(from, end), rules, (f) => found.push({ start: f.start + from, end: f.end + from, kind: f.kind }));
    if (end >= text.length) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return mergeFindings(found);
}

async function scanPass(content: string, rules: PresetRule[], add: (f: Finding) => void): Promise<void> {
  const source = ruleSource(content);
  for (const rule of rules) {
    const handler = rule.creator.create(ruleContext(content, rule.kind, add), rule.options);
    await handler.file?.(source);
  }
  for (const own of OWN_RULES) {
    for (const m of content.matchAll(own.pattern)) {
      const [start, end] = m.indices?.groups?.secret ?? [m.index, m.index + m[0].length];
      add({ start, end, kind: own.kind });
    }
  }
}
