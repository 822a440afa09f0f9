// Where a team-mode login's browser comes back (spec/oauth.md O13): atrium's own callback under
// the base URL people reach it at. Named once for the HTTP server, serve, and the spec's examples.

export const OAUTH_CALLBACK_PATH = "/oauth/callback";

/** atrium's own login callback under its public base URL (a trailing `/` of the base is not doubled). */
export const teamCallbackUrl = (base: string): string => `${base.replace(/\/+$/, "")}${OAUTH_CALLBACK_PATH}`;
