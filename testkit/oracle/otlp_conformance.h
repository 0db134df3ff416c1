// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A conformance check of an OTLP profiles request against the rules of
// opentelemetry-proto v1.11.0's profiles.proto, the MUST and the SHOULD
// ones that conformance checkers and collectors enforce. Written from the
// specification's text, not from stackrec's encoder, so that it can catch
// the encoder's mistakes; DecodeOtlp (otlp_decode.h) runs it on every
// request it decodes, so every OTLP output of every test is checked.
#ifndef STACKREC_TESTKIT_ORACLE_OTLP_CONFORMANCE_H_
#define STACKREC_TESTKIT_ORACLE_OTLP_CONFORMANCE_H_

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"

namespace stackrec_test {

// Fails the current test, naming the rule, unless `r` keeps these rules:
//  - the dictionary: entry 0 of every table is present and the zero value
//    (MUST); no entry is written twice, and none that nothing references
//    (SHOULD); every index into a table is in range (MUST);
//  - a Function has a name, a system name or a file name (MUST);
//  - a Link's trace id is 16 bytes and its span id 8; only entry 0 is all
//    zero, since all-zero ids are invalid (MUST);
//  - in a Profile, all Samples have the same shape, with timestamps or
//    without (SHOULD); no two Samples have the same identity, that is
//    stack, set of attributes and link (SHOULD be combined); a Sample has
//    as many values as timestamps, or exactly one value without timestamps;
//    and every timestamp lies in [time_unix_nano, time_unix_nano +
//    duration_nano) (SHOULD).
void CheckOtlpConformance(
    const opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest&
        r);

}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_ORACLE_OTLP_CONFORMANCE_H_
