# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""The Recorder end to end, as the first binding offered it: every profile is
decoded (decoding.py) and checked against what was recorded; and the ctypes
mirrors against the header's layout.

    python -m stackrec.tests    (CTest: python_package_unittest)
"""

import collections
import ctypes
import os
import select
import signal
import subprocess
import threading
import unittest

import stackrec
from stackrec import _native, exporter
from stackrec.tests.decoding import Decoded

TYPES = [("cpu-time", "nanoseconds"), ("cpu-samples", "count"), ("wall-time", "nanoseconds")]
USERS_SHOW = [("Users.show", "app/users.py", 12), ("<module>", "app.py", 1)]


class LayoutTest(unittest.TestCase):
    # The C names of the ctypes mirrors in stackrec._native and stackrec.exporter.
    MIRRORS = {
        "stackrec_str": _native.Str,
        "stackrec_value_type": _native.ValueType,
        "stackrec_mapping": _native.Mapping,
        "stackrec_function": _native.Function,
        "stackrec_location": _native.Location,
        "stackrec_label": _native.Label,
        "stackrec_link": _native.Link,
        "stackrec_sample": _native.Sample,
        "stackrec_interned_location": _native.InternedLocation,
        "stackrec_id_sample": _native.IdSample,
        "stackrec_profile_options": _native.ProfileOptions,
        "stackrec_attribute": _native.Attribute,
        "stackrec_serialize_options": _native.SerializeOptions,
        "stackrec_part": _native.Part,
        "stackrec_encode_stats": _native.EncodeStats,
        "stackrec_stats": _native.Stats,
        "stackrec_upscaling_rule": _native.UpscalingRule,
        "stackrec_exporter_options": exporter.ExporterOptions,
        "stackrec_export_stats": exporter.ExportStats,
    }

    def test_the_out_string_mirror_matches_the_in_string_one(self):
        self.assertEqual([(f.offset, f.size) for f in (_native.Str.ptr, _native.Str.len)],
                         [(f.offset, f.size) for f in (_native.StrView.ptr, _native.StrView.len)])
        self.assertEqual(ctypes.sizeof(_native.Str), ctypes.sizeof(_native.StrView))

    def test_structures_match_the_header(self):
        program = os.environ.get("STACKREC_ABI_LAYOUT")
        if program is None:
            self.skipTest("STACKREC_ABI_LAYOUT (the abi_layout program) is not set")
        layout = subprocess.run([program], check=True, capture_output=True, text=True).stdout
        fields = collections.defaultdict(dict)
        for line in layout.splitlines():
            name, *numbers = line.split()
            if "." in name:
                struct, field = name.split(".")
                fields[struct][field] = tuple(int(n) for n in numbers)
            else:
                self.assertEqual(int(numbers[0]), ctypes.sizeof(self.MIRRORS[name]), f"sizeof({name})")
        self.assertEqual(set(self.MIRRORS), set(fields))
        for struct, c_fields in fields.items():
            mirror = self.MIRRORS[struct]
            mirrored = {name: (getattr(mirror, name).offset, getattr(mirror, name).size)
                        for name, _ in mirror._fields_}
            self.assertEqual(c_fields, mirrored, struct)


class RecorderTest(unittest.TestCase):
    def setUp(self):
        self.recorder = stackrec.Recorder(TYPES)
        self.addCleanup(self.recorder.close)

    def test_the_loaded_library_is_the_expected_version(self):
        expected = os.environ.get("STACKREC_EXPECTED_VERSION_NUMBER")
        if expected is None:
            self.skipTest("STACKREC_EXPECTED_VERSION_NUMBER is not set")
        self.assertEqual(int(expected), stackrec.version_number())

    def test_record_serialize_decode(self):
        self.recorder.record(USERS_SHOW, [1000, 1, 2000], {"thread id": 7, "thread name": "worker-1"})
        start_ns, end_ns, pprof = self.recorder.serialize()
        self.assertLessEqual(start_ns, end_ns)
        profile = Decoded(pprof)
        self.assertEqual(TYPES, profile.sample_types)
        self.assertEqual(
            [(USERS_SHOW, {"cpu-time": 1000, "cpu-samples": 1, "wall-time": 2000},
              {"thread id": 7, "thread name": "worker-1"})],
            profile.samples)
        self.assertEqual(start_ns, profile.time_nanos)
        self.assertEqual(end_ns, profile.time_nanos + profile.duration_nanos)

    def test_uncompressed_output_parses_as_is(self):
        self.recorder.record(USERS_SHOW, [1, 1, 1])
        _, _, pprof = self.recorder.serialize(compression="none")
        self.assertEqual(1, len(Decoded(pprof, compressed=False).samples))

    def test_otlp_output_names_its_service(self):
        self.recorder.record(USERS_SHOW, [1, 1, 1])
        _, _, otlp = self.recorder.serialize(compression="none", format="otlp", service_name="py-app")
        self.assertIn(b"service.name", otlp)
        self.assertIn(b"py-app", otlp)
        with self.assertRaises(ValueError):
            self.recorder.serialize(format="jfr")

    def test_tracked_objects_come_out_until_untracked(self):
        heap_types = [("heap-live-samples", "count"), ("heap-live-size", "bytes")]
        alloc = [("Cache.fill", "app/cache.py", 30), ("<module>", "app.py", 1)]
        with stackrec.Recorder(heap_types, live_heap_types=[0, 1]) as recorder:
            recorder.track(0x1000, alloc, [1, 64], {"thread id": 7})
            recorder.track(0x2000, alloc, [1, 192], {"thread id": 7})
            for _ in range(2):  # alive across serializations
                self.assertEqual(
                    [(alloc, {"heap-live-samples": 2, "heap-live-size": 256}, {"thread id": 7})],
                    Decoded(recorder.serialize()[2]).samples)
            recorder.untrack(0x1000)
            recorder.untrack(0x9999)  # never tracked: nothing happens
            self.assertEqual(
                [(alloc, {"heap-live-samples": 1, "heap-live-size": 192}, {"thread id": 7})],
                Decoded(recorder.serialize()[2]).samples)
            self.assertEqual(1, recorder.stats()["objects_tracked"])
        with self.assertRaises(stackrec.InvalidArgumentError):
            stackrec.Recorder(heap_types, live_heap_types=[5])  # past the sample types
        with self.assertRaises(stackrec.InvalidArgumentError):
            self.recorder.track(0x1000, alloc, [1, 1, 1])  # no live-heap types

    def test_interned_stacks_record_as_their_frames(self):
        stack = self.recorder.intern_stack(USERS_SHOW)
        self.assertEqual(stack, self.recorder.intern_stack(list(USERS_SHOW)))  # equal frames, same id
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.intern_stack([("", "", 0), ("main", "a.py", 3)])  # a frame of nothing
        self.assertIn("location has no mapping_id, function_id or address", str(raised.exception))
        self.recorder.record_stack(stack, [1000, 1, 2000], {"thread id": 7})
        self.recorder.record(USERS_SHOW, [10, 1, 20], {"thread id": 7})  # the same key
        samples = sorted(Decoded(self.recorder.serialize()[2]).samples, key=repr)
        self.assertEqual(
            [(USERS_SHOW, {"cpu-time": 1010, "cpu-samples": 2, "wall-time": 2020},
              {"thread id": 7})],
            samples)
        # Valid across serializations, refused once forgotten.
        self.recorder.record_stack(stack, [1, 1, 1])
        self.recorder.forget_ids()
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.record_stack(stack, [1, 1, 1])
        self.assertIn("stale", str(raised.exception))
        self.assertEqual([(USERS_SHOW, {"cpu-time": 1, "cpu-samples": 1, "wall-time": 1}, {})],
                         Decoded(self.recorder.serialize()[2]).samples)
        with self.assertRaises(OverflowError):
            self.recorder.record_stack(0, [1, 1, 1])

    def test_interned_labels_record_as_their_labels(self):
        stack = self.recorder.intern_stack(USERS_SHOW)
        labels = self.recorder.intern_labels({"thread id": 7, "thread name": "main"})
        self.assertEqual(labels, self.recorder.intern_labels({"thread id": 7, "thread name": "main"}))
        self.recorder.record_stack(stack, [1000, 1, 2000], labels)
        self.recorder.record_stack(stack, [10, 1, 20], {"thread id": 7, "thread name": "main"})
        self.assertEqual([(USERS_SHOW, {"cpu-time": 1010, "cpu-samples": 2, "wall-time": 2020},
                           {"thread id": 7, "thread name": "main"})],
                         Decoded(self.recorder.serialize()[2]).samples)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.intern_labels({"": 1})
        self.assertIn("labels[0].key is empty", str(raised.exception))
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.record_stack(stack, [1, 1, 1], labels + 1)
        self.assertIn(f"sample.labels_id {labels + 1} is not an interned id", str(raised.exception))
        self.recorder.forget_ids()
        stack = self.recorder.intern_stack(USERS_SHOW)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.record_stack(stack, [1, 1, 1], labels)
        self.assertIn("stale", str(raised.exception))

    def test_disabled_types_are_left_out(self):
        with stackrec.Recorder(TYPES, enabled=[False, True, True]) as recorder:
            recorder.record(USERS_SHOW, [5, 1, 9])  # every value is still passed
            profile = Decoded(recorder.serialize()[2])
        self.assertEqual(TYPES[1:], profile.sample_types)
        self.assertEqual([{"cpu-samples": 1, "wall-time": 9}], [v for _, v, _ in profile.samples])

    def test_threads_record_while_another_serializes(self):
        thread_count, records_per_thread = 4, 2000
        expected = collections.Counter()
        per_thread_expected = {}
        lock = threading.Lock()
        profiles = []
        done = threading.Event()

        def record(t):
            sums = collections.Counter()
            for i in range(records_per_thread):
                values = [1000 + i, 1, 2 * i]
                stack = [(f"leaf_{i % 13}", "work.py", i % 7), (f"worker_{t}", "work.py", 100)]
                self.recorder.record(stack, values, {"thread id": t})
                sums.update(dict(zip([n for n, _ in TYPES], values)))
            with lock:
                expected.update(sums)
                per_thread_expected[t] = records_per_thread

        def serialize():
            while not done.is_set():
                profiles.append(self.recorder.serialize())
                done.wait(0.002)

        serializer = threading.Thread(target=serialize)
        serializer.start()
        threads = [threading.Thread(target=record, args=(t,)) for t in range(thread_count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        serializer.join()
        profiles.append(self.recorder.serialize())  # after the serializer's last flip

        decoded = [Decoded(pprof) for _, _, pprof in profiles]
        totals = sum((d.totals() for d in decoded), collections.Counter())
        self.assertEqual(expected, totals)
        per_thread = collections.Counter()
        for d in decoded:
            for _, values, labels in d.samples:
                per_thread[labels["thread id"]] += values["cpu-samples"]
        self.assertEqual(per_thread_expected, dict(per_thread))
        for (_, end_ns, _), (start_ns, _, _) in zip(profiles, profiles[1:]):
            self.assertEqual(end_ns, start_ns, "consecutive profiles tile time")
        self.assertEqual(thread_count * records_per_thread,
                         self.recorder.stats()["samples_recorded"])

    def test_record_endpoint(self):
        self.recorder.record(USERS_SHOW, [1, 1, 1], {"local root span id": 42})
        self.recorder.record_endpoint(42, "GET /users/:id")
        (_, _, labels), = Decoded(self.recorder.serialize()[2]).samples
        self.assertEqual("GET /users/:id", labels["trace endpoint"])

    def test_bad_arguments_raise_and_record_nothing(self):
        r = self.recorder
        cases = [
            (lambda: r.record(USERS_SHOW, [1, 1]), stackrec.InvalidArgumentError, "values_len"),
            (lambda: r.record([(b"\xff", "a.py", 1)], [1, 1, 1]), stackrec.InvalidArgumentError, "UTF-8"),
            (lambda: r.record(USERS_SHOW, [1, 1, 1], {"": 1}), stackrec.InvalidArgumentError, "key"),
            (lambda: r.record([("main", "a.py")], [1, 1, 1]), TypeError, "frames[0] must be (name, filename, line)"),
            (lambda: r.record([("main", "a.py", "1")], [1, 1, 1]), TypeError, "frames[0] line must be an int"),
            (lambda: r.record([(None, "a.py", 1)], [1, 1, 1]), TypeError, "frames[0] name must be str or bytes"),
            (lambda: r.record(USERS_SHOW, [1, 1.5, 1]), TypeError, "values[1] must be an int"),
            (lambda: r.record(USERS_SHOW, [1, 1, 1], {"k": 1.5}), TypeError, "label 'k' must be an int"),
            (lambda: r.record(USERS_SHOW, [1, 1, 2**63]), OverflowError, "values[2] must be in"),
            (lambda: r.record_endpoint(0, "GET /"), stackrec.InvalidArgumentError, "STACKREC_INVALID_ARGUMENT"),
            (lambda: r.record_endpoint(-1, "GET /"), OverflowError, "local_root_span_id must be in 0.."),
            (lambda: r.serialize(compression="lz4"), ValueError, "compression"),
            (lambda: stackrec.Recorder([]), stackrec.InvalidArgumentError, ""),
        ]
        for call, error, message in cases:
            with self.subTest(message=message, error=error.__name__):
                with self.assertRaises(error) as raised:
                    call()
                self.assertIn(message, str(raised.exception))

        self.recorder.record(USERS_SHOW, [1, 1, 1])
        profile = Decoded(self.recorder.serialize()[2])
        self.assertEqual([USERS_SHOW], [frames for frames, _, _ in profile.samples])
        self.assertEqual(1, self.recorder.stats()["samples_recorded"])

    @unittest.skipUnless(hasattr(os, "fork"), "no fork on this platform")
    def test_fork_child_records_after_reset_after_fork(self):
        self.recorder.record([("parent_only", "parent.py", 1)], [1, 1, 1])
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report through the pipe, never return into unittest
            status = 1
            try:
                os.close(reader)
                self.recorder.reset_after_fork()
                self.recorder.record([("child_only", "child.py", 1)], [0, 5, 0])
                profile = Decoded(self.recorder.serialize()[2])
                names = [frames[0][0] for frames, _, _ in profile.samples]
                os.write(writer, repr((names, profile.totals()["cpu-samples"])).encode())
                status = 0
            finally:
                os._exit(status)
        os.close(writer)
        if not select.select([reader], [], [], 60)[0]:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self.fail("the fork child hung")
        with os.fdopen(reader) as pipe:
            reported = pipe.read()
        _, status = os.waitpid(pid, 0)
        self.assertEqual(0, os.waitstatus_to_exitcode(status))
        self.assertEqual(repr((["child_only"], 5)), reported)
        # The parent's recorder is untouched by the child.
        profile = Decoded(self.recorder.serialize()[2])
        self.assertEqual(["parent_only"], [frames[0][0] for frames, _, _ in profile.samples])


if __name__ == "__main__":
    unittest.main()
