// How values are shown to people and written for them. None of them bounds anything (bounds are
// in spec/bounds.md); this file is on the numeric-literal allow-list of test/architecture.test.ts.

export const MS_PER_SECOND = 1000;

/** Indentation of JSON written for people: generated files, the build record, config snippets. */
export const JSON_INDENT = 2;
