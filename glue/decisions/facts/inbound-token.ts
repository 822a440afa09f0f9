// Observations turned into the inbound-token family's facts (spec/inbound-tokens.md): what a
// request's Authorization header holds (T1–T3), judged before anything is decoded.
import { BearerCredentials } from "../generated/spec.js";

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** T1–T3's fact for an Authorization header as received; `maxBytes` is bearer_token_bytes. The token, when it is one. */
export function credentialsOf(header: string | undefined, maxBytes: number): { credentials: BearerCredentials; token?: string } {
  if (header === undefined || header.trim() === "") return { credentials: BearerCredentials.absent };
  const space = header.indexOf(" ");
  const scheme = space === -1 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== "bearer") return { credentials: BearerCredentials.other_scheme };
  const rest = space === -1 ? "" : header.slice(space + 1);
  // Bounded before it is looked at: a token past bearer_token_bytes is not scanned further.
  if (Buffer.byteLength(rest, "latin1") > maxBytes) return { credentials: BearerCredentials.oversize };
  if (!B64TOKEN.test(rest)) return { credentials: BearerCredentials.malformed };
  return { credentials: BearerCredentials.bearer, token: rest };
}
