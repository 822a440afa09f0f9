// Strict validation of one `atrium.emit(block)`, as the main thread parsed it: exactly one text,
// image or audio content block, nothing else. Budgets are spent by the caller (bridge.ts).
import { EMIT_TYPE_ECHO_CHARS, UNEXPECTED_KEYS_SHOWN } from "../decisions/generated/spec.js";

export type BlockCheck = { ok: true; block: Record<string, unknown> } | { ok: false; message: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const KEYS: Record<string, string[]> = { text: ["type", "text"], image: ["type", "data", "mimeType"], audio: ["type", "data", "mimeType"] };

export function checkBlock(b: unknown): BlockCheck {
  if (typeof b !== "object" || b === null || Array.isArray(b)) return { ok: false, message: "emit takes exactly one content block object, e.g. { type: \"text\", text: \"…\" }" };
  const block = b as Record<string, unknown>;
  const keys = KEYS[block.type as string];
  if (!keys) return { ok: false, message: `emit: type must be "text", "image" or "audio", got ${JSON.stringify(block.type)?.slice(0, EMIT_TYPE_ECHO_CHARS)}` };
  const extra = Object.keys(block).filter((k) => !keys.includes(k));
  if (extra.length) return { ok: false, message: `emit: a ${block.type} block has only ${keys.join(", ")}; unexpected ${extra.slice(0, UNEXPECTED_KEYS_SHOWN).join(", ")}` };
  if (block.type === "text") {
    if (typeof block.text !== "string") return { ok: false, message: "emit: a text block needs text: string" };
  } else {
    if (typeof block.data !== "string" || block.data.length === 0 || !BASE64.test(block.data)) return { ok: false, message: `emit: an ${block.type} block needs data: a base64 string` };
    if (typeof block.mimeType !== "string" || !block.mimeType.startsWith(`${block.type}/`)) return { ok: false, message: `emit: an ${block.type} block needs mimeType "${block.type}/…"` };
  }
  return { ok: true, block };
}
