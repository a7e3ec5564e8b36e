import type { Kysely } from 'kysely';
import type { DB, OAuthConnectionsTable, OAuthStatesTable } from '../db/tables.js';

/** Who a connection belongs to: an organization's installation, or a developer's test account for a tool. */
export type ConnectionOwner =
  | { kind: 'installation'; orgId: string; installationId: string }
  | { kind: 'developer'; developerId: string; toolId: string };

/** The new tokens of a refresh; `refresh_token` undefined keeps the stored one (RFC 6749 §6: a new one is optional). */
export type RefreshedTokens = Pick<OAuthConnectionsTable, 'access_token' | 'key_id' | 'expires_at' | 'scopes' | 'refreshed_at'> & { refresh_token?: string };

/** OAuth connections and authorizations in progress. Every read of a connection is by its owner (org or developer). */
export function createConnectionsRepo(db: Kysely<DB>) {
  const owned = (owner: ConnectionOwner) => {
    const query = db.selectFrom('oauth_connections').selectAll();
    return owner.kind === 'installation'
      ? query.where('org_id', '=', owner.orgId).where('installation_id', '=', owner.installationId)
      : query.where('developer_id', '=', owner.developerId).where('tool_id', '=', owner.toolId).where('installation_id', 'is', null);
  };

  return {
    insertState: (row: OAuthStatesTable) => db.insertInto('oauth_states').values(row).execute(),

    /** Takes a state out: whoever deletes it uses it, so a second use (or a race of two) finds nothing. */
    takeState: (stateHash: string) => db.deleteFrom('oauth_states').where('state_hash', '=', stateHash).returningAll().executeTakeFirst(),

    /** Expired states, oldest first, in bounded batches (the expiry purger). */
    async deleteExpiredStates(now: string, limit: number): Promise<number> {
      const doomed = db.selectFrom('oauth_states').select('state_hash').where('expires_at', '<=', now).orderBy('expires_at').limit(limit);
      const result = await db.deleteFrom('oauth_states').where('state_hash', 'in', doomed).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    find: (owner: ConnectionOwner) => owned(owner).executeTakeFirst(),

    /** The connections of these installations (their status for the console), by installation id. */
    ofInstallations: (orgId: string, installationIds: readonly string[]) =>
      installationIds.length === 0
        ? Promise.resolve([])
        : db.selectFrom('oauth_connections')
          .select(['installation_id', 'status', 'scopes', 'account_label', 'connected_at', 'refreshed_at', 'expires_at', 'failure_reason'])
          .where('org_id', '=', orgId).where('installation_id', 'in', installationIds).execute(),

    /** Replaces the owner's connection (a reconnect starts afresh), in the caller's transaction. */
    async replace(owner: ConnectionOwner, row: OAuthConnectionsTable): Promise<void> {
      await (owner.kind === 'installation'
        ? db.deleteFrom('oauth_connections').where('org_id', '=', owner.orgId).where('installation_id', '=', owner.installationId)
        : db.deleteFrom('oauth_connections').where('developer_id', '=', owner.developerId).where('tool_id', '=', owner.toolId).where('installation_id', 'is', null)
      ).execute();
      await db.insertInto('oauth_connections').values(row).execute();
    },

    /** Deletes the owner's connection; the deleted row (to revoke its tokens), or undefined. */
    remove: (owner: ConnectionOwner) =>
      (owner.kind === 'installation'
        ? db.deleteFrom('oauth_connections').where('org_id', '=', owner.orgId).where('installation_id', '=', owner.installationId)
        : db.deleteFrom('oauth_connections').where('developer_id', '=', owner.developerId).where('tool_id', '=', owner.toolId).where('installation_id', 'is', null)
      ).returningAll().executeTakeFirst(),

    /**
     * The refresh lease: taken when nobody holds it (or the holder's ran out) and the tokens are still the version
     * the caller saw. True when this caller holds it now; one node at a time reaches the provider.
     */
    async takeLease(id: string, version: number, owner: string, now: string, until: string): Promise<boolean> {
      const result = await db.updateTable('oauth_connections')
        .set({ lease_owner: owner, lease_until: until })
        .where('id', '=', id)
        .where('token_version', '=', version)
        .where('status', '=', 'connected')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Stores a refresh's tokens under the lease: a new version, the failures forgotten, the lease given back. */
    async storeRefreshed(id: string, leaseOwner: string, tokens: RefreshedTokens): Promise<boolean> {
      const result = await db.updateTable('oauth_connections')
        .set((eb) => ({
          ...tokens,
          token_version: eb('token_version', '+', 1),
          refresh_failures: 0,
          retry_refresh_at: null,
          lease_owner: null,
          lease_until: null,
        }))
        .where('id', '=', id)
        .where('lease_owner', '=', leaseOwner)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** A refresh that failed for now (timeout, 5xx): counted, retried after `retryAt`, the lease given back. */
    recordRefreshFailure: (id: string, leaseOwner: string, failures: number, retryAt: string) =>
      db.updateTable('oauth_connections')
        .set({ refresh_failures: failures, retry_refresh_at: retryAt, lease_owner: null, lease_until: null })
        .where('id', '=', id).where('lease_owner', '=', leaseOwner)
        .execute(),

    /** The provider refused the grant: nothing works until a person reconnects. True when this call changed it. */
    async markNeedsReconnect(id: string, reason: string): Promise<boolean> {
      const result = await db.updateTable('oauth_connections')
        .set({ status: 'needs_reconnect', failure_reason: reason, lease_owner: null, lease_until: null })
        .where('id', '=', id).where('status', '=', 'connected')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Sealed values not under `keyId` (`switchboard secrets rotate`). */
    sealedNotUnder: (keyId: string, limit: number) =>
      db.selectFrom('oauth_connections').select(['id', 'access_token', 'refresh_token', 'key_id']).where('key_id', '<>', keyId).limit(limit).execute(),

    /** Re-sealed tokens, only if they are still the ones read (a refresh meanwhile wins). */
    async replaceSealed(id: string, before: string, after: Pick<OAuthConnectionsTable, 'access_token' | 'refresh_token' | 'key_id'>): Promise<boolean> {
      const result = await db.updateTable('oauth_connections').set(after).where('id', '=', id).where('access_token', '=', before).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

export type ConnectionsRepo = ReturnType<typeof createConnectionsRepo>;
