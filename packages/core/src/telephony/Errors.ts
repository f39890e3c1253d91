/** What can go wrong with telephony configurations and outbound routes. */
import { ValidationIssue } from "@agentline/api/Errors"
import { Schema } from "effect"

export class TelephonyConfigurationNotFound
  extends Schema.TaggedError<TelephonyConfigurationNotFound>()("TelephonyConfigurationNotFound", {
    configurationId: Schema.Number
  })
{
  override get message() {
    return "Telephony configuration not found"
  }
}

/** An unknown provider, or a provider config with fields at fault (each one listed). */
export class InvalidTelephonyConfig extends Schema.TaggedError<InvalidTelephonyConfig>()("InvalidTelephonyConfig", {
  issues: Schema.Array(ValidationIssue)
}) {
  override get message() {
    return `The telephony configuration is invalid: ${this.issues.map((issue) => issue.msg).join("; ")}`
  }
}

export class TelephonyConfigurationNameTaken
  extends Schema.TaggedError<TelephonyConfigurationNameTaken>()("TelephonyConfigurationNameTaken", { name: Schema.String })
{
  override get message() {
    return `A telephony configuration named '${this.name}' already exists in this organization. Pick a different name.`
  }
}

/** A configuration keeps its provider; another provider is another configuration. */
export class TelephonyProviderImmutable
  extends Schema.TaggedError<TelephonyProviderImmutable>()("TelephonyProviderImmutable", { provider: Schema.String })
{
  override get message() {
    return `Provider cannot be changed (this configuration uses '${this.provider}'); create a new configuration instead.`
  }
}

/** The new credentials point at a provider account where one of the configuration's numbers is taken. */
export class TelephonyAccountNumberTaken
  extends Schema.TaggedError<TelephonyAccountNumberTaken>()("TelephonyAccountNumberTaken", { address: Schema.String })
{
  override get message() {
    return `Phone number ${this.address} of this configuration is already registered under another configuration ` +
      `using the same provider account; remove it there first.`
  }
}

export class TelephonyConfigurationInUse
  extends Schema.TaggedError<TelephonyConfigurationInUse>()("TelephonyConfigurationInUse", { configurationId: Schema.Number })
{
  override get message() {
    return `Telephony configuration ${this.configurationId} is referenced by one or more campaigns and cannot be deleted.`
  }
}

/** A stored configuration names a provider this server does not have (its package is not installed). */
export class TelephonyProviderUnavailable
  extends Schema.TaggedError<TelephonyProviderUnavailable>()("TelephonyProviderUnavailable", { provider: Schema.String })
{
  override get message() {
    return `Telephony provider '${this.provider}' is not available in this server`
  }
}

/**
 * No configuration to call through: the one asked for does not exist in the organization, or none was
 * asked for and the organization has no default outbound configuration.
 */
export class NoOutboundRoute extends Schema.TaggedError<NoOutboundRoute>()("NoOutboundRoute", {
  configurationId: Schema.NullOr(Schema.Number)
}) {
  override get message() {
    return this.configurationId === null
      ? "telephony_configuration_not_found: the organization has no default outbound telephony configuration; " +
        "pass telephony_configuration_id or mark one as the default outbound configuration"
      : "telephony_configuration_not_found"
  }
}

/** A provider's callback whose signature does not verify (calls' callbacks and transfer results). */
export class InvalidCallbackSignature extends Schema.TaggedError<InvalidCallbackSignature>()("InvalidCallbackSignature", {}) {
  override get message() {
    return "Invalid callback signature"
  }
}
