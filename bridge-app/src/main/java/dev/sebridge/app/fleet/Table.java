package dev.sebridge.app.fleet;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table with aligned columns, for people. */
final class Table {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... header) {
    this.header = List.of(header);
  }

  Table row(Object... cells) {
    rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toList());
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  void print(PrintWriter out) {
    int[] width = new int[header.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = header.get(i).length();
      for (List<String> r : rows) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    line(out, header, width);
    rows.forEach(r -> line(out, r, width));
    out.flush();
  }

  private static void line(PrintWriter out, List<String> cells, int[] width) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      b.append(c);
      if (i < cells.size() - 1) {
        b.append(" ".repeat(width[i] - c.length() + 2));
      }
    }
    out.println(b.toString().stripTrailing());
  }
}
