# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""The package's own tests, shipped with it so that they run against the
installed package and library: `python -m stackrec.tests`. They decode
every profile with python3-protobuf and the classes protoc generates from
stackrec's testkit/pprof/profile.proto and testkit/otlp (on PYTHONPATH);
the package's guide, bindings/python/README.md in stackrec's repository,
says how to generate them."""
