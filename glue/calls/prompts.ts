// Downstream prompts toward the host (PRODUCT.md, "Downstream prompts"): prompts/list gathers
// every ready connector's prompts as `<connector>.<prompt>` (each page, prompt, argument and text
// checked and cut to spec/bounds.md's PROMPT_* bounds; a connector that fails to list is left out,
// the others still listed), and prompts/get asks the one connector a name names (through
// invoke.ts's askPrompts, like every downstream reach). A failure is a JSON-RPC error whose data is
// atrium's typed error (code, retryable); an unknown name is -32602, as the MCP spec words it.
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt, type PromptArgument } from "@modelcontextprotocol/server";
import type { Catalog } from "../catalog/catalog.js";
import { askPrompts, type DownstreamAccess } from "./invoke.js";
import { AtriumError, asAtriumError, clampEcho } from "../support/errors.js";
import { isJsonObject } from "../support/json-object.js";
import { clip } from "../support/text/clip.js";
import { CALL_ADDRESS_CHARS_MAX, PROMPT_ARGUMENTS_MAX, PROMPT_DESCRIPTION_CHARS_MAX, PROMPT_LIST_PAGES_MAX, PROMPTS_PER_CONNECTOR_MAX } from "../decisions/generated/spec.js";

const text = (v: unknown): string | undefined => (typeof v === "string" ? clip(v, PROMPT_DESCRIPTION_CHARS_MAX) : undefined);

/** One downstream argument as atrium lists it, or undefined when it is malformed. */
function argumentOf(raw: unknown): PromptArgument | undefined {
  if (!isJsonObject(raw) || typeof raw.name !== "string" || raw.name === "") return undefined;
  const description = text(raw.description);
  const title = text(raw.title);
  return { name: clip(raw.name, CALL_ADDRESS_CHARS_MAX), ...(title !== undefined && { title }), ...(description !== undefined && { description }), ...(typeof raw.required === "boolean" && { required: raw.required }) };
}

/** One downstream prompt as atrium lists it (named `<connector>.<prompt>`), or undefined when it is malformed. */
function promptOf(connectorId: string, raw: unknown): Prompt | undefined {
  if (!isJsonObject(raw) || typeof raw.name !== "string" || raw.name === "") return undefined;
  const name = `${connectorId}.${raw.name}`;
  if (name.length > CALL_ADDRESS_CHARS_MAX) return undefined;
  const args = raw.arguments === undefined ? [] : Array.isArray(raw.arguments) && raw.arguments.length <= PROMPT_ARGUMENTS_MAX ? raw.arguments.map(argumentOf) : undefined;
  if (!args || args.some((a) => a === undefined)) return undefined;
  const description = text(raw.description);
  const title = text(raw.title);
  return { name, ...(title !== undefined && { title }), ...(description !== undefined && { description }), ...(args.length > 0 && { arguments: args as PromptArgument[] }) };
}

/** The JSON-RPC error for a typed failure: its message, and the typed error (code, retryable) as data. */
function protocolError(e: unknown, code: number = ProtocolErrorCode.InternalError): ProtocolError {
  const typed = asAtriumError(e);
  return new ProtocolError(code, typed.message, { atrium: typed.toJSON() });
}

export class DownstreamPrompts {
  constructor(private readonly catalog: Catalog, private readonly downstream: DownstreamAccess) {}

  /** Every ready connector's prompts, in config order; connectors that are not ready, offer none or fail are left out. */
  /** `catalog`: the catalog as the asking principal sees it (a connector outside it shows no prompts). */
  async list(signal?: AbortSignal, catalog: Catalog = this.catalog): Promise<{ prompts: Prompt[] }> {
    const lists = await Promise.all(catalog.connectorIds().map((id) => this.listOne(catalog, id, signal).catch(() => [])));
    return { prompts: lists.flat() };
  }

  private async listOne(catalog: Catalog, connectorId: string, signal?: AbortSignal): Promise<Prompt[]> {
    const prompts: Prompt[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < PROMPT_LIST_PAGES_MAX; page++) {
      const raw = await askPrompts({ catalog, downstream: this.downstream }, connectorId, "prompts/list", cursor ? { cursor } : {}, { wait: false, signal });
      if (!raw || !Array.isArray(raw.prompts)) break;
      for (const p of raw.prompts) {
        const shaped = promptOf(connectorId, p);
        if (shaped) prompts.push(shaped);
        if (prompts.length >= PROMPTS_PER_CONNECTOR_MAX) return prompts;
      }
      if (typeof raw.nextCursor !== "string" || raw.nextCursor === cursor) break;
      cursor = raw.nextCursor;
    }
    return prompts;
  }

  /** prompts/get of `<connector>.<prompt>`, from that connector; its answer's description and messages. */
  async get(name: string, args: Record<string, string> | undefined, signal?: AbortSignal, catalog: Catalog = this.catalog): Promise<GetPromptResult> {
    const dot = name.indexOf(".");
    const connectorId = dot > 0 ? name.slice(0, dot) : "";
    const prompt = name.slice(dot + 1);
    let raw: Record<string, unknown> | undefined;
    try {
      raw = dot > 0 && prompt !== "" ? await askPrompts({ catalog, downstream: this.downstream }, connectorId, "prompts/get", { name: prompt, ...(args && { arguments: args }) }, { wait: true, signal }) : undefined;
    } catch (e) {
      throw protocolError(e, e instanceof AtriumError && e.code === "invalid_args" ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError);
    }
    if (!raw) throw protocolError(new AtriumError("not_found", `Unknown prompt: ${clampEcho(name)} (prompts/list names each as <connector>.<prompt>)`), ProtocolErrorCode.InvalidParams);
    if (!Array.isArray(raw.messages)) throw protocolError(new AtriumError("connector_call_failed", `${connectorId} answered prompts/get for ${clampEcho(prompt)} without a messages list`));
    const description = text(raw.description);
    return { ...(description !== undefined && { description }), messages: raw.messages as GetPromptResult["messages"] };
  }
}
