// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A fixture of the layer check (tests/layers/check_layers.cmake), never
// compiled: this export/ header includes base/, which export/ may; the
// check must not name it.
#include "base/low.h"
