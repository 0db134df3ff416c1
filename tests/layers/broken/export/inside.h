// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A fixture of the layer check (tests/layers/check_layers.cmake), never
// compiled: this export/ header reaches into the core past base/ instead of
// using its public header.
#include "capi/high.h"
