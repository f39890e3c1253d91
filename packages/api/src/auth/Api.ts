import { ChangePasswordRequest, LoginRequest, LoginResponse, User } from "../users/User.js"
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Authentication, AuthenticationAllowingPasswordChange } from "../Authentication.js"
import { Success } from "../Params.js"

export class AuthApi extends HttpApiGroup.make("auth")
  .add(HttpApiEndpoint.post("login", "/auth/login").setPayload(LoginRequest).addSuccess(LoginResponse))
  .add(
    HttpApiEndpoint.post("changePassword", "/auth/change-password")
      .setPayload(ChangePasswordRequest)
      .addSuccess(User)
      .middleware(AuthenticationAllowingPasswordChange)
  )
  .add(
    HttpApiEndpoint.post("logout", "/auth/logout")
      .addSuccess(Success)
      .middleware(AuthenticationAllowingPasswordChange)
  )
  .add(HttpApiEndpoint.get("me", "/auth/me").addSuccess(User).middleware(Authentication))
{}
