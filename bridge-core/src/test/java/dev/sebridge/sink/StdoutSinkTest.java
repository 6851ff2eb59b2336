package dev.sebridge.sink;

import dev.sebridge.sink.stdout.StdoutSink;
import dev.sebridge.spi.EventSink;
import dev.sebridge.testing.EventSinkContractTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

class StdoutSinkTest extends EventSinkContractTest {
  private ByteArrayOutputStream buffer;

  @Override
  protected EventSink createSink() {
    buffer = new ByteArrayOutputStream();
    return new StdoutSink(new PrintStream(buffer, true, StandardCharsets.UTF_8));
  }

  @Override
  protected List<String> delivered(int expected, Duration timeout) {
    String s = buffer.toString(StandardCharsets.UTF_8);
    return s.isEmpty() ? List.of() : List.of(s.split("\n"));
  }
}
