import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { until } from "../test-support/until.js";
import { descendantsCpuMs, parseStat } from "./process-cpu.js";

describe("parseStat", () => {
  it("reads the parent and the user and system ticks past a command name holding spaces and parentheses", () => {
    const line =
      "4242 (node (load) x) S 4100 4242 4100 0 -1 4194560 9391 0 0 0 731 94 0 0 20 0 11 0 8766 1 2 3";
    expect(parseStat(line)).toEqual({ pid: 4242, ppid: 4100, cpuTicks: 825 });
  });
});

describe("descendantsCpuMs", () => {
  it("adds up the CPU time of this process's descendants by the names given their command lines", async () => {
    // A busy child under a shell, as the bench's emulators run under a watchdog; the shell itself is named nothing.
    const child = spawn("/bin/sh", ["-c", `"${process.execPath}" -e 'for (;;);' busy-marker; exit`], {
      detached: true,
    });
    const nameOf = (line: string) =>
      line.startsWith(process.execPath) && line.includes("busy-marker") ? "busy" : undefined;
    try {
      const totals = await until("the busy child to have spent 100 ms of CPU", async () => {
        const now = descendantsCpuMs(process.pid, nameOf);
        return (now.get("busy") ?? 0) >= 100 ? now : undefined;
      });
      expect([...totals.keys()]).toEqual(["busy"]);
    } finally {
      // The shell and the busy child both: they are a process group of their own.
      process.kill(-(child.pid as number), "SIGKILL");
    }
  });
});
