package dev.sebridge.command;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.Configuration;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.CommandSourceProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandSourceCatalogTest {
  static CommandSourceProvider named(String name) {
    return new CommandSourceProvider() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public List<ConfigKey<?>> configKeys() {
        return List.of();
      }

      @Override
      public CommandSource create(Configuration config, String vmId) {
        throw new UnsupportedOperationException();
      }
    };
  }

  /** Defect 7: two providers of one name are refused, as two sinks of one name are. */
  @Test
  void twoSourcesOfOneNameAreRefused() {
    assertThatThrownBy(() -> new CommandSourceCatalog(List.of(named("kafka"), named("kafka"))))
        .hasMessageContaining("two command sources are named kafka");
  }
}
