// The OS keyring as a token store (@napi-rs/keyring: Secret Service on Linux, Keychain on
// macOS, Credential Manager on Windows): one secret, service "atrium", account "oauth". Loaded
// outside the bundle (a native module), and only when the keyring is not turned off. Without a
// reachable keyring (no Secret Service, a locked one) every call throws; store.ts then uses the file.
import { createRequire } from "node:module";

interface KeyringEntry { getPassword(): string | null; setPassword(p: string): void }
interface KeyringModule { Entry: new (service: string, account: string) => KeyringEntry }

export class KeyringSecret {
  private readonly entry: KeyringEntry;

  constructor() {
    const mod = createRequire(import.meta.url)("@napi-rs/keyring") as KeyringModule;
    this.entry = new mod.Entry("atrium", "oauth");
  }

  read(): string | undefined {
    return this.entry.getPassword() ?? undefined;
  }

  write(text: string): void {
    this.entry.setPassword(text);
  }
}
