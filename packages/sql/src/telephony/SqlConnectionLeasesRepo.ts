import { ConnectionLeasesRepo } from "@agentline/core/telephony/ConnectionLeasesRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as StorageBoundary from "../StorageBoundary.js"

export const layer = Layer.effect(
  ConnectionLeasesRepo,
  Effect.map(SqlClient.SqlClient, (sql) =>
    ConnectionLeasesRepo.of({
      // One upsert: a row comes back only when the lease is (now) this node's.
      acquire: ({ expiresAt, key, node, now }) =>
        sql<{ owner_node: string }>`INSERT INTO connection_leases (lease_key, owner_node, expires_at)
            VALUES (${key}, ${node}, ${expiresAt})
            ON CONFLICT (lease_key) DO UPDATE SET owner_node = excluded.owner_node, expires_at = excluded.expires_at
            WHERE connection_leases.owner_node = excluded.owner_node OR connection_leases.expires_at < ${now}
            RETURNING owner_node`.pipe(
          Effect.map((rows) => rows.length === 1),
          StorageBoundary.orDie
        ),
      release: ({ key, node }) =>
        sql`DELETE FROM connection_leases WHERE lease_key = ${key} AND owner_node = ${node}`.pipe(Effect.asVoid, StorageBoundary.orDie)
    }))
)
