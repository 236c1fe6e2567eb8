#!/usr/bin/env bash
# Regenerates services/devstack/kafka/jars.sha256 from services/devstack/kafka/pom.xml: Maven
# resolves the broker's jars into a temporary directory, each jar's SHA-1 must equal the checksum
# Maven Central published for it (the .sha1 Maven fetched into the local repository beside the
# jar), and the manifest pins the SHA-256 of each. `recur up` refuses any jar that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
kafka=services/devstack/kafka
repo=${MAVEN_REPO:-$HOME/.m2/repository}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! mvn -B -q -f "$kafka/pom.xml" dependency:copy-dependencies -DoutputDirectory="$tmp/jars" \
  -DincludeScope=runtime -Dmdep.useRepositoryLayout=true > "$tmp/mvn.log" 2>&1; then
  cat "$tmp/mvn.log" >&2
  exit 1
fi
{
  echo "# SHA-256 of every jar mvn copies from services/devstack/kafka/pom.xml into <tools>/kafka/lib."
  echo "# Checked before every broker start. Regenerate with scripts/lock-kafka-jars.sh after changing the pom."
  (cd "$tmp/jars" && find . -name '*.jar') | while read -r rel; do
    rel=${rel#./}
    published=$(cut -c1-40 "$repo/$rel.sha1" 2>/dev/null || true)
    actual=$(sha1sum "$tmp/jars/$rel" | cut -c1-40)
    if [ "$published" != "$actual" ]; then
      echo "lock-kafka-jars: $rel has SHA-1 $actual, Maven Central published '${published:-none}'" >&2
      exit 1
    fi
    echo "$(sha256sum "$tmp/jars/$rel" | cut -c1-64)  $(basename "$rel")"
  done | LC_ALL=C sort -k2
} > "$tmp/jars.sha256"
mv "$tmp/jars.sha256" "$kafka/jars.sha256"
echo "lock-kafka-jars: wrote $kafka/jars.sha256" >&2
