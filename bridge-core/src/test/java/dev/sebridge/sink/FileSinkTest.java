package dev.sebridge.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.sink.file.FileSink;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.testing.EventSinkContractTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSinkTest extends EventSinkContractTest {
  @TempDir Path dir;
  Path file;

  @Override
  protected EventSink createSink() {
    file = dir.resolve("sub/dir/out.jsonl");
    return new FileSink(file);
  }

  @Override
  protected List<String> delivered(int expected, Duration timeout) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
  }

  @Test
  void appendsToAnExistingFileAcrossRestarts() throws Exception {
    sink.export(envelopes("a", 2)).get(10, TimeUnit.SECONDS);
    sink.close();
    sink = new FileSink(file);
    sink.export(envelopes("b", 1)).get(10, TimeUnit.SECONDS);
    assertThat(Files.readAllLines(file)).hasSize(3);
  }

  @Test
  void anUnwritableDestinationIsRetriable() throws Exception {
    Files.createDirectories(dir.resolve("blocker"));
    EventSink bad = new FileSink(dir.resolve("blocker"));
    var f = bad.export(envelopes("c", 1));
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(RetriableSinkException.class);
  }

  @Test
  void aLineLeftUnfinishedByACrashIsCutOffBeforeTheNextAppend() throws Exception {
    Path f = dir.resolve("crashed.jsonl");
    Files.writeString(f, "{\"complete\":1}\n{\"cut sho");
    EventSink sink = new FileSink(f);
    sink.export(envelopes("c", 1)).get(10, TimeUnit.SECONDS);
    List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).isEqualTo("{\"complete\":1}");
    assertThat(lines.get(1)).startsWith("{\"specversion\"");
    sink.close();
  }
}
