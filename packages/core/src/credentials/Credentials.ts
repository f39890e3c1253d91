/**
 * The organization's stored credentials: named secrets that requests made for it carry (the workflow
 * `webhook` node names one by `credential_uuid`). The data is checked against its type, sealed at rest
 * and never returned; a request resolves it when it is sent, so a changed credential applies at once.
 */
import type { Principal } from "@agentline/api/Authentication"
import type { Credential, CreateCredentialRequest, CredentialType, UpdateCredentialRequest } from "@agentline/api/credentials/Credentials"
import { Clock, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import { SecretBox } from "../crypto/SecretBox.js"
import { iso } from "../Time.js"
import { credentialHeaders } from "./CredentialHeaders.js"
import { CredentialsRepo, type StoredCredential } from "./CredentialsRepo.js"
import { CredentialNotFound, InvalidCredentialData } from "./Errors.js"

const wire = ({ organization_id: _, sealed_data: __, ...credential }: StoredCredential): Credential => credential

const checked = (type: CredentialType, data: Readonly<Record<string, unknown>>) => {
  const result = credentialHeaders(type, data)
  return result._tag === "Invalid"
    ? Effect.fail(new InvalidCredentialData({ issues: result.issues.map((i) => ({ field: i.field, message: i.message })) }))
    : Effect.void
}

export class Credentials extends Effect.Service<Credentials>()("@agentline/core/Credentials", {
  effect: Effect.gen(function*() {
    const repo = yield* CredentialsRepo
    const box = yield* SecretBox

    const found = (principal: Principal, uuid: string) =>
      Effect.flatMap(
        repo.find(principal.organizationId, uuid),
        Option.match({ onNone: () => Effect.fail(new CredentialNotFound({ uuid })), onSome: Effect.succeed })
      )

    const list = Effect.fn("Credentials.list")(function*(principal: Principal) {
      return (yield* repo.list(principal.organizationId)).map(wire)
    })

    const create = Effect.fn("Credentials.create")(function*(principal: Principal, request: CreateCredentialRequest) {
      yield* checked(request.credential_type, request.credential_data)
      const now = iso(yield* Clock.currentTimeMillis)
      const credential: StoredCredential = {
        uuid: Crypto.randomUUID(),
        organization_id: principal.organizationId,
        name: request.name,
        description: request.description,
        credential_type: request.credential_type,
        sealed_data: box.encrypt(JSON.stringify(request.credential_data)),
        created_at: now,
        updated_at: now
      }
      yield* repo.insert(credential)
      return wire(credential)
    })

    const get = Effect.fn("Credentials.get")(function*(principal: Principal, uuid: string) {
      return wire(yield* found(principal, uuid))
    })

    const update = Effect.fn("Credentials.update")(function*(principal: Principal, uuid: string, request: UpdateCredentialRequest) {
      const current = yield* found(principal, uuid)
      const type = request.credential_type ?? current.credential_type
      const data = request.credential_data ?? (type === current.credential_type ? undefined : {})
      if (data !== undefined) yield* checked(type, data)
      const updated = yield* repo.update(principal.organizationId, uuid, {
        ...(request.name != null ? { name: request.name } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        credential_type: type,
        ...(data !== undefined ? { sealed_data: box.encrypt(JSON.stringify(data)) } : {})
      }, iso(yield* Clock.currentTimeMillis))
      if (Option.isNone(updated)) return yield* new CredentialNotFound({ uuid })
      return wire(updated.value)
    })

    const remove = Effect.fn("Credentials.remove")(function*(principal: Principal, uuid: string) {
      if (!(yield* repo.remove(principal.organizationId, uuid))) return yield* new CredentialNotFound({ uuid })
      return { success: true, message: `Credential ${uuid} deleted; webhook nodes that name it are skipped from now on` }
    })

    return { list, create, get, update, remove } as const
  })
}) {}

/** The headers of an organization's credential, for a request being sent; `None` when it is gone. */
export const resolveHeaders = (repo: CredentialsRepo["Type"], box: SecretBox["Type"], organizationId: number, uuid: string) =>
  Effect.map(repo.find(organizationId, uuid), Option.flatMap((credential) => {
    const result = credentialHeaders(credential.credential_type, JSON.parse(box.decrypt(credential.sealed_data)))
    return result._tag === "Headers" ? Option.some(result.headers) : Option.none()
  }))

/**
 * The secret of an organization's credential used as a vendor's API key (the voice runtime's
 * `model_overrides.credentials`): an `api_key` credential's `api_key` or a `bearer_token`'s `token`.
 * Left: why it cannot be used, in words for the run's log.
 */
export const resolveVendorKey = (repo: CredentialsRepo["Type"], box: SecretBox["Type"], organizationId: number, uuid: string) =>
  Effect.map(repo.find(organizationId, uuid), (found): Either.Either<string, string> => {
    if (Option.isNone(found)) return Either.left(`credential ${uuid} does not exist in this organization`)
    const credential = found.value
    const data = JSON.parse(box.decrypt(credential.sealed_data)) as Record<string, unknown>
    const secret = credential.credential_type === "api_key" ? data.api_key : credential.credential_type === "bearer_token" ? data.token : undefined
    if (typeof secret !== "string" || secret === "") {
      return Either.left(`credential ${uuid} (${credential.name}) is a ${credential.credential_type} credential; a vendor key must be an api_key or bearer_token credential`)
    }
    return Either.right(secret)
  })
