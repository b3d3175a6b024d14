import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";

/** What a Redis Cluster's masters were sent while some work ran, and which keys it touched. */
export interface ClusterTraffic<T> {
  result: T;
  /**
   * The commands clients sent, by name in lower case, in the order the masters received them (a
   * transaction's commands one by one). Left out: CLUSTER, with which a client refreshes its slot map
   * every few seconds whatever it does.
   */
  roundTrips: string[];
  /** The commands scripts ran, as "COMMAND key…", in order. */
  scriptCommands: string[];
  /** The keys scripts touched that their call did not declare, as "COMMAND key (declared: …)". */
  undeclaredKeys: string[];
  /** The hash slots of every key a client or a script touched, sorted. */
  slots: number[];
  /** The masters that ran a command on a key, as host:port, sorted. */
  nodes: string[];
}

export interface ClusterObserver {
  /** The master that serves the key's slot, as host:port. */
  nodeOf(key: string): Promise<string>;
  slotOf(key: string): Promise<number>;
  /**
   * Runs `work` while MONITOR watches every master. Nothing else may use the cluster meanwhile: the
   * test file that observes it owns it.
   */
  observe<T>(work: () => Promise<T>): Promise<ClusterTraffic<T>>;
  close(): void;
}

interface Monitored {
  time: number;
  node: string;
  /** "lua" for a command a script ran; the client's address otherwise. */
  source: string;
  args: string[];
}

const MARKER_TIMEOUT_MS = 5_000;
const MARKER_POLL_MS = 10;

/**
 * Watches a cluster from the outside: what each master ran, whose keys, and whether a script touched a
 * key it did not declare. A real cluster refuses only keys of other slots than a script's; ElastiCache
 * may route a script by its declared keys alone, so an undeclared key of the same slot is a fault too.
 */
export async function observeCluster(url: string): Promise<ClusterObserver> {
  const seedUrl = new URL(url);
  const seed = new Redis({ host: seedUrl.hostname, port: Number(seedUrl.port), maxRetriesPerRequest: 0 });
  const ranges = (await seed.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
  const masters = ranges.map(([first, last, [host, port]]) => ({ first, last, node: `${host}:${port}` }));
  const probes = new Map(
    masters.map(({ node }) => {
      const [host, port] = node.split(":");
      return [node, new Redis({ host, port: Number(port), maxRetriesPerRequest: 0 })];
    }),
  );
  const slots = new Map<string, number>();

  const slotOf = async (key: string) => {
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = (await seed.call("CLUSTER", "KEYSLOT", key)) as number;
      slots.set(key, slot);
    }
    return slot;
  };
  const nodeOfSlot = (slot: number) => {
    const master = masters.find(({ first, last }) => first <= slot && slot <= last);
    if (!master) throw new Error(`no master serves slot ${slot}`);
    return master.node;
  };
  const keysOf = async (args: string[]): Promise<string[]> => {
    try {
      return (await seed.call("COMMAND", "GETKEYS", ...args)) as string[];
    } catch {
      // A command without keys (PING, MULTI, EXEC).
      return [];
    }
  };

  async function watch(): Promise<{ stop(): Promise<Monitored[]> }> {
    const seen: Monitored[] = [];
    const failures: Error[] = [];
    const monitors = await Promise.all(
      [...probes].map(async ([node, probe]) => {
        const monitor = await monitorOf(probe, failures);
        monitor.on("monitor", (time: string, args: string[], source: string) => {
          seen.push({ time: Number(time), node, source, args });
        });
        return monitor;
      }),
    );
    return {
      async stop() {
        // MONITOR reports asynchronously: a marker sent to every master after the work tells when all arrived.
        const marker = `observer-${randomUUID()}`;
        const isMarker = (entry: Monitored) =>
          entry.args[0]?.toLowerCase() === "echo" && entry.args[1] === marker;
        await Promise.all([...probes.values()].map((probe) => probe.echo(marker)));
        const deadline = Date.now() + MARKER_TIMEOUT_MS;
        while (seen.filter(isMarker).length < probes.size) {
          if (Date.now() > deadline) throw new Error("MONITOR did not report the marker of every master");
          await sleep(MARKER_POLL_MS);
        }
        for (const monitor of monitors) monitor.disconnect();
        if (failures.length > 0) throw failures[0];
        return seen.filter((entry) => !isMarker(entry));
      },
    };
  }

  return {
    slotOf,
    nodeOf: async (key) => nodeOfSlot(await slotOf(key)),
    async observe(work) {
      const watching = await watch();
      const result = await work();
      const commands = await watching.stop();
      const traffic: ClusterTraffic<typeof result> = {
        result,
        roundTrips: [],
        scriptCommands: [],
        undeclaredKeys: [],
        slots: [],
        nodes: [],
      };
      const slotsTouched = new Set<number>();
      const nodesTouched = new Set<string>();
      const sent: { time: number; name: string }[] = [];
      /** Per master, the keys the script it ran last declared: a script's commands follow its call. */
      const declaredBy = new Map<string, string[]>();
      for (const { time, node, source, args } of commands) {
        const name = (args[0] ?? "").toLowerCase();
        if (source !== "lua" && name === "cluster") continue;
        const keys = await keysOf(args);
        for (const key of keys) slotsTouched.add(await slotOf(key));
        if (keys.length > 0) nodesTouched.add(node);
        if (source === "lua") {
          traffic.scriptCommands.push(`${name.toUpperCase()} ${keys.join(" ")}`.trim());
          const declared = declaredBy.get(node) ?? [];
          for (const key of keys.filter((key) => !declared.includes(key))) {
            traffic.undeclaredKeys.push(`${name.toUpperCase()} ${key} (declared: ${declared.join(" ")})`);
          }
        } else {
          sent.push({ time, name });
          declaredBy.set(node, name === "eval" || name === "evalsha" ? keys : []);
        }
      }
      // Each master's commands came in order; across masters, their times order them.
      traffic.roundTrips = sent.sort((a, b) => a.time - b.time).map(({ name }) => name);
      traffic.slots = [...slotsTouched].sort((a, b) => a - b);
      traffic.nodes = [...nodesTouched].sort();
      return traffic;
    },
    close() {
      seed.disconnect();
      for (const probe of probes.values()) probe.disconnect();
    },
  };
}

/**
 * A MONITOR connection to `probe`'s node, as `probe.monitor()` opens it, but for one race: a line MONITOR reports in
 * the same read as its own OK reaches ioredis before the connection counts as monitoring, and ioredis reports it as
 * a command queue error. That line came before the watch began, so the error is passed over; any other error fails
 * the start, or, once monitoring, is kept in `failures` for the watch to report.
 */
function monitorOf(probe: Redis, failures: Error[]): Promise<Redis> {
  const monitor = probe.duplicate({ monitor: true, lazyConnect: false });
  return new Promise((resolve, reject) => {
    let monitoring = false;
    monitor.on("error", (error: Error) => {
      if (error.message.startsWith("Command queue state error")) return;
      if (monitoring) failures.push(error);
      else reject(error);
    });
    monitor.once("monitoring", () => {
      monitoring = true;
      resolve(monitor);
    });
  });
}
