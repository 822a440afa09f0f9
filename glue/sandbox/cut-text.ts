// The one way a text is cut at a limit: its first `max` characters and a marker giving its true
// length. The prelude (guest code) applies the same rule to the texts a run reports.
export const cutText = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max)}… [cut: ${s.length} characters]`);
