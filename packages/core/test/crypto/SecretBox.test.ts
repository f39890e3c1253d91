import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Redacted } from "effect"
import { SecretBox, SecretDecryptionError } from "../../src/crypto/SecretBox.js"

const box = SecretBox.make(Redacted.make("correct horse battery staple"))

describe("SecretBox", () => {
  it("seals as v1:<iv>:<tag>:<ciphertext> with a 12-byte IV and a 16-byte tag", () => {
    const [version, iv, tag, body, ...rest] = box.encrypt("twilio-token").split(":")
    expect(version).toBe("v1")
    expect(Buffer.from(iv!, "base64")).toHaveLength(12)
    expect(Buffer.from(tag!, "base64")).toHaveLength(16)
    expect(Buffer.from(body!, "base64")).toHaveLength(Buffer.byteLength("twilio-token"))
    expect(rest).toEqual([])
  })

  it("round-trips any text, with a fresh IV every time and no plaintext in sight (property)", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string({ unit: "grapheme", maxLength: 200 }), (plain) => {
      const a = box.encrypt(plain)
      const b = box.encrypt(plain)
      expect(a).not.toBe(b)
      expect(box.decrypt(a)).toBe(plain)
      expect(box.decrypt(b)).toBe(plain)
    }))
    const secret = "sk_live_0123456789abcdef"
    const sealed = box.encrypt(secret)
    expect(sealed).not.toContain(secret)
    expect(sealed).not.toContain(Buffer.from(secret).toString("base64"))
  })

  it("refuses another key, a tampered value, and things that are not sealed values", () => {
    const sealed = box.encrypt("secret-value")
    const other = SecretBox.make(Redacted.make("another server key"))
    expect(() => other.decrypt(sealed)).toThrow(SecretDecryptionError)
    expect(() => other.decrypt(sealed)).toThrow(/server secret key differs/)
    const [v, iv, tag, body] = sealed.split(":")
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, "base64")
      bytes[0] = bytes[0]! ^ 1
      return bytes.toString("base64")
    }
    for (const tampered of [[v, iv, tag, flip(body!)], [v, iv, flip(tag!), body], [v, flip(iv!), tag, body]]) {
      expect(() => box.decrypt(tampered.join(":"))).toThrow(SecretDecryptionError)
    }
    for (const junk of ["secret-value", "", "v2:a:b:c", "v1:a:b", `v1:${iv}:${tag}:${body}:extra`, `v1:AAAA:${tag}:${body}`]) {
      expect(() => box.decrypt(junk)).toThrow(SecretDecryptionError)
    }
  })

  it("never puts the secret or the key in its errors", () => {
    const sealed = box.encrypt("secret-value")
    try {
      SecretBox.make(Redacted.make("another server key")).decrypt(sealed)
      expect.unreachable()
    } catch (error) {
      expect(String(error)).not.toContain("secret-value")
      expect(String(error)).not.toContain("another server key")
    }
  })

  it("derives the same key from a string secret and its bytes, and refuses an empty secret", () => {
    const fromBytes = SecretBox.make(new TextEncoder().encode("correct horse battery staple"))
    expect(fromBytes.decrypt(box.encrypt("x"))).toBe("x")
    expect(() => SecretBox.make(Redacted.make(""))).toThrow(/empty/)
    expect(() => SecretBox.make(new Uint8Array())).toThrow(/empty/)
  })

  it.effect("is provided by SecretBox.layer", () =>
    Effect.gen(function*() {
      const service = yield* SecretBox
      expect(box.decrypt(service.encrypt("from the layer"))).toBe("from the layer")
    }).pipe(Effect.provide(SecretBox.layer(Redacted.make("correct horse battery staple")))))
})
