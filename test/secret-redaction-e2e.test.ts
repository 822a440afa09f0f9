// Secret redaction through real atrium over stdio, seen by a real MCP client as the host and its
// model see it: a fixture downstream full of fake credentials (fixtures/secrets-server.ts) and
// the real server-filesystem from npm reading files that hold them. Every path a result takes —
// call_tool (mcp and value modes, a projection, get_result's pages of a large one), a program's
// atrium.call, a batch, a connector's global, an app's UI document — gets `[redacted:<kind>]`
// and never the credential; a connector with "redactSecrets": false passes its results through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { fixture, nodeServer, npmBin, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { ALL_FAKES, FAKE, imageData, largeText, type FakeCredential } from "./fixtures/fake-credentials.js";

/** Fails naming the credential when any is in `seen` (a result as JSON). */
function expectNone(seen: string, fakes: FakeCredential[] = ALL_FAKES): void {
  for (const f of fakes) expect(seen, `the ${f.kind} credential ${f.secret.slice(0, 12)}… was seen`).not.toContain(f.secret);
}
const textOf = (r: any): string => r.content[0].text;

describe("secret redaction through atrium", () => {
  let a: Atrium;
  let files: string;
  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), "atrium-secrets-"));
    writeFileSync(join(files, "deploy.env"), `REGION=eu-west-1\nAWS_ACCESS_KEY_ID=${FAKE.awsKeyId.secret}\nAWS_SECRET_ACCESS_KEY=${FAKE.awsSecret.secret}\n`);
    writeFileSync(join(files, "id_service"), `${FAKE.privateKey.line}\n`);
    a = await startAtrium({
      apps: true,
      config: {
        mcpServers: {
          vault: nodeServer(fixture("secrets-server")),
          plain: nodeServer(fixture("secrets-server"), { redactSecrets: false }),
          files: { command: npmBin("mcp-server-filesystem"), args: [files] },
        },
      },
    });
  });
  afterAll(async () => {
    await a?.close();
    rmSync(files, { recursive: true, force: true });
  });

  it("call_tool: every credential in a text reaches the model as [redacted:<kind>]", async () => {
    const text = textOf(await a.call("call_tool", { address: "vault.leak_text" }));
    expectNone(text);
    for (const f of ALL_FAKES) expect(text).toContain(`[redacted:${f.kind}]`);
    expect(text).toContain("access key id: [redacted:aws]\naws_secret_access_key = [redacted:aws]\ntoken [redacted:github]");
  });

  it("call_tool: structured content and its JSON text are both redacted, and still say the same JSON", async () => {
    const r: any = await a.call("call_tool", { address: "vault.leak_structured" });
    expectNone(JSON.stringify(r));
    expect(r.structuredContent.credentials).toEqual({ AccessKeyId: "[redacted:aws]", SecretAccessKey: "[redacted:aws]", Expiration: "2030-01-01T00:00:00Z" });
    expect(r.structuredContent.serviceAccount.private_key).toBe("[redacted:privatekey]\n");
    expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
  });

  it("call_tool: value mode and a projection see the redacted value", async () => {
    const value: any = await a.call("call_tool", { address: "vault.leak_structured", resultMode: "value" });
    expectNone(JSON.stringify(value));
    expect(value.structuredContent.data.tokens).toEqual(["[redacted:github]", "[redacted:gitlab]", "[redacted:slack]", "[redacted:jwt]", "not-a-token"]);
    const projected: any = await a.call("call_tool", { address: "vault.leak_structured", fields: ["credentials.SecretAccessKey", "connections.cache"] });
    expect(projected.structuredContent).toEqual({ credentials: { SecretAccessKey: "[redacted:aws]" }, connections: { cache: "redis://:[redacted:password]@cache.internal:6379/0" } });
  });

  it("call_tool: text blocks and embedded resources are redacted; an image's binary data is passed as it came", async () => {
    const r: any = await a.call("call_tool", { address: "vault.leak_blocks" });
    expect(r.content).toEqual([
      { type: "image", data: imageData, mimeType: "image/png" },
      { type: "text", text: "token [redacted:github]" },
      { type: "resource", resource: { uri: "file:///vault/notes.txt", mimeType: "text/plain", text: "token [redacted:github]" } },
    ]);
  });

  it("execute_code: atrium.call, a batch's items and a connector's global all return redacted values", async () => {
    const v = await a.value(`async () => {
      const called = await atrium.call("vault.leak_text", {});
      const batch = await atrium.batch([{ address: "vault.leak_structured", args: {} }, { address: "vault.leak_text", args: {} }]);
      const global = await vault.leak_structured({});
      return { called, batch, global };
    }`);
    expectNone(JSON.stringify(v));
    expect(v.called).toContain("token [redacted:github]");
    expect(v.batch.map((item: any) => item.ok)).toEqual([true, true]);
    expect(v.batch[0].data.credentials.SecretAccessKey).toBe("[redacted:aws]");
    expect(v.global.connections.orders).toBe("[redacted:database-connection-string]");
  });

  it("server-filesystem: a file holding AWS keys and one holding a private key are read redacted, by call_tool and by a program", async () => {
    const env = textOf(await a.call("call_tool", { address: "files.read_text_file", args: { path: join(files, "deploy.env") } }));
    expect(env).toBe("REGION=eu-west-1\nAWS_ACCESS_KEY_ID=[redacted:aws]\nAWS_SECRET_ACCESS_KEY=[redacted:aws]\n");
    const key = textOf(await a.call("call_tool", { address: "files.read_text_file", args: { path: join(files, "id_service") } }));
    expect(key).toBe("[redacted:privatekey]\n");
    const fromProgram = await a.value(`async () => files.read_text_file({ path: ${JSON.stringify(join(files, "deploy.env"))} })`);
    expectNone(JSON.stringify(fromProgram));
    expect(JSON.stringify(fromProgram)).toContain("AWS_SECRET_ACCESS_KEY=[redacted:aws]");
  });

  it('"redactSecrets": false: that connector\'s results pass through as it sent them, on every path', async () => {
    expect(textOf(await a.call("call_tool", { address: "plain.leak_text" }))).toBe(ALL_FAKES.map((f) => f.line).join("\n"));
    const v = await a.value(`async () => plain.leak_structured({})`);
    expect(v.credentials.SecretAccessKey).toBe(FAKE.awsSecret.secret);
    expect(v.tokens[0]).toBe(FAKE.github.secret);
  });

  it("a 1 MiB result with a token near its end: its first page and every get_result page are of the redacted text, whole characters at consistent offsets", async () => {
    const expected = largeText(FAKE.github.secret).replace(FAKE.github.secret, "[redacted:github]");
    const first: any = await a.call("call_tool", { address: "vault.leak_large" });
    const notice = first.structuredContent;
    expect(notice).toMatchObject({ truncated: true, totalBytes: Buffer.byteLength(expected) });
    const pages = [textOf(first)];
    expect(Buffer.byteLength(pages[0]!)).toBe(notice.shownBytes);
    let offset: number | undefined = notice.shownBytes;
    while (offset !== undefined) {
      const page: any = await a.json("get_result", { id: notice.resultId, offset, maxBytes: 200_000 });
      expect(page.offset).toBe(offset);
      expect(page.totalBytes).toBe(notice.totalBytes);
      if (page.nextOffset !== undefined) expect(Buffer.byteLength(page.text)).toBe(page.nextOffset - offset);
      expect(page.text).not.toContain("\uFFFD");
      pages.push(page.text);
      offset = page.nextOffset;
    }
    expect(pages.join("")).toBe(expected);
  });

  it("an app's UI document reaches the host's relay redacted", async () => {
    const r = await a.client.readResource({ uri: "ui://atrium/c/vault/vault/app.html" });
    const relay = (r.contents[0] as { text: string }).text;
    const html = Buffer.from(/"html":"([A-Za-z0-9+/=]+)"/.exec(relay)![1]!, "base64").toString("utf8");
    expect(html).toContain('const key = "[redacted:stripe]";');
    expect(html).not.toContain(FAKE.stripe.secret);
  });
});
