package dev.beacon.interop;

import static java.util.function.Predicate.not;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.nifi.c2.client.service.operation.SyncResourceStrategy;
import org.apache.nifi.c2.protocol.api.C2OperationState.OperationState;
import org.apache.nifi.c2.protocol.api.ResourceItem;
import org.apache.nifi.c2.protocol.api.ResourceType;
import org.apache.nifi.c2.protocol.api.ResourcesGlobalHash;

/**
 * What MiNiFi Java 2.3.0 does with the resource list the library's SYNC RESOURCE handler parsed: it deletes
 * the resources it holds that the list no longer names, downloads each new one with the library's download
 * function from the URL the library's enrichment gives (an exception there is not caught, as in the agent),
 * keeps a new one whose file is already there with the listed digest, and saves the operation's global hash,
 * which later heartbeats report, once nothing failed. Assets go to the asset directory's `repository`
 * folder, under their path; the record of what is held is `resources.json` in the conf directory.
 */
final class ResourceSync implements SyncResourceStrategy {
  /** One resource the last synchronisation touched, for the driver's report. */
  record Outcome(ResourceItem item, String action, Path file, Map<String, Object> http) {}

  /** What the agent holds: the global hash of the last complete synchronisation and the resources. */
  record Holdings(ResourcesGlobalHash globalHash, List<ResourceItem> items) {}

  private static final Set<OperationState> SUCCEEDED =
      EnumSet.of(OperationState.NO_OPERATION, OperationState.FULLY_APPLIED);
  private static final Set<OperationState> FAILED =
      EnumSet.of(OperationState.NO_OPERATION, OperationState.NOT_APPLIED);
  /** Characters the agent refuses anywhere in a resource path. */
  private static final String FORBIDDEN_PATH_CHARACTERS = "~<>:|\"?*";

  private final Path assetRepository;
  private final Path extensions;
  private final Path holdingsFile;
  private final Path downloads;
  private final ObjectMapper json;
  /** The HTTP exchange of the download just made, as the driver describes it; null when none was made. */
  private final Supplier<Map<String, Object>> lastDownload;
  private final List<Outcome> outcomes = new ArrayList<>();
  private Holdings holdings;

  ResourceSync(
      AssetDirectory assets,
      Path stateDir,
      ObjectMapper json,
      Supplier<Map<String, Object>> lastDownload) {
    this.assetRepository = assets.directory().resolve("repository");
    this.extensions = stateDir.resolve("extensions");
    this.holdingsFile = stateDir.resolve("resources.json");
    this.downloads = stateDir.resolve("downloads");
    this.json = json;
    this.lastDownload = lastDownload;
    try {
      for (Path dir : List.of(assetRepository, extensions, downloads)) Files.createDirectories(dir);
      holdings =
          Files.exists(holdingsFile)
              ? json.readValue(holdingsFile.toFile(), Holdings.class)
              : new Holdings(new ResourcesGlobalHash(), List.of());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the resource repository in " + stateDir, e);
    }
  }

  /** What heartbeats report as `resourceInfo.hash`: the last saved global hash (no digest before any). */
  ResourcesGlobalHash globalHash() {
    return holdings.globalHash();
  }

  /** The resources the synchronisations since the last call touched. */
  List<Outcome> takeOutcomes() {
    List<Outcome> taken = List.copyOf(outcomes);
    outcomes.clear();
    return taken;
  }

  @Override
  public OperationState synchronizeResourceRepository(
      ResourcesGlobalHash globalHash,
      List<ResourceItem> listed,
      BiFunction<String, Function<InputStream, Optional<Path>>, Optional<Path>> download,
      Function<String, String> enrichUrl) {
    Set<ResourceItem> wanted = new LinkedHashSet<>(listed);
    List<ResourceItem> held = holdings.items();
    OperationState removal =
        summary(held.stream().filter(not(wanted::contains)).map(this::remove).toList());
    OperationState addition =
        summary(
            wanted.stream()
                .filter(not(held::contains))
                .map(item -> add(item, download, enrichUrl))
                .toList());
    if (SUCCEEDED.contains(removal) && SUCCEEDED.contains(addition)) {
      if (save(new Holdings(globalHash, holdings.items()))) return OperationState.FULLY_APPLIED;
      boolean hashOnly = removal == OperationState.NO_OPERATION && addition == OperationState.NO_OPERATION;
      return hashOnly ? OperationState.NOT_APPLIED : OperationState.PARTIALLY_APPLIED;
    }
    return FAILED.contains(removal) && FAILED.contains(addition)
        ? OperationState.NOT_APPLIED
        : OperationState.PARTIALLY_APPLIED;
  }

  private static OperationState summary(List<Boolean> results) {
    long done = results.stream().filter(Boolean::booleanValue).count();
    if (results.isEmpty()) return OperationState.NO_OPERATION;
    if (done == results.size()) return OperationState.FULLY_APPLIED;
    return done == 0 ? OperationState.NOT_APPLIED : OperationState.PARTIALLY_APPLIED;
  }

  private boolean remove(ResourceItem item) {
    List<ResourceItem> kept =
        holdings.items().stream()
            .filter(heldItem -> !heldItem.getResourceId().equals(item.getResourceId()))
            .toList();
    if (!save(new Holdings(holdings.globalHash(), kept))) return false;
    Path file = fileOf(item);
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      System.err.println("c2-client-driver: cannot delete the resource " + file + ": " + e);
    }
    outcomes.add(new Outcome(item, "deleted", file, null));
    return true;
  }

  private boolean add(
      ResourceItem item,
      BiFunction<String, Function<InputStream, Optional<Path>>, Optional<Path>> download,
      Function<String, String> enrichUrl) {
    if (!isAllowedPath(item)) {
      outcomes.add(new Outcome(item, "refused", null, null));
      return false;
    }
    Path file = fileOf(item);
    if (Files.exists(file) && item.getDigest() != null && item.getDigest().equals(digestOf(file, item))) {
      outcomes.add(new Outcome(item, "present", file, null));
      return hold(item);
    }
    String url = enrichUrl.apply(item.getUrl());
    Optional<Path> downloaded = Optional.ofNullable(url).flatMap(from -> download.apply(from, this::toDownloadFile));
    Map<String, Object> http = lastDownload.get();
    if (downloaded.isEmpty()) {
      outcomes.add(new Outcome(item, "failed", null, http));
      return false;
    }
    try {
      Files.createDirectories(file.getParent());
      Files.move(downloaded.get(), file, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      System.err.println("c2-client-driver: cannot move the resource to " + file + ": " + e);
      outcomes.add(new Outcome(item, "failed", null, http));
      return false;
    }
    outcomes.add(new Outcome(item, "downloaded", file, http));
    if (hold(item)) return true;
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      System.err.println("c2-client-driver: cannot delete the resource " + file + ": " + e);
    }
    return false;
  }

  private boolean hold(ResourceItem item) {
    List<ResourceItem> items = new ArrayList<>(holdings.items());
    items.add(item);
    return save(new Holdings(holdings.globalHash(), items));
  }

  /** Where the library's download function writes the body; empty (the item then failed) on error. */
  private Optional<Path> toDownloadFile(InputStream body) {
    try {
      Path file = Files.createTempFile(downloads, "resource-", ".part");
      Files.copy(body, file, StandardCopyOption.REPLACE_EXISTING);
      return Optional.of(file);
    } catch (IOException e) {
      System.err.println("c2-client-driver: cannot store a downloaded resource: " + e);
      return Optional.empty();
    }
  }

  private boolean save(Holdings next) {
    try {
      json.writeValue(holdingsFile.toFile(), next);
      holdings = next;
      return true;
    } catch (IOException e) {
      System.err.println("c2-client-driver: cannot save " + holdingsFile + ": " + e);
      return false;
    }
  }

  /**
   * The agent's rule for an asset's path: none, or a relative one that starts with no dot or separator,
   * never climbs with `..` and holds none of the characters file systems reserve.
   */
  private boolean isAllowedPath(ResourceItem item) {
    String path = item.getResourcePath();
    if (item.getResourceType() != ResourceType.ASSET || path == null || path.isEmpty()) return true;
    boolean reserved = path.chars().anyMatch(c -> FORBIDDEN_PATH_CHARACTERS.indexOf(c) >= 0);
    char first = path.charAt(0);
    return !reserved && first != '.' && first != '/' && first != '\\' && !path.contains("..");
  }

  private Path fileOf(ResourceItem item) {
    if (item.getResourceType() == ResourceType.EXTENSION) return extensions.resolve(item.getResourceName());
    String path = item.getResourcePath();
    Path folder = path == null || path.isBlank() ? assetRepository : assetRepository.resolve(path);
    return folder.resolve(item.getResourceName());
  }

  /** The file's digest in the item's algorithm; an algorithm the JDK lacks fails the operation, as in the agent. */
  private static String digestOf(Path file, ResourceItem item) {
    MessageDigest digest = digest(item.getHashType());
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
      return HexFormat.of().formatHex(digest.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot digest " + file, e);
    }
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(String.valueOf(algorithm));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Unsupported digest algorithm: " + algorithm, e);
    }
  }
}
