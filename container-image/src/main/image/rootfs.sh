#!/bin/sh
# Builds the image's root file system besides the application (Jib adds that): a Java runtime made
# with jlink from the build's JDK, the shared libraries it links against (from this Debian
# system, so the image needs no base image), a non-root user, and the JVM options.
#   rootfs.sh <output dir> <JDK home> <jvm.options>
set -eu
out=$1
jdk=$2
options=$3
# From jdeps over the distribution's jars, plus what is loaded as a service (EC keys for ES256).
modules=java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.net.http,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.crypto.ec,jdk.httpserver,jdk.management,jdk.unsupported

rm -rf "$out"
mkdir -p "$out/opt" "$out/opt/sebridge" "$out/etc/sebridge" "$out/tmp" "$out/var/lib/sebridge"
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$out/opt/java"

# A headless agent: java.desktop stays for its pure Java parts (java.beans), not its graphics and
# sound libraries, which would drag X11, fonts and ALSA into the image.
for lib in awt awt_xawt awt_headless jawt splashscreen jsound fontmanager lcms javajpeg mlib_image; do
  rm -f "$out/opt/java/lib/lib$lib.so"
done

# A CA bundle the runtime reads as a file (Debian's JDK links lib/security/cacerts to /etc/ssl).
if [ -L "$out/opt/java/lib/security/cacerts" ]; then
  cp --remove-destination -L "$jdk/lib/security/cacerts" "$out/opt/java/lib/security/cacerts"
fi

# Every shared library the runtime's executables and libraries need, and the dynamic loader.
find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \) |
  while read -r f; do ldd "$f" 2>/dev/null || true; done |
  awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
  while read -r lib; do
    case "$lib" in "$out"/*) continue ;; esac
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
  done
test -e "$out/lib64/ld-linux-x86-64.so.2" || { echo "rootfs.sh: no dynamic loader found" >&2; exit 1; }

printf 'root:x:0:0:root:/root:/sbin/nologin\nsebridge:x:65532:65532:sebridge:/var/lib/sebridge:/sbin/nologin\n' > "$out/etc/passwd"
printf 'root:x:0:\nsebridge:x:65532:\n' > "$out/etc/group"
cp "$options" "$out/opt/sebridge/jvm.options"
echo "rootfs.sh: runtime $(du -sh "$out/opt/java" | cut -f1), libraries $(du -sh "$out/lib" | cut -f1)"
