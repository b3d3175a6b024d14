/**
 * The local stand-in for the Lambda service's Invoke API (`POST /2015-03-31/functions/{name}/invocations`), so
 * that a function which invokes another on AWS does so locally with the same SDK client, aimed here by
 * AWS_ENDPOINT_URL_LAMBDA. Each invocation runs the function's real handler module through the local Lambda
 * runtime, and is answered as Lambda answers: the handler's result as JSON, `X-Amz-Function-Error: Unhandled`
 * with Lambda's error document for a handler that throws, and Lambda's error types for an unknown function or
 * a payload that is no JSON. Requests are not signature-checked: the endpoint listens on loopback only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A function the endpoint invokes: `invoke` is one invocation of its handler, by the local Lambda runtime. */
export interface InvokableFunction {
  readonly name: string;
  invoke(event: unknown): Promise<unknown>;
}

export interface LocalLambdaEndpoint {
  /** `http://127.0.0.1:<port>`, for AWS_ENDPOINT_URL_LAMBDA. */
  readonly url: string;
  close(): Promise<void>;
}

const ACCOUNT_ID = "000000000000";
const REGION = "local";
/** Lambda's limit on a synchronous invocation's request payload. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** A function's name as a caller may give it: its name, or an ARN or partial ARN ending in it (and a qualifier). */
function functionNameOf(given: string): string {
  const afterPrefix = given.includes("function:") ? given.slice(given.indexOf("function:") + 9) : given;
  return afterPrefix.split(":")[0] ?? "";
}

/** Lambda's answer to a failed request: its error type in the header the SDK reads, and a message. */
function refuse(response: ServerResponse, status: number, errorType: string, message: string): void {
  response.writeHead(status, { "content-type": "application/json", "x-amzn-errortype": errorType });
  response.end(JSON.stringify({ Type: "User", message }));
}

async function bodyOf(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PAYLOAD_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** What Lambda's Node.js runtime reports for a handler that threw. */
function errorDocument(error: unknown): string {
  const thrown = error instanceof Error ? error : new Error(String(error));
  return JSON.stringify({
    errorType: thrown.name,
    errorMessage: thrown.message,
    trace: (thrown.stack ?? "").split("\n"),
  });
}

export async function startLocalLambdaEndpoint(options: {
  /** 0 for any free port. */
  port: number;
  functions: InvokableFunction[];
  /** Where a failed asynchronous (`Event`) invocation is reported, as Lambda reports it in the function's log. */
  log: (line: string) => void;
}): Promise<LocalLambdaEndpoint> {
  const functions = new Map(options.functions.map((fn) => [fn.name, fn]));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    const match = INVOKE_PATH.exec(url.pathname);
    if (request.method !== "POST" || !match?.[1]) {
      refuse(response, 404, "UnknownOperationException", "Only Invoke is served here");
      return;
    }
    const name = functionNameOf(decodeURIComponent(match[1]));
    const fn = functions.get(name);
    if (!fn) {
      const arn = `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${name}`;
      refuse(response, 404, "ResourceNotFoundException", `Function not found: ${arn}`);
      return;
    }
    const body = await bodyOf(request);
    if (!body) {
      refuse(response, 413, "RequestTooLargeException", "Request must be smaller than 6291456 bytes");
      return;
    }
    let event: unknown = {};
    if (body.length > 0) {
      try {
        event = JSON.parse(body.toString("utf8"));
      } catch (error) {
        refuse(
          response,
          400,
          "InvalidRequestContentException",
          `Could not parse request body into json: ${(error as Error).message}`,
        );
        return;
      }
    }
    const headers = { "content-type": "application/json", "x-amz-executed-version": "$LATEST" };
    switch (request.headers["x-amz-invocation-type"] ?? "RequestResponse") {
      case "RequestResponse":
        break;
      case "Event":
        fn.invoke(event).catch((error: unknown) => options.log(`${name}: invocation failed: ${error}`));
        response.writeHead(202, headers).end();
        return;
      case "DryRun":
        response.writeHead(204, headers).end();
        return;
      default:
        refuse(response, 400, "InvalidParameterValueException", "Unknown invocation type");
        return;
    }
    try {
      const result = await fn.invoke(event);
      response.writeHead(200, headers).end(JSON.stringify(result ?? null));
    } catch (error) {
      response.writeHead(200, { ...headers, "x-amz-function-error": "Unhandled" }).end(errorDocument(error));
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, "ServiceException", (error as Error).message);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
