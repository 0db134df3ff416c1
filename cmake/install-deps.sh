#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Installs, from Debian 12's archive, exactly the packages stackrec's build,
# tests, benchmarks, examples and bindings need and this machine does not
# have yet.
# Runs apt-get as root, or through sudo otherwise. Idempotent.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libabsl-dev libprotobuf-dev protobuf-compiler
  zlib1g-dev libzstd-dev libisal-dev
  catch2 libbenchmark-dev
  # the compression benchmark's other gzip compressor; Go and gzip for the
  # test that decodes gzip outputs with every common reader
  libdeflate-dev golang-go gzip
  # embedding: nm/objdump for the symbol test; Ruby, its headers, make (for
  # mkmf), minitest and google-protobuf for bindings/ruby, and the zstd
  # program its tests decompress zstd profiles with; Python's protobuf for
  # bindings/python
  binutils
  ruby ruby-dev make ruby-minitest ruby-google-protobuf zstd
  python3 python3-protobuf
  # bindings/python's package, installed offline into a virtual environment
  # with Debian's pip, setuptools and wheel, and type-checked with mypy
  python3-venv python3-pip python3-setuptools python3-wheel mypy
  # stackrec-exec: libunwind's headers (the shim loads libunwind.so.8 at run
  # time) and elfutils' libdw/libdwfl for symbolizing
  libunwind-dev libdw-dev
  libcurl4-openssl-dev  # libstackrec_export's HTTP(S) client
  clang-format  # the format check of the sources (tests/format)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are already installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: not root and no sudo; please install: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
