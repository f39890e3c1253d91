import { BadRequestResponse, ConflictResponse, ForbiddenResponse, TooManyRequestsResponse, UnauthorizedResponse } from "../Errors.js"
import { ChangePasswordRequest, LoginRequest, LoginResponse, User } from "../users/User.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication, AuthenticationAllowingPasswordChange } from "../Authentication.js"
import { Success } from "../Params.js"

export class AuthApi extends HttpApiGroup.make("auth").annotate(OpenApi.Description, "Logging in and out, the caller's session and password")
  .add(HttpApiEndpoint.post("login", "/auth/login").annotate(OpenApi.Summary, "Log in with email and password").addError(UnauthorizedResponse).addError(ForbiddenResponse).addError(TooManyRequestsResponse).setPayload(LoginRequest).addSuccess(LoginResponse))
  .add(
    HttpApiEndpoint.post("changePassword", "/auth/change-password").annotate(OpenApi.Summary, "Change the caller's password").addError(ConflictResponse).addError(TooManyRequestsResponse)
      .setPayload(ChangePasswordRequest)
      .addSuccess(User)
      .middleware(AuthenticationAllowingPasswordChange)
  )
  .add(
    HttpApiEndpoint.post("logout", "/auth/logout").annotate(OpenApi.Summary, "End the login session").addError(BadRequestResponse)
      .addSuccess(Success)
      .middleware(AuthenticationAllowingPasswordChange)
  )
  .add(HttpApiEndpoint.get("me", "/auth/me").annotate(OpenApi.Summary, "The caller's user and organization").addSuccess(User).middleware(Authentication))
{}
