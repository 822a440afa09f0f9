// The one shape every part of the glue uses for a downstream tool in the catalog.

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
}
