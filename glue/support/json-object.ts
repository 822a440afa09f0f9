// The one test for "a JSON object" (not null, not an array) that every reader of untrusted JSON uses.
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
