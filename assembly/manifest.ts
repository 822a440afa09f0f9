// View manifest validation (spec/view-manifest.md, V1–V14). The glue walks one manifest
// in declaration order and calls these in sequence; the first non-ok answer refuses the
// whole manifest. State: the fixed and view keys of the binding being walked.
import { AddressShape, BINDING_NAME_CHARS_MAX, ListShape, Resolution, VIEW_BINDINGS_MAX, VIEW_KEY_CHARS_MAX, VIEW_KEYS_MAX, ValueShape, ViewCheck } from "./generated/spec";

const fixedKeys = new Set<string>();
const viewKeys = new Set<string>();

function isReserved(s: string): bool {
  return s == "__proto__" || s == "constructor" || s == "prototype";
}

function isLetter(c: i32): bool {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** V2: ^[A-Za-z][A-Za-z0-9_-]{0,63}$ */
export function nameIsValid(s: string): bool {
  const n = s.length;
  if (n < 1 || n > BINDING_NAME_CHARS_MAX) return false;
  if (!isLetter(s.charCodeAt(0))) return false;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!(isLetter(c) || (c >= 48 && c <= 57) || c == 95 || c == 45)) return false;
  }
  return true;
}

/** V1 */
export function vmBegin(readsShape: i32, count: i32): i32 {
  if (readsShape < ValueShape.absent || readsShape > ValueShape.other || count < 0) return ViewCheck.invalid_facts;
  if (readsShape != ValueShape.object) return ViewCheck.reads_not_object;
  if (count == 0) return ViewCheck.no_bindings;
  if (count > VIEW_BINDINGS_MAX) return ViewCheck.too_many_bindings;
  return ViewCheck.ok;
}

/** V2–V4; starts a new binding. */
export function vmBinding(name: string, shape: i32): i32 {
  fixedKeys.clear();
  viewKeys.clear();
  if (shape < ValueShape.absent || shape > ValueShape.other) return ViewCheck.invalid_facts;
  if (isReserved(name)) return ViewCheck.name_reserved;
  if (!nameIsValid(name)) return ViewCheck.name_invalid;
  if (shape != ValueShape.object) return ViewCheck.binding_not_object;
  return ViewCheck.ok;
}

/** V5 */
export function vmKey(key: string): i32 {
  return key == "address" || key == "fixedArgs" || key == "viewArgs" ? ViewCheck.ok : ViewCheck.key_unknown;
}

/** V6–V8 */
export function vmAddress(shape: i32, resolution: i32): i32 {
  if (shape < AddressShape.absent || shape > AddressShape.other || resolution < Resolution.unknown || resolution > Resolution.approval) return ViewCheck.invalid_facts;
  if (shape == AddressShape.absent) return ViewCheck.address_missing;
  if (shape != AddressShape.string) return ViewCheck.address_not_string;
  if (resolution == Resolution.unknown) return ViewCheck.address_unknown;
  if (resolution != Resolution.read_only) return ViewCheck.address_not_read_only;
  return ViewCheck.ok;
}

/** V9 */
export function vmFixedArgs(shape: i32): i32 {
  if (shape < ValueShape.absent || shape > ValueShape.other) return ViewCheck.invalid_facts;
  return shape == ValueShape.other ? ViewCheck.fixed_args_not_object : ViewCheck.ok;
}

/** V9 */
export function vmFixedKey(key: string): i32 {
  if (isReserved(key)) return ViewCheck.fixed_key_reserved;
  fixedKeys.add(key);
  return ViewCheck.ok;
}

/** V10 */
export function vmViewArgs(shape: i32, count: i32): i32 {
  if (shape < ListShape.absent || shape > ListShape.other || count < 0) return ViewCheck.invalid_facts;
  if (shape == ListShape.other) return ViewCheck.view_args_not_array;
  if (count > VIEW_KEYS_MAX) return ViewCheck.too_many_view_keys;
  return ViewCheck.ok;
}

/** V11–V13 */
export function vmViewKey(isString: bool, key: string): i32 {
  if (!isString) return ViewCheck.view_key_not_string;
  if (key.length < 1 || key.length > VIEW_KEY_CHARS_MAX) return ViewCheck.view_key_length;
  if (isReserved(key)) return ViewCheck.view_key_reserved;
  if (viewKeys.has(key)) return ViewCheck.view_key_duplicate;
  if (fixedKeys.has(key)) return ViewCheck.view_key_is_fixed_key;
  viewKeys.add(key);
  return ViewCheck.ok;
}
