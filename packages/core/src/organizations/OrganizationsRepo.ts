import { Context, type Effect, type Option } from "effect"
import type { Organization } from "@agentline/api/organizations/Organization"

/** Storage port for organizations. */
export class OrganizationsRepo extends Context.Tag("@agentline/core/OrganizationsRepo")<
  OrganizationsRepo,
  {
    readonly findById: (id: number) => Effect.Effect<Option.Option<Organization>>
    readonly findByName: (name: string) => Effect.Effect<Option.Option<Organization>>
    /** Returns the existing organization when the name is taken (names are unique). */
    readonly findOrCreate: (name: string, now: string) => Effect.Effect<Organization>
    readonly setConcurrentCallLimit: (id: number, limit: number) => Effect.Effect<Option.Option<Organization>>
  }
>() {}
