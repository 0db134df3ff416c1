// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A fixture of the layer check (tests/layers/check_layers.cmake), never
// compiled: the C API's types outside capi/.
#include "stackrec/stackrec.h"
