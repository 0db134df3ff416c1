// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A decoded profile in a canonical form: every sample spelled out with its
// values, labels and frames (mapping, address, lines with their functions),
// sorted, so that the order in which two runs happened to intern things does
// not matter, but any difference in content, aggregation or table sizes
// does. Two profiles are equal in content when their Canonical() are.
#ifndef STACKREC_TESTS_SUPPORT_CANONICAL_H_
#define STACKREC_TESTS_SUPPORT_CANONICAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oracle/pprof_decode.h"
#include "stackrec/stackrec.h"

namespace stackrec_test {

using Strings = std::vector<std::string>;

// Everything a profile says, as sorted lines: the header fields, the table
// sizes, and one line per sample with its values, labels and frames.
Strings Canonical(const Profile& p);

// A location's lines as "function:line", callee first; an id the profile
// does not define fails the test.
Strings Lines(const Profile& p, uint64_t location_id);

// Each of a sample's locations as its Lines, leaf first.
std::vector<Strings> Levels(const Profile& p, const Sample& s);

// The content of a profile handle without changing it.
std::string Snapshot(stackrec_profile* p);

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_SUPPORT_CANONICAL_H_
