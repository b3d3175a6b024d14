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
 * Runs the driver once as the rollout's agent: its first heartbeat brings the UPDATE CONFIGURATION of `flowHash`,
 * the library's handler applies it, the second reports it. Then the sweeper looks at the rollout three times
 * (the agent soaks, is healthy with no soak asked, and the class is done); the caller reads how it ended.
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
  const sweeper = composeSweeper(sweeperConfig(env));
  try {
    for (let look = 0; look < 3; look++) await sweeper.rollouts.advance(rollout.tenant, rollout.rolloutId);
  } finally {
    await sweeper.close();
  }
}
