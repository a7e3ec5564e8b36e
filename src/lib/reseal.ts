/**
 * The loop of `switchboard secrets rotate` for one kind of sealed row: read rows not under the current key in
 * batches, re-seal each, and name (never show) the ones no key opens. A row that fails is skipped for the rest of
 * the run, so the loop ends; `reseal` applies only if the row is unchanged since it was read (the caller's repo
 * checks), so a value replaced meanwhile is left as it was set.
 */
export interface ResealResult {
  reencrypted: number;
  failed: Array<{ id: string; reason: string }>;
}

export async function resealAll<Row>(steps: {
  /** Up to `limit` rows not under the current key. */
  read(limit: number): Promise<Row[]>;
  idOf(row: Row): string;
  /** Opens and seals the row again under the current key; throws when no key of the ring opens it. */
  reseal(row: Row): Promise<void>;
}): Promise<ResealResult> {
  const failed: ResealResult['failed'] = [];
  const skip = new Set<string>();
  let reencrypted = 0;
  for (;;) {
    const rows = (await steps.read(500 + skip.size)).filter((row) => !skip.has(steps.idOf(row)));
    if (rows.length === 0) break;
    for (const row of rows) {
      try {
        await steps.reseal(row);
        reencrypted += 1;
      } catch (error) {
        skip.add(steps.idOf(row));
        failed.push({ id: steps.idOf(row), reason: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return { reencrypted, failed };
}
