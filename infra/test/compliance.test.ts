import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cfnLint } from "./cfn-lint.js";
import { nagAcknowledgementsOf, type SynthesizedBeacon, synthesizeBeacon } from "./synthesize.js";

const variants: Record<string, Record<string, string>> = {
  "dev behind API Gateway": { stage: "dev" },
  "prod behind API Gateway": { stage: "prod" },
  "prod behind a load balancer, provisioned stream, tracing on": {
    stage: "prod",
    agentIngress: "alb",
    streamShards: "2",
    tracing: "true",
  },
};
const outcomes = new Map<string, SynthesizedBeacon | Error>();

beforeAll(() => {
  for (const [name, context] of Object.entries(variants)) {
    try {
      outcomes.set(name, synthesizeBeacon(context));
    } catch (error) {
      outcomes.set(name, error as Error);
    }
  }
});

function synthesized(name: string): SynthesizedBeacon {
  const outcome = outcomes.get(name);
  if (outcome instanceof Error || outcome === undefined)
    throw outcome ?? new Error(`${name} was not synthesized`);
  return outcome;
}

describe.each(Object.keys(variants))("%s", (name) => {
  it("synthesizes with no unacknowledged AwsSolutions finding", () => {
    expect(outcomes.get(name)).not.toBeInstanceOf(Error);
  });

  it("gives every acknowledgement a written reason", () => {
    const acknowledgements = nagAcknowledgementsOf(synthesized(name).app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { rule, reason } of acknowledgements) {
      expect(reason.split(" ").length, rule).toBeGreaterThanOrEqual(12);
    }
  });

  it("passes cfn-lint on every template", () => {
    const { assembly } = synthesized(name);
    const templates = assembly.stacks.map((stack) => join(assembly.directory, stack.templateFile));
    expect(templates).toHaveLength(2);
    const { exitCode, findings } = cfnLint(templates);
    expect(findings).toEqual([]);
    expect(exitCode).toBe(0);
  });
});

it("acknowledges only these AwsSolutions rules, each for a reason written beside it", () => {
  const rules = new Set(
    Object.keys(variants).flatMap((name) =>
      nagAcknowledgementsOf(synthesized(name).app).map(({ rule }) => rule),
    ),
  );
  expect([...rules].sort()).toEqual([
    "AwsSolutions-APIG4",
    "AwsSolutions-COG8",
    "AwsSolutions-EC23",
    "AwsSolutions-ELB2",
    "AwsSolutions-IAM5[Resource::*]",
    "AwsSolutions-L1",
    "AwsSolutions-S1",
    "AwsSolutions-SMG4",
  ]);
});
