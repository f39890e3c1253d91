/** Small helpers of the fake carrier's REST answers. */
import { HttpServerResponse } from "@effect/platform"
import * as Crypto from "node:crypto"

/** A JSON answer with the carrier's `api_id`. */
export const json = (status: number, body: Record<string, unknown>) =>
  HttpServerResponse.unsafeJson({ api_id: Crypto.randomUUID(), ...body }, { status })

export const notFound = () => json(404, { error: "not found" })

export const digits = (number: string) => number.replace(/^\+/, "")

export const httpUrl = (value: unknown) => typeof value === "string" && /^https?:\/\/\S+$/.test(value)
