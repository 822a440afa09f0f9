// Keys other hosts write in a server entry for themselves, which atrium does not read: a config
// copied from one of them (the README says atrium can point at an existing host config) loads,
// each such key a warning naming the hosts that write it and what atrium reads instead. Matched
// exactly; anything else unknown stays an error (with a did-you-mean for a near miss of atrium's
// own keys). docs/reference.md "Keys other hosts write" shows this table.

interface HostKey {
  /** The hosts that write the key, as their users know them. */
  hosts: readonly string[];
  /** What atrium reads instead, or why it needs nothing. */
  instead: string;
}

const HOST_KEYS: Readonly<Record<string, HostKey>> = {
  autoApprove: { hosts: ["Cline"], instead: `atrium asks for approval by its own rules; list tools that only read in "readOnlyTools"` },
  alwaysAllow: { hosts: ["Roo Code"], instead: `atrium asks for approval by its own rules; list tools that only read in "readOnlyTools"` },
  timeout: { hosts: ["Cline", "Roo Code", "Gemini CLI", "Goose"], instead: `atrium reads "timeoutMs" (milliseconds)` },
  transportType: { hosts: ["Cline"], instead: `atrium reads "type", or tells stdio ("command") from remote ("url") by itself` },
  disabledTools: { hosts: ["Roo Code", "Windsurf"], instead: `every tool of the server is listed; put those that may write behind approval with "approvalTools"` },
  watchPaths: { hosts: ["Roo Code"], instead: "atrium restarts a connector when its entry changes" },
  envFile: { hosts: ["VS Code", "Cursor"], instead: `copy the variables the server needs into "env"` },
  dev: { hosts: ["VS Code"], instead: "no development mode: atrium restarts a connector when its entry changes" },
  gallery: { hosts: ["VS Code"], instead: "nothing: it records where VS Code installed the server from" },
  version: { hosts: ["VS Code"], instead: "nothing: it records the version VS Code installed" },
  serverUrl: { hosts: ["Windsurf"], instead: `atrium reads the address of a remote server from "url"` },
  httpUrl: { hosts: ["Gemini CLI"], instead: `atrium reads the address of a remote server from "url"` },
  trust: { hosts: ["Gemini CLI"], instead: `atrium asks for approval by its own rules; list tools that only read in "readOnlyTools"` },
  includeTools: { hosts: ["Gemini CLI"], instead: `every tool of the server is listed; put those that may write behind approval with "approvalTools"` },
  excludeTools: { hosts: ["Gemini CLI"], instead: `every tool of the server is listed; put those that may write behind approval with "approvalTools"` },
  description: { hosts: ["Gemini CLI", "Goose"], instead: "atrium shows each tool's own description" },
  enabled: { hosts: ["Goose", "Zed"], instead: `atrium reads "disabled": true to keep an entry without starting it` },
};

/** The warning for a key another host writes, or undefined when no host in the table writes it. */
export function hostKeyWarning(key: string): string | undefined {
  const k = Object.hasOwn(HOST_KEYS, key) ? HOST_KEYS[key] : undefined;
  return k && `${k.hosts.join(", ")} ${k.hosts.length === 1 ? "writes" : "write"} this key; it is not read by atrium and is ignored (${k.instead})`;
}
