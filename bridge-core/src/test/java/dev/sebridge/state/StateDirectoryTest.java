package dev.sebridge.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirectoryTest {
  @TempDir Path tmp;

  @Test
  void writesAtomicallyWithPrivatePermissions() throws Exception {
    Path dir = tmp.resolve("state");
    try (StateDirectory s = StateDirectory.open(dir, Clock.systemUTC())) {
      assertThat(s.read("a.json")).isEmpty();
      s.write("a.json", "one".getBytes(StandardCharsets.UTF_8));
      s.write("a.json", "two".getBytes(StandardCharsets.UTF_8));
      assertThat(new String(s.read("a.json").orElseThrow(), StandardCharsets.UTF_8))
          .isEqualTo("two");
      assertThat(Files.exists(dir.resolve("a.json.tmp"))).isFalse();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
          .isEqualTo("rwx------");
      assertThat(
              PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a.json"))))
          .isEqualTo("rw-------");
    }
  }

  @Test
  void twoAgentsCannotShareADirectory() {
    Path dir = tmp.resolve("state");
    try (StateDirectory first = StateDirectory.open(dir, Clock.systemUTC())) {
      assertThatThrownBy(() -> StateDirectory.open(dir, Clock.systemUTC()))
          .isInstanceOf(StateDirectoryException.class)
          .hasMessageContaining("in use by another sebridge agent");
    }
    StateDirectory.open(dir, Clock.systemUTC()).close();
  }

  @Test
  void quarantineMovesACorruptFileAside() throws Exception {
    try (StateDirectory s = StateDirectory.open(tmp, Clock.systemUTC())) {
      s.write("tracker.json", "{garbage".getBytes(StandardCharsets.UTF_8));
      Path moved = s.quarantine("tracker.json", "test");
      assertThat(moved.getFileName().toString()).startsWith("tracker.json.corrupt-");
      assertThat(Files.readString(moved)).isEqualTo("{garbage");
      assertThat(s.read("tracker.json")).isEmpty();
    }
  }

  @Test
  void anUncreatableDirectoryIsAClearError() throws Exception {
    Path file = tmp.resolve("plain-file");
    Files.writeString(file, "x");
    assertThatThrownBy(() -> StateDirectory.open(file.resolve("sub"), Clock.systemUTC()))
        .isInstanceOf(StateDirectoryException.class)
        .hasMessageContaining("cannot use state directory");
  }
}
