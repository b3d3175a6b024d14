import { describe, expect, it } from "vitest";
import { isPublicAddress, mayConnect, webhookUrlProblem } from "./address-policy.js";

const nowhere = { allowedHosts: [] };

describe("which addresses a delivery may reach", () => {
  it.each([
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "127.0.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1%eth0",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:a9fe:a9fe",
    "64:ff9b::10.0.0.1",
    "2002:a00:1::",
    "2001:db8::1",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "allows %s",
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it("lets an allow-listed host use a private address, and no other", () => {
    const local = { allowedHosts: ["127.0.0.1", "localhost"] };
    expect(mayConnect("localhost", "127.0.0.1", local)).toBe(true);
    expect(mayConnect("hooks.example.com", "127.0.0.1", local)).toBe(false);
    expect(mayConnect("hooks.example.com", "93.184.216.34", nowhere)).toBe(true);
  });
});

describe("which subscription URLs are taken", () => {
  it.each([
    ["http://hooks.example.com/beacon", "must use https"],
    ["not a url", "is not a URL"],
    ["https://user:pass@hooks.example.com/", "must not carry credentials"],
    ["https://hooks.example.com/#part", "must not carry a fragment"],
    ["https://169.254.169.254/latest/meta-data", "must not name a private, loopback or link-local address"],
    ["https://[::1]:8443/", "must not name a private, loopback or link-local address"],
    ["https://localhost/", "must name a public host"],
    ["https://metadata.google.internal/", "must name a public host"],
    ["https://intranet/", "must name a public host"],
  ])("refuses %s", (url, problem) => {
    expect(webhookUrlProblem(url, nowhere)).toBe(problem);
  });

  it("takes a public https URL, and a local one only when allow-listed", () => {
    expect(webhookUrlProblem("https://hooks.example.com:8443/beacon?x=1", nowhere)).toBeUndefined();
    expect(webhookUrlProblem("https://127.0.0.1:9443/hook", { allowedHosts: ["127.0.0.1"] })).toBeUndefined();
  });
});
