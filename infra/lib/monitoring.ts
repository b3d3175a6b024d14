import { Duration } from "aws-cdk-lib";
import {
  Alarm,
  AlarmWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { FargateService } from "aws-cdk-lib/aws-ecs";
import {
  HttpCodeTarget,
  type IApplicationTargetGroup,
  type INetworkLoadBalancer,
  type INetworkTargetGroup,
} from "aws-cdk-lib/aws-elasticloadbalancingv2";
import type { IStream } from "aws-cdk-lib/aws-kinesis";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { FLEET_METRICS_NAMESPACE, FleetDimensions } from "../../functions/shared/fleet-metrics-emf.js";
import type { AlarmThresholds } from "./config.js";

/** The namespace Beacon's functions publish their Powertools metrics in. */
export const metricsNamespace = "Beacon";

/**
 * Counters a function publishes when it degrades without failing the request: answers from the table
 * instead of the cache, failed publishes and the events they did not put on the stream, and (the agent
 * API's) heartbeats answered with no operations after an internal error.
 */
export type DegradationCounter =
  | "CacheFallbacks"
  | "StreamFailures"
  | "EventsLost"
  | "HeartbeatsFailed"
  /** The stream consumer's: records that are no Beacon event, passed over. */
  | "EventsRefused"
  /** The stream consumer's: consumers that failed a batch, delivered again. */
  | "ConsumerFailures"
  /** Deliveries to event subscriptions given up: a tenant's receiver down for a day, or gone. */
  | "WebhookFailures"
  /** Event subscriptions Beacon disabled, their receivers failing. */
  | "WebhooksDisabled"
  /** The sweeper's: staged events their writers did not put on the stream, put there by its relay. */
  | "OutboxRelayed"
  /** Staged events on the stream whose outbox entries stayed: each is put again, a duplicate. */
  | "OutboxClearFailures"
  /** Events the stream did not take, held in the cache for the sweeper to put on it. */
  | "EventsHeld"
  /** Events the stream did not take that the cache could not hold either, kept in the table's outbox instead. */
  | "EventsHeldInOutbox"
  /** The stream consumer's: notifications the EventBridge bus still refused after retries; delivered again. */
  | "NotificationsRefusedByBus";

/**
 * Counters of what is lost for good from the first one: console changes made without their audit record (the
 * function logged the record instead, to restore it from), and DESCRIBE answers an accepted acknowledgement
 * brought that the bucket did not take (the agent never sends one again; its operation closed all the same).
 */
export type LossCounter = "AuditWriteFailed" | "OperationResultsLost";

const LossTitles: Record<LossCounter, string> = {
  AuditWriteFailed: "audit records not written",
  OperationResultsLost: "operation results lost",
};

/** What an agent ingress (HTTP API or load balancer) reports, in the same units whichever it is. */
export interface AgentIngressMetrics {
  readonly requests: IMetric;
  readonly serverErrors: IMetric;
  readonly latencyP99Ms: IMetric;
}

export interface MonitoringProps {
  readonly dashboardName: string;
  readonly thresholds: AlarmThresholds;
  readonly alarmEmail: string | undefined;
}

const period = Duration.minutes(5);

/** One alarm topic and one dashboard per stage; every watched piece adds a row of alarms, notifying the topic. */
export class Monitoring extends Construct {
  private readonly thresholds: AlarmThresholds;
  private readonly alarmTopic: Topic;
  private readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.thresholds = props.thresholds;
    this.alarmTopic = new Topic(this, "AlarmTopic", { enforceSSL: true });
    if (props.alarmEmail !== undefined)
      this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.dashboard = new Dashboard(this, "Dashboard", { dashboardName: props.dashboardName });
    this.graphFleet();
  }

  /**
   * The fleet's series the sweeper writes each minute (functions/shared/fleet-metrics-emf.ts), one line per
   * tenant and class, found by search so that a new tenant or class appears without a deployment.
   */
  private graphFleet(): void {
    const perClass = (
      label: string,
      names: string[],
      statistic = "Maximum",
      math = (search: string) => search,
    ) =>
      new MathExpression({
        expression: math(
          `SEARCH('{${FLEET_METRICS_NAMESPACE},${FleetDimensions.tenant},${FleetDimensions.class}} ` +
            `(${names.map((name) => `MetricName="${name}"`).join(" OR ")})', '${statistic}', 60)`,
        ),
        usingMetrics: {},
        period: Duration.minutes(1),
        label,
      });
    const graph = (title: string, metric: IMetric) => new GraphWidget({ title, left: [metric], width: 8 });
    this.dashboard.addWidgets(
      graph("Agents online, by tenant and class", perClass("online", ["beacon_agents_online"])),
      graph("Agents offline, by tenant and class", perClass("offline", ["beacon_agents_offline"])),
      graph(
        "Heartbeats per second, by tenant and class",
        perClass("heartbeats/s", ["beacon_heartbeats_total"], "Maximum", (search) => `RATE(${search})`),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        "Agents needing attention, by reason",
        perClass(
          "attention",
          ["offline", "errorBulletins", "backPressure", "operationFailed", "offTarget", "pinned"].map(
            (reason) => `beacon_agents_attention_${reason}`,
          ),
        ),
      ),
      graph(
        "Operations entering each state, per minute",
        perClass(
          "operations",
          ["queued", "delivered", "done", "failed", "timed_out", "cancelled"].map(
            (state) => `beacon_operations_last_minute_${state}`,
          ),
        ),
      ),
      graph(
        "New bulletins and rollouts in progress",
        perClass("fleet", ["beacon_bulletins_last_minute_ERROR", "beacon_rollouts_in_progress"]),
      ),
    );
  }

  watchAgentIngress(metrics: AgentIngressMetrics): void {
    const errorPercent = new MathExpression({
      expression: "IF(requests > 0, 100 * errors / requests, 0)",
      usingMetrics: { requests: metrics.requests, errors: metrics.serverErrors },
      period,
      label: "Agent 5xx (% of requests)",
    });
    this.dashboard.addWidgets(
      this.alarm(
        "AgentServerErrorRate",
        errorPercent,
        this.thresholds.agentServerErrorPercent,
        "Agent requests answered 5xx",
      ),
      this.alarm(
        "AgentLatencyP99",
        metrics.latencyP99Ms,
        this.thresholds.agentLatencyP99Ms,
        "Agent p99 latency (ms)",
      ),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: "Agent API requests and 5xx",
        left: [metrics.requests],
        right: [metrics.serverErrors],
        width: 12,
      }),
      new GraphWidget({ title: "Agent API latency (p99, ms)", left: [metrics.latencyP99Ms], width: 12 }),
    );
  }

  watchFunction(id: string, fn: IFunction): void {
    this.dashboard.addWidgets(
      this.alarm(`${id}Errors`, fn.metricErrors({ period }), this.thresholds.functionErrors, `${id} errors`),
      this.alarm(
        `${id}Throttles`,
        fn.metricThrottles({ period }),
        this.thresholds.functionThrottles,
        `${id} throttles`,
      ),
    );
  }

  /**
   * An agent service on ECS: the requests its tasks answered 5xx (the load balancer's own 5xx, and the latency
   * agents see, are the ingress's alarms), and its tasks' CPU and memory, which it scales on and must not run out of.
   */
  watchService(id: string, service: FargateService, targetGroup: IApplicationTargetGroup): void {
    this.dashboard.addWidgets(
      this.alarm(
        `${id}ServerErrors`,
        targetGroup.metrics.httpCodeTarget(HttpCodeTarget.TARGET_5XX_COUNT, { period }),
        this.thresholds.functionErrors,
        `${id} requests answered 5xx`,
      ),
      ...this.taskAlarms(id, service),
    );
  }

  /**
   * An agent service behind a Network Load Balancer, which sees connections, not requests: its tasks failing
   * their health check (the ALB's target 5xx has no equivalent there), and their CPU and memory.
   */
  watchNetworkService(id: string, service: FargateService, targetGroup: INetworkTargetGroup): void {
    this.dashboard.addWidgets(
      this.alarm(
        `${id}UnhealthyTasks`,
        targetGroup.metrics.unHealthyHostCount({ period, statistic: "Maximum" }),
        1,
        `${id} tasks failing the health check`,
      ),
      ...this.taskAlarms(id, service),
    );
  }

  private taskAlarms(id: string, service: FargateService): AlarmWidget[] {
    const utilisation = this.thresholds.serviceUtilisationPercent;
    return [
      this.alarm(`${id}Cpu`, service.metricCpuUtilization({ period }), utilisation, `${id} CPU (%)`),
      this.alarm(`${id}Memory`, service.metricMemoryUtilization({ period }), utilisation, `${id} memory (%)`),
    ];
  }

  /**
   * A Network Load Balancer passing agents' TCP through: the resets it sent (a target it could not reach, a
   * connection idle past its timeout) and those its targets sent, with the connections and bytes it carried. It
   * sees no HTTP: the ALB's 5xx rate and p99 latency alarms have no equivalent on it.
   */
  watchNetworkIngress(loadBalancer: INetworkLoadBalancer): void {
    const { metrics } = loadBalancer;
    const resets = this.thresholds.agentConnectionResets;
    this.dashboard.addWidgets(
      this.alarm(
        "AgentBalancerResets",
        metrics.tcpElbResetCount({ period }),
        resets,
        "Agent connections reset by the load balancer",
      ),
      this.alarm(
        "AgentTargetResets",
        metrics.tcpTargetResetCount({ period }),
        resets,
        "Agent connections reset by the agent service",
      ),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: "Agent connections: new and active",
        left: [metrics.newFlowCount({ period })],
        right: [metrics.activeFlowCount({ period, statistic: "Average" })],
        width: 12,
      }),
      new GraphWidget({
        title: "Agent bytes and client resets",
        left: [metrics.processedBytes({ period })],
        right: [metrics.tcpClientResetCount({ period })],
        width: 12,
      }),
    );
  }

  /**
   * A function reading a stream: how far behind the stream's newest record it is, and the batches it gave up on,
   * whose shard and sequence numbers are in the dead-letter queue (the records stay on the stream until it
   * drops them).
   */
  watchStreamReader(id: string, fn: IFunction, deadLetters: IQueue): void {
    this.dashboard.addWidgets(
      this.alarm(
        `${id}IteratorAge`,
        fn.metric("IteratorAge", { statistic: "Maximum", period }),
        this.thresholds.streamIteratorAgeMs,
        `${id} iterator age (ms)`,
      ),
      this.alarm(
        `${id}DeadLetters`,
        deadLetters.metricApproximateNumberOfMessagesVisible({ statistic: "Maximum", period }),
        1,
        `${id} batches given up (dead letters)`,
      ),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: `${id} iterator age (ms)`,
        left: [fn.metric("IteratorAge", { statistic: "Maximum", period })],
        width: 8,
      }),
      new GraphWidget({
        title: `${id} errors and duration`,
        left: [fn.metricErrors({ period })],
        right: [
          fn.metricDuration({ period, statistic: "p99" }),
          fn.metricDuration({ period, statistic: "Average" }),
        ],
        width: 8,
      }),
    );
  }

  /** The stream's puts: records it refused (failed or throttled) and the shards' write throughput exceeded. */
  graphStream(stream: IStream): void {
    this.dashboard.addWidgets(
      new GraphWidget({
        title: "Stream put errors",
        left: [
          stream.metricPutRecordsFailedRecords({ period, statistic: "Sum" }),
          stream.metricPutRecordsThrottledRecords({ period, statistic: "Sum" }),
          stream.metricWriteProvisionedThroughputExceeded({ period, statistic: "Sum" }),
        ],
        right: [stream.metricPutRecordsSuccessfulRecords({ period, statistic: "Sum" })],
        width: 8,
      }),
    );
  }

  /**
   * The serverless cache: its processing units (its CPU, which ElastiCache Serverless bills and limits), the
   * memory its data takes, and keys evicted or commands throttled, which it does only when at its limits.
   */
  graphCache(cacheName: string): void {
    const cacheMetric = (metricName: string, statistic: string) =>
      new Metric({
        namespace: "AWS/ElastiCache",
        metricName,
        dimensionsMap: { clusterId: cacheName },
        statistic,
        period,
      });
    this.dashboard.addWidgets(
      new GraphWidget({
        title: "Cache processing units (ECPUs)",
        left: [cacheMetric("ElastiCacheProcessingUnits", "Sum")],
        width: 8,
      }),
      new GraphWidget({
        title: "Cache memory (bytes used)",
        left: [cacheMetric("BytesUsedForCache", "Maximum")],
        width: 8,
      }),
      new GraphWidget({
        title: "Cache evictions and throttled commands",
        left: [cacheMetric("Evictions", "Sum"), cacheMetric("ThrottledCmds", "Sum")],
        width: 8,
      }),
    );
  }

  /**
   * Alarms on the `service` dimension, the only one the functions' own metrics carry: which tenants a degradation
   * struck is in the functions' log lines, each keyed by its tenant. A tenant's fleet has series of its own, with
   * the Tenant and Class dimensions, in the `Beacon/Fleet` namespace (graphFleet), as on its metrics endpoint.
   */
  watchDegradation(id: string, serviceName: string, counter: DegradationCounter): void {
    const threshold = this.thresholds.degradations[counter];
    this.dashboard.addWidgets(
      this.alarm(`${id}${counter}`, serviceCount(counter, serviceName), threshold, `${id} ${counter}`),
    );
  }

  /** Losses no retry mends, each raising the alarm: one in one period. */
  watchLosses(id: string, serviceName: string, counter: LossCounter): void {
    const metric = serviceCount(counter, serviceName);
    this.dashboard.addWidgets(this.alarm(`${id}${counter}`, metric, 1, `${id} ${LossTitles[counter]}`, 1));
  }

  private alarm(
    id: string,
    metric: IMetric,
    threshold: number,
    title: string,
    datapointsToAlarm = 2,
  ): AlarmWidget {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm,
      // No traffic is not a failure: a quiet stage must not page anyone.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${title} at or above ${threshold} in ${datapointsToAlarm} of 3 five-minute periods`,
    });
    alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    alarm.addOkAction(new SnsAction(this.alarmTopic));
    return new AlarmWidget({ alarm, title, width: 8 });
  }
}

/** A count a function publishes, summed over five minutes by its `service` dimension alone. */
const serviceCount = (metricName: string, serviceName: string) =>
  new Metric({
    namespace: metricsNamespace,
    metricName,
    dimensionsMap: { service: serviceName },
    statistic: "Sum",
    period,
  });
