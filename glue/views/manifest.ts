// Walks a view manifest (`atrium.ui(html, { reads })`) in declaration order and asks the
// core about each fact (spec/view-manifest.md). The first non-ok answer refuses the whole
// manifest; `at` names the offending binding or key.
import type { Core } from "../decisions/core.js";
import { AddressShape, ListShape, Resolution, ValueShape, ViewCheck } from "../decisions/generated/spec.js";
import { isJsonObject } from "../support/json-object.js";

export interface ManifestVerdict { code: ViewCheck; at?: string }
/** Resolves an address to its current class, or "unknown". */
export type ResolveAddress = (address: string) => keyof typeof Resolution;

const shapeOf = (v: unknown): ValueShape => (v === undefined ? ValueShape.absent : isJsonObject(v) ? ValueShape.object : ValueShape.other);

export function checkManifest(core: Core, reads: unknown, resolve: ResolveAddress): ManifestVerdict {
  const m = core.manifest;
  const names = isJsonObject(reads) ? Object.keys(reads) : [];
  let code = m.begin(shapeOf(reads), names.length);
  if (code !== ViewCheck.ok) return { code };
  for (const name of names) {
    const binding = (reads as Record<string, unknown>)[name];
    if ((code = m.binding(name, shapeOf(binding))) !== ViewCheck.ok) return { code, at: name };
    const b = binding as Record<string, unknown>;
    for (const key of Object.keys(b)) if ((code = m.key(key)) !== ViewCheck.ok) return { code, at: `${name}.${key}` };

    const address = b.address;
    const addressShape = address === undefined ? AddressShape.absent : typeof address === "string" ? AddressShape.string : AddressShape.other;
    const resolution = typeof address === "string" ? Resolution[resolve(address)] : Resolution.unknown;
    if ((code = m.address(addressShape, resolution)) !== ViewCheck.ok) return { code, at: addressShape === AddressShape.absent ? name : `${name}.address` };

    const fixed = b.fixedArgs;
    if ((code = m.fixedArgs(shapeOf(fixed))) !== ViewCheck.ok) return { code, at: `${name}.fixedArgs` };
    for (const key of isJsonObject(fixed) ? Object.keys(fixed) : []) {
      if ((code = m.fixedKey(key)) !== ViewCheck.ok) return { code, at: `${name}.fixedArgs.${key}` };
    }

    const view = b.viewArgs;
    const viewShape = view === undefined ? ListShape.absent : Array.isArray(view) ? ListShape.array : ListShape.other;
    const keys: unknown[] = Array.isArray(view) ? view : [];
    if ((code = m.viewArgs(viewShape, keys.length)) !== ViewCheck.ok) return { code, at: `${name}.viewArgs` };
    for (let i = 0; i < keys.length; i++) {
      if ((code = m.viewKey(typeof keys[i] === "string", keys[i] as string)) !== ViewCheck.ok) return { code, at: `${name}.viewArgs[${i}]` };
    }
  }
  return { code: ViewCheck.ok };
}
