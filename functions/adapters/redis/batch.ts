/** Runs a pipeline or transaction; any command's failure fails the call, as a cache outage would. */
export async function execute<T>(batch: { exec(): Promise<[Error | null, unknown][] | null> }): Promise<T[]> {
  const results = (await batch.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value as T;
  });
}
