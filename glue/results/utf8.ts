// Byte-level views of strings as UTF-8, as they go over the wire.
// Encoding follows TextEncoder: a lone surrogate becomes U+FFFD (3 bytes), so
// paging reassembles to decode(encode(text)), not always to `text` itself.
import {
  HIGH_SURROGATE, LOW_SURROGATE, SURROGATE_MASK, UTF8_BMP_BYTES, UTF8_CONTINUATION_MASK, UTF8_CONTINUATION_TAG,
  UTF8_ONE_BYTE_BELOW, UTF8_PAIR_BYTES, UTF8_TWO_BYTES, UTF8_TWO_BYTES_BELOW,
} from "../support/encoding.js";

/** UTF-8 byte length of `s` under TextEncoder semantics, without allocating. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < UTF8_ONE_BYTE_BELOW) n += 1;
    else if (c < UTF8_TWO_BYTES_BELOW) n += UTF8_TWO_BYTES;
    else if ((c & SURROGATE_MASK) === HIGH_SURROGATE && i + 1 < s.length && (s.charCodeAt(i + 1) & SURROGATE_MASK) === LOW_SURROGATE) {
      n += UTF8_PAIR_BYTES; // a surrogate pair is one 4-byte code point
      i++;
    } else n += UTF8_BMP_BYTES; // BMP char, or a lone surrogate encoded as U+FFFD
  }
  return n;
}

export interface Utf8Slice {
  text: string;
  /** Byte offset of the first byte of `text` in the whole encoding (a character boundary). */
  start: number;
  /** Byte offset just past `text`; pass it as the next offset to continue. */
  end: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const isContinuation = (b: number) => (b & UTF8_CONTINUATION_MASK) === UTF8_CONTINUATION_TAG;

function checkInt(name: string, v: number, min: number): void {
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${v}`);
}

/**
 * Up to `maxBytes` bytes of `text`'s UTF-8 encoding from byte `offset`, never splitting a
 * character: a start inside a character moves forward, an end inside one moves back. If the
 * first character alone exceeds `maxBytes` it is returned anyway, so paging always progresses.
 * An offset at or past the end gives an empty slice at the end.
 */
export function sliceUtf8(text: string, offset: number, maxBytes: number): Utf8Slice {
  checkInt("offset", offset, 0);
  checkInt("maxBytes", maxBytes, 1);
  const bytes = encoder.encode(text);
  const len = bytes.length;
  let start = Math.min(offset, len);
  while (start < len && isContinuation(bytes[start]!)) start++;
  let end = Math.min(len, start + maxBytes);
  while (end > start && end < len && isContinuation(bytes[end]!)) end--;
  if (end === start && start < len) {
    // maxBytes is smaller than this character: take the whole character.
    end = start + 1;
    while (end < len && isContinuation(bytes[end]!)) end++;
  }
  return { text: decoder.decode(bytes.subarray(start, end)), start, end };
}
