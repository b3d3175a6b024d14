import { describe, expect, it } from "vitest";
import { cppAgentOf, javaAgentOf } from "../../../scripts/common/c2-examples.js";
import { normalizeHeartbeat } from "../c2/heartbeat.js";
import { BeaconError } from "../errors.js";
import {
  type LabelSource,
  MAX_LABEL_SOURCES,
  reportedLabelsOf,
  validateLabelSources,
} from "./label-sources.js";

const reportedBy = (body: Parameters<typeof normalizeHeartbeat>[0]) => {
  const { device, manifest } = normalizeHeartbeat(body);
  return { device, manifest };
};

describe("labels taken from what agents report", () => {
  it("reads a MiNiFi C++ agent's device, manifest and UPDATE PROPERTIES values", () => {
    const agent = cppAgentOf("edge-0001", "gateways");
    const sources: LabelSource[] = [
      { label: "host", from: "device:hostname" },
      { label: "os", from: "device:operatingSystem" },
      { label: "arch", from: "device:machineArch" },
      { label: "ip", from: "device:ipAddress" },
      { label: "flavour", from: "agent:agentType" },
      { label: "version", from: "agent:version" },
      { label: "c2-id", from: "property:nifi.c2.agent.identifier" },
    ];
    expect(reportedLabelsOf(sources, reportedBy(agent.full()))).toEqual({
      host: "edge-gw-0001",
      os: "Linux",
      arch: "x86_64",
      ip: "192.0.2.10",
      flavour: "cpp",
      version: "1.0.0",
      "c2-id": "edge-0001",
    });
  });

  it("reads a MiNiFi Java agent's, whose manifest states its version itself", () => {
    const agent = javaAgentOf("probe-7", "probes");
    const sources: LabelSource[] = [
      { label: "example.com/class", from: "property:c2.agent.class" },
      { label: "os", from: "device:operatingSystem" },
      { label: "arch", from: "device:machineArch" },
      { label: "flavour", from: "agent:agentType" },
      { label: "version", from: "agent:version" },
    ];
    expect(reportedLabelsOf(sources, reportedBy(agent.full()))).toEqual({
      "example.com/class": "probes",
      os: "Linux",
      arch: "amd64",
      flavour: "minifi-java",
      version: "2.3.0",
    });
  });

  it("gives no label for what is not reported, nor for a value no label can hold", () => {
    const agent = cppAgentOf("edge-0002", "gateways");
    const sources: LabelSource[] = [
      // "30 sec": a space is no label value's.
      { label: "period", from: "property:nifi.c2.agent.heartbeat.period" },
      // Listed without a value.
      { label: "log", from: "property:nifi.log.level" },
      { label: "site", from: "property:nifi.c2.site" },
      { label: "host", from: "device:hostname" },
    ];
    expect(reportedLabelsOf(sources, reportedBy(agent.full()))).toEqual({ host: "edge-gw-0001" });
    // A light heartbeat brings no manifest: only the device's labels.
    expect(reportedLabelsOf(sources, reportedBy(agent.light()))).toEqual({ host: "edge-gw-0001" });
  });
});

describe("a class's label sources", () => {
  const refusal = (sources: LabelSource[]) => {
    try {
      validateLabelSources(sources);
    } catch (error) {
      expect(error).toBeInstanceOf(BeaconError);
      expect((error as BeaconError).code).toBe("invalid_request");
      return (error as BeaconError).message;
    }
    return undefined;
  };

  it("takes each kind Beacon reads", () => {
    expect(
      refusal([
        { label: "site", from: "property:nifi.c2.site" },
        { label: "os", from: "device:operatingSystem" },
        { label: "example.com/version", from: "agent:version" },
      ]),
    ).toBeUndefined();
  });

  it("refuses a malformed label, a label named twice, and a source Beacon cannot read", () => {
    expect(refusal([{ label: "-site", from: "device:hostname" }])).toMatch(/"-site" is no valid label key/);
    expect(
      refusal([
        { label: "host", from: "device:hostname" },
        { label: "host", from: "device:ipAddress" },
      ]),
    ).toMatch(/"host" has more than one source/);
    for (const from of ["device:osName", "agent:identifier", "property:", "hostname", "env:SITE"])
      expect(refusal([{ label: "x", from }]), from).toMatch(new RegExp(`taken from "${from}"`));
  });

  it("refuses more sources than an agent may have labels", () => {
    const sources = Array.from({ length: MAX_LABEL_SOURCES + 1 }, (_, index) => ({
      label: `p${index}`,
      from: `property:p${index}`,
    }));
    expect(refusal(sources)).toMatch(/at most/);
    expect(refusal(sources.slice(1))).toBeUndefined();
  });
});
