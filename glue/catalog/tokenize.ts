// Lexical terms for search: the same function runs on the index side and the query side,
// so whatever it normalizes (case, separators, plurals) matches on both.
import { SEARCH_TUNING as T } from "./search-tuning.js";
import { ASCII_END } from "../support/encoding.js";

// Short on purpose: words that carry no signal in tool names or descriptions.
const STOP = new Set([
  "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "its",
  "of", "on", "or", "that", "the", "this", "to", "with", "was", "were", "will", "can", "me",
  "my", "you", "your", "which", "what", "when", "how", "do", "does",
]);

// Acronyms whose trailing "s" is not a plural.
const KEEP_S = new Set(["aws", "dns", "sms", "tls", "ios", "https", "cors", "news", "yes", "gas"]);

const PLURAL_US = new Set(["cpus", "gpus", "vcpus", "skus", "menus"]);

// Camel boundaries: "getHTTPResponse" → get|HTTP|Response, "listV2Issues" → list|V2|Issues.
// Letters and digits in one run stay together ("v2", "utf8", "oauth2").
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * Light plural stemming: incidents → incident, entities → entity, branches → branch. Porter
 * stemming (the `stemmer` package) was measured against it on the search bench and ranked worse
 * (it merges sibling verbs' forms); see test/bench/search/README.md.
 */
export function stem(term: string): string {
  if (term.length < T.stemCharsMin || KEEP_S.has(term) || !term.endsWith("s")) return term;
  // status, address, analysis, axis are singular; APIs and CPUs are not.
  if (term.endsWith("ss") || term.endsWith("sis") || term.endsWith("xis")) return term;
  if (term.endsWith("us") && !PLURAL_US.has(term)) return term;
  if (term.length >= T.iesStemCharsMin && term.endsWith("ies")) return term.slice(0, -"ies".length) + "y";
  if (/(?:ch|sh|x|z|ss)es$/.test(term)) return term.slice(0, -"es".length);
  return term.slice(0, -1);
}

function keep(out: string[], lower: string): void {
  if (lower.length >= T.wordCharsMin && !STOP.has(lower)) out.push(lower);
}

/** The general (Unicode) splitter. */
function wordsUnicode(text: string, out: string[]): void {
  for (const chunk of text.split(SEPARATORS)) {
    if (chunk.length < T.wordCharsMin) continue;
    for (const part of chunk.split(CAMEL)) keep(out, part.toLowerCase());
  }
}

// Character classes for the ASCII fast path (indexing 10,000 tools is mostly this loop).
const enum Cls { other, lower, upper, digit }
const OTHER = Cls.other, LOWER = Cls.lower, UPPER = Cls.upper, DIGIT = Cls.digit;
const code = (c: string): number => c.charCodeAt(0);
const CLASS = new Uint8Array(ASCII_END);
for (let c = 0; c < ASCII_END; c++) {
  CLASS[c] = c >= code("a") && c <= code("z") ? LOWER : c >= code("A") && c <= code("Z") ? UPPER : c >= code("0") && c <= code("9") ? DIGIT : OTHER;
}
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII = new TextEncoder();

/**
 * The same boundaries as CAMEL/SEPARATORS, scanned over the text's bytes; false when the text is
 * not ASCII. Linear by construction: one regex test, one encoding, one pass over a byte array
 * (charCodeAt on the string itself went quadratic once V8 optimized this loop).
 */
function wordsAscii(text: string, out: string[]): boolean {
  if (NON_ASCII.test(text)) return false;
  const bytes = ASCII.encode(text); // one byte per character for ASCII text
  const lower = text.toLowerCase();
  let start = -1;
  let prev = OTHER;
  for (let i = 0; i <= bytes.length; i++) {
    const cls = i < bytes.length ? CLASS[bytes[i]!]! : OTHER;
    if (cls === OTHER) {
      if (start >= 0) keep(out, lower.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    } else if (cls === UPPER && (prev === LOWER || prev === DIGIT)) {
      keep(out, lower.slice(start, i)); // "getHTTP" → get|HTTP, "V2Issues" → V2|Issues
      start = i;
    } else if (cls === LOWER && prev === UPPER && i - 1 > start) {
      keep(out, lower.slice(start, i - 1)); // "HTTPResponse" → HTTP|Response
      start = i - 1;
    }
    prev = cls;
  }
  return true;
}

/** Split identifiers and prose into lowercase words; drops 1-char words and stop words. Unstemmed. */
export function words(text: string): string[] {
  const out: string[] = [];
  if (typeof text !== "string" || text.length === 0) return out;
  if (!wordsAscii(text, out)) {
    out.length = 0;
    wordsUnicode(text, out);
  }
  return out;
}
