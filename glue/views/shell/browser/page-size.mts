// Runs in the page's document right after the page guard: reports the page's content height
// to the shell ({ atriumSize: { height } }) whenever it changes.
const P = window.parent;
let last = -1;
function measure(): void {
  const el = document.documentElement;
  if (!el) return;
  const saved = el.style.height;
  el.style.height = "max-content";
  const h = Math.ceil(el.getBoundingClientRect().height);
  el.style.height = saved;
  if (h !== last) {
    last = h;
    P.postMessage({ atriumSize: { height: h } }, "*");
  }
}
const ro = new ResizeObserver(measure);
ro.observe(document.documentElement);
document.addEventListener("DOMContentLoaded", () => {
  if (document.body) ro.observe(document.body);
  measure();
});
window.addEventListener("load", measure);

export {}; // a module: its names stay its own
