// Secret redaction in process (glue/results/secrets/): secretlint's real rules and atrium's own
// over tool results and resources/read answers, shaped as downstreams send them. What reaches a
// host or a program through real atrium is test/secret-redaction-e2e.test.ts.
import { describe, expect, it } from "vitest";
import { redactResourceAnswer, redactToolResult } from "../glue/results/secrets/redact.js";
import { findSecrets } from "../glue/results/secrets/scan.js";
import { SECRET_SCAN_OVERLAP_CHARS, SECRET_SCAN_PASS_CHARS } from "../glue/decisions/generated/spec.js";
import { ALL_FAKES, FAKE, imageData, structured } from "./fixtures/fake-credentials.js";

const text = (t: string) => ({ content: [{ type: "text", text: t }] as Record<string, unknown>[] });
const redactedText = async (t: string) => ((await redactToolResult(text(t))).content[0] as { text: string }).text;

describe("secret redaction: what is a credential", () => {
  it.each(ALL_FAKES.map((f) => [f.kind, f] as const))("a %s credential in a text is replaced by its marker", async (_kind, f) => {
    const out = await redactedText(`before\n${f.line}\nafter`);
    expect(out).not.toContain(f.secret);
    expect(out).toContain(`[redacted:${f.kind}]`);
    expect(out.startsWith("before\n") && out.endsWith("\nafter")).toBe(true);
  });

  it("a text without a credential comes back as the very same result", async () => {
    const r = { content: [{ type: "text", text: "orders: 12 open, 3 late; see https://example.test/orders?page=2" }], structuredContent: { n: 12 } };
    expect(await redactToolResult(r)).toBe(r);
  });

  it("the AWS rule reports its range at the key's name: the value itself is what is replaced, the name stays", async () => {
    expect(await redactedText(`aws_secret_access_key = "${FAKE.awsSecret.secret}" # prod`)).toBe(`aws_secret_access_key = "[redacted:aws]" # prod`);
  });

  it("AWS's documented example key ID is one secretlint lets through on purpose (the fixtures use another)", async () => {
    expect(await redactedText("id AKIAIOSFODNN7EXAMPLE")).toBe("id AKIAIOSFODNN7EXAMPLE");
  });

  it("a secretlint-disable comment in a downstream's text switches nothing off", async () => {
    const out = await redactedText(`// secretlint-disable\n${FAKE.github.line}\n<!-- secretlint-disable-next-line -->\n${FAKE.stripe.line}`);
    expect(out).not.toContain(FAKE.github.secret);
    expect(out).not.toContain(FAKE.stripe.secret);
  });

  it("only the password of a URL or connection string is replaced; the rest stays readable", async () => {
    expect(await redactedText(FAKE.redisUrl.line)).toBe("redis://:[redacted:password]@cache.internal:6379/0");
    expect(await redactedText("amqp://worker:atriumFakeMq5@mq.internal/vhost")).toBe("amqp://worker:[redacted:password]@mq.internal/vhost");
    expect(await redactedText("https://api.internal/report?user=ann&password=atriumFake6&page=2")).toBe("https://api.internal/report?user=ann&password=[redacted:password]&page=2");
    expect(await redactedText(FAKE.adoString.line)).toBe("Server=tcp:sql.internal;Database=orders;User Id=app;Password=[redacted:password];Encrypt=true");
  });

  it("an environment listing's PWD (the working directory) is no password", async () => {
    expect(await redactedText("HOME=/home/ann\nPWD=/home/ann/src\nSHELL=/bin/bash")).toBe("HOME=/home/ann\nPWD=/home/ann/src\nSHELL=/bin/bash");
  });
});

describe("secret redaction: structured content and JSON texts", () => {
  it("string values are redacted at any depth; names, numbers and other values stay, and a credential known by its field's name is found", async () => {
    const r = await redactToolResult({ content: [], structuredContent: structured });
    const s = r.structuredContent as typeof structured;
    expect(s.credentials).toEqual({ AccessKeyId: "[redacted:aws]", SecretAccessKey: "[redacted:aws]", Expiration: "2030-01-01T00:00:00Z" });
    expect(s.tokens).toEqual(["[redacted:github]", "[redacted:gitlab]", "[redacted:slack]", "[redacted:jwt]", "not-a-token"]);
    expect(s.serviceAccount.private_key).toBe("[redacted:privatekey]\n");
    expect(s.serviceAccount.private_key_id).toBe(structured.serviceAccount.private_key_id);
    expect(s.connections.cache).toBe("redis://:[redacted:password]@cache.internal:6379/0");
    expect(s.count).toBe(12);
    // The downstream's own object is not changed.
    expect(structured.credentials.AccessKeyId).toBe(FAKE.awsKeyId.secret);
  });

  it("a text block holding JSON stays the same JSON: its redacted values rewritten, its layout, names and numbers as they were", async () => {
    const json = `{\n  "id": 90071992547409931,\n  "pem": ${JSON.stringify(FAKE.privateKey.line)},\n  "tokens": ["${FAKE.github.secret}", "ok"],\n  "${FAKE.gitlab.secret}": "a name is never rewritten"\n}`;
    const out = await redactedText(json);
    expect(out).toBe(`{\n  "id": 90071992547409931,\n  "pem": "[redacted:privatekey]",\n  "tokens": ["[redacted:github]", "ok"],\n  "${FAKE.gitlab.secret}": "a name is never rewritten"\n}`);
  });

  it("escaped JSON is read decoded: a URL written with \\/ is found, and the text stays valid JSON", async () => {
    const json = JSON.stringify({ remote: FAKE.basicAuth.line, note: "line one\nline \"two\"" }).replaceAll("/", "\\/");
    const out = await redactedText(json);
    expect(out).not.toContain(FAKE.basicAuth.secret);
    expect(JSON.parse(out)).toEqual({ remote: "[redacted:basicauth]/repo.git", note: "line one\nline \"two\"" });
  });

  it("the same data as structured content and as JSON text comes out the same", async () => {
    const r = await redactToolResult({ content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured });
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
  });

  it("a field named __proto__ stays a field", async () => {
    const value = JSON.parse(`{"__proto__": "${FAKE.github.secret}", "x": 1}`) as Record<string, unknown>;
    const r = await redactToolResult({ content: [], structuredContent: value });
    expect(Object.getPrototypeOf(r.structuredContent)).toBe(Object.prototype);
    expect(JSON.stringify(r.structuredContent)).toBe('{"__proto__":"[redacted:github]","x":1}');
  });
});

describe("secret redaction: content blocks and resources", () => {
  it("text blocks and embedded text resources are read; an image's base64 data is binary and left as it is", async () => {
    const r = await redactToolResult({
      content: [
        { type: "image", data: imageData, mimeType: "image/png" },
        { type: "text", text: FAKE.github.line },
        { type: "resource", resource: { uri: "file:///vault/notes.txt", mimeType: "text/plain", text: FAKE.github.line } },
      ],
    });
    expect(r.content[0]).toEqual({ type: "image", data: imageData, mimeType: "image/png" });
    expect(r.content[1]).toEqual({ type: "text", text: "token [redacted:github]" });
    expect(r.content[2]).toEqual({ type: "resource", resource: { uri: "file:///vault/notes.txt", mimeType: "text/plain", text: "token [redacted:github]" } });
  });

  it("a resources/read answer: each content's text is redacted, a blob is binary and left", async () => {
    const blob = Buffer.from(FAKE.stripe.line).toString("base64");
    const answer = { contents: [{ uri: "ui://vault/app.html", mimeType: "text/html;profile=mcp-app", text: `<script>const k = "${FAKE.stripe.secret}";</script>` }, { uri: "ui://vault/b", blob }] };
    expect(await redactResourceAnswer(answer)).toEqual({ contents: [{ ...answer.contents[0], text: `<script>const k = "[redacted:stripe]";</script>` }, { uri: "ui://vault/b", blob }] });
  });

  it("an error result's text is redacted like any other", async () => {
    const r = await redactToolResult({ isError: true, content: [{ type: "text", text: `connect failed: ${FAKE.postgres.line}` }] });
    expect(r).toEqual({ isError: true, content: [{ type: "text", text: "connect failed: [redacted:database-connection-string]" }] });
  });
});

describe("secret redaction: large texts are read in passes", () => {
  // Where a credential starts relative to the first pass boundary: well before, just before (it
  // crosses it), at it, and past the overlap (only the second pass sees it).
  it.each([-100_000, -20, 0, SECRET_SCAN_OVERLAP_CHARS + 6])("a credential starting %i characters from the first pass boundary is found whole", async (offset) => {
    const at = SECRET_SCAN_PASS_CHARS + offset;
    const secret = FAKE.privateKey.line;
    const big = `${"x ".repeat(at / 2)}${secret} ${"y ".repeat(SECRET_SCAN_PASS_CHARS)}`;
    expect(await findSecrets(big)).toEqual([{ start: at, end: at + secret.length, kind: "privatekey" }]);
  });

  it("many credentials in one large text are each found, in order", async () => {
    const line = (i: number) => `row ${i} ${FAKE.github.secret.slice(0, -6)}${String(i).padStart(6, "0")}\n`;
    const rows = Array.from({ length: 40_000 }, (_, i) => line(i));
    const found = await findSecrets(rows.join(""));
    expect(found.length).toBe(rows.length);
    expect(found.every((f) => f.kind === "github")).toBe(true);
    expect(found.every((f, i) => i === 0 || f.start > found[i - 1]!.start)).toBe(true);
  });
});
