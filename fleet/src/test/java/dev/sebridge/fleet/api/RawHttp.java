package dev.sebridge.fleet.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading the server's answers off a raw socket (the server tests speak HTTP/1.1 by hand). */
final class RawHttp {
  private static final Pattern LENGTH = Pattern.compile("(?i)content-length: (\\d+)");

  private RawHttp() {}

  /** The status of the answer that comes on {@code s}. */
  static int statusOf(Socket s) throws IOException {
    String a = readAll(s);
    return Integer.parseInt(a.substring(9, 12));
  }

  /** What the server sent until it closed, or until a complete answer with a length came. */
  static String readAll(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      int n;
      while ((n = in.read(buf)) > 0) {
        b.write(buf, 0, n);
        if (complete(b.toString(StandardCharsets.ISO_8859_1))) {
          break;
        }
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no answer within the socket timeout: " + b, e);
    } catch (java.net.SocketException reset) {
      // closed on us: what came so far is the answer
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  private static boolean complete(String a) {
    int end = a.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    Matcher m = LENGTH.matcher(a.substring(0, end));
    return m.find() && a.length() - end - 4 >= Integer.parseInt(m.group(1));
  }
}
