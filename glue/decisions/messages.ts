// The one table that turns the core's codes into words for people and models.
// Keyed by code name, so a code added to spec/ without a message fails typecheck.
import type { OAuthForbiddenName, OAuthTeamRedirectName, OAuthAuthorizationUrlName, OAuthIssuerName, OAuthTokenIssuerName, OAuthRedirectName, OAuthResourceName, OAuthUnauthorizedName, AppCallReasonName, ApprovalOutcomeReasonName, ClassReasonName, ViewCheckName, PinReasonName, DownstreamAskName, TokenReasonName } from "./generated/spec.js";
import { codeName } from "./code-names.js";
import { ViewCheck, TokenReason } from "./generated/spec.js";

export const classReasonText: Record<ClassReasonName, string> = {
  annotated_read_only: "annotated readOnlyHint: true and not destructive",
  read_only_absent: "no readOnlyHint annotation, so it may write",
  read_only_false: "annotated readOnlyHint: false",
  contradictory: "annotated both read-only and destructive; destructive wins",
  malformed_hint: "an annotation is present but not a boolean",
  operator_demoted: "the operator put it behind approval (approvalTools)",
  operator_promoted: "the operator declared it read-only (readOnlyTools)",
  promotion_refused_destructive: "the operator listed it in readOnlyTools, but the server marks it destructive, so it stays behind approval",
  invalid_facts: "the classification facts were out of range",
  listing_refreshing: "the server announced that its tool list changed and the new list is not in yet",
  duplicate_name: "the server lists this name more than once, so which definition a call reaches is unclear",
};

/** What a refusal's nextAction says to do, worded from why the tool needs approval. */
const WRITE = "run it once the person has approved this write";
const UNCLEAR = "the server does not say clearly whether this tool writes; run it only once the person has approved this call";
export const approvalPurposeText: Record<ClassReasonName, string> = {
  annotated_read_only: WRITE,
  read_only_absent: "the server does not say whether this tool writes; run it once the person has approved this call (the operator can declare it read-only with readOnlyTools)",
  read_only_false: WRITE,
  contradictory: UNCLEAR,
  malformed_hint: UNCLEAR,
  operator_demoted: "the operator put this tool behind approval; run it once the person has approved this call",
  operator_promoted: WRITE,
  promotion_refused_destructive: WRITE,
  invalid_facts: UNCLEAR,
  listing_refreshing: UNCLEAR,
  duplicate_name: UNCLEAR,
};

/** Why a downstream app's call ran or was refused (spec/app-calls.md A1–A5). */
export const appCallReasonText: Record<AppCallReasonName, string> = {
  read_only: "a read-only tool of the app's own connector",
  app_writes: "a tool that may write, of a connector whose app the operator allows to write (appWrites)",
  other_connector: "an app reaches only its own connector's tools",
  not_app_visible: "its server does not let apps call it (_meta.ui.visibility lacks \"app\")",
  visibility_malformed: "its _meta.ui.visibility is not a list of strings, so it is not open to apps",
  writes_not_allowed: "it may write, and the operator has not allowed this connector's app to write (appWrites in atrium.json)",
  invalid_facts: "the facts of the app's call were out of range",
};

/** Why a tool may run, or is quarantined, given its pin (spec/pins.md N1–N8). */
export const pinReasonText: Record<PinReasonName, string> = {
  matches: "its definition matches the one the operator pinned",
  first_seen: "atrium sees this connector for the first time and pinned its tools as they are",
  off: "pinning is off for this connector (pins: \"off\")",
  auto_accepted: "its new definition was recorded as its pin (pins: \"auto-accept\")",
  changed: "its definition changed since the operator pinned it",
  new_tool: "it appeared on a connector whose tools are pinned, after they were pinned",
  suspicious: "its definition reads like instructions to the model, hides characters, or is far too long",
  store_unreadable: "the pin file could not be read and was set aside, so no definition of this connector is trusted",
  toward_read_only: "its annotations now claim it does not write where its pin said it may",
  safer_annotations: "only its annotations changed, toward \"may write\": it needs approval at once",
  invalid_facts: "the facts of its pin were out of range",
};

/** What search and describe show instead of a quarantined tool's own description (its text is what is in question). */
export const quarantinedDescription = "(withheld: this tool is quarantined until a person accepts its definition)";

/** What a quarantined call says to do: a person reviews the change in a terminal. */
export const quarantinedNextText = (connector: string, tool: string) =>
  `a person must review the change with \`atrium pins\` in a terminal and accept it with \`atrium pins accept ${connector} ${tool}\` (or reject it); until then the tool cannot be called by any path`;

/** The words of an address that resolves to no single tool (catalog/resolver.ts); names arrive clamped. */
const nearestText = (nearest: readonly string[]) => (nearest.length ? `; did you mean ${nearest.join(" or ")}?` : "");
export const addressText = {
  malformed: (got: string, nearest: readonly string[]) => `address must be "<connectorId>.<toolName>", got ${got}${nearestText(nearest)}`,
  noConnector: (written: string, removed: boolean, known: readonly string[], nearest: readonly string[]) =>
    `no connector named ${written}${removed ? " (a config reload removed it)" : ""}; connectors: ${known.join(", ") || "none"}${nearestText(nearest)}`,
  noTool: (connector: string, tool: string, nearest: readonly string[]) => `connector ${connector} has no tool ${tool}${nearestText(nearest)}`,
  ambiguousConnector: (written: string, ids: readonly string[]) => `${written} is ambiguous: connector ids ${ids.join(", ")} share the identifier ${written}; use the exact address, e.g. ${ids[0]}.<tool>`,
  ambiguousTool: (written: string, addresses: readonly string[]) => `${written} is ambiguous: tools ${addresses.join(", ")} share one identifier; use the exact address`,
};

/** A tools/call naming none of atrium's own tools (often a connector's tool by its bare name): what to do instead. */
export const unknownMetaToolText = (name: string, own: readonly string[], nearOwn: readonly string[], addresses: readonly { address: string; via: string }[]) => {
  const head = `Unknown tool: ${name}${nearOwn.length ? ` (did you mean ${nearOwn.join(" or ")}?)` : ""}. atrium's own tools are ${own.join(", ")}`;
  if (addresses.length) {
    const calls = addresses.map((a) => `${a.address} (${a.via} { "address": "${a.address}", "args": {...} })`).join(", or ");
    return `${head}; ${name} looks like a connector's tool, called by its address: ${calls}, or from execute_code with atrium.call("${addresses[0]!.address}", args). search_tools finds others.`;
  }
  return `${head}. A connector's tool is called by its address (<connector>.<tool>): find it with search_tools, then call it with call_tool (read-only) or call_destructive_tool, or from execute_code.`;
};

/** What a search says first while connectors are still starting: which, and how to ask again (a search naming one waits for it). */
export const searchStartingText = (list: readonly { connector: string; startS: number; retryInS?: number }[]) => {
  const names = list.map((c) => `${c.connector}${c.retryInS === undefined ? "" : ` (its last start failed; atrium tries again in ${c.retryInS} s)`}`);
  const one = list.length === 1;
  return `Still starting: ${names.join(", ")}. ${one ? "Its" : "Their"} tools are not in these results yet: search again in a few seconds, or now with connector: "${list[0]!.connector}", which waits for ${one ? "its" : "that connector's"} start (up to ${list[0]!.startS} s).`;
};
/** A search's hint when nothing matched while connectors are still starting: not "no such tool". */
export const searchNothingWhileStartingText = (names: readonly string[]) =>
  `No tool matched among the connectors that are ready; ${names.join(", ")} ${names.length === 1 ? "is" : "are"} still starting, so ${names.length === 1 ? "its" : "their"} tools were not searched (see \`starting\`).`;

/** Why a program's write did not run after its question (spec/approvals.md P8–P11); `timed_out`:
 * the run's approval wait (approval_wait_ms) ran out with the question open. */
export const approvalDeclinedText: Record<ApprovalOutcomeReasonName | "timed_out", string> = {
  accepted: "the person approved this call",
  accepted_rest: "the person approved this call and the rest of its kind in this run",
  declined: "the person declined this call",
  cancelled: "the person dismissed the question without approving",
  malformed: "the answer was not one of the choices the question offered, which counts as a decline",
  rest_not_offered: "the answer approved the rest of this run, which the question did not offer, which counts as a decline",
  invalid_facts: "the answer's facts were out of range, which counts as a decline",
  timed_out: "no answer came before the run's approval wait ran out (approval_wait_ms), so the question was withdrawn",
};

/** Why a program's call that would carry private data out was refused (spec/data-flow.md F4, spec/approvals.md P14). */
export const dataFlowRefusalText = {
  no_question: "this host cannot ask the person, so the flow is refused; return what the program found to the person instead, or run the sending step yourself with the person's consent",
  view_reads: "a view's reads run after the program, when no one can be asked, so this view may not bind a read of that connector; bind reads of other connectors, or return what the program found",
  invalid_facts: "the guard's facts were out of range, so the flow is refused",
} as const;

/** Why a program's write was refused without a question (spec/approvals.md P3; a channel atrium cannot serve yet). */
export const approvalRefusalText = {
  outside_programs: "the operator keeps this tool outside programs (keepOutsidePrograms in atrium.json): it runs only through call_destructive_tool, after the person approves",
  channel_not_served: "this request cannot carry the question the way its revision needs: it runs only through call_destructive_tool, after the person approves",
  approvals_per_run: "the run has put as many questions to the person as approvals_per_run allows; approve the remaining writes with call_destructive_tool, or ask for the rest of the run in one answer",
  approval_wait_ms: "the run has used up its time waiting for the person (approval_wait_ms)",
} as const;

/** The words of the question a program's write puts to the person (spec/approvals.md P1), and a flow's (P14). */
export const approvalQuestionText = {
  intro: "A program atrium is running wants to call a tool that may write. Run this call?",
  flowIntro: (from: string, to: string) => `A program atrium is running read from ${from} (private data), and now sends to ${to}, which can carry data out. Send this?`,
  tool: (title: string, address: string, connector: string) => `Tool: ${title} (${address}, connector ${connector})`,
  args: "Arguments",
  reason: "The program's reason",
  noReason: "(the program gave no reason)",
  source: "The program",
  cut: (chars: number) => `… [cut: ${chars} characters in all]`,
  choice: "Your answer",
  once: "Run this call once",
  rest: (calls: number) => `Run this call, and up to ${calls} more calls of this tool with the same argument names in this run, without asking`,
};

/** Why a redirect URI is or is not one a login's code may go to (spec/oauth.md O1–O3). */
export const oauthRedirectText: Record<OAuthRedirectName, (uri: string) => string> = {
  accepted: (uri) => `${JSON.stringify(uri)} is a loopback redirect URI`,
  not_url: (uri) => `${JSON.stringify(uri)} is not a URL`,
  not_http: (uri) => `${JSON.stringify(uri)} is not http://127.0.0.1:<port>/…: a login's code goes only to this machine's loopback address`,
  not_loopback: (uri) => `${JSON.stringify(uri)} does not point at this machine (127.0.0.1): a login's code goes only to a loopback address`,
  credentials_or_fragment: (uri) => `${JSON.stringify(uri)} carries credentials or a fragment`,
  invalid_facts: (uri) => `${JSON.stringify(uri)} could not be judged as a redirect URI (its facts were out of range), so it is not loopback`,
};

/** What an HTTP 401 of a connector means (spec/oauth.md O5), said to the model and the operator. */
export const oauthUnauthorizedText: Record<OAuthUnauthorizedName, (connector: string) => string> = {
  needs_login: (connector) => `${connector} needs a person to log in`,
  credentials_refused: (connector) => `${connector} refused the credentials in its headers (HTTP 401); the operator must update them`,
  no_login_offered: (connector) => `${connector} refused the request (HTTP 401) and offers no login; the operator must give it credentials in "headers"`,
  invalid_facts: (connector) => `${connector} refused the request (HTTP 401), and what that means could not be judged (facts out of range); the operator must check its credentials`,
};

/** What an HTTP 403 of a connector atrium logs in to means (spec/oauth.md O14); `scope` is the step-up login's, escaped and bounded by the caller. `not_scope` is never said (the server's refusal is judged as before). */
export const oauthForbiddenText: Record<OAuthForbiddenName, (scope: string) => string> = {
  step_up: (scope) => `the server asks for a wider scope (HTTP 403 insufficient_scope): a new login for ${scope} is needed`,
  not_scope: () => "the server refused the request (HTTP 403)",
  no_wider_scope: () => "the server refused the request for lack of scope (HTTP 403 insufficient_scope) but names no scope the stored login lacks; logging in again would ask for the same, so the refusal stands",
  scope_too_long: () => "the server refused the request for lack of scope (HTTP 403 insufficient_scope), and the scope a new login would ask for is longer than OAUTH_SCOPE_CHARS_MAX; the refusal stands",
  invalid_facts: () => "the server refused the request (HTTP 403), and what that means could not be judged (facts out of range); the refusal stands",
};

/** Why a login refused protected resource metadata (spec/oauth.md O7); `accepted` and `no_indicator` are never shown as errors. */
export const oauthResourceText: Record<OAuthResourceName, (resource: string, server: string) => string> = {
  no_indicator: () => "no protected resource metadata: no resource indicator is sent",
  accepted: (resource) => `protected resource ${resource} is this server`,
  refused_origin: (resource, server) => `Protected resource ${resource} does not match expected ${server}: another origin (RFC 9728 §3.3); refused`,
  refused_path: (resource, server) => `Protected resource ${resource} does not match expected ${server}: the server's path is not at or under it (RFC 9728 §3.3); refused`,
  refused_unparsable: (resource, server) => `Protected resource ${resource} does not match expected ${server}: it is not a URL; refused`,
  invalid_facts: (resource, server) => `Protected resource ${resource} does not match expected ${server}: its facts were out of range; refused`,
};

/** Why a login refused authorization server metadata (spec/oauth.md O8). */
export const oauthIssuerText: Record<OAuthIssuerName, (fetchedFor: string, issuer: string) => string> = {
  accepted: (fetchedFor) => `the metadata of ${fetchedFor} names its own issuer`,
  refused: (fetchedFor, issuer) => `the authorization server metadata fetched from ${fetchedFor} names the issuer ${issuer}, another server (RFC 8414 §3.3); refused`,
  invalid_facts: (fetchedFor) => `the issuer of the authorization server metadata fetched from ${fetchedFor} could not be judged (facts out of range); refused`,
};

/** Why an authorization URL is or is not one a person or host may be handed (spec/oauth.md O11). */
/** Why a team-mode login's redirect URI is refused (spec/oauth.md O13); `callback` is atrium's own. */
export const oauthTeamRedirectText: Record<OAuthTeamRedirectName, (uri: string, callback: string) => string> = {
  accepted: (uri) => `${JSON.stringify(uri)} is atrium's own login callback`,
  not_url: (uri) => `${JSON.stringify(uri)} is not a URL`,
  not_own_callback: (uri, callback) => `${JSON.stringify(uri)} is not atrium's own login callback ${JSON.stringify(callback)}: a team login's code goes only there`,
  credentials_or_fragment: (uri) => `${JSON.stringify(uri)} carries credentials or a fragment`,
  not_https: (uri) => `${JSON.stringify(uri)} is not https: (nor http: on this machine's loopback): a login's code would cross the network in clear; set atrium.http.publicUrl to the https:// address people reach atrium at`,
  invalid_facts: (uri) => `${JSON.stringify(uri)} could not be judged as a team redirect URI (its facts were out of range); refused`,
};

export const oauthAuthorizationUrlText: Record<OAuthAuthorizationUrlName, (url: string) => string> = {
  accepted: (url) => `the authorization URL ${JSON.stringify(url)} is a web page`,
  not_url: (url) => `the authorization URL ${JSON.stringify(url)} is not a URL; refused`,
  refused_scheme: (url) => `the authorization URL ${JSON.stringify(url)} is not https: (nor http: on this machine's loopback): a host could hand it to another program; refused`,
  not_loopback: (url) => `the authorization URL ${JSON.stringify(url)} is plain http: to another machine; only https: (or http: on this machine's loopback) is opened; refused`,
  invalid_facts: (url) => `the authorization URL ${JSON.stringify(url)} could not be judged (facts out of range), so it is not https: or loopback; refused`,
};

/** O11: the metadata's token endpoint, judged as an authorization URL is: where a code, a refresh token or the client credentials (O15) would be sent. */
export const oauthTokenEndpointText: Record<OAuthAuthorizationUrlName, (url: string) => string> = {
  accepted: (url) => `the token endpoint ${JSON.stringify(url)} is https: or on this machine`,
  not_url: (url) => `the authorization server's token endpoint ${JSON.stringify(url)} is not a URL; nothing is sent there; refused`,
  refused_scheme: (url) => `the authorization server's token endpoint ${JSON.stringify(url)} is not https: (nor http: on this machine's loopback); no code, token or client credentials are sent there; refused`,
  not_loopback: (url) => `the authorization server's token endpoint ${JSON.stringify(url)} is not https: but plain http: to another machine; no code, token or client credentials are sent there in clear; refused`,
  invalid_facts: (url) => `the authorization server's token endpoint ${JSON.stringify(url)} could not be judged (facts out of range), so it is not https: or loopback; nothing is sent there; refused`,
};

/** O15 with O8: a machine client's stored tokens are not of the authorization server discovery names now; no person's login helps, the operator decides. */
export const oauthMachineTokenIssuerText: Record<OAuthTokenIssuerName, (connector: string, issuedBy: string, judgedFor: string) => string> = {
  bound: (_connector, issuedBy) => `client-credentials tokens were issued by ${issuedBy}`,
  // Short: a start failure is clamped to echo_clamp_chars, and the operator's way out must survive it.
  new_login: (connector, issuedBy, judgedFor) => `client-credentials tokens were issued by ${issuedBy}, not ${judgedFor}: nothing is sent there (if the server moved, the operator runs \`atrium auth logout ${connector}\`)`,
  invalid_facts: (connector, issuedBy, judgedFor) => `whether client-credentials tokens from ${issuedBy} are of ${judgedFor} could not be judged (facts out of range): nothing is sent there (\`atrium auth logout ${connector}\` deletes them)`,
};

/** O15: a 401 refusing the token atrium got a moment before with the operator's client credentials: the operator's to resolve, never a person's login. */
export const oauthMachineRefusedText = (connector: string): string =>
  `${connector} refused the new token atrium got with the operator's client credentials (HTTP 401 again after a new token); the operator checks what this client may reach at the authorization server (its grants, the configured "scope")`;

/** Why stored tokens are not used or revoked where discovery or the record points (spec/oauth.md O8). */
export const oauthTokenIssuerText: Record<OAuthTokenIssuerName, (issuedBy: string, judgedFor: string) => string> = {
  bound: (issuedBy) => `the stored tokens were issued by ${issuedBy}`,
  new_login: (issuedBy, judgedFor) => `the stored tokens were issued by ${issuedBy}, not by ${judgedFor}; they are never sent there, and a new login is needed`,
  invalid_facts: (issuedBy, judgedFor) => `whether the stored tokens were issued by ${judgedFor} could not be judged (facts out of range; their issuer: ${issuedBy}); a new login is needed`,
};

/** Why a bearer token was refused (spec/inbound-tokens.md), as WWW-Authenticate's error_description: never the token nor a claim's value. */
const tokenReasonText: Record<TokenReasonName, string> = {
  none: "accepted",
  no_header: "this atrium needs a bearer token from its authorization server",
  other_scheme: "this atrium takes Bearer tokens only",
  malformed: "the Authorization header does not hold one bearer token",
  oversize: "the bearer token is longer than atrium reads",
  not_jws: "the token is not a signed JWT",
  alg: "the token is signed with an algorithm atrium does not accept",
  keys_unavailable: "the issuer's keys are not known now",
  signature: "the token's signature does not verify",
  no_key: "no key of the issuer's key set signed this token",
  claims: "the token's claims are malformed",
  issuer: "the token was issued by another issuer",
  audience: "the token was issued for another resource",
  expired: "the token has expired",
  not_yet_valid: "the token is not valid yet",
  scope: "the token lacks a required scope",
  invalid_facts: "the token could not be judged",
};


const viewCheckText: Record<ViewCheckName, string> = {
  ok: "accepted",
  reads_not_object: "reads must be an object of named bindings",
  no_bindings: "reads must declare at least one binding",
  too_many_bindings: "reads declares more bindings than allowed",
  name_reserved: "binding name is reserved (__proto__, constructor, prototype)",
  name_invalid: "binding name must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$",
  binding_not_object: "a binding must be an object { address, fixedArgs?, viewArgs? }",
  key_unknown: "a binding may only hold address, fixedArgs and viewArgs",
  address_missing: "a binding needs an address",
  address_not_string: "address must be a string <connectorId>.<toolName>",
  address_unknown: "address does not name a known tool",
  address_not_read_only: "address names a tool that is not read-only; views can only read",
  fixed_args_not_object: "fixedArgs must be an object",
  fixed_key_reserved: "fixedArgs key is reserved (__proto__, constructor, prototype)",
  view_args_not_array: "viewArgs must be an array of key names",
  too_many_view_keys: "viewArgs lists more keys than allowed",
  view_key_not_string: "each viewArgs entry must be a string",
  view_key_length: "a viewArgs key must be 1 to 128 characters",
  view_key_reserved: "viewArgs key is reserved (__proto__, constructor, prototype)",
  view_key_duplicate: "viewArgs lists the same key twice",
  view_key_is_fixed_key: "a viewArgs key may not also be a fixedArgs key",
  invalid_facts: "the manifest facts were out of range",
};


const byCode = <N extends string>(table: Record<N, number>, text: Record<N, string>) => (code: number): string => {
  const name = codeName(table, code);
  return name ? text[name] : `unknown code ${code}`;
};
export const describeViewCheck = byCode(ViewCheck, viewCheckText);
export const describeTokenReason = byCode(TokenReason, tokenReasonText);

/** P12: why atrium declined a downstream's question on the person's behalf (sent to the asking server in the decline's `_meta`). */
export const downstreamDeclineText: Record<Exclude<DownstreamAskName, "forward">, string> = {
  decline_not_declared: "atrium's host did not declare this elicitation mode, so the person cannot be asked this way",
  decline_no_channel: "atrium's host speaks 2026-07-28, which has no request that carries a server's question to the person outside a tool's own answer",
  decline_too_large: "the question is larger than atrium passes on (ELICIT_SCHEMA_BYTES_MAX or ELICIT_URL_CHARS_MAX); it was not shown",
  decline_unknown_mode: "atrium does not know this elicitation mode",
  invalid_facts: "the facts of the question were out of range",
};

/** Why a downstream's question P12 would forward was declined by P13 (whose question it is). */
export const downstreamOwnerText: Record<"decline_shared" | "decline_budget" | "invalid_facts" | "wait_spent", string> = {
  decline_shared: "calls of more than one caller (program runs, or a run and a direct call) are out to this connector, so atrium cannot say whose question this is",
  decline_budget: "the program run whose call is out to this connector has put all the questions its approvals_per_run budget allows",
  invalid_facts: "the facts of whose question this is were out of range",
  wait_spent: "the program run whose call is out to this connector has used all the waiting its approval_wait_ms budget allows",
};

/** A downstream's question while no host connection can be asked (none is connected yet). */
export const noHostToAskText = "no host is connected to atrium that can be asked";
