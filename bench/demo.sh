#!/usr/bin/env bash
# The main job on the demo project: agents write what they did, then recall what the
# project learned. Runs on a scratch copy so fixtures/demo is never modified.
set -euo pipefail
mem="${1:-mem}"
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -a "$here/fixtures/demo" "$work/project"
export MEM_CACHE_DIR="$work/cache"
cd "$work/project"
set -x
"$mem" write --agent forge --cli claude-code --task "add pgbouncer in front of postgres" --outcome success --ci pass
"$mem" write --agent sentinel --cli codex --task "verify webhook idempotency keys" --outcome partial --eval 0.6
"$mem" recall postgres pooling
"$mem" recall webhook retries --limit 3 --json
"$mem" recall hetzner firewall
"$mem" recall --ranking bm25 pool retry
"$mem" check findability
"$mem" reinforce --pattern "chromadb batch ingestion" --eval 0.9 --accept true --ci pass
"$mem" patterns
"$mem" status
"$mem" index check
