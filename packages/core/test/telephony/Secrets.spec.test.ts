import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { decryptConfig, encryptConfig, maskConfig, maskSecret, mergeMaskedUpdate, SecretBox } from "../../src/telephony/Secrets.js"
import { twilio } from "./fields.js"

describe("masking", () => {
  it.each([["", ""], ["abc", "***"], ["abcd", "****"], ["abcde", "*bcde"], ["0123456789abcdefghij", "****************ghij"]])("%s → %s", (v, m) => {
    expect(maskSecret(v)).toBe(m)
  })
  it("masks only sensitive fields, and a masked value sent back keeps the stored secret", () => {
    const stored = { account_sid: "AC123456789", auth_token: "token-abcdef", amd_enabled: false }
    const masked = maskConfig(twilio, stored)
    expect(masked).toEqual({ account_sid: "*******6789", auth_token: "********cdef", amd_enabled: false })
    expect(mergeMaskedUpdate(twilio, stored, masked)).toEqual(stored)
    expect(mergeMaskedUpdate(twilio, stored, { ...masked, auth_token: "new-token" })).toEqual({ ...stored, auth_token: "new-token" })
  })
})

describe("SecretBox", () => {
  const box = SecretBox.make(Redacted.make("server-secret"))
  it("round-trips, with a fresh IV each time and no plaintext in the ciphertext", () => {
    const a = box.encrypt("my-auth-token")
    const b = box.encrypt("my-auth-token")
    expect(a).not.toBe(b)
    expect(a).not.toContain("my-auth-token")
    expect(box.decrypt(a)).toBe("my-auth-token")
    const config = { account_sid: "AC1", auth_token: "tok", amd_enabled: true }
    const sealed = encryptConfig(twilio, config, box)
    expect(sealed.amd_enabled).toBe(true)
    expect(String(sealed.auth_token).startsWith("v1:")).toBe(true)
    expect(decryptConfig(twilio, sealed, box)).toEqual(config)
  })
  it("another key, or a tampered value, does not decrypt", () => {
    const sealed = box.encrypt("secret")
    expect(() => SecretBox.make(Redacted.make("other")).decrypt(sealed)).toThrow()
    const [v, iv, tag, body] = sealed.split(":")
    const flipped = Buffer.from(body!, "base64")
    flipped[0] = flipped[0]! ^ 1
    expect(() => box.decrypt([v, iv, tag, flipped.toString("base64")].join(":"))).toThrow()
  })
})
