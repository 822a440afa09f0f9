// The one shape every part of the glue uses for a downstream tool in the catalog.
import type { AppVisibility } from "../decisions/generated/spec.js";
import type { PinVerdict } from "../pins/service.js";

export type Safety = "read_only" | "approval";

export interface CatalogEntry {
  address: string; // "<connectorId>.<toolName>"
  connectorId: string;
  name: string; // the downstream tool name, as is
  title?: string;
  description: string; // may be empty
  inputSchema: unknown; // the downstream JSON Schema, untrusted
  safety: Safety;
  reason: string; // a reason code name from the decision core, e.g. "annotated_read_only"
  maxResultBytes: number; // the connector's direct result cap
  /** The downstream `ui://` resource the tool names (MCP Apps), as the downstream spells it. */
  ui?: string;
  /** Whether the tool's own app may call it (spec/app-calls.md A4). */
  appVisibility: AppVisibility;
  /** The connector's appWrites: its app may run its tools that may write (A2). */
  appWrites: boolean;
  /** The connector's `"data": "private"` and `"egress": true` (spec/data-flow.md). The catalog always sets them; an entry built elsewhere (a test's) has neither. */
  privateData?: boolean;
  egress?: boolean;
  /** Its pin's verdict (spec/pins.md): the facts the core's pinGate judges on every call, and why it is quarantined.
   * The catalog always sets it; an entry built elsewhere (a test's) is judged as with pins "off". */
  pin?: PinVerdict;
}
