import { Duration, type RemovalPolicy, Validations } from "aws-cdk-lib";
import {
  EndpointType,
  LambdaIntegration,
  MethodLoggingLevel,
  ResponseTransferMode,
  RestApi,
} from "aws-cdk-lib/aws-apigateway";
import { CfnApiMapping, DomainName, HttpApi, HttpMethod, SecurityPolicy } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import {
  AgentRoutes,
  allAgentRoutes,
  apiMappingOf,
  servedRouteKeys,
} from "../../functions/core/c2/routes.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import { accessLogsOf, restApiAccessLogsOf } from "./access-logs.js";
import type { AgentIngress, AgentIngressProps } from "./agent-ingress.js";
import type { StageSettings } from "./config.js";
import type { AgentIngressMetrics, Monitoring } from "./monitoring.js";

export interface AgentHttpApiProps extends AgentIngressProps {
  /** The function that streams assets to agents (functions/agent-asset-stream). */
  readonly assetStreamHandler: IFunction;
  readonly throttle: StageSettings["agentThrottle"];
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/** Why agents' requests carry no token: their identity is the certificate API Gateway verified. */
const MUTUAL_TLS_REASON =
  "Agents authenticate with mutual TLS on the custom domain (the default endpoint is disabled); the " +
  "handler takes the tenant from the verified certificate. MiNiFi agents cannot send tokens.";

/**
 * The agent API on API Gateway: reachable only through its custom domain, which demands a client certificate
 * the truststore verifies. The default execute-api endpoint is disabled, so nothing gets around mutual TLS.
 */
export class AgentHttpApi extends Construct implements AgentIngress {
  readonly metrics: AgentIngressMetrics;
  readonly dnsTarget: string;

  constructor(scope: Construct, id: string, props: AgentHttpApiProps) {
    super(scope, id);
    const domainName = new DomainName(this, "Domain", {
      domainName: props.domain.domainName,
      certificate: Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
      securityPolicy: SecurityPolicy.TLS_1_2,
      mtls: { bucket: props.truststore.bucket, key: props.truststore.key },
    });
    domainName.node.addDependency(props.truststore.upload);
    this.dnsTarget = domainName.regionalDomainName;

    const api = new HttpApi(this, "Api", {
      description: "Beacon agent C2 API (mutual TLS)",
      disableExecuteApiEndpoint: true,
      createDefaultStage: false,
    });
    api.addStage("DefaultStage", {
      autoDeploy: true,
      domainMapping: { domainName },
      throttle: { rateLimit: props.throttle.requestsPerSecond, burstLimit: props.throttle.burst },
      accessLogSettings: accessLogsOf(this, props, {
        clientCertSerial: "$context.identity.clientCert.serialNumber",
        clientCertIssuer: "$context.identity.clientCert.issuerDN",
      }),
    });

    const integration = new HttpLambdaIntegration("AgentApi", props.handler);
    // Asset downloads go to the REST API mapped below: a request for them never reaches the HTTP API.
    const routes = servedRouteKeys(
      allAgentRoutes.filter((route) => route !== AgentRoutes.assetContent),
    ).flatMap(({ method, path }) => api.addRoutes({ path, methods: [HttpMethod[method]], integration }));
    for (const route of routes)
      Validations.of(route).acknowledge({ id: "AwsSolutions-APIG4", reason: MUTUAL_TLS_REASON });

    new AgentAssetStreamApi(this, "AssetStream", { ...props, domainName });

    const period = Duration.minutes(5);
    this.metrics = {
      requests: api.metricCount({ period }),
      serverErrors: api.metricServerError({ period }),
      latencyP99Ms: api.metricLatency({ period, statistic: "p99", label: "Agent p99 latency (ms)" }),
    };
  }

  watchedBy(monitoring: Monitoring): void {
    monitoring.watchAgentIngress(this.metrics);
  }
}

interface AgentAssetStreamApiProps extends AgentHttpApiProps {
  readonly domainName: DomainName;
}

/**
 * Asset downloads of any size Beacon stores (up to 100 MiB), on the agent domain at the very URLs the HTTP API
 * would serve them: a REST API, which alone streams a Lambda function's response, mapped to the domain at the
 * route's path up to its asset id. API Gateway routes a request to the mapping with the longest matching path, so
 * these go to this API and everything else to the HTTP API; the mapping's base path is stripped, so the API's
 * resource is the rest of the route. A response streams 2 MB/s past its first 10 MB, for 15 minutes at most.
 */
class AgentAssetStreamApi extends Construct {
  constructor(scope: Construct, id: string, props: AgentAssetStreamApiProps) {
    super(scope, id);
    const route = AgentRoutes.assetContent;
    const { mappingKey, resourcePath } = apiMappingOf(route);
    const api = new RestApi(this, "Api", {
      description: "Beacon agent asset downloads, streamed (mutual TLS on the agent domain)",
      endpointTypes: [EndpointType.REGIONAL],
      disableExecuteApiEndpoint: true,
      cloudWatchRole: false,
      deployOptions: {
        stageName: "agents",
        throttlingRateLimit: props.throttle.requestsPerSecond,
        throttlingBurstLimit: props.throttle.burst,
        loggingLevel: MethodLoggingLevel.OFF,
        ...restApiAccessLogsOf(this, props, {
          clientCertSerial: "$context.identity.clientCert.serialNumber",
          clientCertIssuer: "$context.identity.clientCert.issuerDN",
        }),
      },
    });
    const integration = new LambdaIntegration(props.assetStreamHandler, {
      proxy: true,
      responseTransferMode: ResponseTransferMode.STREAM,
      // A streamed response may take up to 15 minutes; the function's timeout ends it first.
      timeout: Duration.seconds(FunctionTimeouts.agentAssetStream),
    });
    const method = api.root.resourceForPath(resourcePath).addMethod(route.method, integration);
    Validations.of(method).acknowledge({ id: "AwsSolutions-APIG4", reason: MUTUAL_TLS_REASON });
    Validations.of(method).acknowledge({ id: "AwsSolutions-COG4", reason: MUTUAL_TLS_REASON });
    Validations.of(api).acknowledge({
      id: "AwsSolutions-APIG2",
      reason:
        "The one method takes no body nor query: the handler checks the asset id and answers 404 for anything " +
        "that is not one of the caller's tenant's assets.",
    });
    Validations.of(api.deploymentStage).acknowledge({
      id: "AwsSolutions-APIG3",
      reason:
        "No WAF web ACL can be associated with the agent domain's mutual TLS beyond what it already refuses: " +
        "only clients with a certificate of the agents' truststore reach the API, as for the HTTP API.",
    });
    Validations.of(api.deploymentStage).acknowledge({
      id: "AwsSolutions-APIG6",
      reason:
        "Execution logging would write every download's request and response metadata to CloudWatch, and needs " +
        "an account-wide role; the stage's access logs record each request with the certificate that made it.",
    });
    new CfnApiMapping(this, "Mapping", {
      domainName: props.domainName.name,
      apiId: api.restApiId,
      stage: api.deploymentStage.stageName,
      apiMappingKey: mappingKey,
    }).node.addDependency(api.deploymentStage, props.domainName);
  }
}
