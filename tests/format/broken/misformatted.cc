// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A fixture for the format check: its layout is not .clang-format's, on
// purpose (the check must name this file).
int  Misformatted( int a ){return a+1;}
