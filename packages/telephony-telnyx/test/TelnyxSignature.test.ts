import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Crypto from "node:crypto"
import { Telnyx } from "../src/index.js"

const { Signature } = Telnyx
const keys = Crypto.generateKeyPairSync("ed25519")
const other = Crypto.generateKeyPairSync("ed25519")
const publicKey = Signature.publicKey(Signature.publicKeyBase64(keys.publicKey))
const body = new TextEncoder().encode(JSON.stringify({ data: { event_type: "call.initiated", payload: {} } }))
const at = 1_760_000_000

const signed = (timestamp: number, rawBody: Uint8Array, privateKey = keys.privateKey) => ({
  "telnyx-timestamp": String(timestamp),
  "telnyx-signature-ed25519": Signature.sign(privateKey, timestamp, rawBody)
})

describe("telnyx webhook signatures", () => {
  it("accept the portal's base64 key, a DER key and a PEM key; refuse anything else", () => {
    const der = keys.publicKey.export({ format: "der", type: "spki" }).toString("base64")
    const pem = keys.publicKey.export({ format: "pem", type: "spki" }).toString()
    for (const text of [Signature.publicKeyBase64(keys.publicKey), der, pem, ` ${der}\n`]) {
      expect(Signature.verify(Signature.publicKey(text), signed(at, body), body, at * 1000)).toBe(true)
    }
    const rsa = Crypto.generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "pem", type: "spki" }).toString()
    for (const text of [undefined, "", "not a key", "MCowBQYDK2VwAyEA", rsa]) expect(Signature.publicKey(text)).toBeUndefined()
  })

  it("verify a signed webhook, with any header spelling, within five minutes either way", () => {
    expect(Signature.verify(publicKey, signed(at, body), body, at * 1000)).toBe(true)
    const shouted = { "Telnyx-Timestamp": String(at), "Telnyx-Signature-Ed25519": Signature.sign(keys.privateKey, at, body) }
    expect(Signature.verify(publicKey, shouted, body, at * 1000)).toBe(true)
    expect(Signature.verify(publicKey, signed(at, body), body, (at + 300) * 1000)).toBe(true)
    expect(Signature.verify(publicKey, signed(at, body), body, (at - 300) * 1000)).toBe(true)
  })

  it("refuse a replay after the tolerance, another body, another key, missing or malformed headers, no key", () => {
    expect(Signature.verify(publicKey, signed(at, body), body, (at + 301) * 1000)).toBe(false)
    expect(Signature.verify(publicKey, signed(at, body), body, (at - 301) * 1000)).toBe(false)
    expect(Signature.verify(publicKey, signed(at, body), new TextEncoder().encode("{}"), at * 1000)).toBe(false)
    expect(Signature.verify(publicKey, signed(at, body, other.privateKey), body, at * 1000)).toBe(false)
    // The timestamp is signed: moving it forward breaks the signature.
    expect(Signature.verify(publicKey, { ...signed(at, body), "telnyx-timestamp": String(at + 1) }, body, at * 1000)).toBe(false)
    expect(Signature.verify(publicKey, {}, body, at * 1000)).toBe(false)
    expect(Signature.verify(publicKey, { "telnyx-timestamp": String(at) }, body, at * 1000)).toBe(false)
    expect(Signature.verify(publicKey, { ...signed(at, body), "telnyx-timestamp": "soon" }, body, at * 1000)).toBe(false)
    expect(Signature.verify(publicKey, { ...signed(at, body), "telnyx-signature-ed25519": "c2hvcnQ=" }, body, at * 1000)).toBe(false)
    expect(Signature.verify(undefined, signed(at, body), body, at * 1000)).toBe(false)
  })

  it("refuse any change of one byte of the body (property)", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.uint8Array({ minLength: 1, maxLength: 200 }), FastCheck.nat(), FastCheck.integer({ min: 1, max: 255 }), (raw, index, flip) => {
        const headers = signed(at, raw)
        expect(Signature.verify(publicKey, headers, raw, at * 1000)).toBe(true)
        const changed = new Uint8Array(raw)
        changed[index % raw.length] = changed[index % raw.length]! ^ flip
        expect(Signature.verify(publicKey, headers, changed, at * 1000)).toBe(false)
      }),
      { numRuns: 50 }
    )
  })
})
