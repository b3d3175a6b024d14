/**
 * Asset downloads on Lambda with response streaming: API Gateway's REST API invokes this function with
 * InvokeWithResponseStream (the integration's STREAM response transfer mode), so an asset of any size Beacon
 * stores reaches the agent through the default ingress. `awslambda` exists only in Lambda's Node.js runtime.
 */
import type { Writable } from "node:stream";
import { assetStreamHandler, type HttpResponseMetadata, type StreamingHandler } from "./asset-stream.js";

declare const awslambda: {
  streamifyResponse(handler: StreamingHandler): StreamingHandler;
  HttpResponseStream: { from(responseStream: Writable, metadata: HttpResponseMetadata): Writable };
};

export const handler = awslambda.streamifyResponse(
  assetStreamHandler((responseStream, metadata) =>
    awslambda.HttpResponseStream.from(responseStream, metadata),
  ),
);
