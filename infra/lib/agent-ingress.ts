import { createHash } from "node:crypto";
import { RemovalPolicy, Validations } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption } from "aws-cdk-lib/aws-s3";
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from "aws-cdk-lib/custom-resources";
import { Construct } from "constructs";
import { lambdaRoleLoggingTo } from "./beacon-function.js";
import type { AgentDomain } from "./config.js";
import type { Monitoring } from "./monitoring.js";

/** What the HTTP API and the load balancers have in common, so the stack can swap one for another. */
export interface AgentIngress {
  /** Adds the ingress's alarms and graphs: what it measures of agents' requests, or of their connections. */
  watchedBy(monitoring: Monitoring): void;
  /** The host name the agent domain's DNS record must point at. */
  readonly dnsTarget: string;
}

export interface AgentIngressProps {
  readonly handler: IFunction;
  readonly domain: AgentDomain;
  readonly truststore: AgentTruststore;
}

export interface AgentTruststoreProps {
  readonly caBundlePem: string;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
}

/**
 * The bucket that holds the CA bundle agents' client certificates are verified against. The object key carries
 * the bundle's hash, so a new bundle is a new key and the ingress reloads it on the next deployment.
 */
export class AgentTruststore extends Construct {
  readonly bucket: Bucket;
  readonly key: string;
  /** Whatever reads the bundle must depend on this, or it may look before the upload. */
  readonly upload: AwsCustomResource;

  constructor(scope: Construct, id: string, props: AgentTruststoreProps) {
    super(scope, id);
    this.bucket = new Bucket(this, "Bucket", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: props.removalPolicy === RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "The bucket holds one public CA certificate bundle, written by this stack's deployment and read by the " +
        "agent ingress when it loads its truststore; access logs would need a second bucket to record only that.",
    });
    const digest = createHash("sha256").update(props.caBundlePem).digest("hex").slice(0, 16);
    this.key = `agent-ca-${digest}.pem`;
    // CloudFormation has no S3 object resource; one SDK call puts the bundle, allowed to write that key alone.
    const putBundle = {
      service: "S3",
      action: "PutObject",
      parameters: { Bucket: this.bucket.bucketName, Key: this.key, Body: props.caBundlePem },
      physicalResourceId: PhysicalResourceId.of(this.key),
    };
    const uploadLogs = new LogGroup(this, "UploadLogs", {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.upload = new AwsCustomResource(this, "Upload", {
      onCreate: putBundle,
      onUpdate: putBundle,
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ["s3:PutObject"], resources: [this.bucket.arnForObjects(this.key)] }),
      ]),
      installLatestAwsSdk: false,
      logGroup: uploadLogs,
      role: lambdaRoleLoggingTo(this, "UploadRole", uploadLogs),
    });
  }
}
