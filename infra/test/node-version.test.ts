import { describe, expect, it } from "vitest";
import { synthesized } from "./assembly.js";

type LambdaFunction = {
  Properties: { Runtime?: string; Environment?: { Variables?: Record<string, unknown> } };
};

/** The runtimes of Beacon's own functions, which log through Powertools (CDK adds handlers on runtimes it picks). */
function beaconRuntimes(): string[] {
  const { statefulTemplate, statelessTemplate } = synthesized("dev");
  const functions = [statefulTemplate, statelessTemplate].flatMap(
    (template) => Object.values(template.findResources("AWS::Lambda::Function")) as LambdaFunction[],
  );
  const runtimes = functions
    .filter(({ Properties }) => Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME !== undefined)
    .map(({ Properties }) => Properties.Runtime ?? "none");
  return [...new Set(runtimes)];
}

describe("the Node the tests run on", () => {
  it("is the major version Lambda runs Beacon's functions on", () => {
    const major = process.versions.node.split(".")[0];
    expect(
      beaconRuntimes(),
      `these tests run on Node ${process.version} (${process.execPath}), not on Lambda's: run them through ` +
        "scripts/build/with-node22 as npm test does (scripts/build/with-node22 npx vitest run <files>)",
    ).toEqual([`nodejs${major}.x`]);
  });
});
