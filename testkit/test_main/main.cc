// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#define CATCH_CONFIG_MAIN
#include "catch2/catch.hpp"
