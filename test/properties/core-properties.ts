// Property tests of the decision core, written once and run twice: by vitest against the
// committed wasm (test/spec-core-properties.test.ts) and by the mutation run against every mutant.
// Each property throws when it fails (fast-check's assert).
import fc from "fast-check";
import type { Core } from "../../glue/decisions/core.js";
import { forbiddenFacts, redirectFacts, teamRedirectFacts } from "../../glue/decisions/facts/oauth.js";
import { teamCallbackUrl } from "../../glue/support/callback-url.js";
import { pinGivenOf } from "../../glue/decisions/facts/pins.js";
import { AuthChallenge, ClientAuth, OAuthGrant, OAuthGrantType, ForbiddenError, OAuthForbidden, OAUTH_SCOPE_CHARS_MAX, ScopeGrowth, CallbackPlace, OAuthTeamRedirect, ConnectorCredentials, ConnectorTransport, IssuerMatch, OAuthChannel, OAuthIssuer, OAuthOffer, OAuthRedirect, OAuthRefresh, OAuthResource, OAuthUnauthorized, OriginMatch, PathMatch, RedirectHost, RedirectScheme, ResourceMetadata, TokenExpiry, UrlPart, ApprovalAsk, ApprovalCause, DataFlow, Egress, PrivateRead, ApprovalChannel, ApprovalMark, ApprovalOffer, ApprovalOutcome, ApprovalOutcomeReason, ApprovalReply, ElicitationSupport, GrantMatch, GrantState, AppCall, AppCallReason, AppRelation, AppResource, AppResult, AppUi, AppVisibility, ResultShape, AppOnly, AppOnlyUse, Revision, Budget, BudgetCheck, ClassReason, Delivery, DeliveryReason, EnvelopeFlag, ErrorCode, Hint, HostKind, HostReason, LimitCheck, Listing, Operator, ToolClass, ViewCheck, PinAnswer, PinDirection, PinPolicy, PinReason, PinScope, PinState, PinAccept, PinGiven, ToolNameAnswer, ToolNameText, PIN_SHOWN_DIGEST_CHARS, AccessAnswer, AccessPolicy, AccessRule, RuleGroups, RuleLists, BearerCredentials, ClaimMatch, InboundToken, ScopeMatch, TokenAlg, TokenClaims, TokenForm, TokenKeys, TokenReason, TokenSignature } from "../../glue/decisions/generated/spec.js";

export interface Property { name: string; run(core: Core, opts: { numRuns: number; seed: number }): void }

const NAME_RULE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const values = (t: Record<string, number>) => Object.values(t);
const inRange = (t: Record<string, number>, v: number) => values(t).includes(v);
const budgets = values(Budget);

/** Any fact code: in range, just outside, far outside, and non-integers. */
const anyCode = fc.oneof(fc.integer({ min: -2, max: 6 }), fc.integer(), fc.double(), fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER));
/** Strings a hostile or buggy caller could hand the core. */
const anyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  // ASCII neighbours of every range edge in the name rule: @ A Z [ ` a z { / 0 9 : _ -
  fc.string({ unit: fc.constantFrom(..."@AZ[`az{/09:_-. \u0000\u001f\u00e9\u2028"), maxLength: 70 }),
  fc.constantFrom("", "__proto__", "constructor", "prototype", "x".repeat(100_000), "\u0000".repeat(64)),
);
const anyNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1e308, -1e308, Infinity, -Infinity, NaN, 2 ** 53, 2 ** 53 + 2));
const anything = fc.oneof(fc.anything(), anyString, anyNumber);

/** The loopback hosts O1 names, as WHATWG URL spells their hostnames. */
const LOOPBACK_HOSTNAMES = ["127.0.0.1", "[::1]", "localhost"];
const redirectUri = fc.oneof(
  fc.webUrl({ withFragments: true, withQueryParameters: true }),
  fc.tuple(fc.constantFrom("http", "https", "ftp", "HTTP"), fc.constantFrom("", "u@", "u:p@", ":p@"), fc.constantFrom(...LOOPBACK_HOSTNAMES, "127.0.0.2", "127.0.0.1.evil.example", "[::2]", "LOCALHOST", "0x7f.1"), fc.constantFrom("", ":0", ":8080"), fc.constantFrom("/", "/callback", "/cb?x=1"), fc.constantFrom("", "#", "#f")).map(([sch, ui, h, port, path, frag]) => `${sch}://${ui}${h}${port}${path}${frag}`),
  fc.string(),
);

export const coreProperties: Property[] = [
  {
    name: "O1–O3: a login's code goes only to http on a loopback host without userinfo or fragment; anything else is refused, out-of-range facts as invalid_facts",
    run: (core, o) => {
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, (scheme, host, userinfo, fragment) => {
          const d = core.oauthRedirect({ scheme, host, userinfo, fragment });
          if (!inRange(RedirectScheme, scheme) || !inRange(RedirectHost, host) || !inRange(UrlPart, userinfo) || !inRange(UrlPart, fragment)) return d === OAuthRedirect.invalid_facts;
          const ok = scheme === RedirectScheme.http && host !== RedirectHost.other && userinfo === UrlPart.absent && fragment === UrlPart.absent;
          return (d === OAuthRedirect.accepted) === ok && inRange(OAuthRedirect, d) && d !== OAuthRedirect.invalid_facts;
        }),
        o,
      );
      fc.assert(
        fc.property(redirectUri, (uri) => {
          if (core.oauthRedirect(redirectFacts(uri)) !== OAuthRedirect.accepted) return true;
          const u = new URL(uri);
          return u.protocol === "http:" && LOOPBACK_HOSTNAMES.includes(u.hostname) && u.username === "" && u.password === "" && u.hash === "";
        }),
        o,
      );
    },
  },
  {
    name: "O4–O5: a connector with static credentials or a stdio one never gets a login; a 401 needs a login only without static credentials and with protected resource metadata found or a Bearer challenge",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, (transport, credentials, prm, challenge) => {
          const offer = core.oauthOffer(transport, credentials);
          const meaning = core.oauthUnauthorized(credentials, prm, challenge);
          const offerOk = !inRange(ConnectorTransport, transport) || !inRange(ConnectorCredentials, credentials)
            ? offer === OAuthOffer.invalid_facts
            : (offer === OAuthOffer.offered) === (transport === ConnectorTransport.http && credentials === ConnectorCredentials.none) && offer !== OAuthOffer.invalid_facts;
          const meaningOk = !inRange(ConnectorCredentials, credentials) || !inRange(ResourceMetadata, prm) || !inRange(AuthChallenge, challenge)
            ? meaning === OAuthUnauthorized.invalid_facts
            : (meaning === OAuthUnauthorized.needs_login) === (credentials === ConnectorCredentials.none && (prm === ResourceMetadata.found || challenge === AuthChallenge.bearer)) &&
              (meaning === OAuthUnauthorized.credentials_refused) === (credentials === ConnectorCredentials.static_header);
          return offerOk && meaningOk;
        }),
        o,
      ),
  },
  {
    name: "O6: authorize_connector elicits in URL mode only on 2025-11-25 from a host that declared URL mode; otherwise it answers the URL",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, (revision, elicitation) => {
          const d = core.oauthChannel(revision, elicitation);
          if (!inRange(Revision, revision) || !inRange(ElicitationSupport, elicitation)) return d === OAuthChannel.invalid_facts;
          const url = revision === Revision.r2025_11_25 && (elicitation === ElicitationSupport.url_only || elicitation === ElicitationSupport.form_and_url);
          return d === (url ? OAuthChannel.url_elicitation : OAuthChannel.answer_url);
        }),
        o,
      ),
  },
  {
    name: "O7–O8: metadata is accepted only when its resource is this server (same origin, covering path) and its issuer the server it came from",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, (prm, origin, path, issuer) => {
          const r = core.oauthResource({ prm, origin, path });
          const i = core.oauthIssuer(issuer);
          const rOk = !inRange(ResourceMetadata, prm) || !inRange(OriginMatch, origin) || !inRange(PathMatch, path)
            ? r === OAuthResource.invalid_facts
            : (r === OAuthResource.no_indicator) === (prm === ResourceMetadata.not_found) &&
              (r === OAuthResource.accepted) === (prm === ResourceMetadata.found && origin === OriginMatch.same && path === PathMatch.covers);
          const iOk = !inRange(IssuerMatch, issuer) ? i === OAuthIssuer.invalid_facts : (i === OAuthIssuer.accepted) === (issuer !== IssuerMatch.other) && i !== OAuthIssuer.invalid_facts;
          return rOk && iOk;
        }),
        o,
      ),
  },
  {
    name: "O9: a token is refreshed first exactly when a refresh token is stored, its expiry is known and it expires within the lead",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, fc.oneof(fc.integer({ min: -200000, max: 200000 }), anyNumber), fc.oneof(fc.integer({ min: -2, max: 200000 }), anyNumber), (refreshToken, expiry, remainingMs, leadMs) => {
          const d = core.oauthRefresh({ refreshToken, expiry, remainingMs, leadMs });
          const valid = inRange(UrlPart, refreshToken) && inRange(TokenExpiry, expiry) && Number.isFinite(remainingMs) && Number.isInteger(leadMs) && leadMs >= 0;
          if (!valid) return d === OAuthRefresh.invalid_facts;
          const refresh = refreshToken === UrlPart.present && expiry === TokenExpiry.known && remainingMs < leadMs;
          return d === (refresh ? OAuthRefresh.refresh_first : OAuthRefresh.send_stored);
        }),
        o,
      ),
  },
  {
    name: "O14: a 403 is a step-up exactly when it says insufficient_scope, names a scope the tokens lack and the union fits; and a step-up's scope always strictly widens what the tokens have",
    run: (core, o) => {
      const count = fc.oneof(fc.integer({ min: -2, max: 5000 }), anyNumber);
      fc.assert(
        fc.property(anyCode, anyCode, count, count, (forbidden, growth, scopeChars, maxChars) => {
          const d = core.oauthForbidden({ forbidden, growth, scopeChars, maxChars });
          const valid = inRange(ForbiddenError, forbidden) && inRange(ScopeGrowth, growth) && Number.isInteger(scopeChars) && scopeChars >= 0 && Number.isInteger(maxChars) && maxChars >= 0;
          if (!valid) return d === OAuthForbidden.invalid_facts;
          const stepUp = forbidden === ForbiddenError.insufficient_scope && growth === ScopeGrowth.wider && scopeChars <= maxChars;
          return (d === OAuthForbidden.step_up) === stepUp && (d === OAuthForbidden.not_scope) === (forbidden === ForbiddenError.other) && d !== OAuthForbidden.invalid_facts;
        }),
        o,
      );
      const scopes = fc.array(fc.constantFrom("a", "b", "c", "files:read", "x y"), { maxLength: 4 }).map((s) => s.join(" "));
      fc.assert(
        fc.property(scopes, scopes, (granted, named) => {
          const f = forbiddenFacts(`Bearer error="insufficient_scope", scope="${named}"`, granted);
          if (core.oauthForbidden({ ...f, maxChars: OAUTH_SCOPE_CHARS_MAX }) !== OAuthForbidden.step_up) return true;
          const have = new Set(granted.split(/\s+/).filter(Boolean));
          const next = new Set(f.scope.split(" "));
          return [...have].every((s) => next.has(s)) && next.size > have.size && named.split(/\s+/).filter(Boolean).every((s) => next.has(s));
        }),
        o,
      );
    },
  },
  {
    name: "O15: tokens come from the operator's client credentials only with grant client_credentials and a way to authenticate; otherwise a person logs in or nothing is sent",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, (grant, clientAuth) => {
          const d = core.oauthGrant(grant, clientAuth);
          if (!inRange(OAuthGrantType, grant) || !inRange(ClientAuth, clientAuth)) return d === OAuthGrant.invalid_facts;
          const machine = d === OAuthGrant.client_secret || d === OAuthGrant.private_key_jwt;
          return machine === (grant === OAuthGrantType.client_credentials && clientAuth !== ClientAuth.none) &&
            (d === OAuthGrant.person_login) === (grant === OAuthGrantType.authorization_code) &&
            (d !== OAuthGrant.client_secret || clientAuth === ClientAuth.secret) && (d !== OAuthGrant.private_key_jwt || clientAuth === ClientAuth.private_key_jwt);
        }),
        o,
      ),
  },
  {
    name: "R6: demoting never yields read-only",
    run: (core, o) => fc.assert(fc.property(anyCode, anyCode, (ro, de) => core.classifyTool(ro, de, Operator.demote, Listing.settled).class === ToolClass.approval), o),
  },
  {
    name: "R3/R8: no input makes a tool marked destructive read-only",
    run: (core, o) =>
      fc.assert(fc.property(anyCode, fc.constantFrom(Hint.true, Hint.malformed), anyCode, (ro, de, op) => core.classifyTool(ro, de, op, Listing.settled).class === ToolClass.approval), o),
  },
  {
    name: "R1/R7: read-only only with readOnlyHint true or an allowed promotion",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, (ro, de, op, listing) => {
          const d = core.classifyTool(ro, de, op, listing);
          if (d.class !== ToolClass.read_only) return true;
          if (listing !== Listing.settled) return false; // R10/R11
          const annotated = ro === Hint.true && (de === Hint.absent || de === Hint.false) && op !== Operator.demote;
          const promoted = op === Operator.promote && (de === Hint.absent || de === Hint.false) && !(ro === Hint.false && de === Hint.absent) && inRange(Hint, ro);
          return (annotated && d.reason === ClassReason.annotated_read_only) || (!annotated && promoted && d.reason === ClassReason.operator_promoted);
        }),
        o,
      ),
  },
  {
    name: "V2: the name rule agrees with ^[A-Za-z][A-Za-z0-9_-]{0,63}$ on arbitrary strings",
    run: (core, o) => fc.assert(fc.property(anyString, (s) => core.nameIsValid(s) === NAME_RULE.test(s)), o),
  },
  {
    name: "B3/B6: a budget check never accepts a value over its limit and room left is exact",
    run: (core, o) => {
      const ranges = new Map(budgets.map((b) => [b, core.limitRange(b)]));
      fc.assert(
        fc.property(fc.constantFrom(...budgets), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 2 ** 31 }), fc.nat({ max: 2 ** 31 }), (b, t, used, adding) => {
          const { min, max } = ranges.get(b)!;
          const limit = Math.round(min + t * (max - min));
          used = used % (limit + 3);
          adding = adding % (limit + 3);
          const check = core.budgetCheck(b, used, adding, limit);
          const room = core.budgetRoom(b, used, limit);
          return check === (used + adding <= limit ? BudgetCheck.ok : BudgetCheck.over) && room === Math.max(0, limit - used) && (check !== BudgetCheck.ok || adding <= room);
        }),
        o,
      );
    },
  },
  {
    name: "B3: no amount, however odd, is accepted over the limit",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.constantFrom(...budgets), anyNumber, anyNumber, (b, used, adding) => {
          const limit = core.limitDefault(b);
          return core.budgetCheck(b, used, adding, limit) !== BudgetCheck.ok || (Number.isInteger(used) && Number.isInteger(adding) && used >= 0 && adding >= 0 && used + adding <= limit);
        }),
        o,
      ),
  },
  {
    name: "H1/H7: inline delivery only ever goes to an Apps host, and an Apps host always declared the app mime",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, fc.boolean(), anyCode, fc.boolean(), (ext, mime, appMime, override, fileFallback) => {
          const d = core.detectHost({ ext, mime, appMime, override, fileFallback });
          if (d.kind === HostKind.apps && !(ext === 1 && mime === 1 && appMime && d.reason === HostReason.app_mime)) return false;
          if (d.delivery === Delivery.inline && d.kind !== HostKind.apps) return false;
          return inRange(HostKind, d.kind) && inRange(HostReason, d.reason) && inRange(Delivery, d.delivery) && inRange(DeliveryReason, d.deliveryReason);
        }),
        o,
      ),
  },
  {
    name: "H14: an app-only tool runs only for an Apps host on either revision, and a 2026-07-28 listing never depends on the host",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, (revision, kind, use) => {
          const a = core.appOnly(revision, kind, use);
          const valid = inRange(Revision, revision) && inRange(HostKind, kind) && inRange(AppOnlyUse, use);
          if (!valid) return a === AppOnly.invalid_facts;
          if (use === AppOnlyUse.call && a === AppOnly.offered && kind !== HostKind.apps) return false;
          if (use === AppOnlyUse.list && revision === Revision.r2026_07_28 && a !== core.appOnly(revision, kind === HostKind.apps ? HostKind.plain : HostKind.apps, use)) return false;
          return a === AppOnly.offered || a === AppOnly.hidden;
        }),
        o,
      ),
  },
  {
    name: "A1–A5: an app's call runs only for a tool of its own connector that its app may see, read-only or with appWrites",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, fc.boolean(), (relation, visibility, cls, appWrites) => {
          const d = core.appCall(relation, visibility, cls, appWrites);
          const valid = inRange(AppRelation, relation) && inRange(AppVisibility, visibility) && inRange(ToolClass, cls);
          if (!valid) return d.answer === AppCall.refused && d.reason === AppCallReason.invalid_facts;
          const may = relation === AppRelation.same && visibility === AppVisibility.app && (cls === ToolClass.read_only || appWrites);
          if (d.answer !== (may ? AppCall.allowed : AppCall.refused)) return false;
          if (relation === AppRelation.other) return d.reason === AppCallReason.other_connector;
          return inRange(AppCallReason, d.reason) && d.reason !== AppCallReason.invalid_facts;
        }),
        o,
      ),
  },
  {
    name: "A6/A7: only an Apps host is handed a downstream UI: a rewritten result for the downstream's own result, a document of the app mime",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, fc.boolean(), (kind, shape, ui, appMime) => {
          const r = core.appResult(kind, shape, ui);
          const rewrite = kind === HostKind.apps && shape === ResultShape.as_is && ui === AppUi.named;
          if (r.answer !== (rewrite ? AppResult.rewrite : AppResult.unchanged)) return false;
          const served = core.appResource(kind, appMime);
          if (!inRange(HostKind, kind)) return served === AppResource.invalid_facts;
          return served === (kind === HostKind.apps ? (appMime ? AppResource.served : AppResource.not_app) : AppResource.not_found);
        }),
        o,
      ),
  },
  {
    name: "P3/P4/P7/P14/P15: never run_granted for another tool, another key set, another run or a flow under a write's grant; a tool the operator keeps outside programs gets nothing but a refusal; a flow the host cannot ask about is refused as a flow",
    run: (core, o) => {
      const grantCalls = core.limitRange(Budget.approval_grant_calls), perRun = core.limitRange(Budget.approvals_per_run);
      const count = fc.oneof(fc.integer({ min: -2, max: 120 }), anyNumber);
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, anyCode, anyCode, anyCode, count, count, count, count, anyCode, anyCode, (revision, elicitation, mark, grant, grantTool, grantKeys, grantRun, grantLeft, asked, askLimit, grantLimit, cause, grantCause) => {
          const d = core.approvalAsk({ revision, elicitation, mark, grant, grantTool, grantKeys, grantRun, grantLeft, asked, askLimit, grantLimit, cause, grantCause });
          const whole = (v: number, min: number, max: number) => Number.isInteger(v) && v >= min && v <= max;
          const valid = inRange(Revision, revision) && inRange(ElicitationSupport, elicitation) && inRange(ApprovalMark, mark) && inRange(GrantState, grant) && inRange(GrantMatch, grantTool) && inRange(GrantMatch, grantKeys) && inRange(GrantMatch, grantRun) && inRange(ApprovalCause, cause) && inRange(ApprovalCause, grantCause) &&
            whole(grantLimit, grantCalls.min, grantCalls.max) && whole(grantLeft, 0, grantLimit) && whole(askLimit, perRun.min, perRun.max) && whole(asked, 0, Number.MAX_SAFE_INTEGER);
          if (!valid) return d.answer === ApprovalAsk.invalid_facts && d.channel === ApprovalChannel.none && d.offer === ApprovalOffer.not_offered;
          if (mark === ApprovalMark.outside_programs_only) return d.answer === ApprovalAsk.refuse_operator_outside_programs;
          const covered = grant === GrantState.held && grantTool === GrantMatch.same && grantKeys === GrantMatch.same && grantRun === GrantMatch.same && grantLeft >= 1 && (cause === ApprovalCause.write || grantCause === ApprovalCause.data_flow);
          if ((d.answer === ApprovalAsk.run_granted) !== covered) return false;
          const form = elicitation === ElicitationSupport.form || elicitation === ElicitationSupport.form_and_url;
          if (d.answer === ApprovalAsk.ask) {
            if (!form || asked + 1 > askLimit) return false;
            return d.channel === (revision === Revision.r2025_11_25 ? ApprovalChannel.elicitation_request : ApprovalChannel.input_required) && d.offer === (grantLimit >= 1 ? ApprovalOffer.offered : ApprovalOffer.not_offered);
          }
          if (d.channel !== ApprovalChannel.none || d.offer !== ApprovalOffer.not_offered) return false;
          if (covered) return true;
          return d.answer === (!form ? (cause === ApprovalCause.data_flow ? ApprovalAsk.refuse_data_flow : ApprovalAsk.refuse_no_elicitation) : ApprovalAsk.refuse_budget);
        }),
        o,
      );
    },
  },
  {
    name: "F1–F4: a call is a flow exactly when the run read private data and the target is egress; otherwise it is judged by its class alone; facts out of range fail closed",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, (privateRead, egress, safety) => {
          const d = core.dataFlow({ privateRead, egress, safety });
          if (!inRange(PrivateRead, privateRead) || !inRange(Egress, egress) || !inRange(ToolClass, safety)) return d === DataFlow.invalid_facts;
          if (privateRead === PrivateRead.read && egress === Egress.yes) return d === DataFlow.approve_flow;
          return d === (safety === ToolClass.read_only ? DataFlow.run : DataFlow.approve_write);
        }),
        o,
      ),
  },
  {
    name: "P8–P10: only an accept runs the call; a malformed or unoffered answer never runs it; a grant only from an offered accept_rest, of exactly approval_grant_calls",
    run: (core, o) => {
      const grantCalls = core.limitRange(Budget.approval_grant_calls);
      fc.assert(
        fc.property(anyCode, anyCode, fc.oneof(fc.integer({ min: -2, max: 120 }), anyNumber), (reply, offer, grantLimit) => {
          const d = core.approvalReply(reply, offer, grantLimit);
          const valid = inRange(ApprovalReply, reply) && inRange(ApprovalOffer, offer) && Number.isInteger(grantLimit) && grantLimit >= grantCalls.min && grantLimit <= grantCalls.max && !(offer === ApprovalOffer.offered && grantLimit < 1);
          if (!valid) return d.outcome === ApprovalOutcome.declined && d.reason === ApprovalOutcomeReason.invalid_facts && d.grant === 0;
          if (d.outcome === ApprovalOutcome.run_and_grant) return reply === ApprovalReply.accept_rest && offer === ApprovalOffer.offered && d.grant === grantLimit && d.reason === ApprovalOutcomeReason.accepted_rest;
          if (d.grant !== 0) return false;
          if (d.outcome === ApprovalOutcome.run_once) return reply === ApprovalReply.accept_once;
          return d.outcome === ApprovalOutcome.declined && reply !== ApprovalReply.accept_once && !(reply === ApprovalReply.accept_rest && offer === ApprovalOffer.offered);
        }),
        o,
      );
    },
  },
  {
    name: "E1/E5: a failed run never carries a value, blocks or view bytes",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.boolean(), anyCode, anyNumber, anyCode, (success, view, blocks, delivery) => {
          const f = core.envelope(success, view, blocks, delivery);
          const payload = EnvelopeFlag.value | EnvelopeFlag.blocks | EnvelopeFlag.view_meta | EnvelopeFlag.view_store | EnvelopeFlag.view_file;
          if ((f & EnvelopeFlag.is_error) !== 0) return (f & payload) === 0 && (f & EnvelopeFlag.error_body) !== 0;
          return success && (f & EnvelopeFlag.value) !== 0 && ((f & (EnvelopeFlag.view_meta | EnvelopeFlag.view_file)) === 0 || view === 1);
        }),
        o,
      ),
  },
  {
    name: "E7: policy and caller errors are never retryable",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, (code) => {
          const r = core.errorRetryable(code);
          if (!inRange(ErrorCode, code)) return r === -1;
          const transient = [ErrorCode.timeout, ErrorCode.unavailable, ErrorCode.rate_limited, ErrorCode.executor_overloaded] as number[];
          return r === (transient.includes(code) ? 1 : 0);
        }),
        o,
      ),
  },
  {
    name: "E8: recovering changes retryability of unavailable only",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, fc.boolean(), (code, recovering) => {
          const r = core.errorRetryableWhen(code, recovering);
          if (code === ErrorCode.unavailable) return r === (recovering ? 1 : 0);
          return r === core.errorRetryable(code);
        }),
        o,
      ),
  },
  {
    name: "R10/R11: a changing or duplicated listing is never read-only",
    run: (core, o) =>
      fc.assert(fc.property(anyCode, anyCode, anyCode, fc.constantFrom(Listing.refreshing, Listing.duplicate), (ro, de, op, listing) => core.classifyTool(ro, de, op, listing).class === ToolClass.approval), o),
  },
  {
    name: "V13: a view key equal to a fixed key is never accepted",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 }), fc.nat(), (keys, pick) => {
          const m = core.manifest;
          const fixed = keys.filter((k) => !["__proto__", "constructor", "prototype"].includes(k));
          if (fixed.length === 0) return true;
          m.binding("b", 1);
          for (const k of fixed) if (m.fixedKey(k) !== ViewCheck.ok) return false;
          return m.viewKey(true, fixed[pick % fixed.length]) === ViewCheck.view_key_is_fixed_key;
        }),
        o,
      ),
  },
  {
    name: "N1–N8: under pin only a matching tool, first sight or a safe-direction annotation change is callable; a quarantine always says why; out-of-range facts quarantine",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, (state, policy, scope, direction) => {
          const d = core.pinGate({ state, policy, scope, direction });
          const valid = inRange(PinState, state) && inRange(PinPolicy, policy) && inRange(PinScope, scope) && inRange(PinDirection, direction);
          if (!valid) return d.answer === PinAnswer.quarantined && d.reason === PinReason.invalid_facts;
          if (policy === PinPolicy.off) return d.answer === PinAnswer.callable;
          if (d.answer === PinAnswer.quarantined) return d.reason !== PinReason.invalid_facts && policy === PinPolicy.pin;
          if (policy === PinPolicy.auto_accept) return d.answer === PinAnswer.callable ? state === PinState.matches : d.answer === PinAnswer.record_and_allow;
          if (d.answer === PinAnswer.record_and_allow) return state === PinState.unpinned;
          return state === PinState.matches || (state === PinState.changed && scope === PinScope.annotations_only && direction === PinDirection.toward_write);
        }),
        o,
      ),
  },
  {
    name: "N5–N8: under pin a new, flagged or unreadable tool, a definition change or a move toward read-only is never callable",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.constantFrom(...values(PinScope)), fc.constantFrom(...values(PinDirection)), fc.constantFrom(PinState.new_tool, PinState.suspicious, PinState.store_unreadable, PinState.changed), (scope, direction, state) => {
          const d = core.pinGate({ state, policy: PinPolicy.pin, scope, direction });
          const safe = state === PinState.changed && scope === PinScope.annotations_only && direction === PinDirection.toward_write;
          return safe ? d.answer === PinAnswer.callable : d.answer === PinAnswer.quarantined;
        }),
        o,
      ),
  },
  {
    name: "N9: accept takes a pending definition only when the word named its shown digest; every other code shows it again",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, (given) => {
          const a = core.pinAccept(given);
          return inRange(PinAccept, a) && (a === PinAccept.accept) === (given === PinGiven.shown);
        }),
        o,
      ),
  },
  {
    name: "N9 through the facts: a word that is not a prefix of the pending digest is never accepted",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.string({ maxLength: 70 }), fc.stringMatching(/^[0-9a-f]{64}$/), (word, pending) => {
          const a = core.pinAccept(pinGivenOf(word, pending));
          return a !== PinAccept.accept || (pending.startsWith(word.toLowerCase()) && word.length >= PIN_SHOWN_DIGEST_CHARS);
        }),
        o,
      ),
  },
  {
    name: "N10: a tool name is listed only when its text is clean; any other code refuses it",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, (text) => (core.toolName(text) === ToolNameAnswer.listed) === (text === ToolNameText.clean)),
        o,
      ),
  },
  {
    name: "G1–G3: a rule grants only a connector it lists, to a principal it names no groups for or shares one with; other codes grant nothing",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, anyCode, (lists, groups) => {
          const r = core.accessRule(lists, groups);
          if (!inRange(RuleLists, lists) || !inRange(RuleGroups, groups)) return r === AccessRule.invalid_facts;
          return (r === AccessRule.grants) === (lists === RuleLists.yes && groups !== RuleGroups.none_shared);
        }),
        o,
      ),
  },
  {
    name: "G4–G6: with rules a connector is usable only when a whole, positive number of rules granted it; open policy always usable; anything else hides it",
    run: (core, o) =>
      fc.assert(
        fc.property(anyCode, fc.oneof(fc.integer({ min: -3, max: 50 }), fc.double()), (policy, granted) => {
          const a = core.access(policy, granted);
          const whole = Number.isInteger(granted) && granted >= 0;
          if (!inRange(AccessPolicy, policy) || !whole) return a === AccessAnswer.invalid_facts;
          if (policy === AccessPolicy.open) return a === AccessAnswer.open;
          return a === (granted >= 1 ? AccessAnswer.granted : AccessAnswer.hidden);
        }),
        o,
      ),
  },
  {
    name: "T1–T14: a token is accepted only when every fact passes and now lies within [nbf − skew, exp + skew); facts out of range never accept",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.array(anyCode, { minLength: 9, maxLength: 9 }), fc.array(fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.double()), { minLength: 4, maxLength: 4 }), ([credentials, form, alg, keys, signature, claims, issuer, audience, scopes], [nowS, expS, nbfS, skewS]) => {
          const d = core.inboundToken({ credentials, form, alg, keys, signature, claims, issuer, audience, nowS, expS, nbfS, skewS, scopes });
          const inRanges = inRange(BearerCredentials, credentials) && inRange(TokenForm, form) && inRange(TokenAlg, alg) && inRange(TokenKeys, keys) && inRange(TokenSignature, signature)
            && inRange(TokenClaims, claims) && inRange(ClaimMatch, issuer) && inRange(ClaimMatch, audience) && inRange(ScopeMatch, scopes)
            && [nowS, expS, nbfS, skewS].every(Number.isFinite) && skewS >= 0;
          if (!inRanges) return d.answer === InboundToken.invalid_token && d.reason === TokenReason.invalid_facts;
          const passes = credentials === BearerCredentials.bearer && form === TokenForm.jws && alg === TokenAlg.allowed && keys === TokenKeys.known && signature === TokenSignature.valid
            && claims === TokenClaims.wellformed && issuer === ClaimMatch.match && audience === ClaimMatch.match && scopes === ScopeMatch.all && nowS < expS + skewS && nbfS <= nowS + skewS;
          return (d.answer === InboundToken.accept) === passes && (d.reason === TokenReason.none) === passes;
        }),
        o,
      ),
  },
  {
    name: "T4: tokenAlg allows exactly the ten asymmetric names, whatever else a string holds",
    run: (core, o) =>
      fc.assert(
        fc.property(fc.oneof(fc.string(), fc.constantFrom("RS256", "PS384", "ES512", "EdDSA", "none", "HS256", "rs256")), (alg) =>
          (core.tokenAlg(alg) === TokenAlg.allowed) === ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"].includes(alg)),
        o,
      ),
  },
  {
    name: "O13: a team login's code goes only to atrium's own callback, https or http on loopback, without userinfo or fragment; out-of-range facts as invalid_facts",
    run: (core, o) => {
      fc.assert(
        fc.property(anyCode, anyCode, anyCode, anyCode, anyCode, (scheme, host, userinfo, fragment, place) => {
          const d = core.oauthTeamRedirect({ scheme, host, userinfo, fragment, place });
          if (!inRange(RedirectScheme, scheme) || !inRange(RedirectHost, host) || !inRange(UrlPart, userinfo) || !inRange(UrlPart, fragment) || !inRange(CallbackPlace, place)) return d === OAuthTeamRedirect.invalid_facts;
          const tls = scheme === RedirectScheme.https || (scheme === RedirectScheme.http && host !== RedirectHost.other);
          const ok = tls && place === CallbackPlace.own_callback && userinfo === UrlPart.absent && fragment === UrlPart.absent;
          return (d === OAuthTeamRedirect.accepted) === ok && inRange(OAuthTeamRedirect, d) && d !== OAuthTeamRedirect.invalid_facts;
        }),
        o,
      );
      fc.assert(
        fc.property(redirectUri, fc.constantFrom("https://atrium.example", "http://127.0.0.1:8787", "https://127.0.0.1/team/"), (uri, base) => {
          if (core.oauthTeamRedirect(teamRedirectFacts(uri, teamCallbackUrl(base))) !== OAuthTeamRedirect.accepted) return true;
          const u = new URL(uri);
          const own = new URL(teamCallbackUrl(base));
          return u.origin === own.origin && u.pathname === own.pathname && u.username === "" && u.password === "" && u.hash === "" && (u.protocol === "https:" || LOOPBACK_HOSTNAMES.includes(u.hostname));
        }),
        o,
      );
    },
  },
  {
    name: "garbage never traps the wasm and always yields a defined code",
    run: (core, o) =>
      fc.assert(
        fc.property(anything, anything, anything, anything, (a, b, c, d) => {
          const x = core as any;
          const codes = [
            core.classifyTool(a as number, b as number, c as number, d as number).class,
            core.detectHost({ ext: a as number, mime: b as number, appMime: c as boolean, override: d as number, fileFallback: a as boolean }).kind,
            x.manifest.begin(a, b), x.manifest.binding(a, b), x.manifest.key(a), x.manifest.address(a, b), x.manifest.fixedArgs(a),
            x.manifest.fixedKey(a), x.manifest.viewArgs(a, b), x.manifest.viewKey(a, b),
            x.appCall(a, b, c, d).reason, x.appResult(a, b, c).reason, x.appResource(a, b),
            x.approvalAsk({ revision: a, elicitation: b, mark: c, grant: d, grantTool: a, grantKeys: b, grantRun: c, grantLeft: d, asked: a, askLimit: b, grantLimit: c, cause: d, grantCause: a }).answer, x.dataFlow({ privateRead: b, egress: c, safety: d }),
            x.approvalReply(a, b, c).reason,
            x.oauthRedirect({ scheme: a, host: b, userinfo: c, fragment: d }), x.oauthOffer(a, b), x.oauthUnauthorized(c, d, a), x.oauthChannel(a, b),
            x.oauthResource({ prm: a, origin: b, path: c }), x.oauthIssuer(d), x.oauthTeamRedirect({ scheme: a, host: b, userinfo: c, fragment: d, place: a }), x.oauthRefresh({ refreshToken: a, expiry: b, remainingMs: c, leadMs: d }), x.oauthForbidden({ forbidden: a, growth: b, scopeChars: c, maxChars: d }), x.oauthGrant(c, d),
            x.pinGate({ state: a, policy: b, scope: c, direction: d }).reason, x.pinAccept(a), x.toolName(b), x.accessRule(c, d), x.access(a, b), x.tokenAlg(a),
            x.inboundToken({ credentials: a, form: b, alg: c, keys: d, signature: a, claims: b, issuer: c, audience: d, nowS: a, expS: b, nbfS: c, skewS: d, scopes: a }).reason,
          ];
          const checks = [x.limitAccepts(a, b), x.budgetCheck(a, b, c, d)];
          const room = x.budgetRoom(a, b, c);
          const grant = x.approvalReply(a, b, c).grant;
          const env = x.envelope(a, b, c, d);
          return (
            codes.every((v) => Number.isInteger(v) && v >= 0 && v <= 21) &&
            inRange(LimitCheck, checks[0]) && inRange(BudgetCheck, checks[1]) &&
            (room === -1 || room >= 0) && Number.isInteger(env) && env > 0 && Number.isInteger(grant) && grant >= 0 && grant <= core.limitRange(Budget.approval_grant_calls).max &&
            typeof x.mimeIsApp(a) === "boolean" && typeof x.nameIsValid(a) === "boolean" && [-1, 0, 1].includes(x.errorRetryable(a)) && [-1, 0, 1].includes(x.errorRetryableWhen(a, b)) &&
            (x.limitDefault(a) === -1 || x.limitDefault(a) > 0)
          );
        }),
        o,
      ),
  },
];
