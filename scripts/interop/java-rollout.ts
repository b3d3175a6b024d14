/**
 * What the Java interop tests check when a driver's agent takes a rollout's version: its one run of the driver
 * applies the UPDATE CONFIGURATION the rollout sent and then reports the version, and the sweeper's looks find
 * it healthy.
 */
import { expect } from "vitest";
import { sweeperConfig } from "../../functions/shared/config.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import {
  type AckStep,
  type DriverStep,
  type HeartbeatStep,
  type JavaDriverOptions,
  runJavaDriver,
  type UpdateStep,
} from "./java-client.js";

export const heartbeats = (steps: DriverStep[]): HeartbeatStep[] =>
  steps.filter((step): step is HeartbeatStep => step.step === "heartbeat");

export const acks = (steps: DriverStep[]): AckStep[] =>
  steps.filter((step): step is AckStep => step.step === "ack");

/**
 * That a run of the driver applied the UPDATE CONFIGURATION `operationId` with the library's own handler: it
 * downloaded the flow from `path`, handed the agent the bytes of that size and SHA-256, acknowledged FULLY_APPLIED,
 * and the run's second heartbeat reports `flowId` and gets nothing more.
 */
export function expectFlowApplied(
  steps: DriverStep[],
  applied: { operationId: string; path: string; flowBytes: number; flowSha256: string; flowId: string },
): void {
  const { operationId, path, flowBytes, flowSha256, flowId } = applied;
  expect(steps.find((step): step is UpdateStep => step.step === "update")).toMatchObject({
    operationId,
    http: { path, status: 200 },
    flowBytes,
    flowSha256,
    state: "FULLY_APPLIED",
  });
  expect(acks(steps)).toEqual([
    expect.objectContaining({
      operationId,
      state: "FULLY_APPLIED",
      http: expect.objectContaining({ status: 200 }),
    }),
  ]);
  expect(heartbeats(steps)[1]).toMatchObject({ parsed: true, operations: [], flowId });
}

/**
 * What starts a rollout of a version to driver agents: the first `canary` agents of the class at once, with no
 * soak, one agent a batch after them.
 */
export const driverRollout = (className: string, flowHash: string, canary = 1) => ({
  className,
  flowHash,
  plan: { canary: { count: canary }, batchSize: 1, batchIntervalSeconds: 0, soakSeconds: 0 },
  // The driver's manifest offers the C2 handlers only, no processor types.
  allowIncompatible: true,
});

/**
 * Runs the driver once as the rollout's agent: its first heartbeat brings the UPDATE CONFIGURATION of `flowHash`,
 * the library's handler applies it, the second reports it. Then the sweeper looks at the rollout
 * (sweeperLooksAt); the caller reads how it ended.
 */
export async function driverTakesRollout(
  options: JavaDriverOptions,
  env: Record<string, string | undefined>,
  rollout: { tenant: string; rolloutId: string; flowHash: string },
): Promise<void> {
  const steps = await runJavaDriver(options);
  const [first, second] = heartbeats(steps);
  expect(first?.operations).toMatchObject([
    { operation: "UPDATE", operand: "CONFIGURATION", args: { flowId: rollout.flowHash } },
  ]);
  expect(steps.find((step): step is UpdateStep => step.step === "update")).toMatchObject({
    flowSha256: rollout.flowHash,
    state: "FULLY_APPLIED",
  });
  expect(second).toMatchObject({ operations: [], flowId: rollout.flowHash });
  await sweeperLooksAt(env, rollout);
}

/**
 * The sweeper looks at a rollout whose agents all applied its version three times: they soak, are healthy with
 * no soak asked, and the class is done. The caller reads how it ended.
 */
export async function sweeperLooksAt(
  env: Record<string, string | undefined>,
  rollout: { tenant: string; rolloutId: string },
): Promise<void> {
  const sweeper = composeSweeper(sweeperConfig(env));
  try {
    for (let look = 0; look < 3; look++) await sweeper.rollouts.advance(rollout.tenant, rollout.rolloutId);
  } finally {
    await sweeper.close();
  }
}
