import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { CfnWorkGroup } from "aws-cdk-lib/aws-athena";
import { CfnDatabase, CfnTable } from "aws-cdk-lib/aws-glue";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type LifecycleRule,
  ObjectOwnership,
  StorageClass,
} from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { ARCHIVE_PREFIX } from "../../functions/core/archive/layout.js";
import { eventColumns } from "./event-columns.js";

export interface EventArchiveProps {
  readonly removalPolicy: RemovalPolicy;
  /** The Glue database of the archive's table, one per stage: `beacon_<stage>`. */
  readonly databaseName: string;
  /** Days an event is kept; after 30 it moves to Infrequent Access. */
  readonly retentionDays: number;
}

/** Days before archived events move to Infrequent Access: queries mostly look at the last weeks. */
const INFREQUENT_ACCESS_AFTER_DAYS = 30;
/** Athena's query results are for the person who ran the query, not a second archive. */
const QUERY_RESULTS_DAYS = 7;
/** The table's name in the database: `SELECT … FROM beacon_events WHERE tenant = '…' AND day = '…'`. */
export const EVENTS_TABLE = "beacon_events";

/**
 * Every event Beacon put on its stream, as gzip JSON lines under `events/tenant=<t>/day=<YYYY-MM-DD>/hour=<HH>/`
 * (written by the stream consumer), the Glue table `beacon_events` over it, and the Athena workgroup to query
 * it with. The table projects its partitions from the keys (the tenant named by the query, the days of the
 * retention, the 24 hours), so a new tenant's or day's events can be queried at once, with no crawler.
 */
export class EventArchive extends Construct {
  readonly bucket: Bucket;
  /** The name the bucket's ARN is exported under, which the consumer's grant names. */
  readonly arnExportName: string;
  readonly databaseName: string;
  readonly workGroupName: string;

  constructor(scope: Construct, id: string, props: EventArchiveProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const autoDeleteObjects = props.removalPolicy === RemovalPolicy.DESTROY;
    const expiration = Duration.days(props.retentionDays);
    this.bucket = this.privateBucket("Bucket", props.removalPolicy, [
      {
        id: "InfrequentAccessThenExpiry",
        transitions:
          props.retentionDays > INFREQUENT_ACCESS_AFTER_DAYS
            ? [
                {
                  storageClass: StorageClass.INFREQUENT_ACCESS,
                  transitionAfter: Duration.days(INFREQUENT_ACCESS_AFTER_DAYS),
                },
              ]
            : [],
        expiration,
      },
    ]);
    const results = this.privateBucket("QueryResults", props.removalPolicy, [
      { id: "ExpireQueryResults", expiration: Duration.days(QUERY_RESULTS_DAYS) },
    ]);
    Validations.of(this).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "Only the stream consumer writes the archive, through its VPC's gateway endpoint, and only Athena reads " +
        "it and writes the results, each query recorded by Athena with who ran it; access logs would repeat them.",
    });
    this.arnExportName = `${stack.stackName}-EventArchiveArn`;
    new CfnOutput(this, "Arn", { value: this.bucket.bucketArn, exportName: this.arnExportName });

    this.databaseName = props.databaseName;
    const database = new CfnDatabase(this, "Database", {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: this.databaseName, description: "Beacon's events, for analysis with Athena" },
    });
    const eventsLocation = `s3://${this.bucket.bucketName}/${ARCHIVE_PREFIX}/`;
    const table = new CfnTable(this, "Table", {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: EVENTS_TABLE,
        description: "Every event of Beacon's stream; count distinct eventId: an event may be archived twice",
        tableType: "EXTERNAL_TABLE",
        partitionKeys: [
          { name: "tenant", type: "string" },
          { name: "day", type: "string" },
          { name: "hour", type: "string" },
        ],
        parameters: {
          classification: "json",
          compressionType: "gzip",
          "projection.enabled": "true",
          "projection.tenant.type": "injected",
          "projection.day.type": "date",
          "projection.day.format": "yyyy-MM-dd",
          "projection.day.range": `NOW-${props.retentionDays}DAYS,NOW`,
          "projection.day.interval": "1",
          "projection.day.interval.unit": "DAYS",
          "projection.hour.type": "integer",
          "projection.hour.range": "0,23",
          "projection.hour.digits": "2",
          "storage.location.template": `${eventsLocation}tenant=\${tenant}/day=\${day}/hour=\${hour}/`,
        },
        storageDescriptor: {
          location: eventsLocation,
          columns: eventColumns(["tenant"]),
          inputFormat: "org.apache.hadoop.mapred.TextInputFormat",
          outputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
          serdeInfo: { serializationLibrary: "org.openx.data.jsonserde.JsonSerDe" },
        },
      },
    });
    table.addDependency(database);

    this.workGroupName = `${stack.stackName}-events`;
    new CfnWorkGroup(this, "WorkGroup", {
      name: this.workGroupName,
      description: "Queries of Beacon's event archive; results encrypted, kept a week",
      recursiveDeleteOption: autoDeleteObjects,
      workGroupConfiguration: {
        // Queries cannot choose another results location or switch encryption off.
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        resultConfiguration: {
          outputLocation: `s3://${results.bucketName}/results/`,
          encryptionConfiguration: { encryptionOption: "SSE_S3" },
        },
      },
    });
    new CfnOutput(this, "AthenaWorkGroup", {
      description: `Query the events with Athena in this workgroup: SELECT … FROM ${this.databaseName}.${EVENTS_TABLE} WHERE tenant = '…' AND day = 'YYYY-MM-DD'`,
      value: this.workGroupName,
    });
  }

  private privateBucket(id: string, removalPolicy: RemovalPolicy, rules: LifecycleRule[]): Bucket {
    return new Bucket(this, id, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        ...rules,
        { id: "AbortIncompleteUploads", abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
  }
}
