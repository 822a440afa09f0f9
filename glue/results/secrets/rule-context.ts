// secretlint's rule interface (@secretlint/types) as scan.ts runs a rule: the context a rule
// reports into, turning each report into the finding it names, and the source a rule reads (a
// text with no file behind it). Type imports only: the rules themselves are loaded by scan.ts.
import type { SecretLintRuleContext, SecretLintRuleReportDescriptor, SecretLintSourceCode } from "@secretlint/types";
import { SECRET_VALUE_REACH_CHARS } from "../../decisions/generated/spec.js";
import type { Finding } from "./findings.js";

/** Reports no credential: an AWS account ID is no secret. */
const MESSAGES_DROPPED = new Set(["AWSAccountID"]);

/** The context a rule of kind `kind` runs in over `content`, reporting into `add`. A report names
 * its range and, in its data, the secret: where that string starts within SECRET_VALUE_REACH_CHARS
 * of the range's start and before the range's end, it is what is covered (the AWS rule's range
 * starts at the key's name and is as long as the key), else the range as reported (a report
 * whose data names no secret within reach still covers its range). */
export function ruleContext(content: string, kind: string, add: (f: Finding) => void): SecretLintRuleContext {
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

/** A source as a rule reads it: `content` as text with no file behind it. Positions are never
 * asked for by the rules scan.ts runs; a rule that did would fail loudly, not read a wrong place. */
export function ruleSource(content: string): SecretLintSourceCode {
  const noPositions = (): never => { throw new Error("atrium's secret scan offers no line positions"); };
  return { content, hasBOM: false, filePath: undefined, physicalFilePath: undefined, contentType: "text", ext: "", getFilePath: () => undefined, getPhysicalFilePath: () => undefined, locationToRange: noPositions, rangeToLocation: noPositions, positionToIndex: noPositions, indexToPosition: noPositions };
}
