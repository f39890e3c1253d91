import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE telephony_configurations (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      name TEXT NOT NULL,
      provider TEXT NOT NULL,
      -- the provider's config; sensitive values encrypted (AES-256-GCM) by the application
      credentials {json} NOT NULL,
      -- the provider's account id for inbound routing ('' when the provider has none)
      account_id TEXT NOT NULL DEFAULT '',
      is_default_outbound {bool} NOT NULL DEFAULT {false},
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL,
      UNIQUE (organization_id, name)
    )`,
    `CREATE UNIQUE INDEX telephony_configurations_one_default ON telephony_configurations (organization_id) WHERE is_default_outbound`,
    `CREATE TABLE phone_numbers (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      telephony_configuration_id INTEGER NOT NULL REFERENCES telephony_configurations(id) ON DELETE CASCADE,
      address TEXT NOT NULL,
      address_normalized TEXT NOT NULL,
      address_type TEXT NOT NULL CHECK (address_type IN ('pstn', 'sip_uri', 'sip_extension')),
      country_code TEXT,
      label TEXT,
      inbound_workflow_id INTEGER REFERENCES workflows(id),
      is_active {bool} NOT NULL DEFAULT {true},
      is_default_caller_id {bool} NOT NULL DEFAULT {false},
      extra_metadata {json} NOT NULL,
      -- copied from the configuration: inbound dispatch keys on (provider, account_id, address_normalized)
      provider TEXT NOT NULL,
      account_id TEXT NOT NULL DEFAULT '',
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL,
      UNIQUE (organization_id, address_normalized)
    )`,
    `CREATE UNIQUE INDEX phone_numbers_routing_key ON phone_numbers (provider, account_id, address_normalized) WHERE account_id <> ''`,
    `CREATE UNIQUE INDEX phone_numbers_one_default_caller ON phone_numbers (telephony_configuration_id) WHERE is_default_caller_id`,
    `CREATE INDEX phone_numbers_configuration ON phone_numbers (telephony_configuration_id, id)`
  )
})
