/** The SHA-256 of a text as hex: how tokens, keys and session ids are stored (never the token itself). */
import * as Crypto from "node:crypto"

export const sha256 = (value: string): string => Crypto.createHash("sha256").update(value).digest("hex")
