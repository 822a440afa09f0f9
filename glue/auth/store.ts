// What atrium keeps per remote connector after a login: tokens (with the moment the access token
// expires), the client registration (pre-registered or dynamic), keyed by connector id AND server
// URL (a changed URL never reuses tokens). Kept in the OS keyring when one answers, else in the
// token file (file-store.ts); ATRIUM_KEYRING=off skips the keyring. Every read goes to the store
// (another atrium process, `atrium auth login`, may have written it). Nothing here logs a value.
import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { TokenFile } from "./file-store.js";
import { KeyringSecret } from "./keyring-store.js";
import { isJsonObject } from "../support/json-object.js";
import { MS_PER_SECOND } from "../support/format.js";

export interface AuthRecord {
  connector: string;
  url: string;
  tokens?: StoredOAuthTokens;
  /** Epoch ms when the access token expires (from expires_in when it was saved). */
  expiresAt?: number;
  client?: StoredOAuthClientInformation;
  /** The issuer that issued the stored tokens and its revocation endpoint, written with the tokens (spec/oauth.md O8), for logout. */
  revocationEndpoint?: string;
  issuer?: string;
}

export interface Backend { read(): string | undefined; write(text: string): void }

/** Where tokens are kept, in words for `auth status` and doctor. */
export interface StoreWhere { kind: "keyring" | "file"; words: string }

const keyOf = (connector: string, url: string) => JSON.stringify([connector, url]);

export class TokenStore {
  private backend?: Backend;
  private whereWords?: StoreWhere;

  /** `keyring` opens the OS keyring (a test hands in one that works or one that fails). */
  constructor(private readonly env: NodeJS.ProcessEnv = process.env, private readonly file = new TokenFile(), private readonly keyring: () => Backend = () => new KeyringSecret()) {}

  /** Which store answers: the keyring when it works and is not turned off, else the file. */
  where(): StoreWhere {
    this.open();
    return this.whereWords!;
  }

  get(connector: string, url: string): AuthRecord | undefined {
    return this.readAll().get(keyOf(connector, url));
  }

  /** Records of a connector for any URL (auth status explains a URL that changed). */
  all(): AuthRecord[] {
    return [...this.readAll().values()];
  }

  update(connector: string, url: string, change: (r: AuthRecord) => AuthRecord | undefined): void {
    const all = this.readAll();
    const k = keyOf(connector, url);
    const next = change(all.get(k) ?? { connector, url });
    if (next) all.set(k, next);
    else all.delete(k);
    this.open().write(JSON.stringify({ version: 1, records: [...all.values()] }));
  }

  /** The tokens with the issuer that issued them and its revocation endpoint, in one write (O8: never moved to another issuer). */
  saveTokens(connector: string, url: string, tokens: StoredOAuthTokens, issuedBy: { issuer?: string; revocationEndpoint?: string } = {}): void {
    const expiresAt = typeof tokens.expires_in === "number" ? Date.now() + tokens.expires_in * MS_PER_SECOND : undefined;
    this.update(connector, url, (r) => ({ ...r, tokens, expiresAt, issuer: issuedBy.issuer, revocationEndpoint: issuedBy.revocationEndpoint }));
  }

  private readAll(): Map<string, AuthRecord> {
    const text = this.open().read();
    const out = new Map<string, AuthRecord>();
    if (text === undefined) return out;
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch { return out; }
    const records = isJsonObject(parsed) && Array.isArray(parsed.records) ? parsed.records : [];
    for (const r of records) if (isJsonObject(r) && typeof r.connector === "string" && typeof r.url === "string") out.set(keyOf(r.connector, r.url), r as unknown as AuthRecord);
    return out;
  }

  private open(): Backend {
    if (this.backend) return this.backend;
    if (this.env.ATRIUM_KEYRING === "off") {
      this.whereWords = { kind: "file", words: `file ${this.file.path} (the keyring is turned off: ATRIUM_KEYRING=off)` };
      return (this.backend = this.file);
    }
    try {
      const keyring = this.keyring();
      // A keyring may answer reads and still refuse writes (a Secret Service without a usable
      // collection): an empty keyring is written once before it is trusted. Tokens already in the
      // file stay there (never split between two stores).
      if (keyring.read() === undefined) {
        if (this.file.read() !== undefined) {
          this.whereWords = { kind: "file", words: `file ${this.file.path} (it already holds atrium's tokens)` };
          return (this.backend = this.file);
        }
        keyring.write(JSON.stringify({ version: 1, records: [] }));
      }
      this.whereWords = { kind: "keyring", words: "the OS keyring (service atrium)" };
      return (this.backend = keyring);
    } catch (e) {
      const why = (e instanceof Error ? e.message : String(e)).split("\n")[0];
      this.whereWords = { kind: "file", words: `file ${this.file.path} (no OS keyring: ${why})` };
      return (this.backend = this.file);
    }
  }
}

let shared: TokenStore | undefined;
/** The process's token store. */
export const tokenStore = (): TokenStore => (shared ??= new TokenStore());
