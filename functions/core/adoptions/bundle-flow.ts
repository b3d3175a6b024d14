/**
 * The flow an agent runs, read out of its debug bundle (a gzip tar): MiNiFi Java 2.x puts its flow file
 * (`flow.json.gz`) in inflated, as `flow.json` (its TRANSFER DEBUG handler inflates every gzipped file it bundles),
 * the C++ agent puts its flow configuration file in as `config.yml`, whatever layout the file has (JSON or YAML). The bundle is read as a stream: entries other than the flow are counted
 * and dropped, so memory holds a chunk and the flow, never the bundle's logs.
 */
import { createGunzip } from "node:zlib";
import { BeaconError } from "../errors.js";

/** The entries that hold the agent's flow, the first found taken: Java's, then C++'s. */
export const BUNDLE_FLOW_ENTRIES = ["flow.json", "config.yml"] as const;

export interface BundleFlowLimits {
  /** Largest flow document taken, inflated: what a published version may be. */
  maxFlowBytes: number;
  /** Largest tar the bundle may inflate to, every entry counted: a gzip bomb stops here. */
  maxTarBytes: number;
}

const BLOCK = 512;

const unreadable = (message: string) =>
  new BeaconError("invalid_request", `The debug bundle holds no flow Beacon can take: ${message}`);

/** The entry's name without directories: agents put their files at the archive's top, some under a folder. */
const baseName = (name: string) => name.slice(name.lastIndexOf("/") + 1);

interface TarEntry {
  name: string;
  size: number;
  /** A regular file (type `0` or NUL); links, directories and extended headers are skipped. */
  regular: boolean;
}

function headerOf(block: Buffer): TarEntry | undefined {
  if (block.every((byte) => byte === 0)) return undefined;
  const text = (start: number, length: number) =>
    block.toString("latin1", start, start + length).replace(/\0.*$/s, "");
  if (!text(257, 5).startsWith("ustar")) throw unreadable("it is not a tar archive");
  const size = Number.parseInt(text(124, 12).trim() || "0", 8);
  if (!Number.isSafeInteger(size) || size < 0) throw unreadable("a tar entry has no readable size");
  const prefix = text(345, 155);
  const type = block[156];
  return {
    name: prefix === "" ? text(0, 100) : `${prefix}/${text(0, 100)}`,
    size,
    regular: type === 0x30 || type === 0,
  };
}

/**
 * Reads the agent's flow out of the bundle `source` yields: the entry's name and the flow document's bytes.
 * Throws invalid_request when the bundle is not a gzip tar, inflates past `maxTarBytes`, holds no flow
 * entry, or its flow is larger than `maxFlowBytes`.
 */
export async function flowInBundle(
  source: AsyncIterable<Uint8Array>,
  limits: BundleFlowLimits,
): Promise<{ entry: string; bytes: Uint8Array }> {
  const gunzip = createGunzip();
  const feeding = (async () => {
    try {
      for await (const chunk of source) {
        // Reading stops once the flow is found or refused, which destroys the inflater: stop feeding it.
        if (gunzip.destroyed) return;
        if (!gunzip.write(chunk)) await drainedOrClosed(gunzip);
      }
      gunzip.end();
    } catch (error) {
      gunzip.destroy(error as Error);
    }
  })();
  const found = new Map<string, Buffer>();
  let inflated = 0;
  let pending: Buffer = Buffer.alloc(0);
  let entry: TarEntry | undefined;
  let remaining = 0; // bytes of the current entry's data and padding still to come
  let kept: Buffer[] | undefined; // the current entry's data, when it is a flow entry
  let ended = false;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > limits.maxTarBytes)
        throw unreadable(`it inflates past ${limits.maxTarBytes} bytes, the most Beacon reads of a bundle`);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (!ended) {
        if (entry) {
          const take = Math.min(remaining, pending.length);
          if (take === 0) break;
          kept?.push(pending.subarray(0, take));
          pending = pending.subarray(take);
          remaining -= take;
          if (remaining > 0) break;
          if (kept) found.set(baseName(entry.name), Buffer.concat(kept).subarray(0, entry.size));
          entry = undefined;
          kept = undefined;
          continue;
        }
        if (pending.length < BLOCK) break;
        const header = headerOf(pending.subarray(0, BLOCK));
        pending = pending.subarray(BLOCK);
        if (!header) {
          ended = true;
          break;
        }
        entry = header;
        remaining = Math.ceil(header.size / BLOCK) * BLOCK;
        const flowEntry =
          header.regular && (BUNDLE_FLOW_ENTRIES as readonly string[]).includes(baseName(header.name));
        if (flowEntry && header.size > limits.maxFlowBytes)
          throw unreadable(
            `its ${baseName(header.name)} holds ${header.size} bytes, more than the ${limits.maxFlowBytes} of the largest flow Beacon takes`,
          );
        kept = flowEntry ? [] : undefined;
      }
      if (ended) break;
    }
  } catch (error) {
    gunzip.destroy();
    if (error instanceof BeaconError) throw error;
    throw unreadable("it is not a gzip tar");
  } finally {
    await feeding;
  }
  for (const name of BUNDLE_FLOW_ENTRIES) {
    const bytes = found.get(name);
    if (bytes) return { entry: name, bytes };
  }
  throw unreadable(`it has none of ${BUNDLE_FLOW_ENTRIES.join(", ")}`);
}

const drainedOrClosed = (stream: NodeJS.WritableStream) =>
  new Promise<void>((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
