// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The field numbers of profile.proto (testkit/pprof/profile.proto) that the pprof
// encoder writes.
#ifndef STACKREC_SRC_ENCODE_PPROF_PPROF_FIELDS_H_
#define STACKREC_SRC_ENCODE_PPROF_PPROF_FIELDS_H_

#include <cstdint>

namespace stackrec {
namespace pprof {

namespace field {
constexpr uint32_t kProfileSampleType = 1, kProfileSample = 2, kProfileMapping = 3,
                   kProfileLocation = 4, kProfileFunction = 5, kProfileStringTable = 6,
                   kProfileDropFrames = 7, kProfileKeepFrames = 8, kProfileTimeNanos = 9,
                   kProfileDurationNanos = 10, kProfilePeriodType = 11, kProfilePeriod = 12,
                   kProfileComment = 13, kProfileDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2, kSampleLabel = 3;
constexpr uint32_t kLabelKey = 1, kLabelStr = 2, kLabelNum = 3, kLabelNumUnit = 4;
constexpr uint32_t kMappingId = 1, kMappingMemoryStart = 2, kMappingMemoryLimit = 3,
                   kMappingFileOffset = 4, kMappingFilename = 5, kMappingBuildId = 6,
                   kMappingHasFunctions = 7, kMappingHasFilenames = 8, kMappingHasLineNumbers = 9;
constexpr uint32_t kLocationId = 1, kLocationMappingId = 2, kLocationAddress = 3, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1, kLineLine = 2;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3,
                   kFunctionFilename = 4, kFunctionStartLine = 5;
}  // namespace field

}  // namespace pprof
}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_PPROF_PPROF_FIELDS_H_
