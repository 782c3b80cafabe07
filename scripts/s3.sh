#!/usr/bin/env bash
# An S3 endpoint for sccache on loopback: moto's server (PyPI moto[server], pinned in
# pyproject.toml's dev group, installed into .venv by `pip install --group dev`).
#
#   scripts/s3.sh start [RUN_DIR]    serve S3 (and IAM) on 127.0.0.1:$PORT; prints its URL
#   scripts/s3.sh stop [RUN_DIR]     stop it (by its pid file)
#   scripts/s3.sh running [RUN_DIR]  exit 0 if the server started there runs, else 1
#
# ROCM_BAKE_S3_PORT (default 9000), ROCM_BAKE_S3_DIR (default /tmp/rocm-bake-s3). The server
# keeps everything in memory; every request is logged to RUN_DIR/server.log. Right after it
# starts (without authentication) an administrator of this server only is created, its key pair
# written to RUN_DIR/admin.json (mode 0600; gone with the server's memory at stop), and
# authentication is turned on (moto-api/reset-auth): from then on every request must be signed
# by a key the server knows, so a wrong key or secret is refused (403) as AWS refuses it. The
# tests (tests/s3store.py) create their own user, key and bucket with the administrator's key.
set -euo pipefail

PROG=s3.sh
PORT=${ROCM_BAKE_S3_PORT:-9000}
RUN_DIR_DEFAULT=${ROCM_BAKE_S3_DIR:-/tmp/rocm-bake-s3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVER=${ROCM_BAKE_MOTO_SERVER:-$ROOT/.venv/bin/moto_server}

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 2; }
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }

# provision RUN_DIR: the administrator (while authentication is off), then authentication on.
provision() {
    ROCM_BAKE_S3_URL="http://127.0.0.1:$PORT" ROCM_BAKE_S3_ADMIN="$1/admin.json" \
        "$ROOT/.venv/bin/python" - <<'PY'
import json, os, urllib.request

import boto3

url, path = os.environ["ROCM_BAKE_S3_URL"], os.environ["ROCM_BAKE_S3_ADMIN"]
iam = boto3.client("iam", endpoint_url=url, region_name="us-east-1",
                   aws_access_key_id="setup", aws_secret_access_key="setup")
iam.create_user(UserName="rocm-bake-admin")
iam.put_user_policy(UserName="rocm-bake-admin", PolicyName="all", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="rocm-bake-admin")["AccessKey"]
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "w") as handle:
    json.dump({"AWS_ACCESS_KEY_ID": key["AccessKeyId"],
               "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}, handle)
request = urllib.request.Request(f"{url}/moto-api/reset-auth", data=b"0", method="POST",
                                 headers={"Content-Type": "text/plain"})
urllib.request.urlopen(request, timeout=10).close()
PY
}

up() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/moto-api/" 2>/dev/null; }

cmd_start() {
    local run=${1:-$RUN_DIR_DEFAULT}
    run=$(mkdir -p "$run" && cd "$run" && pwd)
    [ -x "$SERVER" ] || die "moto_server not found at $SERVER (.venv/bin/python -m pip install --group dev)"
    if [ -f "$run/moto.pid" ] && kill -0 "$(cat "$run/moto.pid")" 2>/dev/null && up; then
        log "start: already serving on 127.0.0.1:$PORT"
    else
        # Detached from our stdout: a caller reading it with $(...) must not wait for moto.
        setsid "$SERVER" -H 127.0.0.1 -p "$PORT" >>"$run/server.log" 2>&1 </dev/null &
        echo $! >"$run/moto.pid"
        local i
        for i in $(seq 1 100); do up && break; kill -0 "$(cat "$run/moto.pid")" 2>/dev/null || break; sleep 0.1; done
        up || die "moto on 127.0.0.1:$PORT did not answer: $(tail -n 3 "$run/server.log" | tr '\n' ' ')"
        provision "$run" || die "could not create the administrator of 127.0.0.1:$PORT"
        log "start: serving S3 on 127.0.0.1:$PORT (log $run/server.log)"
    fi
    echo "http://127.0.0.1:$PORT"
}

cmd_stop() {
    local run=${1:-$RUN_DIR_DEFAULT} pid
    [ -f "$run/moto.pid" ] || { log "stop: not running"; return 0; }
    pid=$(cat "$run/moto.pid")
    kill "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$run/moto.pid" "$run/admin.json"
    log "stop: stopped"
}

cmd_running() {
    local run=${1:-$RUN_DIR_DEFAULT}
    [ -f "$run/moto.pid" ] && kill -0 "$(cat "$run/moto.pid")" 2>/dev/null
}

case "${1:-}" in
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    running) shift; cmd_running "$@" ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "usage: $PROG start [RUN_DIR] | stop [RUN_DIR] | running [RUN_DIR]" ;;
esac
