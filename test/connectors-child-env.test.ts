// The environment a stdio connector's child gets: besides HOME, LOGNAME, PATH, SHELL, TERM and
// USER, what it needs to reach the network from where atrium runs (proxy variables in both
// cases, extra CA certificates, npm's settings) and the locale and temp-dir variables, then the
// entry's own `env`; nothing else of atrium's environment. `"inheritEnv": false` on an entry gives
// its child the bare set. Seen through the real server-everything's get-env tool, with atrium
// started with proxy variables set (as behind a corporate proxy or a private registry).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { startAtrium, npmBin, type Atrium } from "./harness/atrium-client.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

/** What atrium is started with: the network, locale and temp-dir variables, and one that must stay behind. */
const ATRIUM_ENV = {
  HTTP_PROXY: "http://proxy.test:3128",
  HTTPS_PROXY: "http://proxy.test:3129",
  NO_PROXY: "localhost,127.0.0.1,.internal.test",
  http_proxy: "http://lower.proxy.test:3128",
  https_proxy: "http://lower.proxy.test:3129",
  no_proxy: "localhost,.lower.test",
  all_proxy: "socks5://lower.proxy.test:1080",
  NODE_USE_ENV_PROXY: "1",
  NODE_EXTRA_CA_CERTS: "/etc/corp/ca.pem",
  SSL_CERT_FILE: "/etc/corp/bundle.pem",
  SSL_CERT_DIR: "/etc/corp/certs",
  npm_config_registry: "https://registry.corp.test/",
  npm_config_cafile: "/etc/corp/ca.pem",
  LANG: "de_DE.UTF-8",
  LC_ALL: "de_DE.UTF-8",
  LANGUAGE: "de",
  TMPDIR: "/tmp/corp-tmp",
  TMP: "/tmp/corp-tmp",
  ATRIUM_TEST_SECRET_TOKEN: "never-passed-on",
  // An exported shell function under a passed-on name: never a setting.
  LC_PAPER: "() {  echo; }",
};
const KEPT_BACK = ["ATRIUM_TEST_SECRET_TOKEN", "LC_PAPER"];
const PASSED = Object.keys(ATRIUM_ENV).filter((k) => !KEPT_BACK.includes(k));

let a: Atrium;
beforeAll(async () => {
  a = await startAtrium({
    env: ATRIUM_ENV,
    config: {
      mcpServers: {
        everything: { command: npmBin("mcp-server-everything"), args: ["stdio"], env: { FROM_CONFIG: "1", HTTPS_PROXY: "http://config.proxy.test:8080" } },
        bare: { command: npmBin("mcp-server-everything"), args: ["stdio"], inheritEnv: false, env: { FROM_CONFIG: "1" } },
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await a?.close();
});

/** The child's environment, as the real server reports it (get-env). */
async function childEnv(connector: string): Promise<Record<string, string>> {
  const r = await a.json("call_tool", { address: `${connector}.get-env`, resultMode: "value" });
  expect(r.ok).toBe(true);
  return typeof r.data === "string" ? JSON.parse(r.data) : r.data;
}

describe("a stdio connector's child environment", () => {
  it("carries atrium's proxy (both cases), CA certificate, npm, locale and temp-dir variables; the entry's env wins; nothing else passes", async () => {
    const env = await childEnv("everything");
    for (const k of PASSED.filter((k) => k !== "HTTPS_PROXY")) expect(env[k], k).toBe(ATRIUM_ENV[k as keyof typeof ATRIUM_ENV]);
    expect(env.HTTPS_PROXY).toBe("http://config.proxy.test:8080");
    expect(env.FROM_CONFIG).toBe("1");
    expect(env.PATH).toBe(process.env.PATH);
    for (const k of KEPT_BACK) expect(env[k], k).toBeUndefined();
  });

  it('"inheritEnv": false gives the child only the bare set and the entry\'s env', async () => {
    const env = await childEnv("bare");
    for (const k of PASSED) expect(env[k], k).toBeUndefined();
    expect(env.FROM_CONFIG).toBe("1");
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.ATRIUM_TEST_SECRET_TOKEN).toBeUndefined();
  });
});

describe('the "inheritEnv" setting', () => {
  const check = (entry: Record<string, unknown>) => validateConfig({ mcpServers: { s: entry } }, core());
  it("defaults to true, accepts false, and is refused when it is not a boolean or on a remote entry", () => {
    const on = check({ command: "npx" });
    expect(on.ok && on.config.connectors[0]).toMatchObject({ kind: "stdio", inheritEnv: true });
    const off = check({ command: "npx", inheritEnv: false });
    expect(off.ok && off.config.connectors[0]).toMatchObject({ kind: "stdio", inheritEnv: false });
    const wrong = check({ command: "npx", inheritEnv: "no" });
    expect(!wrong.ok && wrong.errors.map((e) => e.path)).toEqual(["mcpServers.s.inheritEnv"]);
    const remote = check({ url: "https://x.test/mcp", inheritEnv: false });
    expect(!remote.ok && remote.errors).toEqual([{ path: "mcpServers.s.inheritEnv", message: 'applies only to a stdio server (one with "command")' }]);
  });
});
