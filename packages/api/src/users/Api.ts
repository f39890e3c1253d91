import { CreateUserRequest, User } from "./User.js"
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"

export class UsersApi extends HttpApiGroup.make("users")
  .add(HttpApiEndpoint.post("create", "/users").setPayload(CreateUserRequest).addSuccess(User))
  .add(HttpApiEndpoint.get("list", "/users").addSuccess(Schema.Struct({ users: Schema.Array(User) })))
  .middleware(Authentication)
{}
