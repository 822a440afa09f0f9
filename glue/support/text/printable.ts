// Text a downstream server wrote, made safe to show: ANSI escape sequences (CSI such as ESC[8m
// "conceal" or cursor moves, OSC, and two-character escapes) are removed whole, and any other
// control character but tab, newline and carriage return is dropped. Applied where a listed
// tool's title and description enter the catalog, so search rows and describe never carry them.
// Pins and the suspicious-pattern screen read the definition as listed (a sequence is flagged there).

/** CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), or ESC and one more character. */
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)?|\u001b[\s\S]?|\u009b[0-?]*[ -/]*[@-~]/g;
/** C0 and C1 controls other than tab, newline, carriage return. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** `s` without escape sequences and control characters (linear in its length). */
export const printable = (s: string): string => s.replace(ESCAPES, "").replace(CONTROLS, "");
