// How values are shown to people and written for them: unit conversions, JSON indentation, the
// rounding of reported timings, the columns of CLI text. None of them bounds anything (bounds are
// in spec/bounds.md); this file is on the numeric-literal allow-list of test/architecture.test.ts.

export const MS_PER_SECOND = 1000;
/** A minute, for rates stated per minute (principal_requests_per_minute). */
export const MS_PER_MINUTE = 60_000;
/** The demo's "KB". */
export const BYTES_PER_KIB = 1024;

/** Indentation of JSON written for people: generated files, the build record, config snippets. */
export const JSON_INDENT = 2;

/** A reported timing (execute_code diagnostics): milliseconds to two decimals. */
export const roundMs = (ms: number): number => Math.round(ms * 100) / 100;

/** Column widths of CLI tables: atrium serve's connector lines, atrium demo's search rows. */
export const CLI_COLUMNS = {
  connectorId: 16,
  connectorState: 10,
  address: 26,
  safety: 9,
} as const;
