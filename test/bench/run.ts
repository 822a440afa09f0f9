// `npm run bench`: prints medians and p95 over many runs. Figures only; nothing here asserts.
import { benchCore } from "./core.js";
import { table } from "./stats.js";

console.log(table("decision core (per call, in-process)", benchCore()));
