// The only door into the decision core (wasm/core.wasm). Loads the wasm once, marshals
// plain values across the boundary and decodes packed answers. No decision lives here:
// every rule is in spec/ and assembly/. This file imports nothing else of the glue
// except the generated code tables and the package root (to find the committed wasm).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../support/package-root.js";
import type { OAuthGrant, OAuthForbidden, OAuthTeamRedirect, OAuthAuthorizationUrl, OAuthChannel, OAuthIssuer, OAuthMetadataLocation, OAuthTokenIssuer, OAuthOffer, OAuthRedirect, OAuthRefresh, OAuthResource, OAuthUnauthorized, AppCall, AppCallReason, AppOnly, ApprovalAsk, ApprovalChannel, ApprovalOffer, ApprovalOutcome, ApprovalOutcomeReason, AppResource, AppResult, AppResultReason, ViewCheck, ClassReason, Delivery, DeliveryReason, HostKind, HostReason, ToolClass, PinAnswer, PinReason, PinAccept, ToolNameAnswer, AccessRule, AccessAnswer, TokenAlg, InboundToken, TokenReason, DownstreamAsk, QuestionOwner, DataFlow } from "./generated/spec.js";

interface CoreExports {
  memory: WebAssembly.Memory;
  __new(size: number, id: number): number;
  __pin(ptr: number): number;
  __unpin(ptr: number): void;
  mimeIsApp(s: number): number;
  detectHost(ext: number, mime: number, appMime: number, choice: number, fileFallback: number): number;
  appOnly(revision: number, kind: number, use: number): number;
  classifyTool(ro: number, de: number, op: number, listing: number): number;
  nameIsValid(s: number): number;
  vmBegin(shape: number, count: number): number;
  vmBinding(name: number, shape: number): number;
  vmKey(key: number): number;
  vmAddress(shape: number, resolution: number): number;
  vmFixedArgs(shape: number): number;
  vmFixedKey(key: number): number;
  vmViewArgs(shape: number, count: number): number;
  vmViewKey(isString: number, key: number): number;
  limitDefault(b: number): number;
  limitMin(b: number): number;
  limitMax(b: number): number;
  limitAccepts(b: number, v: number): number;
  budgetCheck(b: number, used: number, adding: number, limit: number): number;
  budgetRoom(b: number, used: number, limit: number): number;
  envelope(success: number, view: number, blocks: number, delivery: number): number;
  errorRetryable(code: number): number;
  errorRetryableWhen(code: number, recovering: number): number;
  appCall(relation: number, visibility: number, cls: number, appWrites: number): number;
  appResult(kind: number, shape: number, ui: number): number;
  appResource(kind: number, appMime: number): number;
  approvalAsk(revision: number, elicitation: number, mark: number, grant: number, grantTool: number, grantKeys: number, grantRun: number, grantLeft: number, asked: number, askLimit: number, grantLimit: number, cause: number, grantCause: number): number;
  approvalReply(reply: number, offer: number, grantLimit: number): number;
  oauthRedirect(scheme: number, host: number, userinfo: number, fragment: number): number;
  oauthOffer(transport: number, credentials: number): number;
  oauthUnauthorized(credentials: number, prm: number, challenge: number): number;
  oauthChannel(revision: number, elicitation: number): number;
  downstreamAsk(revision: number, elicitation: number, mode: number, fit: number): number;
  downstreamOwner(runs: number, direct: number, asked: number, askLimit: number): number;
  oauthResource(prm: number, origin: number, path: number): number;
  oauthIssuer(match: number): number;
  oauthTokenIssuer(match: number): number;
  oauthRefresh(refreshToken: number, expiry: number, remainingMs: number, leadMs: number): number;
  oauthAuthorizationUrl(scheme: number, host: number): number;
  oauthMetadataLocation(origin: number): number;
  oauthForbidden(forbidden: number, growth: number, scopeChars: number, maxChars: number): number;
  oauthGrant(grant: number, clientAuth: number): number;
  oauthTeamRedirect(scheme: number, host: number, userinfo: number, fragment: number, place: number): number;
  pinGate(state: number, policy: number, scope: number, direction: number): number;
  pinAccept(given: number): number;
  toolName(text: number): number;
  accessRule(lists: number, groups: number): number;
  access(policy: number, granted: number): number;
  dataFlow(privateRead: number, egress: number, safety: number): number;
  tokenAlg(alg: number): number;
  inboundToken(credentials: number, form: number, alg: number, keys: number, signature: number, claims: number, issuer: number, audience: number, nowS: number, expS: number, nbfS: number, skewS: number, scopes: number): number;
}

/** The facts of a request's bearer token (spec/inbound-tokens.md); codes of the generated tables, times in seconds. */
interface InboundTokenFacts { credentials: number; form: number; alg: number; keys: number; signature: number; claims: number; issuer: number; audience: number; nowS: number; expS: number; nbfS: number; skewS: number; scopes: number }
interface InboundTokenDecision { answer: InboundToken; reason: TokenReason }
export interface HostFacts { ext: number; mime: number; appMime: boolean; override: number; fileFallback: boolean }
export interface HostDecision { kind: HostKind; reason: HostReason; delivery: Delivery; deliveryReason: DeliveryReason }
interface ToolDecision { class: ToolClass; reason: ClassReason }
interface AppCallDecision { answer: AppCall; reason: AppCallReason }
interface AppResultDecision { answer: AppResult; reason: AppResultReason }
/** The facts of a program's call to a tool of the approval class (spec/approvals.md, P1–P7); codes of the generated tables. */
interface ApprovalFacts { revision: number; elicitation: number; mark: number; grant: number; grantTool: number; grantKeys: number; grantRun: number; grantLeft: number; asked: number; askLimit: number; grantLimit: number; cause: number; grantCause: number }
/** The facts of a program's call for the data-flow guard (spec/data-flow.md); codes of the generated tables. */
interface FlowFacts { privateRead: number; egress: number; safety: number }
interface ApprovalAskDecision { answer: ApprovalAsk; channel: ApprovalChannel; offer: ApprovalOffer }
interface ApprovalReplyDecision { outcome: ApprovalOutcome; reason: ApprovalOutcomeReason; grant: number }
/** The facts of a redirect URI (spec/oauth.md O1–O3); codes of the generated tables. */
interface RedirectFacts { scheme: number; host: number; userinfo: number; fragment: number }
/** The facts of protected resource metadata against the server URL (O7). */
interface ResourceFacts { prm: number; origin: number; path: number }
/** The facts of a stored token before a request (O9). */
interface RefreshFacts { refreshToken: number; expiry: number; remainingMs: number; leadMs: number }
interface ForbiddenFacts { forbidden: number; growth: number; scopeChars: number; maxChars: number }
/** The facts of a tool's pin (spec/pins.md, N1–N8); codes of the generated tables. */
export interface PinFacts { state: number; policy: number; scope: number; direction: number }
interface PinDecision { answer: PinAnswer; reason: PinReason }

export interface Core {
  mimeIsApp(mimeType: string): boolean;
  detectHost(facts: HostFacts): HostDecision;
  /** H14: whether an app-only tool is listed or runs, for this revision and host kind. */
  appOnly(revision: number, kind: number, use: number): AppOnly;
  classifyTool(readOnlyHint: number, destructiveHint: number, operator: number, listing: number): ToolDecision;
  nameIsValid(name: string): boolean;
  /** The manifest walk (spec/view-manifest.md); each step answers a ViewCheck code. */
  manifest: {
    begin(readsShape: number, count: number): ViewCheck;
    binding(name: string, shape: number): ViewCheck;
    key(key: string): ViewCheck;
    address(shape: number, resolution: number): ViewCheck;
    fixedArgs(shape: number): ViewCheck;
    fixedKey(key: string): ViewCheck;
    viewArgs(shape: number, count: number): ViewCheck;
    viewKey(isString: boolean, key: string): ViewCheck;
  };
  limitDefault(budget: number): number;
  /** The operator range of a budget (-1 for an unknown id). */
  limitRange(budget: number): { min: number; max: number };
  limitAccepts(budget: number, value: number): number;
  budgetCheck(budget: number, used: number, adding: number, limit: number): number;
  budgetRoom(budget: number, used: number, limit: number): number;
  /** EnvelopeFlag bits. */
  envelope(success: boolean, view: number, blocks: number, delivery: number): number;
  errorRetryable(code: number): -1 | 0 | 1;
  /** E8: `unavailable` depends on whether a recovery is pending. */
  errorRetryableWhen(code: number, recovering: boolean): -1 | 0 | 1;
  /** A1–A5: whether a call a connector's app makes may run (relation, visibility, tool class, the connector's appWrites). */
  appCall(relation: number, visibility: number, cls: number, appWrites: boolean): AppCallDecision;
  /** A6: whether a direct call's result names the downstream UI under atrium's URI. */
  appResult(kind: number, shape: number, ui: number): AppResultDecision;
  /** A7: whether a downstream UI document is served to this host. */
  appResource(kind: number, appMime: boolean): AppResource;
  /** P1–P7, P14, P15: whether a program's write, or its data flow, is asked of the person, run under a standing grant, or refused. */
  approvalAsk(facts: ApprovalFacts): ApprovalAskDecision;
  /** P8–P10: what follows the person's answer (reply, the offer the question made, approval_grant_calls); `grant` is the calls a recorded grant covers. */
  approvalReply(reply: number, offer: number, grantLimit: number): ApprovalReplyDecision;
  /** P12: whether a downstream's question goes on to the host (the connection's revision and elicitation fact, the question's mode, whether it fits its bounds). */
  downstreamAsk(revision: number, elicitation: number, mode: number, fit: number): DownstreamAsk;
  /** P13: whose question a forwarded downstream question is (distinct runs and direct calls in flight to the asking connector), and whether that run may still ask. */
  downstreamOwner(runs: number, direct: number, asked: number, askLimit: number): QuestionOwner;
  /** O1–O3: whether a login may send its authorization code to this redirect URI. */
  oauthRedirect(facts: RedirectFacts): OAuthRedirect;
  /** O4: whether atrium logs in to a connector (its transport, whether its headers hold credentials). */
  oauthOffer(transport: number, credentials: number): OAuthOffer;
  /** O5: what an HTTP 401 of a connector means (its credentials, whether protected resource metadata was found, whether the 401 holds a Bearer challenge). */
  oauthUnauthorized(credentials: number, prm: number, challenge: number): OAuthUnauthorized;
  /** O6: how authorize_connector reaches the person (the request's revision, its host's elicitation fact). */
  oauthChannel(revision: number, elicitation: number): OAuthChannel;
  /** O7: whether protected resource metadata names this server. */
  oauthResource(facts: ResourceFacts): OAuthResource;
  /** O8: whether authorization server metadata names the server it came from. */
  oauthIssuer(match: number): OAuthIssuer;
  /** O8: whether stored tokens are bound to the issuer they are judged for (TokenIssuerMatch). */
  oauthTokenIssuer(match: number): OAuthTokenIssuer;
  /** O11: whether an authorization URL may be shown to the person or a host (its scheme and host, as a redirect URI's are read). */
  oauthAuthorizationUrl(scheme: number, host: number): OAuthAuthorizationUrl;
  /** O12: whether the resource metadata URL a 401 names is fetched (its origin against the server's). */
  oauthMetadataLocation(origin: number): OAuthMetadataLocation;
  /** O13: whether a team-mode login may send its code to this redirect URI (O1's facts and whether it is atrium's own callback). */
  oauthTeamRedirect(facts: RedirectFacts & { place: number }): OAuthTeamRedirect;
  /** O9: whether a stored access token is refreshed before it is sent. */
  oauthRefresh(facts: RefreshFacts): OAuthRefresh;
  /** O14: what a 403 of a connector atrium logs in to means (ForbiddenError, ScopeGrowth, the step-up scope's length, OAUTH_SCOPE_CHARS_MAX). */
  oauthForbidden(facts: ForbiddenFacts): OAuthForbidden;
  /** O15: whether a person logs in or atrium uses the operator's client credentials (OAuthGrantType, ClientAuth). */
  oauthGrant(grant: number, clientAuth: number): OAuthGrant;
  /** N1–N8: whether a tool may be called given its pin: callable, quarantined, or record its new definition and allow. */
  pinGate(facts: PinFacts): PinDecision;
  /** N9: whether `atrium pins accept` takes the pending definition, from what the accept word named (PinGiven). */
  pinAccept(given: number): PinAccept;
  /** N10: whether a listed tool name is listed and callable, from its text (ToolNameText). */
  toolName(text: number): ToolNameAnswer;
  /** G1–G3: whether one access rule grants a connector to a principal (RuleLists, RuleGroups). */
  accessRule(lists: number, groups: number): AccessRule;
  /** G4–G6: whether a principal may use a connector: the policy (AccessPolicy) and how many rules granted it. */
  access(policy: number, granted: number): AccessAnswer;
  /** F1–F4 (spec/data-flow.md): whether a program's call runs as its class says, or carries what the run read from a private connector to an egress one. */
  dataFlow(facts: FlowFacts): DataFlow;
  /** T4: whether a JWS header's `alg` is one atrium verifies. */
  tokenAlg(alg: string): TokenAlg;
  /** T1–T14: whether a request's bearer token is accepted, or its refusal and reason. */
  inboundToken(facts: InboundTokenFacts): InboundTokenDecision;
}

/** Thrown when the wasm traps; the instance is replaced before the throw, so the next call works. */
class CoreTrap extends Error {
  constructor(fn: string, cause: unknown) {
    super(`decision core trapped in ${fn}: ${(cause as Error)?.message ?? cause}`);
    this.name = "CoreTrap";
  }
}

/**
 * The core's ABI: how values cross into the wasm and how its packed answers come out
 * (assembly/host.ts and assembly/readonly.ts pack them). Marshalling facts, not bounds: the one
 * table of numbers in this file (the numeric-literal allow-list of test/architecture.test.ts).
 */
const ABI = {
  /** AssemblyScript's built-in String class id, for __new. */
  stringClassId: 2,
  /** The int32 range. */
  i32Min: -0x80000000,
  i32Max: 0x7fffffff,
  /** A packed answer's fields, each `(answer >> shift) & mask`. */
  packed: {
    /** detectHost: kind | reason << 4 | delivery << 12 | deliveryReason << 16. */
    host: { kind: { shift: 0, mask: 0xf }, reason: { shift: 4, mask: 0xff }, delivery: { shift: 12, mask: 0xf }, deliveryReason: { shift: 16, mask: 0xff } },
    /** classifyTool: class | reason << 4. */
    tool: { class: { shift: 0, mask: 0xf }, reason: { shift: 4, mask: 0xff } },
    /** appCall and appResult: answer | reason << 4. */
    app: { answer: { shift: 0, mask: 0xf }, reason: { shift: 4, mask: 0xff } },
    /** inboundToken: answer | reason << 4. */
    token: { answer: { shift: 0, mask: 0xf }, reason: { shift: 4, mask: 0xff } },
    /** pinGate: answer | reason << 4. */
    pin: { answer: { shift: 0, mask: 0xf }, reason: { shift: 4, mask: 0xff } },
    /** approvalAsk: answer | channel << 4 | offer << 8. */
    ask: { answer: { shift: 0, mask: 0xf }, channel: { shift: 4, mask: 0xf }, offer: { shift: 8, mask: 0xf } },
    /** approvalReply: outcome | reason << 4 | grant << 12. */
    reply: { outcome: { shift: 0, mask: 0xf }, reason: { shift: 4, mask: 0xff }, grant: { shift: 12, mask: 0xffff } },
  },
} as const;
const HOST = ABI.packed.host, TOOL = ABI.packed.tool, APP = ABI.packed.app, PIN = ABI.packed.pin, TOKEN = ABI.packed.token, ASK = ABI.packed.ask, REPLY = ABI.packed.reply;
const field = (packed: number, f: { shift: number; mask: number }): number => (packed >> f.shift) & f.mask;

/**
 * Marshalling (not deciding): an i32 fact that is not an int32 reaches the core as -1,
 * which no enumeration, id or count accepts, so garbage cannot alias a valid code.
 */
const i32 = (x: unknown): number => (typeof x === "number" && Number.isInteger(x) && x >= ABI.i32Min && x <= ABI.i32Max ? x : -1);
const f64 = (x: unknown): number => (typeof x === "number" ? x : Number.NaN);
const flag = (x: unknown): number => (x === true ? 1 : 0);

/** @internal exported for the spec tool (build/spec/cli.ts) and the mutation runner. */
export function createCore(bytes: Uint8Array): Core {
  const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  const instantiate = () => new WebAssembly.Instance(module, { env: { abort: () => { throw new Error("abort"); } } }).exports as unknown as CoreExports;
  let x = instantiate();

  const str = (s: unknown): number => {
    const text = typeof s === "string" ? s : "";
    const ptr = x.__new(text.length << 1, ABI.stringClassId);
    const view = new Uint16Array(x.memory.buffer, ptr, text.length);
    for (let i = 0; i < text.length; i++) view[i] = text.charCodeAt(i);
    return ptr;
  };
  const call = <T>(fn: string, run: () => T): T => {
    try {
      return run();
    } catch (e) {
      x = instantiate();
      throw new CoreTrap(fn, e);
    }
  };

  return {
    mimeIsApp: (s) => call("mimeIsApp", () => x.mimeIsApp(str(s)) === 1),
    detectHost: (f) =>
      call("detectHost", () => {
        const p = x.detectHost(i32(f.ext), i32(f.mime), flag(f.appMime), i32(f.override), flag(f.fileFallback));
        return { kind: field(p, HOST.kind) as HostKind, reason: field(p, HOST.reason) as HostReason, delivery: field(p, HOST.delivery) as Delivery, deliveryReason: field(p, HOST.deliveryReason) as DeliveryReason };
      }),
    appOnly: (revision, kind, use) => call("appOnly", () => x.appOnly(i32(revision), i32(kind), i32(use)) as AppOnly),
    classifyTool: (ro, de, op, listing) =>
      call("classifyTool", () => {
        const p = x.classifyTool(i32(ro), i32(de), i32(op), i32(listing));
        return { class: field(p, TOOL.class) as ToolClass, reason: field(p, TOOL.reason) as ClassReason };
      }),
    nameIsValid: (s) => call("nameIsValid", () => x.nameIsValid(str(s)) === 1),
    manifest: {
      begin: (shape, count) => call("vmBegin", () => x.vmBegin(i32(shape), i32(count)) as ViewCheck),
      binding: (name, shape) => call("vmBinding", () => x.vmBinding(str(name), i32(shape)) as ViewCheck),
      key: (key) => call("vmKey", () => x.vmKey(str(key)) as ViewCheck),
      address: (shape, resolution) => call("vmAddress", () => x.vmAddress(i32(shape), i32(resolution)) as ViewCheck),
      fixedArgs: (shape) => call("vmFixedArgs", () => x.vmFixedArgs(i32(shape)) as ViewCheck),
      fixedKey: (key) => call("vmFixedKey", () => x.vmFixedKey(str(key)) as ViewCheck),
      viewArgs: (shape, count) => call("vmViewArgs", () => x.vmViewArgs(i32(shape), i32(count)) as ViewCheck),
      viewKey: (isString, key) => call("vmViewKey", () => x.vmViewKey(flag(isString), str(key)) as ViewCheck),
    },
    limitDefault: (b) => call("limitDefault", () => x.limitDefault(i32(b))),
    limitRange: (b) => call("limitRange", () => ({ min: x.limitMin(i32(b)), max: x.limitMax(i32(b)) })),
    limitAccepts: (b, v) => call("limitAccepts", () => x.limitAccepts(i32(b), f64(v))),
    budgetCheck: (b, used, adding, limit) => call("budgetCheck", () => x.budgetCheck(i32(b), f64(used), f64(adding), f64(limit))),
    budgetRoom: (b, used, limit) => call("budgetRoom", () => x.budgetRoom(i32(b), f64(used), f64(limit))),
    envelope: (success, view, blocks, delivery) => call("envelope", () => x.envelope(flag(success), i32(view), f64(blocks), i32(delivery))),
    errorRetryable: (code) => call("errorRetryable", () => x.errorRetryable(i32(code)) as -1 | 0 | 1),
    errorRetryableWhen: (code, recovering) => call("errorRetryableWhen", () => x.errorRetryableWhen(i32(code), flag(recovering)) as -1 | 0 | 1),
    appCall: (relation, visibility, cls, appWrites) =>
      call("appCall", () => {
        const p = x.appCall(i32(relation), i32(visibility), i32(cls), flag(appWrites));
        return { answer: field(p, APP.answer) as AppCall, reason: field(p, APP.reason) as AppCallReason };
      }),
    appResult: (kind, shape, ui) =>
      call("appResult", () => {
        const p = x.appResult(i32(kind), i32(shape), i32(ui));
        return { answer: field(p, APP.answer) as AppResult, reason: field(p, APP.reason) as AppResultReason };
      }),
    appResource: (kind, appMime) => call("appResource", () => x.appResource(i32(kind), flag(appMime)) as AppResource),
    approvalAsk: (f) =>
      call("approvalAsk", () => {
        const p = x.approvalAsk(i32(f.revision), i32(f.elicitation), i32(f.mark), i32(f.grant), i32(f.grantTool), i32(f.grantKeys), i32(f.grantRun), f64(f.grantLeft), f64(f.asked), f64(f.askLimit), f64(f.grantLimit), i32(f.cause), i32(f.grantCause));
        return { answer: field(p, ASK.answer) as ApprovalAsk, channel: field(p, ASK.channel) as ApprovalChannel, offer: field(p, ASK.offer) as ApprovalOffer };
      }),
    approvalReply: (reply, offer, grantLimit) =>
      call("approvalReply", () => {
        const p = x.approvalReply(i32(reply), i32(offer), f64(grantLimit));
        return { outcome: field(p, REPLY.outcome) as ApprovalOutcome, reason: field(p, REPLY.reason) as ApprovalOutcomeReason, grant: field(p, REPLY.grant) };
      }),
    oauthRedirect: (f) => call("oauthRedirect", () => x.oauthRedirect(i32(f.scheme), i32(f.host), i32(f.userinfo), i32(f.fragment)) as OAuthRedirect),
    oauthOffer: (transport, credentials) => call("oauthOffer", () => x.oauthOffer(i32(transport), i32(credentials)) as OAuthOffer),
    oauthUnauthorized: (credentials, prm, challenge) => call("oauthUnauthorized", () => x.oauthUnauthorized(i32(credentials), i32(prm), i32(challenge)) as OAuthUnauthorized),
    oauthChannel: (revision, elicitation) => call("oauthChannel", () => x.oauthChannel(i32(revision), i32(elicitation)) as OAuthChannel),
    downstreamAsk: (revision, elicitation, mode, fit) => call("downstreamAsk", () => x.downstreamAsk(i32(revision), i32(elicitation), i32(mode), i32(fit)) as DownstreamAsk),
    downstreamOwner: (runs, direct, asked, askLimit) => call("downstreamOwner", () => x.downstreamOwner(i32(runs), i32(direct), i32(asked), i32(askLimit)) as QuestionOwner),
    oauthResource: (f) => call("oauthResource", () => x.oauthResource(i32(f.prm), i32(f.origin), i32(f.path)) as OAuthResource),
    oauthIssuer: (match) => call("oauthIssuer", () => x.oauthIssuer(i32(match)) as OAuthIssuer),
    oauthTokenIssuer: (match) => call("oauthTokenIssuer", () => x.oauthTokenIssuer(i32(match)) as OAuthTokenIssuer),
    oauthAuthorizationUrl: (scheme, host) => call("oauthAuthorizationUrl", () => x.oauthAuthorizationUrl(i32(scheme), i32(host)) as OAuthAuthorizationUrl),
    oauthMetadataLocation: (origin) => call("oauthMetadataLocation", () => x.oauthMetadataLocation(i32(origin)) as OAuthMetadataLocation),
    oauthTeamRedirect: (f) => call("oauthTeamRedirect", () => x.oauthTeamRedirect(i32(f.scheme), i32(f.host), i32(f.userinfo), i32(f.fragment), i32(f.place)) as OAuthTeamRedirect),
    oauthRefresh: (f) => call("oauthRefresh", () => x.oauthRefresh(i32(f.refreshToken), i32(f.expiry), f64(f.remainingMs), f64(f.leadMs)) as OAuthRefresh),
    oauthGrant: (grant, clientAuth) => call("oauthGrant", () => x.oauthGrant(i32(grant), i32(clientAuth)) as OAuthGrant),
    oauthForbidden: (f) => call("oauthForbidden", () => x.oauthForbidden(i32(f.forbidden), i32(f.growth), f64(f.scopeChars), f64(f.maxChars)) as OAuthForbidden),
    pinGate: (f) =>
      call("pinGate", () => {
        const p = x.pinGate(i32(f.state), i32(f.policy), i32(f.scope), i32(f.direction));
        return { answer: field(p, PIN.answer) as PinAnswer, reason: field(p, PIN.reason) as PinReason };
      }),
    pinAccept: (given) => call("pinAccept", () => x.pinAccept(i32(given)) as PinAccept),
    toolName: (text) => call("toolName", () => x.toolName(i32(text)) as ToolNameAnswer),
    accessRule: (lists, groups) => call("accessRule", () => x.accessRule(i32(lists), i32(groups)) as AccessRule),
    access: (policy, granted) => call("access", () => x.access(i32(policy), f64(granted)) as AccessAnswer),
    dataFlow: (f) => call("dataFlow", () => x.dataFlow(i32(f.privateRead), i32(f.egress), i32(f.safety)) as DataFlow),
    tokenAlg: (alg) => call("tokenAlg", () => x.tokenAlg(str(alg)) as TokenAlg),
    inboundToken: (f) =>
      call("inboundToken", () => {
        const p = x.inboundToken(i32(f.credentials), i32(f.form), i32(f.alg), i32(f.keys), i32(f.signature), i32(f.claims), i32(f.issuer), i32(f.audience), f64(f.nowS), f64(f.expS), f64(f.nbfS), f64(f.skewS), i32(f.scopes));
        return { answer: field(p, TOKEN.answer) as InboundToken, reason: field(p, TOKEN.reason) as TokenReason };
      }),
  };
}

let loaded: Core | undefined;
/** The committed core, loaded on first use and kept for the process. */
export function core(): Core {
  return (loaded ??= createCore(readFileSync(committedWasmPath())));
}

/** wasm/core.wasm under the package root (vitest, the compiled tree and the bundle alike). */
function committedWasmPath(): string {
  return join(packageRoot, "wasm/core.wasm");
}
