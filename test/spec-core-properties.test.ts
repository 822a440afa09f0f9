import { describe, it } from "vitest";
import { core } from "../glue/decisions/core.js";
import { coreProperties } from "./properties/core-properties.js";

describe("decision core properties (committed wasm)", () => {
  for (const p of coreProperties) it(p.name, () => p.run(core(), { numRuns: 1000, seed: 20261129 }));
});
