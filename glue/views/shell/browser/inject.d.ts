// What glue/build/view-shell.ts puts in place of ATRIUM_SHELL_INJECT when it assembles the shell
// document (after bundling, so the injected source keeps its exact bytes). Every value comes
// from the server side: the CSPs and the page guard (page-guard.ts), the frame tag scanner
// (frame-tags.ts), the page scripts (page-size.mts, page-read.mts, bundled first), the shell
// version (SHELL_URI), and the spec's rules as the decision core answers them at build time.

/** The frame tag scanner (frame-tags.ts FRAME_TAGS_JS) called with the built-ins it may use. */
type FrameTagsFactory = (apply: typeof Reflect.apply, slice: typeof String.prototype.slice) => {
  rewrite(s: string): string;
  heldFrom(s: string): number;
  name(q: string): string;
};

interface ShellInject {
  /** VIEW_CSP: the policy of the shell and of every page. */
  readonly csp: string;
  /** PAGE_GUARD_CSP: the page's second policy (Trusted Types). */
  readonly guardCsp: string;
  /** PAGE_GUARD_SCRIPT: the first script of every page. */
  readonly guard: string;
  /** browser/page-size.mts, bundled: runs second in every page. */
  readonly sizeScript: string;
  /** browser/page-read.mts, bundled: runs third, only in a page that declared reads. */
  readonly readScript: string;
  readonly frameTags: FrameTagsFactory;
  /** Reads a page may have in flight (core().limitDefault(Budget.view_reads_in_flight)). */
  readonly maxReadsInFlight: number;
  /** The binding-name rule (spec V2) as the core's nameIsValid answers it. */
  readonly bindingName: RegExp;
  /** The shell's fixed bounds (spec/bounds.md, the rows marked "shell"). */
  readonly bounds: typeof import("../../../decisions/generated/spec.js").SHELL_BOUNDS;
  /** JSON-RPC's "method not found" (the SDK's ProtocolErrorCode.MethodNotFound). */
  readonly methodNotFound: number;
  /** Milliseconds in a second, for timeouts named in seconds. */
  readonly msPerSecond: number;
  /** VIEW_READ_META: the `_meta` key that marks a tools/call as a view's read. */
  readonly viewReadMeta: string;
  /** The version segment of SHELL_URI. */
  readonly version: string;
}

declare const ATRIUM_SHELL_INJECT: ShellInject;
