package dev.beacon.interop;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import org.apache.nifi.c2.client.C2ClientConfig;
import org.apache.nifi.c2.client.http.C2HttpClient;
import org.apache.nifi.c2.client.http.OkHttpClientProvider;
import org.apache.nifi.c2.client.http.url.C2UrlProvider;
import org.apache.nifi.c2.client.http.url.C2UrlProviderFactory;
import org.apache.nifi.c2.client.service.C2HeartbeatFactory;
import org.apache.nifi.c2.client.service.FlowIdHolder;
import org.apache.nifi.c2.client.service.ManifestHashProvider;
import org.apache.nifi.c2.client.service.model.RuntimeInfoWrapper;
import org.apache.nifi.c2.client.service.operation.C2OperationHandler;
import org.apache.nifi.c2.client.service.operation.DescribeManifestOperationHandler;
import org.apache.nifi.c2.client.service.operation.EmptyOperandPropertiesProvider;
import org.apache.nifi.c2.client.service.operation.FlowStateStrategy;
import org.apache.nifi.c2.client.service.operation.StartFlowOperationHandler;
import org.apache.nifi.c2.client.service.operation.StopFlowOperationHandler;
import org.apache.nifi.c2.client.service.operation.SupportedOperationsProvider;
import org.apache.nifi.c2.client.service.operation.SyncResourceOperationHandler;
import org.apache.nifi.c2.client.service.operation.TransferDebugOperationHandler;
import org.apache.nifi.c2.client.service.operation.UpdateAssetOperationHandler;
import org.apache.nifi.c2.client.service.operation.UpdateConfigurationOperationHandler;
import org.apache.nifi.c2.client.service.operation.UpdatePropertiesOperationHandler;
import org.apache.nifi.c2.protocol.api.AgentManifest;
import org.apache.nifi.c2.protocol.api.AgentRepositories;
import org.apache.nifi.c2.protocol.api.AgentRepositoryStatus;
import org.apache.nifi.c2.protocol.api.C2Heartbeat;
import org.apache.nifi.c2.protocol.api.C2HeartbeatResponse;
import org.apache.nifi.c2.protocol.api.C2Operation;
import org.apache.nifi.c2.protocol.api.C2OperationAck;
import org.apache.nifi.c2.protocol.api.C2OperationState.OperationState;
import org.apache.nifi.c2.protocol.api.FlowQueueStatus;
import org.apache.nifi.c2.protocol.api.OperandType;
import org.apache.nifi.c2.protocol.api.OperationType;
import org.apache.nifi.c2.protocol.api.RunStatus;
import org.apache.nifi.c2.protocol.api.SupportedOperation;
import org.apache.nifi.c2.protocol.component.api.BuildInfo;
import org.apache.nifi.c2.protocol.component.api.Bundle;
import org.apache.nifi.c2.protocol.component.api.ComponentManifest;
import org.apache.nifi.c2.protocol.component.api.ProcessorDefinition;
import org.apache.nifi.c2.serializer.C2JacksonSerializer;
import org.apache.nifi.c2.serializer.C2Serializer;

/**
 * Plays a MiNiFi Java agent against Beacon with the real Apache NiFi C2 client library: the library's
 * {@link C2HttpClient} carries every request (mutual TLS, optional gzip), its {@link C2HeartbeatFactory}
 * builds the heartbeats, its {@link DescribeManifestOperationHandler} builds the DESCRIBE MANIFEST
 * acknowledgement, its {@link UpdateConfigurationOperationHandler} downloads the flow of an UPDATE
 * CONFIGURATION and records its flow id, its {@link UpdatePropertiesOperationHandler} applies UPDATE
 * PROPERTIES and its {@link StartFlowOperationHandler} and {@link StopFlowOperationHandler} start and stop
 * the flow, its {@link UpdateAssetOperationHandler} downloads an UPDATE ASSET into the asset directory and its
 * {@link SyncResourceOperationHandler} synchronises the resource repository (SYNC RESOURCE) and its
 * {@link TransferDebugOperationHandler} uploads a debug bundle of the agent's configuration and log (TRANSFER
 * DEBUG), exactly as in the agent: every acknowledgement is the one the library's handler built. The driver supplies only what the
 * agent's own process supplies: where assets and resources are written ({@link AssetDirectory},
 * {@link ResourceSync}) and what the flow and properties handlers change. The sequencing is this driver's:
 * heartbeat, handle and acknowledge every operation it can, heartbeat again.
 *
 * <p>Prints one JSON object per line on stdout for each step; the library's log goes to stderr. Exits 0
 * when every heartbeat and acknowledgement got an HTTP success, 1 on any failure and 2 on bad arguments; a
 * download that fails is the handler's to acknowledge, as in the agent, and is reported in its step.
 */
public final class C2ClientDriver {
  private static final String USAGE =
      "usage: c2-client-driver <base url https://host:port> <cert dir> <cert name> <agent id> <agent class>"
          + " <manifest hash> <none|gzip> [--c2-urls path-base|rest-url|incumbent] [--state-dir <dir>]"
          + " [--running-flow <file> --running-flow-id <id>]\n"
          + "  <cert dir> holds ca.pem, <cert name>.pem and <cert name>.key (PKCS#8)\n"
          + "  --c2-urls path-base (default): c2.rest.path.base=<base url>/c2/api/ with c2.rest.path.heartbeat\n"
          + "      and c2.rest.path.acknowledge; rest-url: c2.rest.url and c2.rest.url.ack, with which the\n"
          + "      library resolves no SYNC RESOURCE url; incumbent: c2.rest.path.base=<base url>/efm/api with\n"
          + "      c2.rest.path.heartbeat=/c2-protocol/heartbeat and c2.rest.path.acknowledge=/c2-protocol/acknowledge,\n"
          + "      as the incumbent C2 server's documentation configures the agent\n"
          + "  --state-dir: an existing directory for what the agent keeps on disk (flow id, asset directory,\n"
          + "      resource repository), kept after the run so that a later run goes on from it; by default\n"
          + "      a temporary one, deleted at the end\n"
          + "  --running-flow, --running-flow-id: the flow the agent runs before Beacon sent it any, and the id it\n"
          + "      reports for it (an agent arriving from another C2 server), unless the state dir has one already";
  private static final String API_PATH = "/c2/api/";
  private static final String HEARTBEAT = "heartbeat";
  private static final String ACKNOWLEDGE = "acknowledge";
  /** The incumbent C2 server's base and paths, as its documentation has the agent's bootstrap.conf set them. */
  private static final String INCUMBENT_PATH_BASE = "/efm/api";
  private static final String INCUMBENT_HEARTBEAT = "/c2-protocol/heartbeat";
  private static final String INCUMBENT_ACKNOWLEDGE = "/c2-protocol/acknowledge";
  /**
   * The agent's flow file (nifi.minifi.config.file), gzipped as the agent keeps it; its TRANSFER DEBUG handler puts
   * it in the bundle decompressed, as flow.json, and unfiltered, sensitive values being encrypted in it.
   */
  private static final String RUNNING_FLOW = "flow.json.gz";
  private static final long CONNECT_TIMEOUT_MS = 5_000;
  private static final long READ_TIMEOUT_MS = 15_000;
  private static final long CALL_TIMEOUT_MS = 30_000;
  private static final String STORE_TYPE = "PKCS12";
  private static final long ONE_GIB = 1L << 30;
  /** The properties the agent offers UPDATE PROPERTIES, as its bootstrap.conf sets them. */
  private static final Map<String, String> UPDATABLE_PROPERTIES =
      Map.of("c2.agent.heartbeat.period", "5000", "c2.rest.callTimeout", "10 sec");
  /**
   * What the agent's debug bundle holds (MiNiFi Java: bootstrap.conf, the flow, the app and bootstrap logs), here
   * a bootstrap.conf and an app log written at start, one line of which looks secret.
   */
  private static final String BOOTSTRAP_CONF = "bootstrap.conf";
  private static final String APP_LOG = "minifi-app.log";
  private static final String SECRET_LINE = "c2.security.keystore.password=do-not-send";
  /** As the agent's filter: a line that names a password, a key or a secret stays out of the bundle. */
  private static final Pattern SENSITIVE_LINE = Pattern.compile("(?i)(password|secret|\\.key=)");
  private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

  private final Arguments arguments;
  private final ObjectMapper json = new ObjectMapper();
  private final WireRecorder wire = new WireRecorder();
  private final String libraryVersion = C2HttpClient.class.getPackage().getImplementationVersion();
  private final C2HttpClient client;
  private final C2HeartbeatFactory heartbeatFactory;
  private final AssetDirectory assets;
  private final ResourceSync resources;
  private final Map<OperationType, Map<OperandType, C2OperationHandler>> handlers;
  private final Set<SupportedOperation> supportedOperations;
  /** What the last UPDATE CONFIGURATION handed the agent to run: the flow's bytes. */
  private byte[] appliedFlow;
  /** Where the agent keeps the flow it runs, as it was handed over. */
  private final Path runningFlow;
  /** The agent's bootstrap.conf properties an UPDATE PROPERTIES may change, with their current values. */
  private final Map<String, String> bootstrapProperties = new LinkedHashMap<>(UPDATABLE_PROPERTIES);
  /** What the heartbeats report of the flow; START and STOP FLOW change it. */
  private RunStatus runStatus = RunStatus.RUNNING;

  private C2ClientDriver(Arguments arguments, Path workDir, Path stateDir) throws Exception {
    this.arguments = arguments;
    TlsStores stores = TlsStores.write(arguments.certDir(), arguments.certName(), workDir);
    C2ClientConfig.Builder urls = new C2ClientConfig.Builder();
    switch (arguments.c2Urls()) {
      case "incumbent" ->
          urls.c2RestPathBase(arguments.baseUrl() + INCUMBENT_PATH_BASE)
              .c2RestPathHeartbeat(INCUMBENT_HEARTBEAT)
              .c2RestPathAcknowledge(INCUMBENT_ACKNOWLEDGE);
      case "rest-url" ->
          urls.c2Url(arguments.baseUrl() + API_PATH + HEARTBEAT)
              .c2AckUrl(arguments.baseUrl() + API_PATH + ACKNOWLEDGE);
      default ->
          urls.c2RestPathBase(arguments.baseUrl() + API_PATH)
              .c2RestPathHeartbeat(HEARTBEAT)
              .c2RestPathAcknowledge(ACKNOWLEDGE);
    }
    C2ClientConfig config =
        urls.agentIdentifier(arguments.agentId())
            .agentClass(arguments.agentClass())
            // Light heartbeats (the agent's default is full ones): Beacon must then ask for the manifest.
            .fullHeartbeat(false)
            // Where the library keeps the identifiers it persists (device id, flow id).
            .confDirectory(stateDir.toString())
            .keystoreFilename(stores.keystore().toString())
            .keystoreType(STORE_TYPE)
            .keystorePassword(stores.password())
            .keyPassword(stores.password())
            .truststoreFilename(stores.truststore().toString())
            .truststoreType(STORE_TYPE)
            .truststorePassword(stores.password())
            .c2RequestCompression(arguments.compression())
            // The agent always sets the download headers (c2.rest.http.headers); unset, downloads fail.
            .httpHeaders("Accept:application/json")
            // The builder has no defaults and OkHttp reads 0 as "wait forever".
            .connectTimeout(CONNECT_TIMEOUT_MS)
            .readTimeout(READ_TIMEOUT_MS)
            .callTimeout(CALL_TIMEOUT_MS)
            .maxIdleConnections(1)
            .keepAliveDuration(READ_TIMEOUT_MS)
            .build();
    this.client = createClient(config, wire);
    // One holder, as in the agent: the update handler sets the flow id the heartbeats then report.
    FlowIdHolder flowIdHolder = new FlowIdHolder(stateDir.toString());
    this.runningFlow = stateDir.resolve(RUNNING_FLOW);
    if (arguments.runningFlow() != null && !Files.exists(runningFlow)) {
      writeGzipped(runningFlow, Files.readAllBytes(arguments.runningFlow()));
      flowIdHolder.setFlowId(arguments.runningFlowId());
    }
    // The agent's c2.asset.directory (default ./asset) and its resource repository.
    this.assets = new AssetDirectory(stateDir.resolve("asset"));
    this.resources =
        new ResourceSync(
            assets,
            stateDir,
            json,
            () -> wire.takeLast().map(WireRecorder.Exchange::describe).orElse(null));
    // As in the agent, heartbeats report the global hash the last SYNC RESOURCE saved.
    this.heartbeatFactory =
        new C2HeartbeatFactory(
            config, flowIdHolder, new FixedManifestHash(arguments.manifestHash()), resources::globalHash);
    DescribeManifestOperationHandler describeManifest =
        new DescribeManifestOperationHandler(
            heartbeatFactory, this::runtimeInfo, new EmptyOperandPropertiesProvider());
    // The agent would restart its flow with the bytes; the driver keeps them as the flow it runs, and for the report.
    UpdateConfigurationOperationHandler updateConfiguration =
        new UpdateConfigurationOperationHandler(
            client, flowIdHolder, this::runFlow, new EmptyOperandPropertiesProvider());
    // The agent writes the properties to bootstrap.conf and restarts; the driver keeps them in memory.
    UpdatePropertiesOperationHandler updateProperties =
        new UpdatePropertiesOperationHandler(this::availableProperties, this::persistProperties);
    FlowStateStrategy flowState = new DriverFlowState();
    // The agent offers UPDATE ASSET and SYNC RESOURCE no operand properties either.
    UpdateAssetOperationHandler updateAsset =
        UpdateAssetOperationHandler.create(
            client, new EmptyOperandPropertiesProvider(), assets::needsDownload, assets::persist);
    SyncResourceOperationHandler syncResource =
        SyncResourceOperationHandler.create(
            client, new EmptyOperandPropertiesProvider(), resources, new C2JacksonSerializer());
    // The agent bundles its configuration and logs, each line of the text ones through its filter.
    TransferDebugOperationHandler transferDebug =
        TransferDebugOperationHandler.create(
            client,
            new EmptyOperandPropertiesProvider(),
            debugFiles(workDir),
            line -> !SENSITIVE_LINE.matcher(line).find());
    this.handlers =
        Map.of(
            OperationType.DESCRIBE, Map.of(OperandType.MANIFEST, describeManifest),
            OperationType.UPDATE,
                Map.of(
                    OperandType.CONFIGURATION, updateConfiguration,
                    OperandType.PROPERTIES, updateProperties,
                    OperandType.ASSET, updateAsset),
            OperationType.SYNC, Map.of(OperandType.RESOURCE, syncResource),
            OperationType.START, Map.of(OperandType.FLOW, new StartFlowOperationHandler(flowState)),
            OperationType.STOP, Map.of(OperandType.FLOW, new StopFlowOperationHandler(flowState)),
            OperationType.TRANSFER, Map.of(OperandType.DEBUG, transferDebug));
    // Derived from the handlers, as the agent does.
    this.supportedOperations = new SupportedOperationsProvider(handlers).getSupportedOperations();
  }

  public static void main(String[] args) {
    // slf4j-simple reads these when the first logger is created, which is after this line.
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    System.exit(run(args));
  }

  private static int run(String[] args) {
    Arguments arguments;
    try {
      arguments = Arguments.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("c2-client-driver: " + e.getMessage());
      System.err.println(USAGE);
      return 2;
    }
    Path workDir = null;
    try {
      workDir = Files.createTempDirectory("beacon-c2-driver-", OWNER_ONLY);
      Path stateDir = arguments.stateDir() == null ? workDir : arguments.stateDir();
      new C2ClientDriver(arguments, workDir, stateDir).converse();
      return 0;
    } catch (DriverFailure e) {
      System.err.println("c2-client-driver: " + e.getMessage());
      return 1;
    } catch (Exception e) {
      System.err.println("c2-client-driver: " + e);
      e.printStackTrace(System.err);
      return 1;
    } finally {
      deleteRecursively(workDir);
    }
  }

  /**
   * Heartbeat, handle and acknowledge every operation it brought with the library's handler for it,
   * heartbeat again. The driver advertises only the operations it has handlers for.
   */
  private void converse() throws IOException, DriverFailure {
    emit(
        step("client")
            .with("library", "org.apache.nifi:c2-client-http:" + libraryVersion)
            .with("heartbeatUrl", heartbeatUrl())
            .with("c2Urls", arguments.c2Urls())
            .with("compression", arguments.compression()));
    for (C2Operation operation : heartbeat(1)) {
      C2OperationHandler handler =
          handlers.getOrDefault(operation.getOperation(), Map.of()).get(operation.getOperand());
      // As in the agent, an operation without a handler is skipped and not acknowledged.
      if (handler == null) continue;
      Optional<C2OperationAck> ack = handle(handler, operation);
      if (ack.isPresent()) acknowledge(ack.get(), operation);
    }
    heartbeat(2);
  }

  /**
   * Runs the library's handler and reports what it did. A handler that throws gets no acknowledgement:
   * the agent's operation manager logs the exception and goes on to the next operation.
   */
  private Optional<C2OperationAck> handle(C2OperationHandler handler, C2Operation operation)
      throws IOException {
    appliedFlow = null;
    C2OperationAck ack;
    try {
      ack = handler.handle(operation);
    } catch (RuntimeException e) {
      reportResources(operation);
      emit(
          step("unhandled")
              .with("operationId", operation.getIdentifier())
              .with("operation", operation.getOperation().name())
              .with("operand", operation.getOperand().name())
              .with("error", e.toString()));
      return Optional.empty();
    }
    String state = ack.getOperationState().getState().name();
    switch (handler) {
      case UpdateConfigurationOperationHandler update -> reportUpdate(operation, state);
      // The agent acknowledges once it has restarted with the new properties; the driver at once.
      case UpdatePropertiesOperationHandler properties ->
          emit(
              step("properties")
                  .with("operationId", operation.getIdentifier())
                  .with("values", bootstrapProperties));
      case UpdateAssetOperationHandler asset -> reportAsset(operation, state);
      // The upload the library's TRANSFER DEBUG handler made, and the state it acknowledges with.
      case TransferDebugOperationHandler debug ->
          emit(
              step("debug")
                  .with("operationId", operation.getIdentifier())
                  .with("args", argsOf(operation))
                  .with("http", wire.takeLast().map(WireRecorder.Exchange::describe).orElse(null))
                  .with("state", state)
                  .with("details", ack.getOperationState().getDetails()));
      case SyncResourceOperationHandler sync -> {
        reportResources(operation);
        emit(
            step("sync")
                .with("operationId", operation.getIdentifier())
                .with("globalHash", operation.getArgs() == null ? null : operation.getArgs().get("globalHash"))
                .with("state", state)
                .with("resourcesHash", resources.globalHash().getDigest()));
      }
      default -> {}
    }
    return Optional.of(ack);
  }

  /** The flow download the library's UPDATE CONFIGURATION handler made, and what it handed the agent. */
  private void reportUpdate(C2Operation operation, String state) throws IOException {
    emit(
        step("update")
            .with("operationId", operation.getIdentifier())
            .with("args", argsOf(operation))
            .with("http", wire.takeLast().map(WireRecorder.Exchange::describe).orElse(null))
            .with("flowBytes", appliedFlow == null ? null : appliedFlow.length)
            .with("flowSha256", appliedFlow == null ? null : sha256(appliedFlow))
            .with("state", state));
  }

  /** The asset download the library's UPDATE ASSET handler made, and the file it left on disk. */
  private void reportAsset(C2Operation operation, String state) throws IOException {
    Optional<Path> stored = assets.takePersisted();
    byte[] bytes = stored.isPresent() ? Files.readAllBytes(stored.get()) : null;
    emit(
        step("asset")
            .with("operationId", operation.getIdentifier())
            .with("args", argsOf(operation))
            .with("http", wire.takeLast().map(WireRecorder.Exchange::describe).orElse(null))
            .with("file", stored.map(file -> assets.directory().relativize(file).toString()).orElse(null))
            .with("bytes", bytes == null ? null : bytes.length)
            .with("sha256", bytes == null ? null : sha256(bytes))
            .with("state", state));
  }

  /** One step per resource the SYNC RESOURCE touched: downloaded, present already, deleted or not taken. */
  private void reportResources(C2Operation operation) throws IOException {
    for (ResourceSync.Outcome outcome : resources.takeOutcomes()) {
      byte[] bytes =
          outcome.file() != null && Files.exists(outcome.file()) ? Files.readAllBytes(outcome.file()) : null;
      emit(
          step("resource")
              .with("operationId", operation.getIdentifier())
              .with("resourceId", outcome.item().getResourceId())
              .with("name", outcome.item().getResourceName())
              .with("path", outcome.item().getResourcePath())
              .with("action", outcome.action())
              .with(
                  "file",
                  outcome.file() == null ? null : assets.directory().relativize(outcome.file()).toString())
              .with("bytes", bytes == null ? null : bytes.length)
              .with("sha256", bytes == null ? null : sha256(bytes))
              .with("http", outcome.http()));
    }
  }

  private static Map<String, Object> argsOf(C2Operation operation) {
    return operation.getArgs() == null ? Map.of() : operation.getArgs();
  }

  /** Where the library posts heartbeats, as the configuration spells it. */
  private String heartbeatUrl() {
    return arguments.c2Urls().equals("incumbent")
        ? arguments.baseUrl() + INCUMBENT_PATH_BASE + INCUMBENT_HEARTBEAT
        : arguments.baseUrl() + API_PATH + HEARTBEAT;
  }

  private void runFlow(byte[] flow) {
    appliedFlow = flow;
    try {
      writeGzipped(runningFlow, flow);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeGzipped(Path file, byte[] bytes) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
      out.write(bytes);
    }
  }

  /**
   * The agent's flow (when it runs one), bootstrap.conf and app log, which its TRANSFER DEBUG handler bundles; the
   * agent lists the files that exist when it starts.
   */
  private List<Path> debugFiles(Path workDir) throws IOException {
    Path bootstrap = workDir.resolve(BOOTSTRAP_CONF);
    List<String> properties = new ArrayList<>();
    bootstrapProperties.forEach((name, value) -> properties.add(name + "=" + value));
    properties.add(SECRET_LINE);
    Files.write(bootstrap, properties, StandardCharsets.UTF_8);
    Path log = workDir.resolve(APP_LOG);
    Files.write(
        log,
        List.of(
            "INFO [main] org.apache.nifi.minifi.MiNiFi Started MiNiFi as " + arguments.agentId(),
            "INFO [C2] org.apache.nifi.c2.client.service.C2HeartbeatManager Heartbeat sent"),
        StandardCharsets.UTF_8);
    return Files.exists(runningFlow) ? List.of(runningFlow, bootstrap, log) : List.of(bootstrap, log);
  }

  /** UPDATE PROPERTIES' operand properties, shaped as the agent lists them in its manifest. */
  private Map<String, Object> availableProperties() {
    List<Map<String, Object>> available =
        bootstrapProperties.entrySet().stream()
            .map(
                entry ->
                    Map.<String, Object>of(
                        "propertyName", entry.getKey(),
                        "propertyValue", entry.getValue(),
                        "validator", "VALID"))
            .toList();
    return Map.of("availableProperties", available);
  }

  /**
   * What the agent's persister does with the operation's args: refuses a property it does not offer
   * (the handler then acknowledges NOT_APPLIED), and tells whether any value changed (NO_OPERATION if not).
   */
  private Boolean persistProperties(Map<String, Object> updates) {
    for (String name : updates.keySet()) {
      if (!bootstrapProperties.containsKey(name)) {
        throw new IllegalArgumentException("The property " + name + " cannot be updated");
      }
    }
    boolean changed = false;
    for (Map.Entry<String, Object> update : updates.entrySet()) {
      String value = String.valueOf(update.getValue());
      changed |= !Objects.equals(bootstrapProperties.put(update.getKey(), value), value);
    }
    return changed;
  }

  /** Starts and stops the flow the heartbeats report on. */
  private final class DriverFlowState implements FlowStateStrategy {
    @Override
    public OperationState start() {
      runStatus = RunStatus.RUNNING;
      return OperationState.FULLY_APPLIED;
    }

    @Override
    public OperationState stop() {
      runStatus = RunStatus.STOPPED;
      return OperationState.FULLY_APPLIED;
    }
  }

  private List<C2Operation> heartbeat(int sequence) throws IOException, DriverFailure {
    String name = "heartbeat " + sequence;
    C2Heartbeat heartbeat = heartbeatFactory.create(runtimeInfo());
    Optional<C2HeartbeatResponse> response = client.publishHeartbeat(heartbeat);
    WireRecorder.Exchange exchange = wire.takeLast().orElseThrow(() -> noResponse(name));
    List<C2Operation> operations =
        response.map(C2HeartbeatResponse::getRequestedOperations).orElseGet(List::of);
    emit(
        step("heartbeat")
            .with("sequence", sequence)
            .with("agentId", heartbeat.getAgentId())
            .with("agentManifestHash", heartbeat.getAgentInfo().getAgentManifestHash())
            .with("manifestSent", heartbeat.getAgentInfo().getAgentManifest() != null)
            .with("flowId", heartbeat.getFlowInfo() == null ? null : heartbeat.getFlowInfo().getFlowId())
            .with(
                "resourcesHash",
                heartbeat.getResourceInfo() == null ? null : heartbeat.getResourceInfo().getHash())
            .with(
                "runStatus",
                heartbeat.getFlowInfo() == null || heartbeat.getFlowInfo().getRunStatus() == null
                    ? null
                    : heartbeat.getFlowInfo().getRunStatus().name())
            .with("http", exchange.describe())
            .with("parsed", response.isPresent())
            .with("operations", operations.stream().map(C2ClientDriver::describeOperation).toList()));
    // The protocol asks for 200 on every well-formed heartbeat: the C++ agent treats 4xx/5xx as errors.
    if (exchange.status() != 200) {
      throw new DriverFailure("Beacon answered " + name + " with HTTP " + exchange.status());
    }
    if (response.isEmpty()) {
      throw new DriverFailure("the library could not parse Beacon's reply to " + name + " (see its log)");
    }
    return operations;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }

  private void acknowledge(C2OperationAck ack, C2Operation operation) throws IOException, DriverFailure {
    String name = "the ack of " + ack.getOperationId();
    client.acknowledgeOperation(ack);
    WireRecorder.Exchange exchange = wire.takeLast().orElseThrow(() -> noResponse(name));
    // Only a DESCRIBE MANIFEST acknowledgement carries the agent's manifest.
    AgentManifest manifest =
        ack.getAgentInfo() == null ? null : (AgentManifest) ack.getAgentInfo().getAgentManifest();
    JsonFields manifestSummary =
        manifest == null
            ? null
            : new JsonFields()
                .with("identifier", manifest.getIdentifier())
                .with("agentType", manifest.getAgentType())
                .with("version", manifest.getVersion())
                .with("bundles", manifest.getBundles().size())
                .with(
                    "supportedOperations",
                    manifest.getSupportedOperations().stream()
                        .map(C2ClientDriver::describeSupported)
                        .sorted(Comparator.comparing(supported -> String.valueOf(supported.get("type"))))
                        .toList());
    emit(
        step("ack")
            .with("operationId", ack.getOperationId())
            .with("operation", operation.getOperation().name())
            .with("operand", operation.getOperand().name())
            .with("state", ack.getOperationState().getState().name())
            .with("details", ack.getOperationState().getDetails())
            .with(
                "agentManifestHash",
                ack.getAgentInfo() == null ? null : ack.getAgentInfo().getAgentManifestHash())
            .with("manifest", manifestSummary == null ? null : manifestSummary.fields())
            .with("http", exchange.describe()));
    if (exchange.status() < 200 || exchange.status() > 299) {
      throw new DriverFailure("Beacon answered " + name + " with HTTP " + exchange.status());
    }
  }

  private static DriverFailure noResponse(String request) {
    return new DriverFailure(request + " got no HTTP response (see the library's log above)");
  }

  /**
   * What {@link C2HttpClient#create} does, through the package-private constructor it uses, plus one network
   * interceptor on the library's own OkHttp client. The interceptor only records what crossed the wire: the
   * library discards an acknowledgement's status, and the test wants it and the request encoding.
   */
  private static C2HttpClient createClient(C2ClientConfig config, WireRecorder wire)
      throws ReflectiveOperationException {
    OkHttpClient http =
        new OkHttpClientProvider(config).okHttpClient().newBuilder().addNetworkInterceptor(wire).build();
    Constructor<C2HttpClient> constructor =
        C2HttpClient.class.getDeclaredConstructor(
            C2ClientConfig.class, C2Serializer.class, C2UrlProvider.class, OkHttpClient.class);
    constructor.setAccessible(true);
    C2UrlProvider urls = new C2UrlProviderFactory(config).create();
    return constructor.newInstance(config, new C2JacksonSerializer(), urls, http);
  }

  /** What the agent reports on each heartbeat: repositories, the manifest, queues and run status. */
  private RuntimeInfoWrapper runtimeInfo() {
    AgentRepositoryStatus flowFileRepository = new AgentRepositoryStatus();
    flowFileRepository.setSize(0L);
    flowFileRepository.setSizeMax(10_000L);
    flowFileRepository.setDataSize(0L);
    flowFileRepository.setDataSizeMax(ONE_GIB);
    AgentRepositories repositories = new AgentRepositories();
    repositories.setFlowFile(flowFileRepository);

    FlowQueueStatus queue = new FlowQueueStatus();
    queue.setSize(3L);
    queue.setSizeMax(10_000L);
    queue.setDataSize(30L);
    queue.setDataSizeMax(ONE_GIB);

    return new RuntimeInfoWrapper(
        repositories, manifest(), Map.of("conn-1", queue), List.of(), List.of(), runStatus);
  }

  /** A one-processor manifest shaped like the agent's (examples/java-2.3.0/ack-describe-manifest.json). */
  private AgentManifest manifest() {
    ProcessorDefinition generateFlowFile = new ProcessorDefinition();
    generateFlowFile.setGroup("org.apache.nifi");
    generateFlowFile.setArtifact("nifi-standard-nar");
    generateFlowFile.setVersion(libraryVersion);
    generateFlowFile.setType("org.apache.nifi.processors.standard.GenerateFlowFile");
    generateFlowFile.setTypeDescription("Generates FlowFiles");
    generateFlowFile.setSupportedRelationships(List.of());
    ComponentManifest components = new ComponentManifest();
    components.setProcessors(List.of(generateFlowFile));
    Bundle standard = new Bundle("org.apache.nifi", "nifi-standard-nar", libraryVersion);
    standard.setComponentManifest(components);

    BuildInfo buildInfo = new BuildInfo();
    buildInfo.setVersion(libraryVersion);
    buildInfo.setTimestamp(1_700_000_000_000L);

    AgentManifest manifest = new AgentManifest();
    manifest.setIdentifier("minifi");
    manifest.setAgentType("minifi-java");
    manifest.setVersion(libraryVersion);
    manifest.setBuildInfo(buildInfo);
    manifest.setBundles(List.of(standard));
    manifest.setSupportedOperations(supportedOperations);
    return manifest;
  }

  private static Map<String, Object> describeOperation(C2Operation operation) {
    return new JsonFields()
        .with("identifier", operation.getIdentifier())
        .with("operation", operation.getOperation() == null ? null : operation.getOperation().name())
        .with("operand", operation.getOperand() == null ? null : operation.getOperand().name())
        .with("args", argsOf(operation))
        .fields();
  }

  private static Map<String, Object> describeSupported(SupportedOperation operation) {
    return new JsonFields()
        .with("type", operation.getType().name())
        .with(
            "operands",
            operation.getProperties().keySet().stream().map(OperandType::name).sorted().toList())
        .fields();
  }

  private static JsonFields step(String name) {
    return new JsonFields().with("step", name);
  }

  private void emit(JsonFields step) throws IOException {
    System.out.println(json.writeValueAsString(step.fields()));
    System.out.flush();
  }

  private static void deleteRecursively(Path dir) {
    if (dir == null) return;
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
    } catch (IOException e) {
      System.err.println("c2-client-driver: could not delete " + dir + ": " + e.getMessage());
    }
  }

  /** An ordered JSON object under construction; null values are kept so that absences are visible. */
  private static final class JsonFields {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    JsonFields with(String name, Object value) {
      fields.put(name, value);
      return this;
    }

    Map<String, Object> fields() {
      return fields;
    }
  }

  /** A failure already explained in its message, printed without a stack trace. */
  private static final class DriverFailure extends Exception {
    private static final long serialVersionUID = 1L;

    DriverFailure(String message) {
      super(message);
    }
  }

  /**
   * Beacon treats the manifest hash as opaque, and each test case needs one that no earlier run registered,
   * so it comes from the caller instead of the library's digest of bundles and supported operations.
   */
  private static final class FixedManifestHash extends ManifestHashProvider {
    private final String hash;

    FixedManifestHash(String hash) {
      this.hash = hash;
    }

    @Override
    public String calculateManifestHash(List<Bundle> bundles, Set<SupportedOperation> supportedOperations) {
      return hash;
    }
  }

  /** Remembers the last exchange that reached the network, as sent and as answered. */
  private static final class WireRecorder implements Interceptor {
    record Exchange(
        String path, int status, String contentEncoding, String transferEncoding, String contentLength) {
      Map<String, Object> describe() {
        return new JsonFields()
            .with("path", path)
            .with("status", status)
            .with("contentEncoding", contentEncoding)
            .with("transferEncoding", transferEncoding)
            .with("contentLength", contentLength)
            .fields();
      }
    }

    private volatile Exchange last;

    @Override
    public Response intercept(Chain chain) throws IOException {
      Response response = chain.proceed(chain.request());
      okhttp3.Request sent = response.request();
      last =
          new Exchange(
              sent.url().encodedPath(),
              response.code(),
              sent.header("Content-Encoding"),
              sent.header("Transfer-Encoding"),
              sent.header("Content-Length"));
      return response;
    }

    /** The exchange since the previous call, if one reached the server. */
    Optional<Exchange> takeLast() {
      Optional<Exchange> exchange = Optional.ofNullable(last);
      last = null;
      return exchange;
    }
  }

  /** The command line; {@code stateDir} is null for a temporary one. */
  private record Arguments(
      String baseUrl,
      Path certDir,
      String certName,
      String agentId,
      String agentClass,
      String manifestHash,
      String compression,
      String c2Urls,
      Path stateDir,
      Path runningFlow,
      String runningFlowId) {
    private static final int POSITIONAL = 7;

    static Arguments parse(String[] args) {
      if (args.length < POSITIONAL) {
        throw new IllegalArgumentException("expected at least 7 arguments, got " + args.length);
      }
      URI url;
      try {
        url = URI.create(args[0]);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("base url: " + e.getMessage());
      }
      if (!"https".equals(url.getScheme()) || url.getHost() == null) {
        throw new IllegalArgumentException("base url must be https://host[:port], got " + args[0]);
      }
      String urlPath = url.getRawPath();
      boolean hasPath = urlPath != null && !urlPath.isEmpty() && !"/".equals(urlPath);
      if (hasPath || url.getRawQuery() != null) {
        throw new IllegalArgumentException("base url must not have a path or query, got " + args[0]);
      }
      Path certDir = Path.of(args[1]);
      if (!Files.isDirectory(certDir)) {
        throw new IllegalArgumentException("cert dir is not a directory: " + certDir);
      }
      String[] names = {"cert name", "agent id", "agent class", "manifest hash"};
      for (int i = 0; i < names.length; i++) {
        if (args[2 + i].isBlank()) throw new IllegalArgumentException(names[i] + " is empty");
      }
      String compression = args[6];
      if (!compression.equals("none") && !compression.equals("gzip")) {
        throw new IllegalArgumentException("compression must be none or gzip, got " + compression);
      }
      Map<String, String> options = options(args);
      String c2Urls = options.getOrDefault("--c2-urls", "path-base");
      if (!List.of("path-base", "rest-url", "incumbent").contains(c2Urls)) {
        throw new IllegalArgumentException("--c2-urls must be path-base, rest-url or incumbent, got " + c2Urls);
      }
      Path runningFlow = options.containsKey("--running-flow") ? Path.of(options.get("--running-flow")) : null;
      String runningFlowId = options.get("--running-flow-id");
      if ((runningFlow == null) != (runningFlowId == null)) {
        throw new IllegalArgumentException("--running-flow and --running-flow-id go together");
      }
      if (runningFlow != null && !Files.isRegularFile(runningFlow)) {
        throw new IllegalArgumentException("running flow is not a file: " + runningFlow);
      }
      Path stateDir = options.containsKey("--state-dir") ? Path.of(options.get("--state-dir")) : null;
      if (stateDir != null && !Files.isDirectory(stateDir)) {
        throw new IllegalArgumentException("state dir is not a directory: " + stateDir);
      }
      String baseUrl = url.getScheme() + "://" + url.getRawAuthority();
      return new Arguments(
          baseUrl,
          certDir,
          args[2],
          args[3],
          args[4],
          args[5],
          compression,
          c2Urls,
          stateDir,
          runningFlow,
          runningFlowId);
    }

    /** The options after the positional arguments, each a name and a value, each at most once. */
    private static Map<String, String> options(String[] args) {
      Map<String, String> options = new LinkedHashMap<>();
      for (int i = POSITIONAL; i < args.length; i += 2) {
        String name = args[i];
        if (!List.of("--c2-urls", "--state-dir", "--running-flow", "--running-flow-id").contains(name)) {
          throw new IllegalArgumentException("unknown option " + name);
        }
        if (i + 1 >= args.length) throw new IllegalArgumentException(name + " needs a value");
        if (options.put(name, args[i + 1]) != null) {
          throw new IllegalArgumentException(name + " is given twice");
        }
      }
      return options;
    }
  }

  /** The PEM client certificate, its key and the CA, as the PKCS12 files the library's TLS setup reads. */
  private record TlsStores(Path keystore, Path truststore, String password) {
    private static final Pattern PKCS8_KEY =
        Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    static TlsStores write(Path certDir, String certName, Path workDir) throws IOException, DriverFailure {
      Path caPath = certDir.resolve("ca.pem");
      Path certPath = certDir.resolve(certName + ".pem");
      Path keyPath = certDir.resolve(certName + ".key");
      for (Path path : List.of(caPath, certPath, keyPath)) {
        if (!Files.isReadable(path)) throw new DriverFailure("cannot read " + path);
      }
      String password = randomPassword();
      try {
        List<X509Certificate> authorities = readCertificates(caPath);
        List<X509Certificate> chain = readCertificates(certPath);
        // The key's algorithm (EC for Beacon's P-256 certificates) is the certificate's.
        PrivateKey key = readPkcs8Key(keyPath, chain.get(0).getPublicKey().getAlgorithm());

        KeyStore keystore = emptyStore();
        keystore.setKeyEntry("client", key, password.toCharArray(), chain.toArray(Certificate[]::new));
        KeyStore truststore = emptyStore();
        for (int i = 0; i < authorities.size(); i++) {
          truststore.setCertificateEntry("ca-" + i, authorities.get(i));
        }

        TlsStores stores =
            new TlsStores(workDir.resolve("keystore.p12"), workDir.resolve("truststore.p12"), password);
        save(keystore, stores.keystore(), password);
        save(truststore, stores.truststore(), password);
        return stores;
      } catch (GeneralSecurityException e) {
        throw new DriverFailure(
            "cannot build the TLS stores from " + caPath + ", " + certPath + " and " + keyPath + ": " + e);
      }
    }

    private static List<X509Certificate> readCertificates(Path path)
        throws IOException, GeneralSecurityException {
      List<X509Certificate> certificates = new ArrayList<>();
      try (InputStream in = Files.newInputStream(path)) {
        for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
          certificates.add((X509Certificate) certificate);
        }
      }
      if (certificates.isEmpty()) throw new GeneralSecurityException("no certificate in " + path);
      return certificates;
    }

    private static PrivateKey readPkcs8Key(Path path, String algorithm)
        throws IOException, GeneralSecurityException {
      Matcher pem = PKCS8_KEY.matcher(Files.readString(path, StandardCharsets.US_ASCII));
      if (!pem.find()) throw new GeneralSecurityException(path + " holds no PKCS#8 \"PRIVATE KEY\" block");
      byte[] der = Base64.getMimeDecoder().decode(pem.group(1));
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    private static KeyStore emptyStore() throws IOException, GeneralSecurityException {
      KeyStore store = KeyStore.getInstance(STORE_TYPE);
      store.load(null, null);
      return store;
    }

    private static void save(KeyStore store, Path path, String password)
        throws IOException, GeneralSecurityException {
      try (OutputStream out = Files.newOutputStream(path)) {
        store.store(out, password.toCharArray());
      }
    }

    /** The stores live only as long as this run, in a directory only this user can read. */
    private static String randomPassword() {
      byte[] bytes = new byte[24];
      new SecureRandom().nextBytes(bytes);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
  }
}
