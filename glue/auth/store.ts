// What atrium keeps per remote connector after a login: tokens (with the moment the access token
// expires), the client registration (pre-registered or dynamic), keyed by connector id AND server
// URL (a changed URL never reuses tokens). Kept in the OS keyring when one answers, else in the
// token file (file-store.ts); ATRIUM_KEYRING=off skips the keyring. Every read goes to the store
// (another atrium process, `atrium auth login`, may have written it). Nothing here logs a value.
// A record belongs to one principal (team mode's per-user logins, `"auth": "per-user"`): the
// `local` principal's records are the ones a person's own atrium always kept (no owner field);
// another principal's carry its id and are reached only through `ownedBy(id)`, so one person's
// tokens are never read for another's connector. `LoginRecords` is the seam: what a login, a
// connector's OAuth provider and authorize_connector may do with the records of one owner.
import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { TokenFile } from "./file-store.js";
import { KeyringSecret } from "./keyring-store.js";
import { isJsonObject } from "../support/json-object.js";
import { MS_PER_SECOND } from "../support/format.js";
import { LOCAL_PRINCIPAL } from "../support/principal.js";

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
  /** The scope the next login must ask for, recorded by a 403 insufficient_scope the core answered step_up (spec/oauth.md O14); cleared by the tokens that login saves. */
  stepUpScope?: string;
  /** The principal whose login this is; absent for `local` (records written before team mode too). */
  owner?: string;
}

/** The login records of one owner. */
export interface LoginRecords {
  get(connector: string, url: string): AuthRecord | undefined;
  update(connector: string, url: string, change: (r: AuthRecord) => AuthRecord | undefined): void;
  /** The tokens with the issuer that issued them and its revocation endpoint, in one write (O8: never moved to another issuer). */
  saveTokens(connector: string, url: string, tokens: StoredOAuthTokens, issuedBy?: { issuer?: string; revocationEndpoint?: string }): void;
}

export interface Backend { read(): string | undefined; write(text: string): void }

/** Where tokens are kept, in words for `auth status` and doctor. */
export interface StoreWhere { kind: "keyring" | "file"; words: string }

/** Where each principal's login records are found. */
export interface LoginOwners { ownedBy(principalId: string): LoginRecords }

export const keyOf = (connector: string, url: string, owner?: string) => JSON.stringify(owner === undefined ? [connector, url] : [connector, url, owner]);
/** How a principal's id is written on its records: nothing for `local`. */
const ownerField = (principalId: string) => (principalId === LOCAL_PRINCIPAL.id ? undefined : principalId);

export class TokenStore implements LoginRecords, LoginOwners {
  private backend?: Backend;
  private whereWords?: StoreWhere;
  /** Team mode with a shared store: every other principal's records live there (store/shared-logins.ts), not in this machine's keyring or file. */
  private others?: LoginOwners;

  /** From now on, principals other than `local` keep their login records in `owners`. */
  shareOthers(owners: LoginOwners): void {
    this.others = owners;
  }

  /** `keyring` opens the OS keyring (a test hands in one that works or one that fails). */
  constructor(private readonly env: NodeJS.ProcessEnv = process.env, private readonly file = new TokenFile(), private readonly keyring: () => Backend = () => new KeyringSecret()) {}

  /** Which store answers: the keyring when it works and is not turned off, else the file. */
  where(): StoreWhere {
    this.open();
    return this.whereWords!;
  }

  /** The records of one principal: `local`'s are this store's own. */
  ownedBy(principalId: string): LoginRecords {
    const owner = ownerField(principalId);
    if (owner === undefined) return this;
    if (this.others) return this.others.ownedBy(principalId);
    return {
      get: (connector, url) => this.read(connector, url, owner),
      update: (connector, url, change) => this.write(connector, url, owner, change),
      saveTokens: (connector, url, tokens, issuedBy) => this.write(connector, url, owner, withTokens(tokens, issuedBy)),
    };
  }

  get(connector: string, url: string): AuthRecord | undefined {
    return this.read(connector, url, undefined);
  }

  /** The `local` records of every connector for any URL (auth status explains a URL that changed). */
  all(): AuthRecord[] {
    return [...this.readAll().values()].filter((r) => r.owner === undefined);
  }

  update(connector: string, url: string, change: (r: AuthRecord) => AuthRecord | undefined): void {
    this.write(connector, url, undefined, change);
  }

  saveTokens(connector: string, url: string, tokens: StoredOAuthTokens, issuedBy: { issuer?: string; revocationEndpoint?: string } = {}): void {
    this.write(connector, url, undefined, withTokens(tokens, issuedBy));
  }

  private read(connector: string, url: string, owner: string | undefined): AuthRecord | undefined {
    return this.readAll().get(keyOf(connector, url, owner));
  }

  private write(connector: string, url: string, owner: string | undefined, change: (r: AuthRecord) => AuthRecord | undefined): void {
    const all = this.readAll();
    const k = keyOf(connector, url, owner);
    const next = change(all.get(k) ?? { connector, url, ...(owner !== undefined && { owner }) });
    // The owner is the key's, whatever the change wrote.
    if (next) all.set(k, { ...next, owner });
    else all.delete(k);
    this.open().write(JSON.stringify({ version: 1, records: [...all.values()] }));
  }

  private readAll(): Map<string, AuthRecord> {
    const text = this.open().read();
    const out = new Map<string, AuthRecord>();
    if (text === undefined) return out;
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch { return out; }
    const records = isJsonObject(parsed) && Array.isArray(parsed.records) ? parsed.records : [];
    for (const r of records) {
      if (!isJsonObject(r) || typeof r.connector !== "string" || typeof r.url !== "string") continue;
      if (r.owner !== undefined && typeof r.owner !== "string") continue; // a record whose owner cannot be read belongs to no one
      out.set(keyOf(r.connector, r.url, r.owner as string | undefined), r as unknown as AuthRecord);
    }
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

/** The change that stores tokens with the issuer that issued them (O8). */
export function withTokens(tokens: StoredOAuthTokens, issuedBy: { issuer?: string; revocationEndpoint?: string } = {}): (r: AuthRecord) => AuthRecord {
  const expiresAt = typeof tokens.expires_in === "number" ? Date.now() + tokens.expires_in * MS_PER_SECOND : undefined;
  return (r) => ({ ...r, tokens, expiresAt, issuer: issuedBy.issuer, revocationEndpoint: issuedBy.revocationEndpoint, stepUpScope: undefined });
}

let shared: TokenStore | undefined;
/** The process's token store. */
export const tokenStore = (): TokenStore => (shared ??= new TokenStore());
