import { describe, expect, it } from "@effect/vitest"
import { FastCheck, Redacted } from "effect"
import { SecretBox, SecretDecryptionError } from "../../src/crypto/SecretBox.js"
import { decryptConfig, encryptConfig, maskConfig, maskSecret, mergeMaskedUpdate, sensitiveFields } from "../../src/telephony/Secrets.js"
import type { ProviderField } from "../../src/telephony/TelephonyProvider.js"
import { ari, vonage } from "./fields.js"

const field = (name: string, sensitive: boolean): ProviderField => ({ name, label: name, type: "text", required: false, sensitive })
const shape = { fields: [field("token", true), field("key", true), field("name", false)] }

const box = SecretBox.make(Redacted.make("correct horse battery staple"))

describe("maskSecret", () => {
  it.each([
    ["", ""],
    ["a", "*"],
    ["abcd", "****"],
    ["abcde", "*bcde"],
    ["12345678", "****5678"],
    ["super-secret-auth-token-1234", "************************1234"]
  ])("%j → %j", (value, masked) => {
    expect(maskSecret(value)).toBe(masked)
  })

  it("keeps the length, hides everything but the last four characters (property)", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string({ maxLength: 64 }), (value) => {
      const masked = maskSecret(value)
      expect(masked.length).toBe(value.length)
      const shown = value.length <= 4 ? 0 : 4
      expect(masked.slice(0, value.length - shown)).toBe("*".repeat(value.length - shown))
      expect(masked.slice(value.length - shown)).toBe(value.slice(value.length - shown))
    }))
  })
})

describe("masking a config", () => {
  it("lists the sensitive fields of a provider", () => {
    expect(sensitiveFields(vonage)).toEqual(["api_key", "api_secret", "private_key", "signature_secret"])
    expect(sensitiveFields(ari)).toEqual(["app_password"])
  })

  it("masks sensitive strings only; empty and absent values stay as they are", () => {
    expect(maskConfig(shape, { token: "abcdefgh", key: "", name: "visible-name", extra: 1 }))
      .toEqual({ token: "****efgh", key: "", name: "visible-name", extra: 1 })
    expect(maskConfig(shape, { name: "n" })).toEqual({ name: "n" })
    expect(maskConfig(ari, { ari_endpoint: "http://pbx:8088", app_name: "user", app_password: "pbx-password", ws_client_name: "" }))
      .toEqual({ ari_endpoint: "http://pbx:8088", app_name: "user", app_password: "********word", ws_client_name: "" })
  })

  it("does not change its input", () => {
    const stored = { token: "abcdefgh", name: "n" }
    maskConfig(shape, stored)
    expect(stored).toEqual({ token: "abcdefgh", name: "n" })
  })
})

describe("mergeMaskedUpdate", () => {
  it("a masked config sent back gives back the stored secrets (property)", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ maxLength: 40 }), FastCheck.string({ maxLength: 40 }), FastCheck.string(), (token, key, name) => {
        const stored = { token, key, name }
        expect(mergeMaskedUpdate(shape, stored, maskConfig(shape, stored))).toEqual(stored)
      })
    )
  })

  it.each([
    ["a new secret replaces the stored one", { token: "brand-new-token" }, { token: "brand-new-token" }],
    ["the mask of the stored secret keeps it", { token: "******************cdef" }, { token: "long-secret-token-cdef" }],
    ["a mask of another length is a new value", { token: "****cdef" }, { token: "****cdef" }],
    ["an empty value clears it", { token: "" }, { token: "" }],
    ["absent fields stay absent (the caller merges partial updates)", {}, {}],
    ["non-sensitive fields are taken as sent, even if they look masked", { name: "****-name" }, { name: "****-name" }]
  ])("%s", (_, incoming, expected) => {
    const stored = { token: "long-secret-token-cdef", name: "the-name" }
    expect(mergeMaskedUpdate(shape, stored, incoming)).toEqual(expected)
  })

  it("a masked-looking value with nothing stored is kept as sent", () => {
    expect(mergeMaskedUpdate(shape, {}, { token: "****" })).toEqual({ token: "****" })
    expect(mergeMaskedUpdate(shape, { token: "" }, { token: "" })).toEqual({ token: "" })
  })

  it("works for a real provider: a GET body PUT back unchanged keeps every secret", () => {
    const stored = {
      api_key: "abcd1234",
      api_secret: "vonage-secret",
      application_id: "app-0001",
      private_key: "-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----",
      signature_secret: "sig"
    }
    const masked = maskConfig(vonage, stored)
    expect(masked.application_id).toBe("app-0001")
    expect(masked.signature_secret).toBe("***")
    expect(mergeMaskedUpdate(vonage, stored, masked)).toEqual(stored)
  })
})

describe("encrypting a config", () => {
  const stored = {
    api_key: "abcd1234",
    api_secret: "vonage-secret",
    application_id: "app-0001",
    private_key: "-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----",
    signature_secret: ""
  }

  it("seals the sensitive values only and opens them again", () => {
    const sealed = encryptConfig(vonage, stored, box)
    expect(sealed.application_id).toBe("app-0001")
    expect(sealed.signature_secret).toBe("")
    for (const name of ["api_key", "api_secret", "private_key"]) {
      expect(String(sealed[name])).toMatch(/^v1:/)
      expect(JSON.stringify(sealed)).not.toContain(String(stored[name as keyof typeof stored]))
    }
    expect(decryptConfig(vonage, sealed, box)).toEqual(stored)
  })

  it("cannot be opened with another key", () => {
    const sealed = encryptConfig(vonage, stored, box)
    expect(() => decryptConfig(vonage, sealed, SecretBox.make(Redacted.make("wrong")))).toThrow(SecretDecryptionError)
  })

  it("masks what it opens: store, read back, mask, PUT back, store again gives the same secrets", () => {
    const sealed = encryptConfig(vonage, stored, box)
    const shown = maskConfig(vonage, decryptConfig(vonage, sealed, box))
    const merged = mergeMaskedUpdate(vonage, decryptConfig(vonage, sealed, box), shown)
    expect(decryptConfig(vonage, encryptConfig(vonage, merged, box), box)).toEqual(stored)
  })
})
