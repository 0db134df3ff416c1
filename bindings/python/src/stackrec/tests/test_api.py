# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""The whole API, one behaviour per test: Profile, every option of a profile
and of a serialization, the id API, upscaling, endpoints, budgets and parts,
the exceptions, threads, and how the library is found. Each profile is
decoded (decoding.py) and checked field by field; test_recorder.py has the
Recorder's older cases."""

import datetime
import gc
import gzip
import importlib.metadata
import os
import re
import subprocess
import sys
import textwrap
import threading
import unittest
import weakref

import stackrec
from stackrec import _native
from stackrec.tests.decoding import Decoded, decode_otlp

TYPES = [("alloc-samples", "count"), ("alloc-size", "bytes")]
MAIN = [("main", "app.py", 3)]


def run_python(code, **environment):
    """Runs `code` in a fresh interpreter with this one's environment
    changed by `environment` (None removes a variable)."""
    env = dict(os.environ)
    for key, value in environment.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


class LibraryTest(unittest.TestCase):
    def test_every_function_of_the_header_is_declared(self):
        header = os.environ.get("STACKREC_HEADER")
        if header is None:
            self.skipTest("STACKREC_HEADER (the installed stackrec.h) is not set")
        with open(header, encoding="utf-8") as file:
            text = file.read()
        exported = set(re.findall(r"STACKREC_API\b[^;{]*?\b(stackrec_\w+)\(", text))
        self.assertGreater(len(exported), 40)
        self.assertEqual(exported, _native.declared)

    def test_the_library_comes_from_pkg_config_or_the_environment(self):
        expected = os.environ.get("STACKREC_EXPECTED_LIBRARY")
        if expected is None:
            self.skipTest("STACKREC_EXPECTED_LIBRARY is not set")
        self.assertEqual(os.path.realpath(expected), os.path.realpath(stackrec.library_path))
        # STACKREC_LIBRARY wins over pkg-config.
        result = run_python("import stackrec; print(stackrec.library_path)",
                            STACKREC_LIBRARY=expected, PKG_CONFIG_PATH="/nonexistent")
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertEqual(expected, result.stdout.strip())

    def test_a_missing_library_is_named_with_what_to_do(self):
        result = run_python("import stackrec", STACKREC_LIBRARY="/nonexistent/libstackrec.so.1")
        self.assertNotEqual(0, result.returncode)
        self.assertIn("LibraryNotFoundError: stackrec: STACKREC_LIBRARY=/nonexistent/libstackrec.so.1 "
                      "could not be loaded", result.stderr)
        result = run_python("""
            import stackrec._native
            """, STACKREC_LIBRARY=None, PKG_CONFIG_PATH="/nonexistent", LD_LIBRARY_PATH=None)
        if result.returncode == 0:
            self.skipTest("this machine has a libstackrec.so.1 on the loader's path")
        self.assertIn("libstackrec.so.1 was not found (pkg-config knows no stackrec", result.stderr)
        self.assertIn("set STACKREC_LIBRARY", result.stderr)

    def test_versions(self):
        number = stackrec.version_number()
        self.assertEqual(stackrec.version(), f"{number // 10000}.{number // 100 % 100}.{number % 100}")
        self.assertEqual(stackrec.ABI_MAJOR, number // 10000)
        try:
            package_version = importlib.metadata.version("stackrec")
        except importlib.metadata.PackageNotFoundError:
            self.skipTest("stackrec runs from a source tree, not installed")
        if os.environ.get("STACKREC_EXPECTED_VERSION_NUMBER") is not None:
            # The package is versioned with the library it ships with.
            self.assertEqual(stackrec.version(), package_version)

    def test_statuses_and_errors(self):
        self.assertEqual("STACKREC_BUSY", stackrec.status_name(stackrec.Status.BUSY))
        self.assertEqual("STACKREC_UNKNOWN", stackrec.status_name(99))
        self.assertEqual(list(range(8)), [s.code for s in stackrec.Status])
        self.assertIs(stackrec.Status.LIMIT_EXCEEDED, stackrec.Status.from_code(3))
        self.assertEqual("STACKREC_BUSY", stackrec.Status.BUSY)  # the first binding's .status
        for error, base in [(stackrec.InvalidArgumentError, ValueError),
                            (stackrec.OutOfMemoryError, MemoryError),
                            (stackrec.LimitExceededError, stackrec.StackrecError),
                            (stackrec.BusyError, stackrec.StackrecError),
                            (stackrec.InternalError, stackrec.StackrecError),
                            (stackrec.UnsupportedError, stackrec.StackrecError),
                            (stackrec.TimedOutError, TimeoutError)]:
            self.assertTrue(issubclass(error, stackrec.StackrecError))
            self.assertTrue(issubclass(error, base))
        self.assertIs(stackrec.Error, stackrec.StackrecError)
        with stackrec.Profile(TYPES) as profile:
            with self.assertRaises(stackrec.InvalidArgumentError) as raised:
                profile.add(MAIN, [1])
        error = raised.exception
        self.assertEqual(stackrec.Status.INVALID_ARGUMENT, error.status)
        self.assertEqual(1, error.code)
        self.assertEqual("sample.values_len is 1 but the profile declares 2 sample types", error.message)
        self.assertEqual(f"STACKREC_INVALID_ARGUMENT: {error.message}", str(error))
        self.assertEqual(error.message, stackrec.last_error())


class ProfileTest(unittest.TestCase):
    def setUp(self):
        self.profile = stackrec.Profile(TYPES)
        self.addCleanup(self.profile.close)

    def test_add_serialize_reset(self):
        self.profile.add(MAIN, [1, 64], {"class": "Foo"})
        self.profile.add(MAIN, {"alloc-samples": 1, "alloc-size": 32}, {"class": "Foo"})
        self.profile.add(MAIN, {"alloc-size": 8})  # by name, the rest 0
        for _ in range(2):  # serialize does not reset a profile
            serialized = self.profile.serialize()
            self.assertEqual(
                sorted([(MAIN, {"alloc-samples": 2, "alloc-size": 96}, {"class": "Foo"}),
                        (MAIN, {"alloc-samples": 0, "alloc-size": 8}, {})], key=repr),
                sorted(Decoded(serialized.data).samples, key=repr))
        self.profile.reset()
        self.assertEqual([], Decoded(self.profile.serialize().data).samples)
        with self.assertRaises(ValueError) as raised:
            self.profile.add(MAIN, {"alloc-count": 1})
        self.assertIn("'alloc-count'", str(raised.exception))

    def test_serialized_unpacks_and_carries_the_interval(self):
        before = datetime.datetime.now(datetime.timezone.utc)
        serialized = self.profile.serialize()
        start_ns, end_ns, data = serialized
        self.assertEqual((start_ns, end_ns, data), (serialized.start_ns, serialized.end_ns, serialized.data))
        self.assertEqual(3, len(serialized))
        self.assertEqual(datetime.timezone.utc, serialized.start.tzinfo)
        self.assertLessEqual(serialized.start, before)
        self.assertLessEqual(serialized.start, serialized.end)
        decoded = Decoded(data)
        self.assertEqual(start_ns, decoded.time_nanos)
        self.assertEqual(end_ns - start_ns, decoded.duration_nanos)

    def test_full_locations_and_labels(self):
        binary = stackrec.Mapping(0x1000, 0x2000, 0, "/usr/lib/libfoo.so", "abc123")
        leaf = stackrec.Location(stackrec.Function("inner", "_Z5innerv", "foo.c", 10), 12,
                                 binary, 0x1100, inlined=True)
        caller = stackrec.Location(stackrec.Function("outer", "", "foo.c", 20), 25, binary, 0x1100)
        bare = stackrec.Location(address=0x1234)
        self.profile.add([leaf, caller, bare], [1, 1],
                         {"size": stackrec.NumLabel(4096, "bytes"), "name": b"raw", "n": -3})
        profile = Decoded(self.profile.serialize().data).profile
        strings = profile.string_table
        mapping, = profile.mapping
        self.assertEqual((0x1000, 0x2000, "/usr/lib/libfoo.so", "abc123"),
                         (mapping.memory_start, mapping.memory_limit, strings[mapping.filename],
                          strings[mapping.build_id]))
        functions = {f.id: f for f in profile.function}
        locations = {l.id: l for l in profile.location}
        sample, = profile.sample
        first = locations[sample.location_id[0]]
        self.assertEqual(0x1100, first.address)
        self.assertEqual([("inner", "_Z5innerv", 10, 12), ("outer", "", 20, 25)],
                         [(strings[functions[line.function_id].name],
                           strings[functions[line.function_id].system_name],
                           functions[line.function_id].start_line, line.line) for line in first.line])
        last = locations[sample.location_id[-1]]
        self.assertEqual((0x1234, 0), (last.address, len(last.line)))
        labels = {strings[l.key]: (strings[l.str], l.num, strings[l.num_unit]) for l in sample.label}
        self.assertEqual({"size": ("", 4096, "bytes"), "name": ("raw", 0, ""), "n": ("", -3, "")}, labels)

    def test_options_reach_the_profile(self):
        options = dict(period_type=("space", "bytes"), period=524288, comments=["first", "second"],
                       default_sample_type="alloc-size", drop_frames="^malloc$", keep_frames="^main$",
                       max_frames=2)
        with stackrec.Profile(TYPES, {"alloc-samples": False}, **options) as profile:
            profile.add([("a", "x.py", 1), ("b", "x.py", 2), ("c", "x.py", 3)], [5, 10])
            decoded = Decoded(profile.serialize().data)
        p, s = decoded.profile, decoded.strings
        self.assertEqual([("alloc-size", "bytes")], decoded.sample_types)
        self.assertEqual(("space", "bytes", 524288), (s[p.period_type.type], s[p.period_type.unit], p.period))
        self.assertEqual(["first", "second"], [s[i] for i in p.comment])
        self.assertEqual(("alloc-size", "^malloc$", "^main$"),
                         (s[p.default_sample_type], s[p.drop_frames], s[p.keep_frames]))
        (frames, values, _), = decoded.samples
        self.assertEqual(["a", "b", "[1 frames truncated]"], [name for name, _, _ in frames])
        self.assertEqual({"alloc-size": 10}, values)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            stackrec.Profile(TYPES, period=-1)
        self.assertIn("period", raised.exception.message)

    def test_timestamps_keep_samples_apart(self):
        at = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.timezone.utc)
        self.profile.add(MAIN, [1, 1], timestamp=at)
        self.profile.add(MAIN, [1, 1], timestamp_ns=1_700_000_000_123_456_789)
        self.profile.add(MAIN, [1, 1])
        stamps = sorted(labels.get("end_timestamp_ns", 0) for _, _, labels in
                        Decoded(self.profile.serialize().data).samples)
        self.assertEqual([0, 1_700_000_000_123_456_789, 1_767_323_045_678_901_000], stamps)
        with self.assertRaises(TypeError):
            self.profile.add(MAIN, [1, 1], timestamp=datetime.datetime(2026, 1, 1))  # naive
        with self.assertRaises(stackrec.InvalidArgumentError):
            self.profile.add(MAIN, [1, 1], timestamp_ns=-1)

    def test_endpoints_label_samples_and_count_hits(self):
        self.profile.add(MAIN, [1, 1], {"local root span id": 7})
        self.profile.set_endpoint(7, "GET /users")
        self.profile.add_endpoint_count("GET /users", 2)
        self.profile.add_endpoint_count("GET /users")
        self.profile.add_endpoint_count("POST /orders", 5)
        serialized = self.profile.serialize()
        self.assertEqual({"GET /users": 3, "POST /orders": 5}, serialized.endpoint_counts)
        (_, _, labels), = Decoded(serialized.data).samples
        self.assertEqual("GET /users", labels["trace endpoint"])
        with self.assertRaises(stackrec.InvalidArgumentError):
            self.profile.add_endpoint_count("", 1)

    def test_upscaling_rules(self):
        self.profile.add_upscaling_rule("proportional", ["alloc-samples"], total_sampled=10,
                                        total_real=1000, label=("class", "Foo"))
        self.profile.add(MAIN, [3, 300], {"class": "Foo"})
        self.profile.add(MAIN, [3, 300], {"class": "Bar"})
        self.profile.add_upscaling_rule("poisson", [1], label=("class", "Bar"), sum_value="alloc-size",
                                        count_value="alloc-samples", sampling_distance=512)
        values = {labels["class"]: v for _, v, labels in Decoded(self.profile.serialize().data).samples}
        self.assertEqual({"alloc-samples": 300, "alloc-size": 300}, values["Foo"])
        self.assertEqual(3, values["Bar"]["alloc-samples"])
        self.assertGreater(values["Bar"]["alloc-size"], 300)  # scaled up by 1 / (1 - e^(-100/512))
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:  # overlaps the first
            self.profile.add_upscaling_rule("proportional", [0], total_sampled=1, total_real=2)
        self.assertTrue(raised.exception.message)
        with self.assertRaises(ValueError):
            self.profile.add_upscaling_rule("linear", [0])

    def test_recording_by_id(self):
        p = self.profile
        mapping_id = p.intern_mapping(stackrec.Mapping(0x1000, 0x2000, 0, "/bin/app"))
        function_id = p.intern_function(stackrec.Function("handler", filename="app.py"))
        leaf = p.intern_location(function_id=function_id, line=40, mapping_id=mapping_id, address=0x1010)
        root = p.intern_location(function_id=p.intern_function(stackrec.Function("main")), line=1)
        stack = p.intern_stack([leaf, root])
        self.assertEqual(stack, p.intern_stack([leaf, root]))
        labels = p.intern_labels({"thread": "main"})
        p.add_ids(stack, [1, 10], labels)
        p.add_ids([leaf, root], {"alloc-size": 5}, {"thread": "main"})
        p.add_ids(p.intern_stack([("handler", "app.py", 40)]), [1, 1], timestamp_ns=5)
        samples = Decoded(p.serialize().data).samples
        self.assertIn(([("handler", "app.py", 40), ("main", "", 1)],
                       {"alloc-samples": 1, "alloc-size": 15}, {"thread": "main"}), samples)
        self.assertEqual(2, len(samples))
        p.forget_ids()
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            p.add_ids(stack, [1, 1])
        self.assertIn("stale", raised.exception.message)
        with self.assertRaises(OverflowError):
            p.add_ids([0], [1, 1])

    def test_trace_links_as_bytes_or_ints(self):
        trace, span = bytes(range(1, 17)), bytes(range(1, 9))
        link = stackrec.TraceLink(trace, span)
        self.profile.add(MAIN, [1, 8], link=link)
        self.profile.add(MAIN, [1, 8], link=(int.from_bytes(trace, "big"), int.from_bytes(span, "big")))
        self.profile.add(MAIN, [1, 8])
        samples = sorted(Decoded(self.profile.serialize().data).samples, key=repr)
        self.assertEqual([(MAIN, {"alloc-samples": 1, "alloc-size": 8}, {}),
                          (MAIN, {"alloc-samples": 2, "alloc-size": 16},
                           {"trace_id": trace.hex(), "span_id": span.hex()})], samples)
        request = decode_otlp(self.profile.serialize(compression="none", format="otlp").data)
        links = request.dictionary.link_table
        self.assertEqual([(bytes(16), bytes(8)), (trace, span)],
                         [(l.trace_id, l.span_id) for l in links])
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.profile.add(MAIN, [1, 8], link=(bytes(16), span))
        self.assertIn("sample.link.trace_id is all zero", raised.exception.message)
        with self.assertRaises(ValueError):
            self.profile.add(MAIN, [1, 8], link=(trace, b"short"))
        with self.assertRaises(OverflowError):
            self.profile.add(MAIN, [1, 8], link=(1 << 128, 1))

    def test_threads_take_turns_on_a_profile(self):
        def add(t):
            for i in range(500):
                self.profile.add([(f"f{i % 5}", "t.py", t)], [1, 2], {"thread": t})
        threads = [threading.Thread(target=add, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual({"alloc-samples": 2000, "alloc-size": 4000},
                         dict(Decoded(self.profile.serialize().data).totals()))

    def test_a_closed_profile_refuses_calls(self):
        self.profile.close()
        self.profile.close()
        with self.assertRaises(ValueError):
            self.profile.add(MAIN, [1, 1])


class SerializeTest(unittest.TestCase):
    def setUp(self):
        self.recorder = stackrec.Recorder(TYPES)
        self.addCleanup(self.recorder.close)

    def record_distinct(self, count):
        for i in range(count):
            self.recorder.record([(f"f{i}", "app.py", i + 1)], [1, 100])

    def test_compressions(self):
        self.record_distinct(3)
        zstd = self.recorder.serialize(compression="zstd", level=3).data
        self.assertEqual(b"\x28\xb5\x2f\xfd", zstd[:4])
        self.record_distinct(3)
        gzip_data = self.recorder.serialize("gzip", 9, compress_threads=2).data
        self.assertEqual(3, len(Decoded(gzip_data).samples))
        self.record_distinct(3)
        self.assertEqual(3, len(Decoded(self.recorder.serialize(compression="none").data,
                                        compressed=False).samples))
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.serialize(compression="none", level=5)
        self.assertIn("level", raised.exception.message)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.serialize(compress_threads=3)
        self.assertIn("compress_threads", raised.exception.message)

    def test_otlp_with_resource_and_scope(self):
        self.record_distinct(2)
        data = self.recorder.serialize(
            compression="none", format="otlp", service_name="checkout",
            resource_attributes={"host.name": "web-1", "deployment.environment": "prod"},
            scope_name="my-profiler", scope_version="2.0").data
        request = decode_otlp(data)
        resource_profiles, = request.resource_profiles
        attributes = {a.key: a.value.string_value for a in resource_profiles.resource.attributes}
        self.assertEqual({"service.name": "checkout", "host.name": "web-1",
                          "deployment.environment": "prod"}, attributes)
        scope_profiles, = resource_profiles.scope_profiles
        self.assertEqual(("my-profiler", "2.0"), (scope_profiles.scope.name, scope_profiles.scope.version))
        strings = request.dictionary.string_table
        self.assertEqual(["alloc-samples", "alloc-size"],
                         [strings[p.sample_type.type_strindex] for p in scope_profiles.profiles])
        self.assertEqual(2, len(scope_profiles.profiles[0].samples))

    def test_budgets_split_into_parts(self):
        self.record_distinct(5)
        serialized = self.recorder.serialize(part_max_samples=2)
        self.assertEqual(3, len(serialized.parts))
        self.assertEqual(serialized.parts[0].data, serialized.data)
        self.assertEqual([2, 2, 1], [part.samples_written for part in serialized.parts])
        names = sorted(frames[0][0] for part in serialized.parts for frames, _, _ in Decoded(part.data).samples)
        self.assertEqual([f"f{i}" for i in range(5)], names)
        stats = serialized.stats
        self.assertEqual((3, 5, stackrec.FoldReason.NONE),
                         (stats["parts"], stats["samples_written"], stats["folded_because"]))
        self.assertEqual(sum(len(part.data) for part in serialized.parts), stats["compressed_bytes"])

        self.record_distinct(5)
        folded = self.recorder.serialize(part_max_samples=2, max_parts=1)
        self.assertEqual(stackrec.FoldReason.PARTS_LIMIT, folded.stats["folded_because"])
        self.assertGreater(folded.stats["samples_left_out"], 0)
        self.assertEqual(1, len(folded.parts))

    def test_stats(self):
        self.record_distinct(4)
        serialized = self.recorder.serialize()
        self.assertEqual(4, serialized.stats["samples_recorded"])
        self.assertEqual(gzip.decompress(serialized.data).__len__(), serialized.stats["uncompressed_bytes"])
        stats = self.recorder.stats()
        self.assertEqual((1, 4, 4), (stats["serializations_ok"], stats["last_samples_recorded"],
                                     stats["samples_recorded"]))
        with self.assertRaises(stackrec.InvalidArgumentError):
            self.recorder.record(MAIN, [1])
        self.assertEqual(1, self.recorder.stats()["records_rejected"])

    def test_options_are_checked_before_the_flip(self):
        self.record_distinct(1)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            self.recorder.serialize(resource_attributes=[("", "x")])
        self.assertIn("resource_attributes", raised.exception.message)
        self.assertEqual(1, len(Decoded(self.recorder.serialize().data).samples))


class RecorderApiTest(unittest.TestCase):
    def test_recorder_options_endpoints_and_ids(self):
        with stackrec.Recorder(TYPES, enabled=[True, True], live_heap_types=["alloc-size"],
                               max_tracked_objects=1, comments=["py"]) as recorder:
            recorder.track(1, MAIN, {"alloc-size": 64})
            with self.assertRaises(stackrec.LimitExceededError):
                recorder.track(2, MAIN, {"alloc-size": 64})
            self.assertEqual(1, recorder.stats()["objects_not_tracked"])
            recorder.add_endpoint_count("GET /", 4)
            recorder.add_upscaling_rule("proportional", [0], total_sampled=1, total_real=2)
            stack = recorder.intern_stack([stackrec.Location(stackrec.Function("f"), 1)])
            recorder.record_ids(stack, [1, 0], recorder.intern_labels({"k": 1}))
            recorder.record_ids([recorder.intern_location(address=0x10)], [1, 0],
                                timestamp=datetime.datetime.now(datetime.timezone.utc))
            serialized = recorder.serialize()
            self.assertEqual({"GET /": 4}, serialized.endpoint_counts)
            samples = Decoded(serialized.data).samples
            self.assertIn(([("f", "", 1)], {"alloc-samples": 2, "alloc-size": 0}, {"k": 1}), samples)
            self.assertIn((MAIN, {"alloc-samples": 0, "alloc-size": 64}, {}), samples)
            self.assertEqual(3, len(samples))

    def test_objects_tracked_until_their_finalizer_untracks_them(self):
        # The heap profile the package's README.md shows: track at allocation,
        # untrack from weakref.finalize; the live objects stay attributed to
        # the function that allocated them, in every profile until freed.
        heap_types = [("heap-live-samples", "count"), ("heap-live-size", "bytes")]

        class Blob:
            pass

        with stackrec.Recorder(heap_types, live_heap_types=[0, 1]) as recorder:
            def tracked(obj, line):
                recorder.track(id(obj), [("allocate", "heap.py", line), ("<module>", "heap.py", 1)],
                               [1, 100], {"class": type(obj).__name__})
                weakref.finalize(obj, recorder.untrack, id(obj))
                return obj

            kept = [tracked(Blob(), 10) for _ in range(3)]
            freed = [tracked(Blob(), 20) for _ in range(2)]
            expected = [([("allocate", "heap.py", 10), ("<module>", "heap.py", 1)],
                         {"heap-live-samples": 3, "heap-live-size": 300}, {"class": "Blob"}),
                        ([("allocate", "heap.py", 20), ("<module>", "heap.py", 1)],
                         {"heap-live-samples": 2, "heap-live-size": 200}, {"class": "Blob"})]
            self.assertEqual(expected, sorted(Decoded(recorder.serialize().data).samples, key=repr))
            del freed
            gc.collect()
            for _ in range(2):
                self.assertEqual(expected[:1], Decoded(recorder.serialize().data).samples)
            self.assertEqual(3, recorder.stats()["objects_tracked"])
            del kept

    def test_close_waits_for_records_under_way_and_refuses_later_ones(self):
        recorder = stackrec.Recorder(TYPES)
        errors = []
        started = threading.Barrier(5)

        def record():
            started.wait()
            try:
                while True:
                    recorder.record(MAIN, [1, 1])
            except ValueError as error:  # closed: the only way out
                errors.append(str(error))

        threads = [threading.Thread(target=record) for _ in range(4)]
        for thread in threads:
            thread.start()
        started.wait()
        recorder.close()
        for thread in threads:
            thread.join()
        self.assertEqual(["this Recorder is closed"] * 4, errors)

    def test_wrong_python_types_are_refused_before_the_call(self):
        with stackrec.Recorder(TYPES) as recorder:
            cases = [
                (lambda: recorder.record([stackrec.Location(line="3")], [1, 1]), TypeError, "frames[0].line"),
                (lambda: recorder.record([stackrec.Location(address=-1)], [1, 1]), OverflowError, "address"),
                (lambda: recorder.record(MAIN, [1, 1], {"k": stackrec.NumLabel(1.5, "s")}), TypeError, "label 'k'"),
                (lambda: recorder.intern_location(inlined=1), TypeError, "inlined must be a bool"),
                (lambda: recorder.intern_mapping(("a", "b")), TypeError, "stackrec.Mapping"),
                (lambda: recorder.serialize(format="jfr"), ValueError, "format"),
                (lambda: recorder.add_upscaling_rule("proportional", ["nope"]), ValueError, "'nope'"),
                (lambda: stackrec.Recorder(TYPES, enabled={"nope": True}), ValueError, "'nope'"),
                (lambda: stackrec.Recorder([("a",)]), TypeError, "sample_types[0]"),
            ]
            for call, error, message in cases:
                with self.subTest(message=message):
                    with self.assertRaises(error) as raised:
                        call()
                    self.assertIn(message, str(raised.exception))
            self.assertEqual(0, recorder.stats()["records_rejected"])


if __name__ == "__main__":
    unittest.main()
