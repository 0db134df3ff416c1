# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""python -m stackrec.tests [-v]: runs every test module of this folder."""

import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
suite = unittest.defaultTestLoader.discover(here, top_level_dir=os.path.dirname(os.path.dirname(here)))
verbosity = 2 if "-v" in sys.argv[1:] else 1
result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
