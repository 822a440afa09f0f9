// The secret scan's parts (glue/results/secrets/scan.ts, rule-context.ts, findings.ts), in process:
// how a rule's report becomes the finding it names (its secret within reach of the range's start
// and before its end, else the range as reported; an AWS account ID is no finding), the source a
// rule reads, how findings merge, and that a text longer than one pass lets the event loop turn
// between passes.
import { describe, expect, it } from "vitest";
import type { SecretLintRuleReportDescriptor } from "@secretlint/types";
import { mergeFindings, type Finding } from "../glue/results/secrets/findings.js";
import { ruleContext, ruleSource } from "../glue/results/secrets/rule-context.js";
import { findSecrets } from "../glue/results/secrets/scan.js";
import { SECRET_SCAN_OVERLAP_CHARS, SECRET_SCAN_PASS_CHARS, SECRET_VALUE_REACH_CHARS } from "../glue/decisions/generated/spec.js";
import { FAKE } from "./fixtures/fake-credentials.js";

const REACH = SECRET_VALUE_REACH_CHARS;

/** The findings one report makes, over `content`, from a rule of kind "k". */
function reported(content: string, range: [number, number], data?: Record<string, unknown>, messageId = "Found"): Finding[] {
  const found: Finding[] = [];
  const descriptor = { message: { message: messageId, messageId, data }, range } as unknown as SecretLintRuleReportDescriptor;
  ruleContext(content, "k", (f) => found.push(f)).report(descriptor);
  return found;
}

describe("a rule's report", () => {
  it("covers the secret its data names, not the whole range, when the secret lies within reach of the range's start", () => {
    const content = `aws_secret_access_key = SECRETVALUE1234 trailing`;
    const at = content.indexOf("SECRETVALUE1234");
    expect(reported(content, [0, content.length], { KEY: "SECRETVALUE1234" })).toEqual([{ start: at, end: at + 15, kind: "k" }]);
  });

  it("covers a secret that starts exactly at the range's start, the range running past it", () => {
    expect(reported("SECRETVALUE and more", [0, 20], { KEY: "SECRETVALUE" })).toEqual([{ start: 0, end: 11, kind: "k" }]);
  });

  it("covers each secret its data names", () => {
    expect(reported("id AKID and key SKEY.", [0, 21], { ID: "AKID", KEY: "SKEY" })).toEqual([{ start: 3, end: 7, kind: "k" }, { start: 16, end: 20, kind: "k" }]);
  });

  it("covers the range as reported when its data names no string secret (none, empty, a number, a list)", () => {
    const content = "prefix s 5 secret";
    for (const data of [undefined, {}, { v: "" }, { n: 5 }, { list: ["s"] }]) {
      expect(reported(content, [7, 17], data)).toEqual([{ start: 7, end: 17, kind: "k" }]);
    }
  });

  it("covers the range as reported when the named secret lies past the range's end, even within reach", () => {
    const content = `${"x".repeat(10)}range${"y".repeat(8)}VALUE`;
    expect(reported(content, [10, 15], { KEY: "VALUE" })).toEqual([{ start: 10, end: 15, kind: "k" }]);
    const touching = `${"x".repeat(10)}rangeVALUE`;
    expect(reported(touching, [10, 15], { KEY: "VALUE" })).toEqual([{ start: 10, end: 15, kind: "k" }]);
  });

  it("covers the range as reported when the named secret starts at the reach or later, inside a longer range", () => {
    const content = `${"x".repeat(REACH)}VALUE${"z".repeat(100)}`;
    expect(reported(content, [0, content.length], { KEY: "VALUE" })).toEqual([{ start: 0, end: content.length, kind: "k" }]);
  });

  it("covers a secret that starts just inside the reach though it ends past it", () => {
    const content = `${"x".repeat(REACH - 1)}VALUE${"z".repeat(100)}`;
    expect(reported(content, [0, content.length], { KEY: "VALUE" })).toEqual([{ start: REACH - 1, end: REACH + 4, kind: "k" }]);
  });

  it("an AWS account ID makes no finding", () => {
    expect(reported("aws_account_id = 123456789012", [0, 29], { ID: "123456789012" }, "AWSAccountID")).toEqual([]);
  });

  it("a rule's translator hands back the message id as the message, with its data", () => {
    const t = ruleContext("", "k", () => {}).createTranslator({} as never) as unknown as (id: string, data?: object) => unknown;
    expect(t("AWSSecretAccessKey", { KEY: "v" })).toEqual({ message: "AWSSecretAccessKey", messageId: "AWSSecretAccessKey", data: { KEY: "v" } });
  });
});

describe("the source a rule reads", () => {
  it("is the text, with no file, BOM or extension behind it", () => {
    const source = ruleSource("abc");
    expect(source).toMatchObject({ content: "abc", hasBOM: false, filePath: undefined, physicalFilePath: undefined, contentType: "text", ext: "" });
    expect(source.getFilePath()).toBeUndefined();
    expect(source.getPhysicalFilePath()).toBeUndefined();
  });

  it("offers no line positions: asking for one fails loudly", () => {
    const source = ruleSource("abc") as unknown as Record<string, (x: unknown) => unknown>;
    for (const name of ["locationToRange", "rangeToLocation", "positionToIndex", "indexToPosition"]) {
      expect(() => source[name]!({})).toThrow("atrium's secret scan offers no line positions");
    }
  });
});

describe("merging findings", () => {
  const f = (start: number, end: number, kind: string): Finding => ({ start, end, kind });

  it("puts findings in order of where they start", () => {
    expect(mergeFindings([f(10, 12, "b"), f(0, 3, "a")])).toEqual([f(0, 3, "a"), f(10, 12, "b")]);
  });

  it("keeps two findings that only touch as two", () => {
    expect(mergeFindings([f(0, 5, "a"), f(5, 9, "b")])).toEqual([f(0, 5, "a"), f(5, 9, "b")]);
  });

  it("of findings that start at one place, the longest names the whole, in either order", () => {
    expect(mergeFindings([f(0, 3, "short"), f(0, 8, "long")])).toEqual([f(0, 8, "long")]);
    expect(mergeFindings([f(0, 8, "long"), f(0, 3, "short")])).toEqual([f(0, 8, "long")]);
  });

  it("a finding inside another adds nothing; one that runs past extends it, named by the first", () => {
    expect(mergeFindings([f(0, 10, "a"), f(2, 5, "b"), f(8, 14, "c")])).toEqual([f(0, 14, "a")]);
  });

  it("leaves the findings handed in as they were", () => {
    const first = f(0, 10, "a");
    mergeFindings([first, f(8, 14, "c")]);
    expect(first).toEqual(f(0, 10, "a"));
  });
});

describe("the scan's passes", () => {
  it("a text longer than one pass (its length and the overlap) lets the event loop turn between passes; one pass does not", async () => {
    await findSecrets("warm the preset up");
    const turnedDuring = async (text: string) => {
      let turned = false;
      setImmediate(() => { turned = true; });
      await findSecrets(text);
      return turned;
    };
    expect(await turnedDuring(`one pass ${FAKE.github.secret}`)).toBe(false);
    expect(await turnedDuring("x".repeat(SECRET_SCAN_PASS_CHARS + SECRET_SCAN_OVERLAP_CHARS))).toBe(false);
    expect(await turnedDuring("x".repeat(SECRET_SCAN_PASS_CHARS + SECRET_SCAN_OVERLAP_CHARS + 1))).toBe(true);
  });

  it("names a finding of a preset rule by the rule id's last part", async () => {
    const found = await findSecrets(`token ${FAKE.github.secret}`);
    expect(found.map((x) => x.kind)).toEqual(["github"]);
  });
});
