/** What can go wrong with a configuration's phone numbers. */
import { Schema } from "effect"

export class PhoneNumberNotFound extends Schema.TaggedError<PhoneNumberNotFound>()("PhoneNumberNotFound", {
  phoneNumberId: Schema.Number
}) {
  override get message() {
    return "Phone number not found"
  }
}

/**
 * The address is already registered: in this organization, or by another organization for the same
 * provider account (addresses are unique per provider account).
 */
export class PhoneNumberTaken extends Schema.TaggedError<PhoneNumberTaken>()("PhoneNumberTaken", {
  address: Schema.String,
  by: Schema.Literal("this_organization", "another_organization")
}) {
  override get message() {
    return this.by === "this_organization"
      ? `A phone number with the address ${this.address} already exists in this organization.`
      : `The phone number ${this.address} is already registered by another organization for the same provider account.`
  }
}

/** A number's address is its identity; a different address is a different number. */
export class PhoneAddressImmutable extends Schema.TaggedError<PhoneAddressImmutable>()("PhoneAddressImmutable", {
  phoneNumberId: Schema.Number
}) {
  override get message() {
    return "address cannot be changed; delete the number and add it again"
  }
}

/** The agent named to answer inbound calls does not exist in the organization. */
export class InboundAgentNotFound extends Schema.TaggedError<InboundAgentNotFound>()("InboundAgentNotFound", {
  workflowId: Schema.Number
}) {
  override get message() {
    return "Workflow not found"
  }
}

export class InboundAgentArchived extends Schema.TaggedError<InboundAgentArchived>()("InboundAgentArchived", {
  workflowId: Schema.Number
}) {
  override get message() {
    return `Agent ${this.workflowId} is archived; restore it before binding numbers to it`
  }
}

/** A phone number that is neither E.164, a SIP URI nor an extension. `field` is the request field. */
export class InvalidPhoneNumber extends Schema.TaggedError<InvalidPhoneNumber>()("InvalidPhoneNumber", {
  field: Schema.String,
  input: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `${this.field}: ${this.reason}`
  }
}
