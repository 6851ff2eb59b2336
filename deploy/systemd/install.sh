#!/bin/sh
# Installs sebridge as a systemd service on a Linux VM.
#   sudo deploy/systemd/install.sh [dist directory] [config file]
# dist directory: bridge-app/target/dist of a build (./mvnw -DskipTests package), or an unpacked
# release; config file: your sebridge.yaml (default: a file-sink example you then edit).
# Needs Java 17+ on the PATH (e.g. apt-get install openjdk-17-jre-headless) or a jre/ in the dist.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
dist="${1:-$here/../../bridge-app/target/dist}"
config="${2:-}"
prefix=/opt/sebridge

[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root" >&2; exit 1; }
[ -d "$dist/lib" ] || { echo "install.sh: $dist/lib not found (build with ./mvnw -DskipTests package)" >&2; exit 1; }

getent group sebridge >/dev/null || groupadd --system sebridge
getent passwd sebridge >/dev/null || useradd --system --gid sebridge --home-dir /var/lib/sebridge \
  --no-create-home --shell /usr/sbin/nologin sebridge

rm -rf "$prefix.new"
mkdir -p "$prefix.new"
cp -R "$dist/lib" "$dist/bin" "$dist/jvm.options" "$prefix.new/"
chmod 0755 "$prefix.new/bin/sebridge"
rm -rf "$prefix.old"
[ -d "$prefix" ] && mv "$prefix" "$prefix.old"
mv "$prefix.new" "$prefix"

install -d -m 0750 -o root -g sebridge /etc/sebridge
if [ -n "$config" ]; then
  install -m 0640 -o root -g sebridge "$config" /etc/sebridge/sebridge.yaml
elif [ ! -f /etc/sebridge/sebridge.yaml ]; then
  cat > /etc/sebridge/sebridge.yaml <<'YAML'
# sebridge configuration: every key is in docs/configuration.md.
sinks: file
sink:
  file:
    path: /var/lib/sebridge/events.jsonl
YAML
  chmod 0640 /etc/sebridge/sebridge.yaml
  chgrp sebridge /etc/sebridge/sebridge.yaml
fi

# Refuse a configuration that cannot work before (re)starting the service.
runuser -u sebridge -- "$prefix/bin/sebridge" check-config --config /etc/sebridge/sebridge.yaml >/dev/null

install -m 0644 "$here/sebridge.service" /etc/systemd/system/sebridge.service
systemctl daemon-reload
systemctl enable sebridge.service
systemctl restart sebridge.service
echo "sebridge installed in $prefix; status: systemctl status sebridge; logs: journalctl -u sebridge"
