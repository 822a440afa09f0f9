// Runs every spec example against a core instance (the committed wasm, a fresh build, or
// a mutant). One runner per family turns `given` into core calls through the same glue
// functions the server uses, and produces the named decision that `expect` is compared to.
import type { Core } from "../../decisions/core.js";
import { hostFacts, requestCapabilities, type DeliveryOverrideName } from "../../decisions/facts/host.js";
import { hintOf } from "../../decisions/facts/annotations.js";
import { appVisibilityOf } from "../../decisions/facts/app-ui.js";
import { elicitationOf } from "../../decisions/facts/approval.js";
import { teamRedirectFacts, authorizationUrlFacts, challengeOf, forbiddenFacts, grantFacts, issuerMatchOf, metadataOriginOf, redirectFacts, resourceFacts, tokenIssuerMatchOf } from "../../decisions/facts/oauth.js";
import { teamCallbackUrl } from "../../support/callback-url.js";
import { checkManifest } from "../../views/manifest.js";
import { pinGivenOf, toolNameTextOf } from "../../decisions/facts/pins.js";
import { ruleFactsOf } from "../../decisions/facts/access.js";
import { claimFactsOf, credentialsOf, type ClaimFacts, type TokenExpectation } from "../../decisions/facts/inbound-token.js";
import { codeOf, type Example, type Spec } from "./parse.js";
import { codeName } from "../../decisions/code-names.js";
import { Budget, OAUTH_SCOPE_CHARS_MAX, type Revision } from "../../decisions/generated/spec.js";

interface ExampleResult { example: Example; pass: boolean; vacuous: boolean; actual: Record<string, unknown>; error?: string }
export interface ExamplesReport { results: ExampleResult[]; passed: number; total: number; vacuous: number; clausesWithoutExample: string[] }

type Runner = (core: Core, spec: Spec, given: Record<string, any>) => Record<string, unknown>;

function nameOf(spec: Spec, table: string, code: number): string {
  const t = spec.codes.find((c) => c.enum === table);
  return (t && codeName(t.values, code)) ?? `#${code}`;
}
/** Spec JSON cannot hold NaN or infinities; examples spell them as strings. */
const num = (v: unknown): number => (v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : (v as number));

/** H13/E9: the capabilities that judge a request of this revision (the server's own glue function). */
const capabilitiesOf = (spec: Spec, g: Record<string, any>) => requestCapabilities(codeOf(spec, "Revision", g.revision) as Revision, g.session, g.meta);

const host: Runner = (core, spec, g) => {
  if ("mimeType" in g) return { isApp: core.mimeIsApp(g.mimeType) };
  if ("appOnly" in g) return { answer: nameOf(spec, "AppOnly", core.appOnly(codeOf(spec, "Revision", g.revision), codeOf(spec, "HostKind", g.kind), codeOf(spec, "AppOnlyUse", g.use))) };
  const caps = "revision" in g ? { capabilities: capabilitiesOf(spec, g) } : g;
  const facts = "capabilities" in caps
    ? hostFacts(core, caps.capabilities, g.override as DeliveryOverrideName, g.fileFallback)
    : { ext: codeOf(spec, "ExtState", g.ext), mime: codeOf(spec, "MimeState", g.mime), appMime: g.appMime, override: codeOf(spec, "DeliveryOverride", g.override), fileFallback: g.fileFallback };
  const d = core.detectHost(facts);
  return { kind: nameOf(spec, "HostKind", d.kind), reason: nameOf(spec, "HostReason", d.reason), delivery: nameOf(spec, "Delivery", d.delivery), deliveryReason: nameOf(spec, "DeliveryReason", d.deliveryReason) };
};

const readOnly: Runner = (core, spec, g) => {
  const ro = "annotations" in g ? hintOf(g.annotations, "readOnlyHint") : codeOf(spec, "Hint", g.readOnlyHint);
  const de = "annotations" in g ? hintOf(g.annotations, "destructiveHint") : codeOf(spec, "Hint", g.destructiveHint);
  const d = core.classifyTool(ro, de, codeOf(spec, "Operator", g.operator), "listing" in g ? codeOf(spec, "Listing", g.listing) : 0);
  return { class: nameOf(spec, "ToolClass", d.class), reason: nameOf(spec, "ClassReason", d.reason) };
};

function readsOf(g: Record<string, any>): unknown {
  const address = "desk.list_incidents";
  if ("readsJson" in g) return JSON.parse(g.readsJson);
  if ("readsOfCount" in g) return Object.fromEntries(Array.from({ length: g.readsOfCount }, (_, i) => [`b${i}`, { address }]));
  if ("viewKeysOfCount" in g) return { r: { address, viewArgs: Array.from({ length: g.viewKeysOfCount }, (_, i) => `k${i}`) } };
  if ("viewKeyOfLength" in g) return { r: { address, viewArgs: ["k".repeat(g.viewKeyOfLength)] } };
  return g.reads;
}

const manifest: Runner = (core, spec, g) => {
  const m = core.manifest;
  const c = (t: string, v: unknown) => codeOf(spec, t, v);
  if ("step" in g) {
    const step: Record<string, () => number> = {
      begin: () => m.begin(c("ValueShape", g.readsShape), g.count),
      binding: () => m.binding(g.name, c("ValueShape", g.shape)),
      address: () => m.address(c("AddressShape", g.shape), c("Resolution", g.resolution)),
      fixedArgs: () => m.fixedArgs(c("ValueShape", g.shape)),
      viewArgs: () => m.viewArgs(c("ListShape", g.shape), g.count),
    };
    return { code: nameOf(spec, "ViewCheck", step[g.step]()) };
  }
  const catalog: Record<string, "read_only" | "approval"> = g.catalog ?? {};
  const v = checkManifest(core, readsOf(g), (a) => (Object.hasOwn(catalog, a) ? catalog[a] : "unknown"));
  return v.at === undefined ? { code: nameOf(spec, "ViewCheck", v.code) } : { code: nameOf(spec, "ViewCheck", v.code), at: v.at };
};

const budgets: Runner = (core, spec, g) => {
  const b = codeOf(spec, "Budget", g.budget);
  if ("value" in g) return { check: nameOf(spec, "LimitCheck", core.limitAccepts(b, num(g.value))) };
  if ("adding" in g) return { check: nameOf(spec, "BudgetCheck", core.budgetCheck(b, num(g.used), num(g.adding), num(g.limit))) };
  if ("used" in g) return { room: core.budgetRoom(b, num(g.used), num(g.limit)) };
  if (g.range === true) return core.limitRange(b);
  return { default: core.limitDefault(b) };
};

const envelope: Runner = (core, spec, g) => {
  if ("error" in g) {
    const code = codeOf(spec, "ErrorCode", g.error);
    const r = "recovering" in g ? core.errorRetryableWhen(code, g.recovering === true) : core.errorRetryable(code);
    return { retryable: r === -1 ? -1 : r === 1 };
  }
  const delivery = "revision" in g ? core.detectHost(hostFacts(core, capabilitiesOf(spec, g), "auto", true)).delivery : codeOf(spec, "Delivery", g.delivery);
  const bits = core.envelope(g.success, codeOf(spec, "ViewState", g.view), num(g.blocks), delivery);
  const table = spec.codes.find((t) => t.enum === "EnvelopeFlag")!.values;
  return { flags: Object.entries(table).filter(([, bit]) => (bits & bit) !== 0).map(([n]) => n) };
};

const apps: Runner = (core, spec, g) => {
  if ("relation" in g) {
    const visibility = "toolMeta" in g ? appVisibilityOf(g.toolMeta) : codeOf(spec, "AppVisibility", g.visibility);
    const d = core.appCall(codeOf(spec, "AppRelation", g.relation), visibility, codeOf(spec, "ToolClass", g.class), g.appWrites === true);
    return { answer: nameOf(spec, "AppCall", d.answer), reason: nameOf(spec, "AppCallReason", d.reason) };
  }
  if ("shape" in g) {
    const d = core.appResult(codeOf(spec, "HostKind", g.kind), codeOf(spec, "ResultShape", g.shape), codeOf(spec, "AppUi", g.ui));
    return { answer: nameOf(spec, "AppResult", d.answer), reason: nameOf(spec, "AppResultReason", d.reason) };
  }
  return { answer: nameOf(spec, "AppResource", core.appResource(codeOf(spec, "HostKind", g.kind), core.mimeIsApp(g.mimeType))) };
};

const approvals: Runner = (core, spec, g) => {
  if ("budget" in g) return budgets(core, spec, g); // P11: the wait is a budget check
  if ("runsInFlight" in g) return { owner: nameOf(spec, "QuestionOwner", core.downstreamOwner(num(g.runsInFlight), num(g.directInFlight), num(g.asked), num(g.askLimit))) };
  if ("question" in g) return { answer: nameOf(spec, "DownstreamAsk", core.downstreamAsk(codeOf(spec, "Revision", g.revision), codeOf(spec, "ElicitationSupport", g.elicitation), codeOf(spec, "QuestionMode", g.question), codeOf(spec, "QuestionFit", g.fit))) };
  const grantLimit = "grantLimit" in g ? num(g.grantLimit) : core.limitDefault(Budget.approval_grant_calls);
  if ("reply" in g) {
    const d = core.approvalReply(codeOf(spec, "ApprovalReply", g.reply), codeOf(spec, "ApprovalOffer", g.offer), grantLimit);
    return { outcome: nameOf(spec, "ApprovalOutcome", d.outcome), reason: nameOf(spec, "ApprovalOutcomeReason", d.reason), grant: d.grant };
  }
  const match = (k: string) => codeOf(spec, "GrantMatch", g[k] ?? "same");
  const d = core.approvalAsk({
    revision: codeOf(spec, "Revision", g.revision),
    elicitation: codeOf(spec, "ElicitationSupport", g.elicitation),
    mark: codeOf(spec, "ApprovalMark", g.mark),
    grant: codeOf(spec, "GrantState", g.grant ?? "none"),
    grantTool: match("grantTool"),
    grantKeys: match("grantKeys"),
    grantRun: match("grantRun"),
    grantLeft: num(g.grantLeft ?? 0),
    asked: num(g.asked ?? 0),
    askLimit: "askLimit" in g ? num(g.askLimit) : core.limitDefault(Budget.approvals_per_run),
    grantLimit,
    cause: codeOf(spec, "ApprovalCause", g.cause ?? "write"),
    grantCause: codeOf(spec, "ApprovalCause", g.grantCause ?? "write"),
  });
  return { answer: nameOf(spec, "ApprovalAsk", d.answer), channel: nameOf(spec, "ApprovalChannel", d.channel), offer: nameOf(spec, "ApprovalOffer", d.offer) };
};

const pins: Runner = (core, spec, g) => {
  if ("word" in g || "pending" in g) return { answer: nameOf(spec, "PinAccept", core.pinAccept(pinGivenOf(g.word, String(g.pending)))) };
  if ("given" in g) return { answer: nameOf(spec, "PinAccept", core.pinAccept(codeOf(spec, "PinGiven", g.given))) };
  if ("name" in g) return { answer: nameOf(spec, "ToolNameAnswer", core.toolName(toolNameTextOf(String(g.name)))) };
  if ("text" in g) return { answer: nameOf(spec, "ToolNameAnswer", core.toolName(codeOf(spec, "ToolNameText", g.text))) };
  const d = core.pinGate({
    state: codeOf(spec, "PinState", g.state),
    policy: codeOf(spec, "PinPolicy", g.policy),
    scope: codeOf(spec, "PinScope", g.scope ?? "definition"),
    direction: codeOf(spec, "PinDirection", g.direction ?? "none"),
  });
  return { answer: nameOf(spec, "PinAnswer", d.answer), reason: nameOf(spec, "PinReason", d.reason) };
};

/** spec/access.md: a rule as written in atrium.json goes through the glue's own fact extraction; codes go straight in. */
const access: Runner = (core, spec, g) => {
  if ("rule" in g) { const f = ruleFactsOf(g.rule, String(g.connector), g.principalGroups); return { rule: nameOf(spec, "AccessRule", core.accessRule(f.lists, f.groups)) }; }
  if ("lists" in g) return { rule: nameOf(spec, "AccessRule", core.accessRule(codeOf(spec, "RuleLists", g.lists), codeOf(spec, "RuleGroups", g.groups))) };
  return { answer: nameOf(spec, "AccessAnswer", core.access(codeOf(spec, "AccessPolicy", g.policy), num(g.granted))) };
};

/** spec/data-flow.md: codes straight in. */
const dataFlow: Runner = (core, spec, g) => ({
  flow: nameOf(spec, "DataFlow", core.dataFlow({ privateRead: codeOf(spec, "PrivateRead", g.privateRead), egress: codeOf(spec, "Egress", g.egress), safety: codeOf(spec, "ToolClass", g.safety) })),
});

/** spec/oauth.md: a string fact (a URI, a server URL, an issuer) goes through the glue's own fact extraction; codes go straight in. */
const oauth: Runner = (core, spec, g) => {
  const c = (t: string, v: unknown) => codeOf(spec, t, v);
  if ("oauth" in g) { const f = grantFacts(g.oauth); return { grant: nameOf(spec, "OAuthGrant", core.oauthGrant(f.grant, f.clientAuth)) }; }
  if ("clientAuth" in g) return { grant: nameOf(spec, "OAuthGrant", core.oauthGrant(c("OAuthGrantType", g.grant), c("ClientAuth", g.clientAuth))) };
  if ("forbidden" in g) return { forbidden: nameOf(spec, "OAuthForbidden", core.oauthForbidden({ forbidden: c("ForbiddenError", g.forbidden), growth: c("ScopeGrowth", g.scopeGrowth), scopeChars: num(g.scopeChars), maxChars: num(g.maxChars) })) };
  if (("wwwAuthenticate" in g || "granted" in g || "grantedOfLength" in g) && !("credentials" in g)) {
    const granted = "grantedOfLength" in g ? "a".repeat(g.grantedOfLength) : g.granted;
    const f = forbiddenFacts(g.wwwAuthenticate ?? null, granted);
    return { forbidden: nameOf(spec, "OAuthForbidden", core.oauthForbidden({ ...f, maxChars: OAUTH_SCOPE_CHARS_MAX })), scope: f.scope };
  }
  if ("teamUri" in g) return { teamRedirect: nameOf(spec, "OAuthTeamRedirect", core.oauthTeamRedirect(teamRedirectFacts(g.teamUri, teamCallbackUrl(String(g.publicUrl))))) };
  if ("place" in g) return { teamRedirect: nameOf(spec, "OAuthTeamRedirect", core.oauthTeamRedirect({ scheme: c("RedirectScheme", g.scheme), host: c("RedirectHost", g.host), userinfo: c("UrlPart", g.userinfo), fragment: c("UrlPart", g.fragment), place: c("CallbackPlace", g.place) })) };
  if ("uri" in g) return { redirect: nameOf(spec, "OAuthRedirect", core.oauthRedirect(redirectFacts(g.uri))) };
  if ("scheme" in g) return { redirect: nameOf(spec, "OAuthRedirect", core.oauthRedirect({ scheme: c("RedirectScheme", g.scheme), host: c("RedirectHost", g.host), userinfo: c("UrlPart", g.userinfo), fragment: c("UrlPart", g.fragment) })) };
  if ("transport" in g) return { offer: nameOf(spec, "OAuthOffer", core.oauthOffer(c("ConnectorTransport", g.transport), c("ConnectorCredentials", g.credentials))) };
  if ("credentials" in g) {
    const challenge = "challenge" in g ? c("AuthChallenge", g.challenge) : challengeOf(g.wwwAuthenticate ?? null);
    return { meaning: nameOf(spec, "OAuthUnauthorized", core.oauthUnauthorized(c("ConnectorCredentials", g.credentials), c("ResourceMetadata", g.prm), challenge)) };
  }
  if ("revision" in g) {
    const elicitation = "capabilities" in g ? elicitationOf(g.capabilities) : c("ElicitationSupport", g.elicitation);
    return { channel: nameOf(spec, "OAuthChannel", core.oauthChannel(c("Revision", g.revision), elicitation)) };
  }
  if ("metadataUrl" in g) return { metadataLocation: nameOf(spec, "OAuthMetadataLocation", core.oauthMetadataLocation(metadataOriginOf(String(g.serverUrl), g.metadataUrl))) };
  if ("metadataOrigin" in g) return { metadataLocation: nameOf(spec, "OAuthMetadataLocation", core.oauthMetadataLocation(c("OriginMatch", g.metadataOrigin))) };
  if ("authorizationUrl" in g) { const f = authorizationUrlFacts(g.authorizationUrl); return { authorizationUrl: nameOf(spec, "OAuthAuthorizationUrl", core.oauthAuthorizationUrl(f.scheme, f.host)) }; }
  if ("authScheme" in g) return { authorizationUrl: nameOf(spec, "OAuthAuthorizationUrl", core.oauthAuthorizationUrl(c("RedirectScheme", g.authScheme), c("RedirectHost", g.authHost))) };
  if ("discovered" in g) return { binding: nameOf(spec, "OAuthTokenIssuer", core.oauthTokenIssuer(tokenIssuerMatchOf(g.tokens === "absent" ? undefined : { issuer: g.stamped }, String(g.discovered)))) };
  if ("tokenIssuer" in g) return { binding: nameOf(spec, "OAuthTokenIssuer", core.oauthTokenIssuer(c("TokenIssuerMatch", g.tokenIssuer))) };
  if ("serverUrl" in g) return { resource: nameOf(spec, "OAuthResource", core.oauthResource(resourceFacts(g.serverUrl, g.resource))) };
  if ("prm" in g) return { resource: nameOf(spec, "OAuthResource", core.oauthResource({ prm: c("ResourceMetadata", g.prm), origin: c("OriginMatch", g.resourceOrigin), path: c("PathMatch", g.resourcePath) })) };
  if ("asUrl" in g) return { metadata: nameOf(spec, "OAuthIssuer", core.oauthIssuer(issuerMatchOf(g.asUrl, "issuer" in g ? { issuer: g.issuer } : undefined))) };
  if ("issuerMatch" in g) return { metadata: nameOf(spec, "OAuthIssuer", core.oauthIssuer(c("IssuerMatch", g.issuerMatch))) };
  return { refresh: nameOf(spec, "OAuthRefresh", core.oauthRefresh({ refreshToken: c("UrlPart", g.refreshToken), expiry: c("TokenExpiry", g.expiry), remainingMs: num(g.remainingMs), leadMs: num(g.leadMs) })) };
};

/** spec/inbound-tokens.md: an alg name goes to tokenAlg; otherwise inboundToken, each fact the example leaves out at its passing value. */
const TOKEN_PASSING = { credentials: "bearer", form: "jws", alg: "allowed", keys: "known", signature: "valid", claims: "wellformed", issuer: "match", audience: "match", nowS: 0, expS: 1, nbfS: 0, skewS: 0, scopes: "all" };
/** The atrium.http.auth payload examples are judged against unless they give their own `auth`. */
const TOKEN_EXPECTATION: TokenExpectation = { issuer: "https://login.example", audience: "https://atrium.example/mcp", requiredScopes: [], groupsClaim: "groups" };
function claimCodesOf(spec: Spec, f: ClaimFacts) {
  const name = (t: string, code: number) => codeName(spec.codes.find((c) => c.enum === t)!.values, code);
  return { claims: name("TokenClaims", f.claims), issuer: name("ClaimMatch", f.issuer), audience: name("ClaimMatch", f.audience), scopes: name("ScopeMatch", f.scopes), expS: f.expS, nbfS: f.nbfS };
}
const tokens: Runner = (core, spec, g) => {
  if ("algName" in g) return { alg: nameOf(spec, "TokenAlg", core.tokenAlg(String(g.algName))) };
  const header = "bearerOfLength" in g ? `Bearer ${"a".repeat(g.bearerOfLength)}` : g.header;
  const observed = "header" in g || "bearerOfLength" in g ? { credentials: codeName(spec.codes.find((t) => t.enum === "BearerCredentials")!.values, credentialsOf(header, core.limitDefault(Budget.bearer_token_bytes)).credentials) } : {};
  const claimed = "payload" in g ? claimCodesOf(spec, claimFactsOf(g.payload, { ...TOKEN_EXPECTATION, ...g.auth })) : {};
  const f = { ...TOKEN_PASSING, ...g, ...observed, ...claimed };
  const c = (t: string, v: unknown) => codeOf(spec, t, v);
  const d = core.inboundToken({
    credentials: c("BearerCredentials", f.credentials), form: c("TokenForm", f.form), alg: c("TokenAlg", f.alg), keys: c("TokenKeys", f.keys),
    signature: c("TokenSignature", f.signature), claims: c("TokenClaims", f.claims), issuer: c("ClaimMatch", f.issuer), audience: c("ClaimMatch", f.audience),
    nowS: num(f.nowS), expS: num(f.expS), nbfS: num(f.nbfS), skewS: num(f.skewS), scopes: c("ScopeMatch", f.scopes),
  });
  return { answer: nameOf(spec, "InboundToken", d.answer), reason: nameOf(spec, "TokenReason", d.reason) };
};

const RUNNERS: Record<string, Runner> = {
  "inbound-tokens.md": tokens,
  "oauth.md": oauth,
  "pins.md": pins,
  "access.md": access,
  "data-flow.md": dataFlow,
  "approvals.md": approvals,
  "app-calls.md": apps,
  "host-detection.md": host,
  "read-only.md": readOnly,
  "view-manifest.md": manifest,
  "budgets.md": budgets,
  "envelope.md": envelope,
};

const same = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n") : JSON.stringify(a) === JSON.stringify(b);

export function runExamples(core: Core, spec: Spec): ExamplesReport {
  const results: ExampleResult[] = [];
  for (const clause of spec.clauses) {
    const runner = RUNNERS[clause.file];
    for (const example of clause.examples) {
      if (!runner) { results.push({ example, pass: false, vacuous: true, actual: {}, error: `no runner for ${clause.file}` }); continue; }
      let actual: Record<string, unknown> = {};
      let error: string | undefined;
      try { actual = runner(core, spec, example.given); } catch (e) { error = (e as Error).message; }
      const keys = Object.keys(example.expect);
      // Vacuous: nothing concrete expected, or a key the runner never produces (never compared).
      const vacuous = keys.length === 0 || keys.some((k) => !(k in actual) && error === undefined);
      const pass = error === undefined && !vacuous && keys.every((k) => same(actual[k], example.expect[k]));
      results.push({ example, pass, vacuous, actual, error });
    }
  }
  return {
    results,
    passed: results.filter((r) => r.pass).length,
    total: results.length,
    vacuous: results.filter((r) => r.vacuous).length,
    clausesWithoutExample: spec.clauses.filter((c) => c.examples.length === 0).map((c) => c.id),
  };
}
