// Facts of UTF-16, UTF-8, ASCII and JSON text that the glue's character- and byte-level code
// works with, named once. None of them is a bound (bounds are in spec/bounds.md); this file is on
// the numeric-literal allow-list of test/architecture.test.ts.

/** Code units of UTF-16 (one unit is 16 bits). @internal exported for the shell bundler (build/view-shell.ts). */
export const UTF16_UNITS = 0x10000;
/** A surrogate's top six bits, and their value for a high (leading) and a low (trailing) surrogate. */
export const SURROGATE_MASK = 0xfc00;
export const HIGH_SURROGATE = 0xd800;
export const LOW_SURROGATE = 0xdc00;

/** UTF-8: code points below this take one byte (ASCII), below the next two bytes. */
export const UTF8_ONE_BYTE_BELOW = 0x80;
export const UTF8_TWO_BYTES_BELOW = 0x800;
/** UTF-8 bytes of a code point below UTF8_TWO_BYTES_BELOW, of the rest of the BMP, and of a surrogate pair. */
export const UTF8_TWO_BYTES = 2;
export const UTF8_BMP_BYTES = 3;
export const UTF8_PAIR_BYTES = 4;
/** A UTF-8 continuation byte is 10xxxxxx. */
export const UTF8_CONTINUATION_MASK = 0xc0;
export const UTF8_CONTINUATION_TAG = 0x80;

/** ASCII: the characters end below this code. */
export const ASCII_END = 0x80;
/** ASCII codes of JSON's whitespace and punctuation (RFC 8259). */
export const ASCII = {
  tab: 0x09,
  newline: 0x0a,
  carriageReturn: 0x0d,
  space: 0x20,
  quote: 0x22,
  comma: 0x2c,
  colon: 0x3a,
  openBracket: 0x5b,
  backslash: 0x5c,
  closeBracket: 0x5d,
  openBrace: 0x7b,
  closeBrace: 0x7d,
} as const;

/** Radixes of decimal and hexadecimal digits. */
export const DECIMAL_RADIX = 10;
export const HEX_RADIX = 16;
/** Hex digits of a \uXXXX escape (JSON, JavaScript). */
export const UNICODE_ESCAPE_HEX_DIGITS = 4;
/** The longest JSON spelling of one UTF-16 unit inside a string: \uXXXX. */
export const JSON_ESCAPE_CHARS_MAX = 6;
