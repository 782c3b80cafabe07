#!/usr/bin/env bash
# A WebDAV store for sccache on loopback: Debian's nginx-light with the dav-ext module.
#
#   scripts/webdav.sh install            install nginx-light + libnginx-mod-http-dav-ext (root;
#                                        not started, its unit disabled: engine.sh apt-install)
#   scripts/webdav.sh start [RUN_DIR]    serve RUN_DIR/data read-write on 127.0.0.1:$PORT and
#                                        read-only on 127.0.0.1:$((PORT+1)); prints the RW URL
#   scripts/webdav.sh stop [RUN_DIR]     stop it (by its pid file)
#   scripts/webdav.sh running [RUN_DIR]  exit 0 if the server started there runs, else 1
#
# ROCM_BAKE_WEBDAV_AUTH=USER:PASSWORD (start): the read-write server asks for HTTP basic auth
# (what CACHE_STORE_USER/PASSWORD, or user:password@ in CACHE_STORE_URL, answer).
#
# PROPFIND/OPTIONS come from dav-ext: without it PROPFIND answers 405 and sccache silently
# turns read-only (0 % hits, seen only in its error log). Every request is logged to
# RUN_DIR/access.log (method, path, status), so tests can count writes.
set -euo pipefail

PROG=webdav.sh
PORT=${ROCM_BAKE_WEBDAV_PORT:-8080}
RUN_DIR_DEFAULT=${ROCM_BAKE_WEBDAV_DIR:-/tmp/rocm-bake-webdav}

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 2; }
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }

module_path() { ls /usr/lib/nginx/modules/ngx_http_dav_ext_module.so 2>/dev/null; }

cmd_install() {
    if command -v nginx >/dev/null 2>&1 && [ -n "$(module_path)" ]; then
        log "install: nginx with dav-ext already installed"
        return 0
    fi
    [ "$(id -u)" = 0 ] || die "install needs root"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || die "apt-get update failed"
    # Held like the engine's packages: nginx neither starts now nor at boot.
    bash "$(dirname "${BASH_SOURCE[0]}")/engine.sh" apt-install nginx-light \
        libnginx-mod-http-dav-ext || die "apt-get install nginx-light libnginx-mod-http-dav-ext failed"
    [ -n "$(module_path)" ] || die "dav-ext module missing after install"
}

write_config() {
    local run=$1 module auth=""
    module=$(module_path) || die "nginx dav-ext module not installed (scripts/webdav.sh install)"
    mkdir -p "$run/data" "$run/tmp"
    if [ -n "${ROCM_BAKE_WEBDAV_AUTH:-}" ]; then
        case "$ROCM_BAKE_WEBDAV_AUTH" in *:*) ;; *) die "ROCM_BAKE_WEBDAV_AUTH must be USER:PASSWORD" ;; esac
        (umask 077 && printf '%s:{PLAIN}%s\n' "${ROCM_BAKE_WEBDAV_AUTH%%:*}" \
            "${ROCM_BAKE_WEBDAV_AUTH#*:}" >"$run/htpasswd")
        auth="auth_basic \"rocm-bake\"; auth_basic_user_file $run/htpasswd;"
    fi
    cat >"$run/nginx.conf" <<CONF
load_module $module;
user root;
worker_processes 1;
pid $run/nginx.pid;
error_log $run/error.log warn;
events { worker_connections 256; }
http {
    log_format methods '\$request_method \$uri \$status \$remote_user';
    access_log $run/access.log methods;
    client_body_temp_path $run/tmp;
    client_max_body_size 0;
    server {
        listen 127.0.0.1:$PORT;
        root $run/data;
        location / {
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            create_full_put_path on;
            autoindex on;
            $auth
        }
    }
    server {
        listen 127.0.0.1:$((PORT + 1));
        root $run/data;
        location / {
            dav_ext_methods PROPFIND OPTIONS;
            autoindex on;
        }
    }
}
CONF
}

up() {
    local auth=()
    [ -z "${ROCM_BAKE_WEBDAV_AUTH:-}" ] || auth=(--user "$ROCM_BAKE_WEBDAV_AUTH")
    curl -fsS -o /dev/null --max-time 2 "${auth[@]}" -X OPTIONS "http://127.0.0.1:$PORT/" 2>/dev/null
}

cmd_start() {
    local run=${1:-$RUN_DIR_DEFAULT}
    run=$(mkdir -p "$run" && cd "$run" && pwd)
    if [ -f "$run/nginx.pid" ] && kill -0 "$(cat "$run/nginx.pid")" 2>/dev/null && up; then
        log "start: already serving on 127.0.0.1:$PORT"
    else
        write_config "$run"
        nginx -c "$run/nginx.conf" -g 'daemon on;' 2>"$run/start.log" ||
            die "nginx failed to start: $(tail -n 3 "$run/start.log" | tr '\n' ' ')"
        local i
        for i in $(seq 1 50); do up && break; sleep 0.1; done
        up || die "WebDAV on 127.0.0.1:$PORT did not answer (see $run/error.log)"
        log "start: serving $run/data on 127.0.0.1:$PORT (read-only on $((PORT + 1)))"
    fi
    echo "http://127.0.0.1:$PORT/"
}

cmd_stop() {
    local run=${1:-$RUN_DIR_DEFAULT} pid
    [ -f "$run/nginx.pid" ] || { log "stop: not running"; return 0; }
    pid=$(cat "$run/nginx.pid")
    kill "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$run/nginx.pid"
    log "stop: stopped"
}

cmd_running() {
    local run=${1:-$RUN_DIR_DEFAULT}
    [ -f "$run/nginx.pid" ] && kill -0 "$(cat "$run/nginx.pid")" 2>/dev/null
}

case "${1:-}" in
    install) cmd_install ;;
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    running) shift; cmd_running "$@" ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "usage: $PROG install | start [RUN_DIR] | stop [RUN_DIR] | running [RUN_DIR]" ;;
esac
