# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# The gem's version: that of the stackrec release it comes with, so that
# `gem list stackrec` says which library API it covers. The CTests check
# that it equals the CMake project's version.
module Stackrec
  VERSION = "1.4.0"
end
