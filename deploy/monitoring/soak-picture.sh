#!/bin/sh
# Makes docs/monitoring-soak.png, the picture in docs/operations.md's
# Monitoring section: the dashboard's key panels on the demo shop under
# make soak (load, and the database taken away 5 s in every 20), graphed
# by Debian's Prometheus in its own web UI (Grafana is not packaged) and
# photographed by Debian's headless Chromium. Run it from the repository's
# root on a machine with MariaDB, prometheus and chromium; it takes the
# soak's time (SOAK_DURATION, 4m here) and a minute more.
set -eu

out=${1:-docs/monitoring-soak.png}
port=${PROM_PORT:-19390}
duration=${SOAK_DURATION:-4m}
tmp=$(mktemp -d)
soak=""
prom=""
cleanup() {
	[ -z "$prom" ] || kill "$prom" 2>/dev/null || true
	[ -z "$soak" ] || kill -- "-$soak" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# The key panels' expressions, as Grafana would send them to Prometheus.
(cd deploy/checks && go run ./cmd/monitoring-gen -key-queries) > "$tmp/queries"

# In a process group of its own: the cleanup ends the soak and its
# catalogd together.
setsid make --no-print-directory soak SOAK_DURATION="$duration" > "$tmp/soak.md" 2>&1 &
soak=$!

# descendants PID: the processes under PID, at any depth.
descendants() {
	for child in $(pgrep -P "$1" || true); do
		echo "$child"
		descendants "$child"
	done
}

# The soak's catalogd, and of its two listeners the admin one (/metrics).
admin=""
for _ in $(seq 1 600); do
	for pid in $(descendants "$soak"); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = catalogd ] || continue
		for addr in $(ss -ltnpH | grep "pid=$pid," | awk '{print $4}'); do
			if curl -sf "http://$addr/metrics" | grep -q '^catalogd_snapshot_version'; then
				admin=$addr
			fi
		done
	done
	[ -n "$admin" ] && break
	kill -0 "$soak" 2>/dev/null || { cat "$tmp/soak.md"; exit 1; }
	sleep 0.5
done
[ -n "$admin" ] || { echo "soak-picture: the soak's catalogd was not found" >&2; exit 1; }
echo "soak-picture: Prometheus on 127.0.0.1:$port scrapes the soak's catalogd at $admin"

cat > "$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
scrape_configs:
  - job_name: catalogd
    static_configs:
      - targets: ['$admin']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$port" --log.level=warn > "$tmp/prometheus.log" 2>&1 &
prom=$!

wait "$soak" || { cat "$tmp/soak.md"; exit 1; }
soak=""
grep -E '^(#|\|)' "$tmp/soak.md" | head -20

# One graph per expression, over the soak, on Prometheus's graph page.
url="http://127.0.0.1:$port/classic/graph?"
i=0
while IFS= read -r expr; do
	q=$(printf '%s' "$expr" | jq -sRr @uri)
	url="${url}g$i.expr=$q&g$i.tab=0&g$i.range_input=$duration&"
	i=$((i + 1))
done < "$tmp/queries"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --user-data-dir="$tmp/chromium" --hide-scrollbars \
	--window-size=1400,$((i * 780 + 120)) --virtual-time-budget=15000 --screenshot="$out" "$url" 2>/dev/null
echo "soak-picture: wrote $out"
