package dev.sebridge.command;

/** RFC 7515 appendix A.3: a JWS using ECDSA P-256 SHA-256, and its public key. */
final class Rfc7515 {
  private Rfc7515() {}

  static final String ES256_JWS =
      "eyJhbGciOiJFUzI1NiJ9"
          + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
          + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q";

  static final String ES256_KEY =
      "{\"kty\":\"EC\",\"crv\":\"P-256\","
          + "\"x\":\"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU\","
          + "\"y\":\"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0\"}";
}
