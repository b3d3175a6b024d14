import { Duration, type RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import {
  AccountRecovery,
  ClientAttributes,
  Mfa,
  OAuthScope,
  StringAttribute,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolClientOptions,
  type UserPoolDomain,
} from "aws-cdk-lib/aws-cognito";
import { Construct } from "constructs";
import { ConsoleClaims, Roles } from "../../functions/core/identity/principal.js";
import { CLI_SIGN_IN_REDIRECT } from "../../web/serving.js";

export interface ConsoleUsersProps {
  readonly removalPolicy: RemovalPolicy;
  /** The hosted sign-in pages' host name starts with it: unique in the region across all accounts. */
  readonly signInDomainPrefix: string;
}

/** Where the web console sends people to sign in and comes back to, on its own public origin. */
export interface WebClientUrls {
  readonly callbackUrls: string[];
  readonly logoutUrls?: string[];
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
  /** Cognito's hosted sign-in pages and OAuth 2.0 endpoints for the pool. */
  readonly signInDomain: UserPoolDomain;

  constructor(scope: Construct, id: string, props: ConsoleUsersProps) {
    super(scope, id);
    const tenant = attributeName(ConsoleClaims.tenant);
    const role = attributeName(ConsoleClaims.role);
    const classes = attributeName(ConsoleClaims.classes);
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
        // Class names separated by commas; a user without it acts for the whole tenant.
        [classes]: new StringAttribute({ mutable: true, maxLen: 2048 }),
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
      ...clientOptions(),
      authFlows: { userSrp: true },
    });
    this.signInDomain = this.userPool.addDomain("SignInDomain", {
      cognitoDomain: { domainPrefix: props.signInDomainPrefix },
    });
  }

  /** The host name of the pool's OAuth 2.0 endpoints (`/oauth2/authorize`, `/oauth2/token`, `/logout`). */
  get signInHost(): string {
    return `${this.signInDomain.domainName}.auth.${Stack.of(this.signInDomain).region}.amazoncognito.com`;
  }

  /**
   * The web console's app client: a public client (no secret, as a page cannot keep one) that signs people in
   * on the hosted pages with the authorization code flow and PKCE (the page proves it asked for the code it
   * redeems), and returns only to the console's own URLs. Created in the stack of the console's distribution,
   * whose name the URLs carry.
   */
  addWebClient(scope: Construct, id: string, urls: WebClientUrls): UserPoolClient {
    return this.addCodeFlowClient(scope, id, urls);
  }

  /**
   * The `beacon` CLI's app client: public and code flow with PKCE as the console's, returning only to the CLI's
   * fixed loopback address (the user pool matches return addresses exactly, so the CLI cannot pick its port).
   */
  addCliClient(scope: Construct, id: string): UserPoolClient {
    return this.addCodeFlowClient(scope, id, { callbackUrls: [CLI_SIGN_IN_REDIRECT] });
  }

  private addCodeFlowClient(scope: Construct, id: string, urls: WebClientUrls): UserPoolClient {
    return new UserPoolClient(scope, id, {
      ...clientOptions(),
      userPool: this.userPool,
      authFlows: {},
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: urls.callbackUrls,
        logoutUrls: urls.logoutUrls,
      },
    });
  }
}

/** What every console client shares: ID tokens of an hour that carry tenant and role, which no client may write. */
function clientOptions(): UserPoolClientOptions {
  return {
    generateSecret: false,
    preventUserExistenceErrors: true,
    idTokenValidity: Duration.hours(1),
    accessTokenValidity: Duration.hours(1),
    // The CLI renews its hour-long ID token with it, so that a person signs in again once a month, not hourly.
    refreshTokenValidity: Duration.days(30),
    readAttributes: new ClientAttributes()
      .withStandardAttributes({ email: true, emailVerified: true })
      .withCustomAttributes(
        attributeName(ConsoleClaims.tenant),
        attributeName(ConsoleClaims.role),
        attributeName(ConsoleClaims.classes),
      ),
    writeAttributes: new ClientAttributes().withStandardAttributes({ fullname: true }),
  };
}
