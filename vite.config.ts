// Bundles the CLI (and the demo connector) into single ESM files under dist/bundle/, which
// halves cold start: one file to load instead of hundreds of modules. The same build writes the
// MCP Apps view shell document (dist/bundle/view-shell.html) from glue/views/shell/.
import { defineConfig } from "vite";
import { shellDocument } from "./glue/build/view-shell.js";

export default defineConfig({
  plugins: [shellDocument()],
  build: {
    ssr: true,
    outDir: "dist/bundle",
    target: "node20",
    minify: false,
    emptyOutDir: true,
    rollupOptions: {
      input: { atrium: "glue/cli.ts", "demo-server": "glue/demo/server.ts", "sandbox-worker": "glue/sandbox/worker.ts", "embed-worker": "glue/embeddings/worker.ts" },
      // The model runtime stays a package: its model files and wasm are read from beside it.
      external: [/^@energetic-ai\//],
      output: { format: "es", entryFileNames: "[name].mjs", chunkFileNames: "[name]-[hash].mjs" },
    },
  },
  ssr: { noExternal: true, target: "node" },
  logLevel: "warn",
});
