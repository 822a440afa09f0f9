// Per-user logins in the store are sealed with AES-256-GCM under ATRIUM_STORE_KEY, the store key
// as additional data: they open only with the same key and only under the key they were sealed
// for; a malformed ATRIUM_STORE_KEY is refused with what it must hold.
import { describe, expect, it } from "vitest";
import { open, seal, storeKeyOf } from "../glue/store/login-cipher.js";

const key = Buffer.alloc(32, 1);

describe("sealed logins", () => {
  it("open what was sealed, with the same key and the same store key only", () => {
    const sealed = seal(key, '{"tokens":"secret"}', "atrium:login:aaa");
    expect(sealed).not.toContain("secret");
    expect(open(key, sealed, "atrium:login:aaa")).toBe('{"tokens":"secret"}');
    expect(open(key, sealed, "atrium:login:bbb")).toBeUndefined();
    expect(open(Buffer.alloc(32, 2), sealed, "atrium:login:aaa")).toBeUndefined();
    const raw = Buffer.from(sealed, "base64");
    raw[raw.length - 1] ^= 1;
    expect(open(key, raw.toString("base64"), "atrium:login:aaa")).toBeUndefined();
    expect(open(key, "", "atrium:login:aaa")).toBeUndefined();
  });

  it("two seals of one text differ (a fresh IV each)", () => {
    expect(seal(key, "x", "k")).not.toBe(seal(key, "x", "k"));
  });

  it("ATRIUM_STORE_KEY: 32 bytes in base64 or hex; anything else is refused saying what it must hold", () => {
    expect(storeKeyOf(Buffer.alloc(32, 3).toString("base64"))).toEqual(Buffer.alloc(32, 3));
    expect(storeKeyOf("03".repeat(32))).toEqual(Buffer.alloc(32, 3));
    expect(storeKeyOf(undefined)).toBe("ATRIUM_STORE_KEY is not set");
    expect(storeKeyOf("")).toBe("ATRIUM_STORE_KEY is not set");
    expect(storeKeyOf("short")).toMatch(/must hold 32 random bytes, in base64 or hex/);
    expect(storeKeyOf(Buffer.alloc(16).toString("base64"))).toMatch(/must hold 32/);
  });
});
