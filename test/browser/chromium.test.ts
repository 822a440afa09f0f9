import { afterEach, describe, expect, it } from "vitest";
import { chromiumPath, INSTALL_COMMAND } from "./chromium.js";

describe("finding Chromium for the browser suites", () => {
  const saved = process.env.CHROMIUM_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = saved;
  });

  it("fails with exactly the install command when the browser is missing, instead of skipping", () => {
    process.env.CHROMIUM_PATH = "/nonexistent/chromium";
    expect(() => chromiumPath()).toThrow(new Error(INSTALL_COMMAND));
    expect(INSTALL_COMMAND).toBe("apt-get update && apt-get install -y chromium");
  });

  it("uses CHROMIUM_PATH when it names an existing file, else /usr/bin/chromium", () => {
    delete process.env.CHROMIUM_PATH;
    expect(chromiumPath()).toBe("/usr/bin/chromium");
    process.env.CHROMIUM_PATH = "/usr/bin/chromium";
    expect(chromiumPath()).toBe("/usr/bin/chromium");
  });
});
