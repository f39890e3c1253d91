/**
 * What can go wrong with a campaign, named for what happened. No statuses and no routes here: the
 * server maps each error to its answer (`@agentline/http`'s `DomainErrors.ts`). Refused state changes
 * are `InvalidTransition` (in `CampaignState.ts`, next to the table that decides them); a file that is
 * not usable as contacts is `CsvInvalid` (in `CsvImport.ts`).
 */
import { Schema } from "effect"

export class CampaignNotFound extends Schema.TaggedError<CampaignNotFound>()("CampaignNotFound", {
  campaignId: Schema.Number
}) {
  override get message() {
    return "Campaign not found"
  }
}

/** A state change raced another one; the campaign is now in `state`. */
export class CampaignChangedMeanwhile extends Schema.TaggedError<CampaignChangedMeanwhile>()("CampaignChangedMeanwhile", {
  campaignId: Schema.Number,
  state: Schema.String
}) {
  override get message() {
    return `The campaign changed to '${this.state}' meanwhile; retry if still wanted`
  }
}

/** Settings change only while a campaign is not running (checked again at the write). */
export class CampaignNotEditable extends Schema.TaggedError<CampaignNotEditable>()("CampaignNotEditable", {
  campaignId: Schema.Number,
  state: Schema.String
}) {
  override get message() {
    return `Cannot update a campaign in state '${this.state}': pause it first`
  }
}

/** A campaign is redialed at most once; `redialedAs` is the redial's id when known. */
export class CampaignAlreadyRedialed extends Schema.TaggedError<CampaignAlreadyRedialed>()("CampaignAlreadyRedialed", {
  campaignId: Schema.Number,
  redialedAs: Schema.NullOr(Schema.Number)
}) {
  override get message() {
    return this.redialedAs === null
      ? "This campaign was already redialed"
      : `This campaign was already redialed as campaign ${this.redialedAs}`
  }
}

/** No contact ended with one of the outcomes asked to redial. */
export class NothingToRedial extends Schema.TaggedError<NothingToRedial>()("NothingToRedial", {
  campaignId: Schema.Number,
  outcomes: Schema.Array(Schema.String)
}) {
  override get message() {
    return `No contacts of campaign ${this.campaignId} ended with ${this.outcomes.join(", ")}`
  }
}

/**
 * The campaign's contacts are still being imported, or the process importing them stopped (its
 * `total_rows` is unset): it cannot be started or changed until a finished import says what it holds.
 */
export class CampaignImportUnfinished extends Schema.TaggedError<CampaignImportUnfinished>()("CampaignImportUnfinished", {
  campaignId: Schema.Number
}) {
  override get message() {
    return "The contacts of this campaign are still being imported, or their import did not finish; if it does not finish, create the campaign again"
  }
}
