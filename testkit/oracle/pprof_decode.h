// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The test oracle: decompresses what stackrec wrote and parses it with the
// protobuf classes generated from testkit/pprof/profile.proto, plus small accessors
// that turn ids back into names.
#ifndef STACKREC_TESTKIT_ORACLE_PPROF_DECODE_H_
#define STACKREC_TESTKIT_ORACLE_PPROF_DECODE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "oracle/decompress.h"
#include "profile.pb.h"

namespace stackrec_test {

using perftools::profiles::Profile;
using perftools::profiles::Sample;

// Decompresses `bytes` (any of the three formats). Fails the current test on
// corrupt input.
std::string Decompress(const std::string& bytes);

// Decompresses and parses; fails the current test if the bytes are not a
// valid, complete pprof message.
Profile Decode(const std::string& bytes);
Profile Decode(const uint8_t* data, size_t size);

// string_table[index], checking the index is in range.
std::string Str(const Profile& p, int64_t index);

// The location (function) with this id; fails the current test if the
// profile defines none.
const perftools::profiles::Location& FindLocation(const Profile& p, uint64_t id);
const perftools::profiles::Function& FindFunction(const Profile& p, uint64_t id);

// Function names of a sample's frames, leaf first, as pprof shows them: a
// location's lines in order (an inlined callee before its caller), and ""
// for an address-only location.
std::vector<std::string> FrameNames(const Profile& p, const Sample& s);

// The one sample whose FrameNames are `frames`; fails the current test if
// there is none or more than one. pprof gives the order of samples no
// meaning (stackrec writes them grouped by stack), so tests find samples by
// what they hold.
const Sample& SampleWithFrames(const Profile& p, const std::vector<std::string>& frames);

// A sample's labels as "key=str" or "key=num[unit]" strings, in order.
std::vector<std::string> LabelStrings(const Profile& p, const Sample& s);

// The string value of label `key` on `s`, or "" if absent.
std::string StrLabel(const Profile& p, const Sample& s, const std::string& key);

// Sample types as "type/unit".
std::vector<std::string> SampleTypes(const Profile& p);

// Checks the structural invariants every stackrec output must keep (string 0
// is "", ids non-zero, unique and resolvable, every string referenced, every
// entity referenced) and fails the current test otherwise.
void CheckInvariants(const Profile& p);

}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_ORACLE_PPROF_DECODE_H_
