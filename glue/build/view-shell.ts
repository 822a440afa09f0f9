// Builds the shell document (SHELL_URI) at build time: vite bundles the browser program
// (browser/*.mts, type-checked by `tsc -p glue/views/shell`; .mts, not .ts: browser
// modules, outside the Node program's glue/**/*.ts) and this file assembles the one HTML
// document that shell-page.ts serves from dist/bundle/. Runs inside `vite build` as a plugin
// (vite.config.ts); the server never loads vite.
//
// What the server side tells the shell goes in at the one place the program reads it
// (ATRIUM_SHELL_INJECT, browser/inject.d.ts), after bundling, so injected source keeps its exact
// bytes: the CSPs, the page guard, the frame tag scanner, the bundled page scripts, the shell's
// version, the spec's rules as the decision core answers them (reads in flight:
// limitDefault(view_reads_in_flight); binding names: read off the core's nameIsValid, V2), the
// shell's fixed bounds (spec/bounds.md, SHELL_BOUNDS) and the protocol numbers it answers with.
//
// Deterministic: the same sources give the same bytes (the digest is pinned in
// ../shell-version.json, test/views-shell-version.test.ts).
import { fileURLToPath } from "node:url";
import { ProtocolErrorCode as ErrorCode } from "@modelcontextprotocol/server";
import { build, type Plugin, type Rollup } from "vite";
import { core } from "../decisions/core.js";
import { Budget, SHELL_BOUNDS } from "../decisions/generated/spec.js";
import { MS_PER_SECOND } from "../support/format.js";
import { FRAME_TAGS_JS } from "../views/frame-tags.js";
import { PAGE_GUARD_CSP, PAGE_GUARD_SCRIPT } from "../views/page-guard.js";
import { SHELL_FILE, SHELL_URI, VIEW_CSP, VIEW_READ_META } from "../views/shell-page.js";
import { HEX_RADIX, UNICODE_ESCAPE_HEX_DIGITS, UTF16_UNITS } from "../support/encoding.js";

const browserFile = (name: string) => fileURLToPath(new URL(`../views/shell/browser/${name}`, import.meta.url));

/** The vite plugin that emits the shell document into the bundle (dist/bundle/SHELL_FILE). */
export function shellDocument(): Plugin {
  return {
    name: "atrium-shell-document",
    apply: "build",
    async generateBundle() {
      this.emitFile({ type: "asset", fileName: SHELL_FILE, source: await shellDocumentHtml() });
    },
  };
}

/** One browser entry bundled into a classic script (an IIFE), safe to sit inline in HTML. */
async function bundle(name: string): Promise<string> {
  const out = await build({
    configFile: false,
    envDir: false,
    publicDir: false,
    logLevel: "warn",
    root: fileURLToPath(new URL("../views/shell/", import.meta.url)),
    build: {
      write: false,
      minify: false,
      target: "es2020",
      emptyOutDir: false,
      reportCompressedSize: false,
      lib: { entry: browserFile(name), formats: ["iife"], name: "atriumShell" },
      // Strict inside the function, as the module source is (the script runs after others in a
      // page, where a directive at its top would be no directive); no comments.
      rollupOptions: { output: { strict: false, intro: '"use strict";', comments: false } },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rollup.RollupOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rollup.OutputChunk => c.type === "chunk");
  if (chunks.length !== 1) throw new Error(`atrium shell: ${name} bundled into ${chunks.length} chunks, not one`);
  // The bundler's one remaining comment names the module's file (a path that depends on where
  // the build runs): drop it.
  const marked = chunks[0].code.split("\n").filter((l) => !/^\s*\/\/ \S*browser\/[\w-]+\.mts$/.test(l)).join("\n");
  // "</script" may appear only inside a string or regex literal, where "<\/" means the same.
  const code = marked.trim().replace(/<\/(script)/gi, "<\\/$1");
  if (/<!--|<\/script/i.test(code)) throw new Error(`atrium shell: ${name} cannot sit inline in HTML`);
  return code;
}

/**
 * The binding-name rule (spec/view-manifest.md V2) as a RegExp, read off the decision core: the
 * code units a name may start with, those it may continue with, and its longest length. The
 * result is checked against the core on names built from every boundary of those sets.
 */
export function bindingNamePattern(valid: (name: string) => boolean): RegExp {
  const unitsAfter = (prefix: string) => {
    const ok: number[] = [];
    for (let u = 0; u < UTF16_UNITS; u++) if (valid(prefix + String.fromCharCode(u))) ok.push(u);
    return ok;
  };
  const first = unitsAfter("");
  if (first.length === 0) throw new Error("atrium shell: the core accepts no binding name");
  const lead = String.fromCharCode(first[0]);
  const rest = unitsAfter(lead);
  let max = 1;
  if (rest.length > 0) {
    const fill = String.fromCharCode(rest[0]);
    while (max < UTF16_UNITS && valid(lead + fill.repeat(max))) max++;
  }
  const re = new RegExp(`^${charClass(first)}${rest.length ? `${charClass(rest)}{0,${max - 1}}` : ""}$`);
  // Names of every length around the longest, and around every edge of both sets.
  const edges = [...new Set([...first, ...rest].flatMap((u) => [u - 1, u, u + 1]).filter((u) => u >= 0 && u < UTF16_UNITS))];
  const probes: string[] = ["", lead.repeat(max), lead.repeat(max + 1)];
  for (let n = 0; n <= max + 1; n++) probes.push(lead + String.fromCharCode(rest[0] ?? first[0]).repeat(n));
  for (const u of edges) {
    const c = String.fromCharCode(u);
    probes.push(c, c + lead, lead + c, lead + c + lead, c + c);
  }
  for (const p of probes) {
    if (re.test(p) !== valid(p)) throw new Error(`atrium shell: ${re} and the core disagree on the binding name ${JSON.stringify(p)}`);
  }
  return re;
}

function charClass(units: number[]): string {
  const show = (u: number) => (/[0-9A-Za-z]/.test(String.fromCharCode(u)) ? String.fromCharCode(u) : `\\u${u.toString(HEX_RADIX).toUpperCase().padStart(UNICODE_ESCAPE_HEX_DIGITS, "0")}`);
  let out = "";
  for (let i = 0; i < units.length; ) {
    let j = i;
    while (j + 1 < units.length && units[j + 1] === units[j] + 1) j++;
    out += j === i ? show(units[i]) : `${show(units[i])}-${show(units[j])}`;
    i = j + 1;
  }
  return `[${out}]`;
}

const SHELL_STYLE = `html, body { margin: 0; padding: 0; background: transparent; }
#root { display: flow-root; }
#status { margin: 0; padding: 8px 12px; font: 13px/1.4 system-ui, sans-serif; color: #6b6b6b; }
#view { display: block; width: 100%; height: 0; border: 0; }`;

/** The shell document's bytes. */
async function shellDocumentHtml(): Promise<string> {
  const [shell, sizeScript, readScript] = await Promise.all(["shell.mts", "page-size.mts", "page-read.mts"].map(bundle));
  const c = core();
  const inject = [
    `csp: ${JSON.stringify(VIEW_CSP)}`,
    `guardCsp: ${JSON.stringify(PAGE_GUARD_CSP)}`,
    `guard: ${JSON.stringify(PAGE_GUARD_SCRIPT)}`,
    `sizeScript: ${JSON.stringify(sizeScript)}`,
    `readScript: ${JSON.stringify(readScript)}`,
    `frameTags: ${FRAME_TAGS_JS}`,
    `maxReadsInFlight: ${c.limitDefault(Budget.view_reads_in_flight)}`,
    `bindingName: ${bindingNamePattern((name) => c.nameIsValid(name))}`,
    `bounds: ${JSON.stringify(SHELL_BOUNDS)}`,
    `methodNotFound: ${ErrorCode.MethodNotFound}`,
    `msPerSecond: ${MS_PER_SECOND}`,
    `viewReadMeta: ${JSON.stringify(VIEW_READ_META)}`,
    `version: ${JSON.stringify(SHELL_URI.slice(SHELL_URI.lastIndexOf("/v") + "/v".length))}`,
  ].join(",\n");
  const at = shell.split("ATRIUM_SHELL_INJECT");
  const reads = at.length - 1;
  if (reads !== 1) throw new Error(`atrium shell: the program reads ATRIUM_SHELL_INJECT ${reads} times, not once`);
  const script = at.join(`{\n${inject}\n}`);
  if (/<!--|<\/script/i.test(script)) throw new Error("atrium shell: an injected value cannot sit inline in HTML");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>atrium view</title>
<style>
${SHELL_STYLE}
</style>
</head>
<body>
<div id="root"><p id="status" hidden></p></div>
<script>
${script}
</script>
</body>
</html>
`;
}
