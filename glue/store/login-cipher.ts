// Per-user downstream logins are kept in the shared store encrypted: AES-256-GCM under the key in
// ATRIUM_STORE_KEY (32 bytes, base64 or hex), a fresh 12-byte IV per write, and the record's key
// (connector, URL, owner) as additional data, so a ciphertext moved to another person's key does
// not open. Without the key there are no per-user logins in team mode (serve refuses to start).
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AES_GCM_IV_BYTES, AES_GCM_TAG_BYTES, STORE_KEY_BYTES } from "../decisions/generated/spec.js";

/** The key ATRIUM_STORE_KEY holds, or why it is not one. */
export function storeKeyOf(text: string | undefined): Buffer | string {
  if (text === undefined || text === "") return "ATRIUM_STORE_KEY is not set";
  const t = text.trim();
  const hex = /^[0-9a-fA-F]+$/.test(t) ? Buffer.from(t, "hex") : undefined;
  const key = hex && hex.length === STORE_KEY_BYTES ? hex : Buffer.from(t, "base64");
  if (key.length !== STORE_KEY_BYTES) return `ATRIUM_STORE_KEY must hold ${STORE_KEY_BYTES} random bytes, in base64 or hex (e.g. from \`openssl rand -base64 ${STORE_KEY_BYTES}\`)`;
  return key;
}

export function seal(key: Buffer, plain: string, aad: string): string {
  const iv = randomBytes(AES_GCM_IV_BYTES);
  const c = createCipheriv("aes-256-gcm", key, iv);
  c.setAAD(Buffer.from(aad));
  const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString("base64");
}

/** The plain text, or undefined when the text was not sealed with this key and this additional data. */
export function open(key: Buffer, sealed: string, aad: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, "base64");
    if (raw.length < AES_GCM_IV_BYTES + AES_GCM_TAG_BYTES) return undefined;
    const d = createDecipheriv("aes-256-gcm", key, raw.subarray(0, AES_GCM_IV_BYTES));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(raw.subarray(AES_GCM_IV_BYTES, AES_GCM_IV_BYTES + AES_GCM_TAG_BYTES));
    return Buffer.concat([d.update(raw.subarray(AES_GCM_IV_BYTES + AES_GCM_TAG_BYTES)), d.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
