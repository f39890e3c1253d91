import { ConflictResponse } from "../Errors.js"
import { CreateUserRequest, User } from "./User.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"

export class UsersApi extends HttpApiGroup.make("users").annotate(OpenApi.Description, "The organization's users")
  .add(HttpApiEndpoint.post("create", "/users").annotate(OpenApi.Summary, "Create a user in the organization").addError(ConflictResponse).setPayload(CreateUserRequest).addSuccess(User))
  .add(HttpApiEndpoint.get("list", "/users").annotate(OpenApi.Summary, "List the organization's users").addSuccess(Schema.Struct({ users: Schema.Array(User) })))
  .middleware(Authentication)
{}
