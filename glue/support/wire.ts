// Numbers that other protocols and platforms fix, named once, for the cases the MCP SDK has no
// name for (JSON-RPC's own error codes are the SDK's ProtocolErrorCode: use that first). None of them is a
// bound (bounds are in spec/bounds.md); this file is on the numeric-literal allow-list of
// test/architecture.test.ts.

/**
 * atrium's own JSON-RPC error code, from the range JSON-RPC leaves to implementations (-32000 to
 * -32099): the answer of a connector that was dropped unread (over downstream_line_bytes or
 * downstream_depth; connectors/dropped-answer.ts). Connector.callError turns it into result_too_large.
 */
export const DROPPED_ANSWER_CODE = -32090;

/** HTTP status codes atrium answers with (the demo host) or reads (remote connectors). */
export const HTTP_STATUS = {
  ok: 200,
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  accepted: 202,
  requestTimeout: 408,
  payloadTooLarge: 413,
  headersTooLarge: 431,
  tooManyRequests: 429,
  unavailable: 503,
  /** Statuses whose answers carry no body. */
  noContent: 204,
  notModified: 304,
  /** The first server error; 5xx. */
  serverError: 500,
} as const;

/** The JSON-RPC error code the SDK's Streamable HTTP transport answers an unknown or missing session with. */
export const JSONRPC_SESSION_NOT_FOUND = -32001;
/** atrium's JSON-RPC error code for a request refused at the HTTP door as rate_limited (the typed error is in its data). */
export const JSONRPC_RATE_LIMITED = -32029;

/** POSIX permission bits: a file and a directory only their owner may use, and the group and other bits. */
export const FILE_MODE_PRIVATE = 0o600;
export const DIR_MODE_PRIVATE = 0o700;
export const MODE_GROUP_OTHER = 0o077;

/** Exit status of a command line that could not be parsed (usage error). */
export const EXIT_USAGE = 2;
/** Exit status of a command whose stdout reader went away (EPIPE): 128 + SIGPIPE, as a Unix tool killed by SIGPIPE. */
export const EXIT_OUTPUT_CLOSED = 141;
/** The highest TCP port. */
export const PORT_MAX = 65535;
/** A WebAssembly memory page. */
export const WASM_PAGE_BYTES = 65536;
/** A compact JWS (RFC 7515 §7.1) is three base64url parts: header, payload, signature. */
export const JWS_COMPACT_PARTS = 3;

/** Headers of a short plain-text page a browser is answered with (a login's redirect landing): never cached. */
export const PLAIN_PAGE = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } as const;
