// How deeply a JSON text nests ({} and [] count one level each), in one pass over its characters:
// the bound on nesting is checked on the text before anything parses or serializes the value
// recursively (V8's JSON.stringify overflows its stack a few thousand levels down).

import { ASCII } from "./encoding.js";

const { quote: QUOTE, backslash: BACKSLASH, openBrace: OPEN_BRACE, openBracket: OPEN_BRACKET, closeBrace: CLOSE_BRACE, closeBracket: CLOSE_BRACKET } = ASCII;

/** The deepest nesting of a valid JSON text; the scan stops once it passes `stopAbove`. */
export function jsonDepth(json: string, stopAbove = Infinity): number {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max && (max = depth) > stopAbove) return max;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return max;
}
