import type { Readable } from "node:stream";
import type { KinesisClient } from "@aws-sdk/client-kinesis";

/** One record as PutRecords takes it: its data (base64, as Kinesis's JSON API carries bytes) and partition key. */
export interface RecordEntry {
  Data: string;
  PartitionKey: string;
}

/** What became of each record of a PutRecords call, in the order they were sent. */
export interface PutRecordsOutcome {
  Records?: { ErrorCode?: string; SequenceNumber?: string }[];
}

export type PutRecords = (streamName: string, records: RecordEntry[]) => Promise<PutRecordsOutcome>;

/** A PutRecords call Kinesis refused whole; named as Kinesis names the error (e.g. ProvisionedThroughputExceededException). */
export class KinesisRequestError extends Error {
  constructor(
    name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = name;
  }
}

interface Target {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
}

/**
 * PutRecords over the client's own configuration (region, endpoint, credentials, signer, HTTP handler), without
 * the SDK's per-call middleware: the request is Kinesis's JSON API (a POST of
 * `Kinesis_20131202.PutRecords`), signed with the client's SigV4 signer and sent by its handler. On the hot path
 * the SDK's middleware (serialisation schemas, endpoint rules, retries, logging filters) cost more CPU than the
 * rest of a steady heartbeat; the sink retries what fails (event-sink.ts).
 */
export function kinesisPutRecords(client: KinesisClient): PutRecords {
  type Config = KinesisClient["config"];
  let ready:
    | Promise<{ config: Config; target: Target; signer: Awaited<ReturnType<Config["signer"]>> }>
    | undefined;
  // Read at the first put, not before: a client made on first use (aws-clients.ts) is made then.
  const prepare = async () => {
    const { config } = client;
    const region = await config.region();
    const target: Target = config.isCustomEndpoint
      ? await (config.endpoint as () => Promise<Target>)()
      : urlTarget(
          config.endpointProvider({
            Region: region,
            UseFIPS: await config.useFipsEndpoint(),
            UseDualStack: await config.useDualstackEndpoint(),
          }).url,
        );
    return { config, target, signer: await config.signer() };
  };

  return async (streamName, records) => {
    ready ??= prepare().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    const { config, target, signer } = await ready;
    const body = JSON.stringify({ StreamName: streamName, Records: records });
    const request = await signer.sign({
      method: "POST",
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      query: {},
      headers: {
        host: target.port ? `${target.hostname}:${target.port}` : target.hostname,
        "content-type": "application/x-amz-json-1.1",
        "content-length": String(Buffer.byteLength(body)),
        "x-amz-target": "Kinesis_20131202.PutRecords",
      },
      body,
    });
    const { response } = await config.requestHandler.handle(
      request as Parameters<typeof config.requestHandler.handle>[0],
    );
    // The Node.js handler's response body is the IncomingMessage.
    const text = await textOf(response.body as Readable);
    if (response.statusCode === 200) return JSON.parse(text) as PutRecordsOutcome;
    throw errorOf(response.statusCode, text);
  };
}

function urlTarget(url: URL): Target {
  return {
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
  };
}

/** The response's text, read by its events: an async iterator's stream machinery costs more than the body's read. */
function textOf(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on("data", (chunk: Buffer) => chunks.push(chunk));
    body.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    body.once("error", reject);
  });
}

/** Kinesis names an error in `__type`, sometimes prefixed with its namespace (`com.amazonaws…#Name`). */
function errorOf(statusCode: number, text: string): KinesisRequestError {
  let reported: { __type?: string; message?: string; Message?: string } = {};
  try {
    reported = JSON.parse(text) as typeof reported;
  } catch {
    // Not Kinesis's JSON: a proxy's or load balancer's page; the status names it.
  }
  const name = reported.__type?.split("#").at(-1) || `HTTP${statusCode}`;
  return new KinesisRequestError(
    name,
    reported.message ?? reported.Message ?? text.slice(0, 200),
    statusCode,
  );
}
