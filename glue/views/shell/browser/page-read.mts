// Runs in the page's document only when the view declared reads: defines a frozen
// `window.atrium = { read(name, args) }` that asks the shell ({ atriumRead: { rid, name, args } })
// and settles on its answer ({ atriumReadResult: { rid, ok, data | error } }).
interface Pending { resolve(data: unknown): void; reject(e: unknown): void }
type ReadError = Error & { code?: string; retryable?: boolean };

const P = window.parent;
let seq = 0;
const pending = new Map<string, Pending>();
window.addEventListener("message", (event) => {
  if (event.source !== P) return;
  const d = event.data;
  const r = d && typeof d === "object" ? d.atriumReadResult : undefined;
  if (!r || typeof r !== "object" || !pending.has(r.rid)) return;
  const p = pending.get(r.rid)!;
  pending.delete(r.rid);
  if (r.ok === true) {
    p.resolve(r.data);
    return;
  }
  const e = r.error && typeof r.error === "object" ? r.error : {};
  const err: ReadError = new Error(typeof e.message === "string" ? e.message : "the read failed");
  err.code = typeof e.code === "string" ? e.code : "unavailable";
  err.retryable = e.retryable === true;
  p.reject(err);
});
function read(name: string, args?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const rid = "r" + ++seq;
    pending.set(rid, { resolve, reject });
    try {
      P.postMessage({ atriumRead: { rid, name, args } }, "*");
    } catch (e) {
      pending.delete(rid);
      reject(e);
    }
  });
}
Object.defineProperty(window, "atrium", { value: Object.freeze({ read }), enumerable: true });

export {}; // a module: its names stay its own
