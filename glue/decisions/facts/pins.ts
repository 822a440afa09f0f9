// Observations turned into the pin family's facts (spec/pins.md): what an `atrium pins accept`
// word named against the definition pending now (N9), and whether a listed tool name carries a
// character that could change what it is shown on (N10, the one escaper's screen).
import { PIN_SHOWN_DIGEST_CHARS, PinGiven, ToolNameText } from "../generated/spec.js";
import { hasUnsafeText } from "../../support/text/escape.js";

/** N9's `given`: the digest an accept word carried (after its last "@"; undefined when none) read against the pending digest. */
export function pinGivenOf(word: string | undefined, pendingDigest: string): PinGiven {
  if (word === undefined) return PinGiven.absent;
  const given = word.toLowerCase();
  if (given.length < PIN_SHOWN_DIGEST_CHARS || !/^[0-9a-f]+$/.test(given)) return PinGiven.not_digest;
  return pendingDigest.startsWith(given) ? PinGiven.shown : PinGiven.other_digest;
}

/** N10's `text` for a tool name as the connector listed it. */
export const toolNameTextOf = (name: string): ToolNameText => (hasUnsafeText(name) ? ToolNameText.unsafe : ToolNameText.clean);
