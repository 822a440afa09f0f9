// The always-loaded server instructions (≤ instructions_chars; a test holds it to that budget).
export const INSTRUCTIONS = [
  "atrium fronts several MCP servers. Their tools are not listed directly.",
  "Find them with search_tools (addresses are <connector>.<tool>, each read_only or approval).",
  "call_tool runs one read-only tool; call_destructive_tool runs a tool that may write, only after the person approves.",
  "Large results are cut and paged with get_result.",
  "Read skills { name: \"usage\" } once per task for the details.",
].join(" ");
