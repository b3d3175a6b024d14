package dev.beacon.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The agent's asset directory (`c2.asset.directory`) as MiNiFi Java 2.3.0 gives it to the library's UPDATE
 * ASSET handler: the precondition (download unless the file is there, or when forced) and the persist
 * function (replace the file with the downloaded bytes). SYNC RESOURCE keeps its files in the directory's
 * `repository` folder (see {@link ResourceSync}).
 */
final class AssetDirectory {
  private final Path directory;
  /** The file the last persist wrote, for the driver's report. */
  private Path lastPersisted;

  AssetDirectory(Path directory) {
    this.directory = directory;
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the asset directory " + directory, e);
    }
  }

  Path directory() {
    return directory;
  }

  /** Whether the handler may download the asset: the agent keeps a file it has unless told to force. */
  boolean needsDownload(String fileName, Boolean forceDownload) {
    return Boolean.TRUE.equals(forceDownload) || !Files.exists(directory.resolve(fileName));
  }

  /** Writes the downloaded bytes over the file; false (the handler then acks NOT_APPLIED) when it cannot. */
  boolean persist(String fileName, byte[] content) {
    Path file = directory.resolve(fileName);
    try {
      Files.deleteIfExists(file);
      Files.write(file, content);
      lastPersisted = file;
      return true;
    } catch (IOException e) {
      System.err.println("c2-client-driver: cannot write the asset " + file + ": " + e);
      return false;
    }
  }

  /** The file the handler persisted since the last call, if it persisted one. */
  Optional<Path> takePersisted() {
    Optional<Path> persisted = Optional.ofNullable(lastPersisted);
    lastPersisted = null;
    return persisted;
  }
}
