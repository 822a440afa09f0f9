// The environment a stdio connector's child starts with: the SDK's bare set (HOME, LOGNAME,
// PATH, SHELL, TERM, USER; its own list on Windows) and, unless the entry sets
// "inheritEnv": false, what a server needs to reach the network from where atrium runs (proxy
// variables in either case, extra CA certificates, npm's settings) and the locale and temp-dir
// variables; then the entry's own `env` over them. Nothing else of atrium's environment (tokens,
// keys, other settings) is passed on.
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";

/** Proxy variables, read in either case (curl, npm, Node and most HTTP libraries honour both). */
const PROXY = new Set(["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "NODE_USE_ENV_PROXY"]);
/** Certificates, locale and temp directories, by exact name. */
const EXACT = new Set(["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "LANG", "LANGUAGE", "TMPDIR", "TMP", "TEMP"]);
/** npm's settings (a registry, its auth, a cache, a CA file), which npm reads in either case; the locale categories. */
const isPrefixed = (name: string) => name.toLowerCase().startsWith("npm_config_") || name.startsWith("LC_");

/** Whether atrium passes `name` on to a child that inherits (the default). */
const passedOn = (name: string): boolean => PROXY.has(name.toUpperCase()) || EXACT.has(name) || isPrefixed(name);

export function childEnvironment(entryEnv: Record<string, string>, inheritEnv: boolean): Record<string, string> {
  const env: Record<string, string> = getDefaultEnvironment();
  if (inheritEnv) {
    for (const [name, value] of Object.entries(process.env)) {
      // A value starting with "()" is an exported shell function, never a setting (the SDK skips them too).
      if (value !== undefined && !value.startsWith("()") && passedOn(name)) env[name] = value;
    }
  }
  return { ...env, ...entryEnv };
}
