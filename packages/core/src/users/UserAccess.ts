/**
 * The rules of an administrator changing another user's access (docs/security.md, "Users"), as plain
 * functions: an organization always keeps at least one active administrator, and no administrator can
 * deactivate or remove their own account (they would lock themselves out, or leave without anyone
 * noticing). Demoting yourself is allowed while another active administrator remains.
 */
import { Option } from "effect"
import type { Role } from "@agentline/api/users/User"
import { type AccessChange, LastAdmin, OwnAccount } from "./Errors.js"

export type Change =
  | { readonly _tag: "SetRole"; readonly role: Role }
  | { readonly _tag: "Deactivate" }
  | { readonly _tag: "Reactivate" }
  | { readonly _tag: "Remove" }

/** A user's access as these rules see it. */
export interface Access {
  readonly role: Role
  readonly active: boolean
}

export const isActiveAdmin = (access: Access): boolean => access.role === "admin" && access.active

/** The access after the change; `None` when the user is removed. */
export const apply = (access: Access, change: Change): Option.Option<Access> => {
  switch (change._tag) {
    case "SetRole":
      return Option.some({ ...access, role: change.role })
    case "Deactivate":
      return Option.some({ ...access, active: false })
    case "Reactivate":
      return Option.some({ ...access, active: true })
    case "Remove":
      return Option.none()
  }
}

const named = (change: Change): AccessChange =>
  change._tag === "Remove" ? "remove" : change._tag === "Deactivate" ? "deactivate" : "demote"

/**
 * Why `actorId` may not make this change to `target`, if they may not. `activeAdmins` counts the
 * organization's active administrators now, the target included when it is one.
 */
export const refusal = (input: {
  readonly actorId: number
  readonly target: Access & { readonly id: number }
  readonly change: Change
  readonly activeAdmins: number
}): Option.Option<LastAdmin | OwnAccount> => {
  const { actorId, activeAdmins, change, target } = input
  if (target.id === actorId && (change._tag === "Deactivate" || change._tag === "Remove")) {
    return Option.some(new OwnAccount({ change: named(change) }))
  }
  const stillActiveAdmin = Option.match(apply(target, change), { onNone: () => false, onSome: isActiveAdmin })
  if (isActiveAdmin(target) && !stillActiveAdmin && activeAdmins <= 1) {
    return Option.some(new LastAdmin({ userId: target.id, change: named(change) }))
  }
  return Option.none()
}
