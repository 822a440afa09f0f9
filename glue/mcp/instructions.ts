// The always-loaded server instructions (≤ instructions_chars; a test holds it to that budget).
export const INSTRUCTIONS = [
  "atrium fronts several MCP servers. Their tools are not listed directly.",
  "Find them with search_tools (addresses are <connector>.<tool>, each read_only or approval).",
  "Prefer execute_code: one JavaScript program that searches, calls many read-only tools and returns only what the answer needs.",
  "Inside it, atrium.ui(html) shows the person a view; it is a program function, not a tool or a search result, and the program must also return the summary the view shows (you read the return value, not the view).",
  "call_tool runs one read-only tool; call_destructive_tool runs a tool that may write, only after the person approves.",
  "Large results are cut and paged with get_result.",
  "On auth_required, call authorize_connector and show the person the login URL it gives.",
  "Read skills { name: \"usage\" } once per task for the details.",
].join(" ");
