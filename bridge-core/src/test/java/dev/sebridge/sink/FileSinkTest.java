package dev.sebridge.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.envelope.Envelope;
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

  /**
   * Retention: past its size the file is rotated (file, .1, .2; the oldest beyond {@code keep}
   * deleted), each file holds whole batches, and the files together hold the newest envelopes in
   * order, none twice, none missing between the oldest kept and the newest.
   */
  @Test
  void theFileIsRotatedPastItsSizeAndTheOldestBeyondKeepIsDeleted() throws Exception {
    Path f = dir.resolve("rotating.jsonl");
    List<Envelope> all = envelopes("vm-rotate", 60);
    long line = all.get(0).size() + 1;
    long max = 5 * line + line / 2; // five lines fit, a sixth does not
    FileSink rotating = new FileSink(f, max, 2);
    for (int i = 0; i < all.size(); i += 2) {
      rotating.export(all.subList(i, i + 2)).get(10, TimeUnit.SECONDS);
    }
    rotating.shutdown().get(10, TimeUnit.SECONDS);
    assertThat(f.resolveSibling("rotating.jsonl.3")).doesNotExist();
    List<String> kept = new java.util.ArrayList<>();
    for (Path p :
        List.of(f.resolveSibling("rotating.jsonl.2"), f.resolveSibling("rotating.jsonl.1"), f)) {
      assertThat(Files.size(p)).as(p.toString()).isLessThanOrEqualTo(max);
      List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
      assertThat(lines.size() % 2).as("whole batches in %s", p).isZero();
      kept.addAll(lines);
    }
    List<String> written = all.stream().map(Envelope::bodyAsString).toList();
    assertThat(kept).isNotEmpty().hasSizeLessThan(written.size());
    assertThat(kept)
        .containsExactlyElementsOf(written.subList(written.size() - kept.size(), written.size()));
  }

  /**
   * A rotation that cannot be done (here: the oldest kept file cannot be deleted) fails no export:
   * the batch goes to the full file, and the next batch rotates once it can. Failing, it held every
   * sink's envelopes in the outbox for as long as the cause lasted.
   */
  @Test
  void aRotationThatFailsFailsNoExportAndIsTriedAgain() throws Exception {
    Path f = dir.resolve("held.jsonl");
    List<Envelope> all = envelopes("vm-held", 6);
    FileSink sink = new FileSink(f, all.get(0).size() + 1, 1);
    Path blocker = f.resolveSibling("held.jsonl.1");
    Files.createDirectories(blocker.resolve("in-use"));
    sink.export(all.subList(0, 1)).get(10, TimeUnit.SECONDS);
    sink.export(all.subList(1, 2)).get(10, TimeUnit.SECONDS);
    assertThat(Files.readAllLines(f, StandardCharsets.UTF_8)).hasSize(2);
    Files.delete(blocker.resolve("in-use"));
    Files.delete(blocker);
    sink.export(all.subList(2, 3)).get(10, TimeUnit.SECONDS);
    assertThat(Files.readAllLines(blocker, StandardCharsets.UTF_8)).hasSize(2);
    assertThat(Files.readAllLines(f, StandardCharsets.UTF_8)).hasSize(1);
  }

  /**
   * A rotation stopped midway (a crash after the older files moved up) leaves a gap: the next one
   * fills it, and deletes no generation more than {@code keep}. keep 0 keeps none, and touches no
   * other file.
   */
  @Test
  void aRotationStoppedMidwayLosesNoGenerationAndKeepZeroKeepsNone() throws Exception {
    Path f = dir.resolve("gap.jsonl");
    List<Envelope> all = envelopes("vm-gap", 4);
    Files.writeString(f.resolveSibling("gap.jsonl.2"), "{\"older\":1}\n");
    FileSink sink = new FileSink(f, all.get(0).size() + 1, 2);
    sink.export(all.subList(0, 1)).get(10, TimeUnit.SECONDS);
    sink.export(all.subList(1, 2)).get(10, TimeUnit.SECONDS);
    assertThat(Files.readString(f.resolveSibling("gap.jsonl.2"))).isEqualTo("{\"older\":1}\n");
    assertThat(Files.readAllLines(f.resolveSibling("gap.jsonl.1"), StandardCharsets.UTF_8))
        .hasSize(1);

    Path z = dir.resolve("none.jsonl");
    Files.writeString(z.resolveSibling("none.jsonl.0"), "not the sink's\n");
    FileSink none = new FileSink(z, all.get(0).size() + 1, 0);
    none.export(all.subList(0, 1)).get(10, TimeUnit.SECONDS);
    none.export(all.subList(1, 2)).get(10, TimeUnit.SECONDS);
    assertThat(Files.readAllLines(z, StandardCharsets.UTF_8))
        .containsExactly(all.get(1).bodyAsString());
    assertThat(z.resolveSibling("none.jsonl.0")).hasContent("not the sink's");
    assertThat(z.resolveSibling("none.jsonl.1")).doesNotExist();
  }

  /** A batch larger than the size goes whole into a file of its own. */
  @Test
  void aBatchLargerThanTheSizeIsWrittenWhole() throws Exception {
    Path f = dir.resolve("big.jsonl");
    List<Envelope> all = envelopes("vm-big", 6);
    FileSink small = new FileSink(f, all.get(0).size(), 1);
    small.export(all.subList(0, 3)).get(10, TimeUnit.SECONDS);
    small.export(all.subList(3, 6)).get(10, TimeUnit.SECONDS);
    assertThat(Files.readAllLines(f.resolveSibling("big.jsonl.1"), StandardCharsets.UTF_8))
        .hasSize(3);
    assertThat(Files.readAllLines(f, StandardCharsets.UTF_8)).hasSize(3);
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
