import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";

/**
 * Service name, namespace and log level come from the POWERTOOLS_* variables the function construct
 * sets; a value given here would override them and detach the metrics from their alarms.
 */
export const logger = new Logger();
export const metrics = new Metrics();

export const MetricNames = {
  heartbeats: "Heartbeats",
  acknowledgements: "Acknowledgements",
  registrations: "Registrations",
  manifestsStored: "ManifestsStored",
  describeSent: "DescribeSent",
  cacheFallbacks: "CacheFallbacks",
  streamFailures: "StreamFailures",
  rejectedRequests: "RejectedRequests",
  operationsTimedOut: "OperationsTimedOut",
  operationsCancelled: "OperationsCancelled",
  rolloutBatchesStarted: "RolloutBatchesStarted",
  rolloutsCompleted: "RolloutsCompleted",
  rolloutsRolledBack: "RolloutsRolledBack",
  rolloutsAborted: "RolloutsAborted",
  rolloutsPaused: "RolloutsPaused",
} as const;
