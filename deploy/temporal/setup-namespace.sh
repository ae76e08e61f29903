#!/bin/sh
# Creates the namespace and the badge orders' custom search attributes (Keyword) if they are missing
# (run by the `temporal-setup` service of docker-compose.yml with the temporalio/admin-tools image, whose
# `temporal` CLI reads TEMPORAL_ADDRESS), and by `npm run cluster` (tools/cluster, with the project's CLI in
# TEMPORAL_CLI). Idempotent.
set -eu

CLI="${TEMPORAL_CLI:-temporal}"
NAMESPACE="${TEMPORAL_NAMESPACE:?TEMPORAL_NAMESPACE is not set}"
RETENTION="${TEMPORAL_NAMESPACE_RETENTION:-30d}"
# Keep in step with BADGE_SEARCH_ATTRIBUTES in src/workflow-contract.ts (the compose test checks this list).
SEARCH_ATTRIBUTES="BadgeOrderRef BadgeOrderId BadgeOrderStatus BadgeOrderClient"

# Retries a command until it succeeds (the server is starting; a new namespace takes seconds to be known).
retry() {
  attempt=1
  until "$@"; do
    if [ "$attempt" -ge 60 ]; then
      echo "giving up after $attempt attempts: $*" >&2
      return 1
    fi
    attempt=$((attempt + 1))
    sleep 2
  done
}

retry "$CLI" operator cluster health

if "$CLI" operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  "$CLI" operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION"
  echo "namespace $NAMESPACE created (retention $RETENTION)"
fi

list_search_attributes() {
  existing="$("$CLI" operator search-attribute list --namespace "$NAMESPACE")"
}
retry list_search_attributes
for name in $SEARCH_ATTRIBUTES; do
  if printf '%s\n' "$existing" | grep -qw "$name"; then
    echo "search attribute $name exists"
  else
    retry "$CLI" operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type Keyword
    echo "search attribute $name created"
  fi
done
