import type { Principal } from "@agentline/api/Authentication"
import type { Role } from "@agentline/api/users/User"

/**
 * The principal of a user acting outside an HTTP request (command line, demo, benchmarks, tests): as
 * that user, through an API key, so the first-login gate does not apply.
 */
export const acting = (
  user: { readonly id: number; readonly organization_id: number; readonly email: string; readonly role: Role },
  apiKeyId = 0
): Principal => ({
  organizationId: user.organization_id,
  userId: user.id,
  email: user.email,
  role: user.role,
  via: { _tag: "ApiKey", apiKeyId }
})
