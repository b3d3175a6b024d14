import { Duration, type RemovalPolicy, Validations } from "aws-cdk-lib";
import {
  AccountRecovery,
  ClientAttributes,
  Mfa,
  StringAttribute,
  UserPool,
  type UserPoolClient,
} from "aws-cdk-lib/aws-cognito";
import { Construct } from "constructs";
import { ConsoleClaims, Roles } from "../../functions/core/identity/principal.js";

export interface ConsoleUsersProps {
  readonly removalPolicy: RemovalPolicy;
}

/** `custom:tenant` → `tenant`: Cognito adds the prefix to the attributes it is given. */
const attributeName = (claim: string) => claim.replace(/^custom:/, "");

/**
 * The console's users. Administrators create them (no self sign-up) with their tenant, fixed for life,
 * and their role; both reach the console API as claims of the user's ID token. The app client may read
 * them but never write them, so no user can move to another tenant or raise their own role.
 */
export class ConsoleUsers extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: ConsoleUsersProps) {
    super(scope, id);
    const tenant = attributeName(ConsoleClaims.tenant);
    const role = attributeName(ConsoleClaims.role);
    this.userPool = new UserPool(this, "UserPool", {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      customAttributes: {
        [tenant]: new StringAttribute({ mutable: false, minLen: 1, maxLen: 128 }),
        [role]: new StringAttribute({
          mutable: true,
          minLen: 1,
          maxLen: Math.max(...Roles.map((name) => name.length)),
        }),
      },
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
      },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: false,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.userPool).acknowledge({
      id: "AwsSolutions-COG8",
      reason:
        "The Plus plan's threat protection is charged per active user; console users are a tenant's few operators, " +
        "signing in with a strong password and a required one-time code. Switch the plan on where policy asks for it.",
    });
    this.client = this.userPool.addClient("ConsoleClient", {
      authFlows: { userSrp: true },
      generateSecret: false,
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      readAttributes: new ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true })
        .withCustomAttributes(tenant, role),
      writeAttributes: new ClientAttributes().withStandardAttributes({ fullname: true }),
    });
  }
}
