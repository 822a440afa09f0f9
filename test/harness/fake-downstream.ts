// A test's Downstream port: every connector id links to one fake whose tools/call is `call`
// (granted as app.ts grants the real one, so invoke.ts opens it the same way).
import { DownstreamAccess, type DownstreamLink } from "../../glue/calls/invoke.js";
import { AtriumError } from "../../glue/support/errors.js";

export function fakeDownstream(call: (name: string) => Promise<{ content: unknown[] }>): DownstreamAccess {
  const link: DownstreamLink = {
    call: async (name) => (await call(name)) as never,
    readResource: async () => ({}),
    prompts: async () => ({}),
    offersPrompts: () => false,
    ready: () => true,
    stopped: () => false,
    redactsSecrets: () => true,
    unavailable: () => new AtriumError("unavailable", "the fake connector is unavailable"),
  };
  return DownstreamAccess.grant({ link: () => link });
}
