// The page guard's rule without a browser: which tags count as frames, that the browser-side
// scanner (FRAME_TAGS_JS) and the Node-side regex agree on every string, what document.write
// holds back, and that both delivery modes put the guard before the page. The guard's effect
// in Chromium is test/browser/webrtc.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCKED_PREFIX, FRAME_NAMES, FRAME_TAGS_JS, rewriteFrameTags } from "../glue/views/frame-tags.js";
import { PAGE_GUARD_CSP, PAGE_GUARD_SCRIPT } from "../glue/views/page-guard.js";
import { offlineHtml } from "../glue/views/offline-html.js";
import { shellHtml, VIEW_CSP } from "../glue/views/shell-page.js";

const scanner = new Function(`return (${FRAME_TAGS_JS});`)()(Reflect.apply, String.prototype.slice) as {
  rewrite(s: string): string;
  heldFrom(s: string): number;
  name(q: string): string;
};

const CASES: [string, string][] = [
  ["<iframe srcdoc=x></iframe>", "<atrium-blocked-iframe srcdoc=x></atrium-blocked-iframe>"],
  ["<IFRAME>", "<atrium-blocked-IFRAME>"],
  ["<iFrAmE\tsrc=a>", "<atrium-blocked-iFrAmE\tsrc=a>"],
  ["<iframe/>", "<atrium-blocked-iframe/>"],
  ["<iframe\nsrc>", "<atrium-blocked-iframe\nsrc>"],
  ["<iframe\rsrc>", "<atrium-blocked-iframe\rsrc>"],
  ["<iframe\fsrc>", "<atrium-blocked-iframe\fsrc>"],
  ["<iframe", "<atrium-blocked-iframe"],
  ["<h:iframe xmlns:h='http://www.w3.org/1999/xhtml'/>", "<h:atrium-blocked-iframe xmlns:h='http://www.w3.org/1999/xhtml'/>"],
  ["<a:b:embed>", "<a:b:atrium-blocked-embed>"],
  ["<frame><frameset><object><embed><fencedframe><portal><applet>", "<atrium-blocked-frame><atrium-blocked-frameset><atrium-blocked-object><atrium-blocked-embed><atrium-blocked-fencedframe><atrium-blocked-portal><atrium-blocked-applet>"],
  ["<x<iframe>", "<x<atrium-blocked-iframe>"],
  ["<iframes><xiframe><iframe-x><iframe:><i frame>", "<iframes><xiframe><iframe-x><iframe:><i frame>"],
  ["'<ifr' + 'ame>'", "'<ifr' + 'ame>'"],
  ["a < iframe", "a < iframe"],
  ["<//iframe>", "<//iframe>"],
  ["<ıframe><ſrame>", "<ıframe><ſrame>"], // non-ASCII letters are not folded, as in the tokenizer
  ["no tags at all", "no tags at all"],
];

describe("frame tags in a view page", () => {
  it("renames every frame start and end tag, in any ASCII case, with an XML prefix or at the very end", () => {
    for (const [input, output] of CASES) {
      expect(rewriteFrameTags(input), input).toBe(output);
      expect(scanner.rewrite(input), input).toBe(output);
    }
    expect(FRAME_NAMES.every((n) => rewriteFrameTags(`<${n}>`) === `<${BLOCKED_PREFIX}${n}>`)).toBe(true);
  });

  it("the browser-side scanner and the Node-side regex agree on arbitrary strings", () => {
    const pieces = ["<", "</", "/", ":", ">", " ", "\t", "\n", "\f", "\r", "a", "x", "I", "ı", "<iframe", "<IFRAME", "frame", "set", "<embed", "<h:", "object", "<portal", "applet", "\0", "é"];
    fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
      const s = parts.join("");
      expect(scanner.rewrite(s)).toBe(rewriteFrameTags(s));
      // Idempotent: a renamed tag is never renamed again.
      expect(rewriteFrameTags(rewriteFrameTags(s))).toBe(rewriteFrameTags(s));
    }), { numRuns: 3000 });
  });

  it("document.write holds back an unfinished frame tag name at the end of a chunk, and nothing else", () => {
    expect(scanner.heldFrom("text<ifr")).toBe(4);
    expect(scanner.heldFrom("text<")).toBe(4);
    expect(scanner.heldFrom("text</")).toBe(4);
    expect(scanner.heldFrom("<b>x</IFRAME")).toBe(4);
    expect(scanner.heldFrom("<h:emb")).toBe(0);
    expect(scanner.heldFrom("a<b")).toBe(3);
    expect(scanner.heldFrom("<iframe ")).toBe(8);
    expect(scanner.heldFrom("<iframes")).toBe(8);
    expect(scanner.heldFrom("plain")).toBe(5);
  });

  it("an element name that is a frame's becomes the inert name", () => {
    expect(scanner.name("iframe")).toBe("atrium-blocked-iframe");
    expect(scanner.name("IFrame")).toBe("atrium-blocked-IFrame");
    expect(scanner.name("h:iframe")).toBe("h:atrium-blocked-iframe");
    expect(scanner.name("div")).toBe("div");
    expect(scanner.name("iframes")).toBe("iframes");
  });
});

describe("the page guard in both delivery modes", () => {
  it("is plain script that can sit inline in HTML and parses", () => {
    for (const src of [PAGE_GUARD_SCRIPT, FRAME_TAGS_JS]) {
      expect(src).not.toMatch(/<\/script|<!--/i);
    }
    expect(() => new Function(PAGE_GUARD_SCRIPT)).not.toThrow();
  });

  it("the offline file's page starts with both policies and the guard, and its own frame tags are renamed", () => {
    const file = offlineHtml({ html: `<p>hi</p><iframe srcdoc="<script>x()</script>"></iframe>` });
    const srcdoc = /srcdoc="([^"]*)"/.exec(file)![1].replace(/&quot;/g, '"').replace(/&amp;/g, "&");
    expect(srcdoc.startsWith(`<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}"><meta http-equiv="Content-Security-Policy" content="${PAGE_GUARD_CSP}"><script>${PAGE_GUARD_SCRIPT}</script>`)).toBe(true);
    expect(srcdoc.endsWith(`<p>hi</p><atrium-blocked-iframe srcdoc="<script>x()</script>"></atrium-blocked-iframe>`)).toBe(true);
  });

  it("the shell carries the guard, its policy and the scanner for the page it builds", () => {
    const shell = shellHtml();
    expect(shell).toContain(JSON.stringify(PAGE_GUARD_SCRIPT));
    expect(shell).toContain(JSON.stringify(PAGE_GUARD_CSP));
    expect(shell).toContain(FRAME_TAGS_JS);
  });
});

describe("the shell's rules come from the core", () => {
  it("the binding-name rule is read off the core's nameIsValid (spec V2), and the shell carries no other copy", async () => {
    const { bindingNamePattern } = await import("../glue/build/view-shell.js");
    const { core } = await import("../glue/decisions/core.js");
    const re = bindingNamePattern((n) => core().nameIsValid(n));
    for (const n of ["a", "Incident_list-2", "x".repeat(64)]) expect(re.test(n), n).toBe(true);
    for (const n of ["", "2fast", "_private", "a.b", "naïve", "has space", "x".repeat(65)]) expect(re.test(n), n).toBe(false);
    const shell = shellHtml();
    expect(shell).toContain(`bindingName: ${re}`);
    expect(shell.split("A-Za-z").length - 1).toBe(1);
    expect(() => bindingNamePattern((n) => /^[a-z]{1,3}$/.test(n) && n !== "bb")).toThrow(/disagree/);
  });
});
