import { ConflictResponse, ForbiddenResponse, NotFoundResponse } from "../Errors.js"
import { ChangeRoleRequest, CreateUserRequest, PasswordReset, User } from "./User.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { UserId } from "../Ids.js"
import { idPath, Success } from "../Params.js"

const userPath = idPath("user_id", UserId)

/**
 * The organization's users, for administrators (docs/security.md, "Users"). The organization always
 * keeps at least one active administrator: a change that would leave none is 409, and so is an
 * administrator deactivating, removing or resetting the password of their own account.
 */
export class UsersApi extends HttpApiGroup.make("users").annotate(OpenApi.Description, "The organization's users")
  .add(HttpApiEndpoint.post("create", "/users").annotate(OpenApi.Summary, "Create a user in the organization").addError(ConflictResponse).setPayload(CreateUserRequest).addSuccess(User))
  .add(HttpApiEndpoint.get("list", "/users").annotate(OpenApi.Summary, "List the organization's users").addSuccess(Schema.Struct({ users: Schema.Array(User) })))
  .add(HttpApiEndpoint.get("get", "/users/:user_id").annotate(OpenApi.Summary, "A user of the organization").addError(NotFoundResponse).setPath(userPath).addSuccess(User))
  .add(
    HttpApiEndpoint.put("changeRole", "/users/:user_id/role").annotate(OpenApi.Summary, "Change a user's role").addError(NotFoundResponse).addError(ConflictResponse)
      .setPath(userPath).setPayload(ChangeRoleRequest).addSuccess(User)
  )
  .add(
    HttpApiEndpoint.post("deactivate", "/users/:user_id/deactivate").annotate(
      OpenApi.Summary,
      "Deactivate a user: their sessions end, their login and API keys are refused until reactivated"
    ).addError(NotFoundResponse).addError(ConflictResponse).setPath(userPath).addSuccess(User)
  )
  .add(
    HttpApiEndpoint.post("reactivate", "/users/:user_id/reactivate").annotate(OpenApi.Summary, "Reactivate a deactivated user").addError(NotFoundResponse).addError(ConflictResponse)
      .setPath(userPath).addSuccess(User)
  )
  .add(
    HttpApiEndpoint.del("remove", "/users/:user_id").annotate(
      OpenApi.Summary,
      "Remove a user from the organization: their sessions end, their API keys are archived, their email is freed"
    ).addError(NotFoundResponse).addError(ConflictResponse).setPath(userPath).addSuccess(Success)
  )
  .add(
    HttpApiEndpoint.post("resetPassword", "/users/:user_id/reset-password").annotate(
      OpenApi.Summary,
      "Give a user a new temporary password (shown once), which they must change at their next login"
    ).addError(NotFoundResponse).addError(ConflictResponse).addError(ForbiddenResponse).setPath(userPath).addSuccess(PasswordReset)
  )
  .middleware(Authentication)
{}
