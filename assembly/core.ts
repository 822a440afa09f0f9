// atrium decision core: the entry point asc compiles to wasm/core.wasm.
// Every export takes plain numbers, flags and strings and returns a code (spec/*.md).
export { mimeIsApp, detectHost, appOnly } from "./host";
export { classifyTool } from "./readonly";
export { nameIsValid, vmBegin, vmBinding, vmKey, vmAddress, vmFixedArgs, vmFixedKey, vmViewArgs, vmViewKey } from "./manifest";
export { limitDefault, limitMin, limitMax, limitAccepts, budgetCheck, budgetRoom } from "./budgets";
export { envelope, errorRetryable, errorRetryableWhen } from "./envelope";
export { appCall, appResult, appResource } from "./apps";
export { approvalAsk, approvalReply, downstreamAsk, downstreamOwner } from "./approvals";
export { oauthRedirect, oauthOffer, oauthUnauthorized, oauthChannel, oauthResource, oauthIssuer, oauthTokenIssuer, oauthRefresh, oauthAuthorizationUrl, oauthMetadataLocation, oauthTeamRedirect, oauthForbidden, oauthGrant } from "./oauth";
export { pinAccept, pinGate, toolName } from "./pins";
export { access, accessRule } from "./access";
export { dataFlow } from "./data-flow";
export { inboundToken, tokenAlg } from "./tokens";
