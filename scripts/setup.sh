#!/usr/bin/env bash
# Installs what ChatStream needs on a fresh Debian machine: libyajl-dev, libssl-dev (libcrypto, for the
# server's JWT verification), libsqlite3-dev (the server's store and the client's history),
# libcurl4-openssl-dev (the client's HTTP transport on Linux, CurlTransport), pkg-config and openssl
# (the command, for the tests' local TLS endpoint).
set -euo pipefail
need=()
pkg-config --exists yajl 2>/dev/null || need+=(libyajl-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# The openssl command: the tests' local TLS endpoint for https upstreams (ModelAgent tests).
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}"
fi
