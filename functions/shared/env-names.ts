/**
 * Names of the environment variables Beacon's functions read. The CDK app sets them from the same
 * constant, so a rename cannot leave a deployed function reading a variable nobody sets.
 * Endpoints of AWS services come from the SDK's own variables (AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_KINESIS, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL_EVENTBRIDGE, AWS_ENDPOINT_URL_LAMBDA,
 * AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_ENDPOINT_URL_SSM), which only
 * the local stack sets.
 */
export const EnvNames = {
  tableName: "BEACON_TABLE_NAME",
  streamName: "BEACON_STREAM_NAME",
  redisUrl: "BEACON_REDIS_URL",
  cacheTimeoutMs: "BEACON_CACHE_TIMEOUT_MS",
  agentStorageShareMs: "BEACON_AGENT_STORAGE_SHARE_MS",
  maxInflatedBytes: "BEACON_MAX_INFLATED_BYTES",
  checkpointMinutes: "BEACON_CHECKPOINT_MINUTES",
  describeRetrySeconds: "BEACON_DESCRIBE_RETRY_SECONDS",
  maxOperationsPerReply: "BEACON_MAX_OPERATIONS_PER_REPLY",
  operationAckTimeoutSeconds: "BEACON_OPERATION_ACK_TIMEOUT_SECONDS",
  /** The sweeper times out a queued operation after this many heartbeat intervals of its agent's class. */
  queuedTimeoutHeartbeats: "BEACON_QUEUED_TIMEOUT_HEARTBEATS",
  /** Most due operations one sweeper run handles. */
  sweeperMaxOperations: "BEACON_SWEEPER_MAX_OPERATIONS",
  groupCountMinutes: "BEACON_GROUP_COUNT_MINUTES",
  /** How long a console request by selector queues operations before a selection job takes the rest over. */
  selectionBudgetSeconds: "BEACON_SELECTION_BUDGET_SECONDS",
  /**
   * How often the sweeper runs, in seconds (the local stack's timer, and the console API, which shows rollouts'
   * pace by it); on AWS its schedule's SWEEPER_INTERVAL_SECONDS.
   */
  sweeperIntervalSeconds: "BEACON_SWEEPER_INTERVAL_SECONDS",
  /**
   * Which way of running the agent API usage statements are priced as (console API): one of the capacity
   * model's options, httpApiLambda (the default agentIngress=api), albLambda or albFargate.
   */
  usagePricedOption: "BEACON_USAGE_PRICED_OPTION",
  /** Unit prices over the model's for usage statements (console API): JSON, `{"heartbeats": 0.00001, …}`, USD. */
  usageUnitPrices: "BEACON_USAGE_UNIT_PRICES",
  /** ARN of the Secrets Manager secret holding the agent CA (console API on AWS). */
  agentCaSecretArn: "BEACON_AGENT_CA_SECRET_ARN",
  /**
   * Which tenants the certificates of each CA the agent ingress trusts may speak for (agent API): JSON,
   * `{"<CA subject name>": "*" | ["<tenant>", …]}`. Unset, every trusted CA is Beacon's own.
   */
  agentCaBindings: "BEACON_AGENT_CA_BINDINGS",
  /**
   * The SHA-256 fingerprints (`AB:CD:…`, comma-separated) of Beacon's CAs the agent ingress trusts (console API
   * and sweeper on AWS, from the CDK app's CA bundle): certificates another CA of Beacon's signed are retired.
   */
  trustedCaFingerprints: "BEACON_TRUSTED_CA_FINGERPRINTS",
  /** Folder holding the agent CA as ca.pem and ca.key (console API on the local stack). */
  agentCaDir: "BEACON_AGENT_CA_DIR",
  /** The agent API's public base URL (`https://host[:port]`): both APIs put it in URLs agents follow. */
  agentApiUrl: "BEACON_AGENT_API_URL",
  /** How long the agent API waits before sending a catch-up UPDATE CONFIGURATION to the same agent again. */
  catchUpRetrySeconds: "BEACON_CATCH_UP_RETRY_SECONDS",
  /** How long an ERROR bulletin holds its agent in need of attention (agent API); 900 unless set. */
  errorBulletinWindowSeconds: "BEACON_ERROR_BULLETIN_WINDOW_SECONDS",
  /** Days the console's audit records are kept (console API); 400 unless set. */
  auditRetentionDays: "BEACON_AUDIT_RETENTION_DAYS",
  /** The S3 bucket holding tenants' assets (`<tenant>/assets/<sha256>`). */
  assetBucket: "BEACON_ASSET_BUCKET",
  /**
   * Days the console serves the answer a DESCRIBE brought (agent API), kept in the asset bucket under
   * `operation-results/`, whose lifecycle deletes it after as many days; 7 unless set.
   */
  operationResultDays: "BEACON_OPERATION_RESULT_DAYS",
  /**
   * The base URL (`https://host[:port]`) of TRANSFER DEBUG's upload targets (console API): where agents reach the
   * streaming bundle intake, `<base>/c2/debug-bundles/<operationId>`; the agent API's public base unless set.
   */
  debugBundleTargetBase: "BEACON_DEBUG_BUNDLE_TARGET_BASE",
  /**
   * Days the console serves a debug bundle (bundle intake), kept in the asset bucket under `debug-bundles/`,
   * whose lifecycle deletes it after as many days; 1 unless set.
   */
  debugBundleDays: "BEACON_DEBUG_BUNDLE_DAYS",
  /**
   * "1": the sweeper writes each tenant's fleet series as CloudWatch Embedded Metric Format lines every run
   * (docs/metrics.md); set by the CDK app, absent locally.
   */
  fleetMetricsToCloudWatch: "BEACON_FLEET_METRICS_TO_CLOUDWATCH",
  /** The S3 bucket of the event archive (`events/tenant=<t>/day=<YYYY-MM-DD>/hour=<HH>/…json.gz`). */
  archiveBucket: "BEACON_ARCHIVE_BUCKET",
  /** Days before its notAfter a certificate counts as expiring: listed by the console, announced by the sweeper. */
  certExpiryWarningDays: "BEACON_CERT_EXPIRY_WARNING_DAYS",
  /**
   * Seconds an upload's part URLs are signed for at most (console API); an hour unless set. Tests set less, to
   * have links expire while an upload is under way; unset on AWS.
   */
  assetUploadLinkSeconds: "BEACON_ASSET_UPLOAD_LINK_SECONDS",
  /** Days fleet history and the agents' event logs are kept (stream consumer); 14 unless set. */
  historyRetentionDays: "BEACON_HISTORY_RETENTION_DAYS",
  /**
   * Hosts (comma-separated names or addresses) that event subscriptions may reach although they resolve to
   * private or loopback addresses: local receivers only; unset on AWS, where every such address is refused.
   */
  webhookAllowedHosts: "BEACON_WEBHOOK_ALLOWED_HOSTS",
  /** A PEM file of a CA deliveries also trust besides the public ones: a local receiver's; unset on AWS. */
  webhookCaFile: "BEACON_WEBHOOK_CA_FILE",
  /** Most events the cache holds for the stream while it is unreachable (agent API, console API, sweeper). */
  eventBufferMaxEvents: "BEACON_EVENT_BUFFER_MAX_EVENTS",
  /** Most of one tenant's events the cache holds of those; a tenth of the whole unless set. */
  eventBufferMaxEventsPerTenant: "BEACON_EVENT_BUFFER_MAX_EVENTS_PER_TENANT",
  /** Days a delivery of an event subscription stays in its delivery log (stream consumer); 7 unless set. */
  webhookDeliveryRetentionDays: "BEACON_WEBHOOK_DELIVERY_RETENTION_DAYS",
  /**
   * The EventBridge bus the stream consumer puts every notification on, for AWS-native consumers; unset, it
   * puts them on no bus.
   */
  notificationBusName: "BEACON_NOTIFICATION_BUS_NAME",
  /**
   * The function the console API invokes to post a subscription's test from where receivers can be reached: the
   * webhook dispatcher's name (console API).
   */
  webhookTesterFunction: "BEACON_WEBHOOK_TESTER_FUNCTION",
  /** The port the agent service (the agent API on Fargate) listens on; 8080 unless set. */
  agentServicePort: "BEACON_AGENT_SERVICE_PORT",
  /**
   * The agent service's server certificate (PEM, the leaf first, then any intermediate) and its private key, when
   * it terminates mutual TLS itself (behind a Network Load Balancer); unset, it speaks plain HTTP to an ALB.
   */
  agentServiceTlsCertificate: "BEACON_AGENT_SERVICE_TLS_CERTIFICATE",
  agentServiceTlsKey: "BEACON_AGENT_SERVICE_TLS_KEY",
  /** The CAs whose client certificates the agent service accepts when it terminates TLS: the ingress's truststore. */
  agentServiceCaBundle: "BEACON_AGENT_SERVICE_CA_BUNDLE",
  /** The plain-HTTP port of the agent service's health check when it terminates TLS; 8081 unless set. */
  agentServiceHealthPort: "BEACON_AGENT_SERVICE_HEALTH_PORT",
} as const;

export type EnvName = (typeof EnvNames)[keyof typeof EnvNames];

export const AwsEndpointEnvNames = {
  dynamodb: "AWS_ENDPOINT_URL_DYNAMODB",
  kinesis: "AWS_ENDPOINT_URL_KINESIS",
  s3: "AWS_ENDPOINT_URL_S3",
  eventbridge: "AWS_ENDPOINT_URL_EVENTBRIDGE",
  lambda: "AWS_ENDPOINT_URL_LAMBDA",
  secretsManager: "AWS_ENDPOINT_URL_SECRETS_MANAGER",
  ssm: "AWS_ENDPOINT_URL_SSM",
} as const;
