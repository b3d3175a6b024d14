import { CfnOutput, Duration, Lazy, RemovalPolicy, Stack, type StackProps, Validations } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { StartingPosition } from "aws-cdk-lib/aws-lambda";
import { KinesisEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { AgentRoutes, agentRouteUrl } from "../../functions/core/c2/routes.js";
import { FunctionTimeouts, SWEEPER_INTERVAL_SECONDS } from "../../functions/shared/function-timeouts.js";
import { CLI_SIGN_IN_REDIRECT, SIGN_IN_CALLBACK_PATH } from "../../web/serving.js";
import { AgentHttpApi } from "./agent-http-api.js";
import { type AgentIngress, AgentTruststore } from "./agent-ingress.js";
import { AgentLoadBalancer } from "./agent-load-balancer.js";
import { AgentNetworkLoadBalancer } from "./agent-network-load-balancer.js";
import { AgentService, agentApiTaskSize, smallestTaskSize } from "./agent-service.js";
import {
  BeaconFunction,
  type BeaconWorkload,
  type FunctionPlatform,
  KeptForConsole,
} from "./beacon-function.js";
import type { BeaconConfig } from "./config.js";
import { ConsoleHttpApi } from "./console-http-api.js";
import { Monitoring } from "./monitoring.js";
import type { StatefulStack } from "./stateful-stack.js";
import { WebConsole, webSignInOf } from "./web-console.js";

/**
 * Most records per invocation: Lambda also stops a batch at 6 MB, about 5,000 of Beacon's events, so batches
 * are as large as a function invocation takes.
 */
const STREAM_BATCH_SIZE = 10_000;

export interface StatelessStackProps extends StackProps {
  readonly config: BeaconConfig;
  readonly stateful: StatefulStack;
}

/** What a deployment may replace at will: the functions, the agent ingress, the console API, alarms and the dashboard. */
export class StatelessStack extends Stack {
  /** The agent-api function, or the agent service with `agentCompute=fargate`. */
  readonly agentApi: BeaconWorkload;
  readonly agentIngress: AgentIngress;
  readonly consoleApi: BeaconFunction;
  readonly sweeper: BeaconFunction;
  readonly streamConsumer: BeaconFunction;
  readonly webhookDispatcher: BeaconFunction;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config, stateful } = props;
    const { settings } = config;
    this.addStackDependency(
      stateful,
      "Beacon's functions read and write the table, stream and cache the stateful stack owns",
    );

    const monitoring = new Monitoring(this, "Monitoring", {
      dashboardName: `Beacon-${config.stage}`,
      thresholds: settings.alarms,
      alarmEmail: config.alarmEmail,
    });
    const platform: FunctionPlatform = {
      stage: config.stage,
      vpc: stateful.vpc,
      monitoring,
      logRetention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
      logLevel: config.logLevel,
      platformLogLevel: settings.platformLogLevel,
      tracing: config.tracing,
    };

    const truststore = new AgentTruststore(this, "AgentTruststore", {
      caBundlePem: config.agentDomain.trust.bundlePem,
      removalPolicy: settings.removalPolicy,
      logRetention: settings.logRetention,
    });
    const agentApiServiceName = `agent-api-${config.stage}`;
    if (config.agentCompute === "fargate") {
      const certificateArn = config.agentServerCertificateSecretArn;
      const service = new AgentService(this, "AgentService", {
        platform,
        serviceName: agentApiServiceName,
        size: agentApiTaskSize,
        tasks: config.agentServiceTasks,
        watchesDegradations: true,
        // Behind the NLB the service terminates mutual TLS itself, against the ALB trust store's bundle.
        ...(certificateArn
          ? {
              tls: {
                certificateSecret: Secret.fromSecretCompleteArn(
                  this,
                  "AgentServerCertificate",
                  certificateArn,
                ),
                caBundlePem: config.agentDomain.trust.bundlePem,
              },
            }
          : {}),
      });
      this.bindAgentApi(service, config, stateful, true);
      this.agentApi = service;
      if (config.agentIngress === "nlb") {
        this.agentIngress = new AgentNetworkLoadBalancer(this, "AgentNetworkLoadBalancer", {
          ...this.loadBalancerPlacement(config, stateful),
          service,
        });
      } else {
        const loadBalancer = new AgentLoadBalancer(this, "AgentLoadBalancer", {
          ...this.loadBalancerProps(config, stateful, truststore),
          agentApi: { service: service.targetGroup },
          streamed: service.addTargetGroup("DebugBundleTargets"),
        });
        service.servedBy();
        this.agentIngress = loadBalancer;
      }
    } else {
      const agentApi = new BeaconFunction(this, "AgentApi", {
        platform,
        entry: "agent-api",
        memorySize: settings.memoryMb.agentApi,
        timeout: Duration.seconds(FunctionTimeouts.agentApi),
      });
      this.bindAgentApi(agentApi, config, stateful, config.agentIngress === "api");
      this.agentApi = agentApi;
      this.agentIngress =
        config.agentIngress === "alb"
          ? this.agentLoadBalancerForFunction(agentApi, platform, config, stateful, truststore)
          : new AgentHttpApi(this, "AgentHttpApi", {
              handler: agentApi.function,
              assetStreamHandler: this.agentAssetStreamOf(platform, config, stateful).function,
              domain: config.agentDomain,
              truststore,
              throttle: settings.agentThrottle,
              logRetention: settings.logRetention,
              removalPolicy: settings.removalPolicy,
            });
    }
    this.agentIngress.watchedBy(monitoring);
    monitoring.graphStream(stateful.stream);
    monitoring.graphCache(stateful.cache.name);

    this.consoleApi = new BeaconFunction(this, "ConsoleApi", {
      platform,
      entry: "console-api",
      memorySize: settings.memoryMb.consoleApi,
      timeout: Duration.seconds(FunctionTimeouts.consoleApi),
    });
    this.consoleApi.bindTable(stateful.table);
    // Operations the console creates or cancels put their state changes on the agents' stream.
    this.consoleApi.bindStream(stateful.stream);
    this.consoleApi.bindCache(stateful.cache);
    this.consoleApi.keepUnpublishedEvents(settings.eventBuffer);
    this.consoleApi.bindAgentCa(stateful.agentCa);
    this.consoleApi.bindTrustedCas(config.agentDomain.trust);
    this.consoleApi.bindAssetBucket(stateful.assets, "write");
    this.consoleApi.bindKeptForConsole(stateful.assets, KeptForConsole.operationResults, "read");
    // Bundles are downloaded through links the console signs: its own read of the bundles' prefix.
    this.consoleApi.bindKeptForConsole(stateful.assets, KeptForConsole.debugBundles, "read");
    this.consoleApi.bindAgentDomain(config.agentDomain);
    this.consoleApi.bindAuditTrail(settings.auditRetentionDays);
    this.consoleApi.bindUsagePricing(config.usagePricing);
    // The web console's client returns people to the console's URL, which its distribution below decides.
    let webConsoleUrl: string | undefined;
    const consoleUrl = Lazy.string({ produce: () => webConsoleUrl });
    const webClient = stateful.consoleUsers?.addWebClient(this, "WebConsoleClient", {
      callbackUrls: [`${consoleUrl}${SIGN_IN_CALLBACK_PATH}`],
      logoutUrls: [`${consoleUrl}/`],
    });
    const cliClient = stateful.consoleUsers?.addCliClient(this, "CliClient");
    const consoleHttpApi = new ConsoleHttpApi(this, "ConsoleHttpApi", {
      handler: this.consoleApi.function,
      identity: config.consoleIdentity,
      users: stateful.consoleUsers,
      clients: [webClient, cliClient].filter((client) => client !== undefined),
      throttle: settings.consoleThrottle,
      logRetention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    const signIn = webSignInOf(config.consoleIdentity, stateful.consoleUsers, webClient, consoleUrl);
    const webConsole = new WebConsole(this, "WebConsole", {
      consoleApiHost: consoleHttpApi.host,
      tokenEndpoint: signIn.tokenEndpoint,
      config: {
        oauth: signIn.oauth,
        ...(cliClient === undefined
          ? {}
          : { cli: { clientId: cliClient.userPoolClientId, redirectUri: CLI_SIGN_IN_REDIRECT } }),
      },
      domain: config.consoleDomain,
      storageOrigin: `https://${stateful.assets.bucket.bucketRegionalDomainName}`,
      logRetention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    webConsoleUrl = webConsole.url;

    // Advances rollouts, settles adoptions and closes operations agents never took or never acknowledged.
    this.sweeper = new BeaconFunction(this, "Sweeper", {
      platform,
      entry: "sweeper",
      memorySize: 256,
      // Two runs at once would look at the same rollouts and time out the same operations together:
      // conditional writes keep one winner, and a batch's agents get one update each, but the losing
      // run's work is wasted. So one run at a time: a schedule event that finds a run still going is
      // throttled, and Lambda retries it until that run ends or the event is a minute old.
      reservedConcurrency: 1,
      // Under the schedule's minute, with room for its imprecision: even a run that hangs ends before
      // the next is due, so throttles (alarmed on) mean runs have outgrown the minute, not a stuck run.
      timeout: Duration.seconds(FunctionTimeouts.sweeper),
    });
    this.sweeper.bindTable(stateful.table);
    this.sweeper.bindStream(stateful.stream);
    // Its relays put again only what the archive shows the stream has not carried.
    this.sweeper.bindEventArchive(stateful.eventArchive, ["read"]);
    // Rollouts read their agents' health from the cache and mark the agents a batch queues operations for.
    this.sweeper.bindCache(stateful.cache);
    // Adoptions still requested settle here: the flow is read out of the agent's debug bundle.
    this.sweeper.bindKeptForConsole(stateful.assets, KeptForConsole.debugBundles, "read");
    this.sweeper.keepUnpublishedEvents(settings.eventBuffer);
    this.sweeper.bindAgentDomain(config.agentDomain);
    this.sweeper.bindTrustedCas(config.agentDomain.trust);
    platform.monitoring.watchDegradation("Sweeper", this.sweeper.serviceName, "OutboxRelayed");
    // Each run writes every tenant's fleet series to CloudWatch, with the Tenant and Class dimensions.
    this.sweeper.publishFleetMetrics();
    new Rule(this, "SweeperSchedule", {
      description: "Runs the sweeper every minute",
      schedule: Schedule.rate(Duration.seconds(SWEEPER_INTERVAL_SECONDS)),
      // A failed run is not retried: the next one, a minute later, does the same work.
      targets: [
        new LambdaFunction(this.sweeper.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });
    this.sweeper.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });

    this.streamConsumer = this.streamConsumerOf(platform, stateful);
    this.webhookDispatcher = this.webhookDispatcherOf(platform, stateful);
    // No receiver is reachable from the VPC: the console's webhook tests are posted by the dispatcher.
    this.consoleApi.bindWebhookTester(this.webhookDispatcher);

    new CfnOutput(this, "WebConsoleUrl", {
      description: "The web console (its API under /api/v1 of the same origin)",
      value: webConsole.url,
    });
    if (config.consoleDomain) {
      new CfnOutput(this, "WebConsoleDnsTarget", {
        description: `Point a CNAME (or alias) record for ${config.consoleDomain.domainName} at this host name`,
        value: webConsole.distribution.distributionDomainName,
      });
    }
    new CfnOutput(this, "ConsoleApiUrl", {
      description: "The console API (bearer tokens; the OpenAPI document is at /openapi.json below it)",
      value: consoleHttpApi.url,
    });
    new CfnOutput(this, "AgentDnsTarget", {
      description: `Point a CNAME record for ${config.agentDomain.domainName} at this host name`,
      value: this.agentIngress.dnsTarget,
    });
    new CfnOutput(this, "AgentHeartbeatUrl", {
      description: "The heartbeat URL to configure on agents (the acknowledge URL is beside it)",
      value: agentRouteUrl(`https://${config.agentDomain.domainName}`, AgentRoutes.heartbeat),
    });
  }

  /**
   * What the agent API's code reads and may do, wherever it runs (the function or the agent service): the table,
   * the stream and the cache, assets to serve and DESCRIBE answers to keep, its own URL for the flow downloads it
   * sends agents to, and which tenants each trusted CA speaks for.
   */
  /**
   * What the agent API's code needs wherever it runs. `takesDebugBundles`: whether agents' debug bundles reach it
   * (the HTTP API's function, as many as an invocation carries, and the agent service), not the function behind
   * the load balancer, which hands a Lambda target 1 MB of body at most and sends bundles to the service instead.
   */
  private bindAgentApi(
    workload: BeaconWorkload,
    config: BeaconConfig,
    stateful: StatefulStack,
    takesDebugBundles: boolean,
  ): void {
    workload.bindTable(stateful.table);
    workload.bindStream(stateful.stream);
    workload.bindCache(stateful.cache);
    workload.keepUnpublishedEvents(config.settings.eventBuffer);
    // Agents download assets from the agent API, which reads them from the bucket.
    workload.bindAssetBucket(stateful.assets, "read");
    // It keeps what DESCRIBE acknowledgements answer for the console; an answer it could not keep is alarmed on.
    workload.bindKeptForConsole(
      stateful.assets,
      KeptForConsole.operationResults,
      "put",
      config.operationResultDays,
    );
    if (takesDebugBundles)
      workload.bindKeptForConsole(
        stateful.assets,
        KeptForConsole.debugBundles,
        "put",
        config.debugBundleDays,
      );
    workload.watchAgentApiLosses();
    // Catch-up sends agents the class's flow from the heartbeat reply.
    workload.bindAgentDomain(config.agentDomain);
    workload.bindAgentCaBindings(config.agentDomain.trust.bindings);
    // Agents' flows are rendered with their parameters' values, secrets read by reference.
    workload.bindTenantSecrets();
  }

  /**
   * The function that streams assets to agents behind the HTTP API ingress, granted what an asset download
   * touches and nothing more: the revocation list and the outbox in the table, the stream and the cache its
   * metered download's event goes through, the CAs' bindings that give the certificate its tenant, the assets.
   */
  private agentAssetStreamOf(platform: FunctionPlatform, config: BeaconConfig, stateful: StatefulStack) {
    const assetStream = new BeaconFunction(this, "AgentAssetStream", {
      platform,
      entry: "agent-asset-stream",
      memorySize: 256,
      timeout: Duration.seconds(FunctionTimeouts.agentAssetStream),
    });
    assetStream.bindTable(stateful.table);
    assetStream.bindStream(stateful.stream);
    assetStream.bindCache(stateful.cache);
    assetStream.keepUnpublishedEvents(config.settings.eventBuffer);
    assetStream.bindAssetBucket(stateful.assets, "read");
    // The agent API reads its own URL when it loads, though downloads send agents nowhere.
    assetStream.bindAgentDomain(config.agentDomain);
    assetStream.bindAgentCaBindings(config.agentDomain.trust.bindings);
    return assetStream;
  }

  private loadBalancerPlacement(config: BeaconConfig, stateful: StatefulStack) {
    return {
      vpc: stateful.vpc,
      deletionProtection: config.settings.removalPolicy === RemovalPolicy.RETAIN,
      ports: config.agentPorts,
    };
  }

  private loadBalancerProps(config: BeaconConfig, stateful: StatefulStack, truststore: AgentTruststore) {
    return { ...this.loadBalancerPlacement(config, stateful), domain: config.agentDomain, truststore };
  }

  /**
   * The load balancer in front of the agent-api function, and a small always-on agent service for debug bundles'
   * uploads and assets' downloads, which the function cannot carry: the balancer hands a Lambda target 1 MB of
   * body at most, and takes as much back; the service streams both, a few chunks in memory at a time.
   */
  private agentLoadBalancerForFunction(
    agentApi: BeaconFunction,
    platform: FunctionPlatform,
    config: BeaconConfig,
    stateful: StatefulStack,
    truststore: AgentTruststore,
  ): AgentLoadBalancer {
    const debugBundles = new AgentService(this, "DebugBundleService", {
      platform,
      serviceName: `agent-bundles-${config.stage}`,
      size: smallestTaskSize,
      tasks: { min: 1, max: 2 },
      watchesDegradations: false,
    });
    // It runs the agent service's code, which loads the agent API's handler module and its settings.
    this.bindAgentApi(debugBundles, config, stateful, true);
    const loadBalancer = new AgentLoadBalancer(this, "AgentLoadBalancer", {
      ...this.loadBalancerProps(config, stateful, truststore),
      agentApi: { handler: agentApi.function },
      streamed: debugBundles.targetGroup,
    });
    debugBundles.servedBy();
    return loadBalancer;
  }

  /**
   * Reads every event off the stream into its consumers (the archive, fleet history): one batch per shard at a
   * time, in order, which fleet history's per-shard positions rely on.
   * A batch waits up to a minute to fill, so the archive gets objects of thousands of events rather than of a
   * few; what a consumer did not take is delivered again from the first record it did not take (a partial
   * batch response), a failing batch is halved to find a bad record, and after bounded retries or hours of
   * trying, the batch's shard and sequence numbers go to the dead-letter queue, which is alarmed on.
   */
  private streamConsumerOf(platform: FunctionPlatform, stateful: StatefulStack): BeaconFunction {
    const consumer = new BeaconFunction(this, "StreamConsumer", {
      platform,
      entry: "stream-consumer",
      // Gzip and JSON of up to 10,000 events: memory buys the CPU for them.
      memorySize: 1024,
      timeout: Duration.seconds(FunctionTimeouts.streamConsumer),
      // It makes the first attempt of each delivery to a tenant's receiver; it needs nothing in the VPC.
      network: "internet",
    });
    // It reads the archive back to pass over a record of an event the stream carried before.
    consumer.bindEventArchive(stateful.eventArchive, ["write", "read"]);
    // Fleet history, usage, the agents' kept events and deliveries are items of the table.
    consumer.bindTable(stateful.table);
    // A subscription a receiver's 410 Gone disables is announced on the stream.
    consumer.bindStream(stateful.stream);
    // Every notification, for AWS-native consumers; reached over the internet, as the function is outside the VPC.
    consumer.bindNotificationBus(stateful.notificationBus);
    platform.monitoring.watchDegradation("StreamConsumer", consumer.serviceName, "WebhooksDisabled");
    const deadLetters = new Queue(this, "StreamConsumerDeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(deadLetters).acknowledge({
      id: "AwsSolutions-SQS3",
      reason:
        "This queue is itself the dead-letter destination of the stream consumer's event source mapping: it " +
        "holds the shard and sequence numbers of batches given up, for an operator to replay from the stream.",
    });
    consumer.function.addEventSource(
      new KinesisEventSource(stateful.stream, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: STREAM_BATCH_SIZE,
        maxBatchingWindow: Duration.seconds(60),
        parallelizationFactor: 1,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 20,
        // Under the stream's 24 hours of retention, so a batch given up can still be read again from it.
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(deadLetters),
      }),
    );
    platform.monitoring.watchStreamReader("StreamConsumer", consumer.function, deadLetters);
    platform.monitoring.watchDegradation("StreamConsumer", consumer.serviceName, "EventsRefused");
    platform.monitoring.watchDegradation("StreamConsumer", consumer.serviceName, "ConsumerFailures");
    return consumer;
  }

  /**
   * Retries deliveries to event subscriptions once a minute, and posts the console's tests when it asks.
   * Outside the VPC, as it posts to tenants' receivers on the internet. A failed run is not retried: the next one
   * takes what is due. Scheduled runs do not overlap, as each ends (its timeout) before the next is due; two
   * would send the same due deliveries (conditional writes record one outcome, but the receiver gets both).
   * Its concurrency is reserved for a run and two tests at once: a test must not wait for a run, which lasts
   * up to most of a minute while receivers are down, just when an administrator tries a mended one.
   */
  private webhookDispatcherOf(platform: FunctionPlatform, stateful: StatefulStack): BeaconFunction {
    const dispatcher = new BeaconFunction(this, "WebhookDispatcher", {
      platform,
      entry: "webhook-dispatcher",
      memorySize: 256,
      reservedConcurrency: 3,
      timeout: Duration.seconds(FunctionTimeouts.webhookDispatcher),
      network: "internet",
    });
    dispatcher.bindTable(stateful.table);
    dispatcher.bindStream(stateful.stream);
    new Rule(this, "WebhookDispatcherSchedule", {
      description: "Retries due deliveries to event subscriptions every minute",
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(dispatcher.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });
    dispatcher.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    platform.monitoring.watchDegradation("WebhookDispatcher", dispatcher.serviceName, "WebhookFailures");
    platform.monitoring.watchDegradation("WebhookDispatcher", dispatcher.serviceName, "WebhooksDisabled");
    return dispatcher;
  }
}
