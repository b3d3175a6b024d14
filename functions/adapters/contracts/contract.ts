import { randomUUID } from "node:crypto";
import { beforeEach, describe } from "vitest";

/** What every case of a contract reads: the implementation under test, made for it alone, and its own tenant. */
export interface ContractCase<Subject> {
  readonly subject: Subject;
  readonly tenant: string;
}

/**
 * A port's contract: its cases written once against the port and run for each implementation, the memory
 * fake core's unit tests use and the real adapter on the local stack, so that the fake keeps the real
 * one's behaviour. Each case has a tenant of its own: real implementations share a table or a cache
 * without one case seeing another's items.
 */
export function contract<Subject>(port: string, cases: (current: ContractCase<Subject>) => void) {
  return (implementation: string, make: () => Subject | Promise<Subject>) =>
    describe(`${port} (${implementation})`, () => {
      const current = { subject: undefined as Subject, tenant: "" };
      beforeEach(async () => {
        current.tenant = `contract-${randomUUID().slice(0, 8)}`;
        current.subject = await make();
      });
      cases(current);
    });
}
