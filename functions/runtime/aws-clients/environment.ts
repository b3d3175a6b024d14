// What every AWS client's settings start from, without the SDK: read by the clients made for direct calls
// (direct.ts), which a cold start loads, as well as by the SDK's (settings.ts), which it need not.

/** The environment a client is configured from; process.env in functions, a record in local tooling. */
export type ClientEnv = Readonly<Record<string, string | undefined>>;

/**
 * The environment as it is now, for a client made later from it: by a module loaded on first use, which a
 * function composes now (local tooling loads several functions, each with its environment, into one process).
 */
export const environmentNow = (): ClientEnv => ({ ...process.env });

export const maxAttempts = 3;

/** Whether a client is aimed at an endpoint of its own (an emulator, LocalStack) rather than AWS's. */
export const isCustomEndpoint = (endpoint: string | undefined): endpoint is string =>
  endpoint !== undefined && endpoint !== "";
