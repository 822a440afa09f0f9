// `npm run bench`: prints medians and p95 over many runs. Figures only; nothing here asserts.
import { benchCore } from "./core.js";
import { benchServer } from "./server.js";
import { benchPrograms } from "./programs.js";
import { benchConnectors } from "./connectors.js";
import { benchLoad } from "./load.js";
import { benchActivity } from "./activity.js";
import { benchReload } from "./reload.js";
import { table } from "./stats.js";

console.log(table("decision core (per call, in-process)", benchCore()));
const server = await benchServer();
console.log(table("server over real stdio", server.rows));
for (const n of server.notes) console.log(`  ${n}`);
console.log(table("execute_code over real stdio", await benchPrograms()));
const connectors = await benchConnectors();
console.log(table("connectors and first programs", connectors.rows));
for (const n of connectors.notes) console.log(`  ${n}`);
const load = await benchLoad();
console.log(table("load (200 concurrent programs)", load.rows));
for (const n of load.notes) console.log(`  ${n}`);
const activity = await benchActivity();
console.log(table("activity log (in-process)", activity.rows));
for (const n of activity.notes) console.log(`  ${n}`);
const reload = await benchReload();
console.log(table("live config reload", reload.rows));
for (const n of reload.notes) console.log(`  ${n}`);
