/**
 * Password hashing with scrypt (memory-hard; in node:crypto, so no native add-on). The stored form
 * names its parameters so they can be raised later without breaking existing hashes.
 */
import { Effect } from "effect"
import * as Crypto from "node:crypto"

const N = 16384
const r = 8
const p = 1
const KEY_LENGTH = 32

const scrypt = (password: string, salt: Buffer, n: number, rr: number, pp: number) =>
  Effect.async<Buffer>((resume) => {
    Crypto.scrypt(password, salt, KEY_LENGTH, { N: n, r: rr, p: pp, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key)))
  })

export const hash = (password: string): Effect.Effect<string> =>
  Effect.suspend(() => {
    const salt = Crypto.randomBytes(16)
    return Effect.map(scrypt(password, salt, N, r, p), (key) =>
      `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`)
  })

export const verify = (password: string, stored: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const [scheme, n, rr, pp, salt, expected] = stored.split("$")
    if (scheme !== "scrypt" || !n || !rr || !pp || !salt || !expected) return Effect.succeed(false)
    const expectedKey = Buffer.from(expected, "base64")
    return Effect.map(
      scrypt(password, Buffer.from(salt, "base64"), Number(n), Number(rr), Number(pp)),
      (key) => key.length === expectedKey.length && Crypto.timingSafeEqual(key, expectedKey)
    )
  })

/** A random token with a recognizable prefix, and the digest that is stored instead of it. */
export const randomToken = (prefix: string, bytes = 32): string => `${prefix}${Crypto.randomBytes(bytes).toString("base64url")}`

export { sha256 } from "../crypto/Digest.js"

export const digestsEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "hex")
  const y = Buffer.from(b, "hex")
  return x.length === y.length && Crypto.timingSafeEqual(x, y)
}
