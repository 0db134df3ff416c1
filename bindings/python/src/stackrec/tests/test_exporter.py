# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""stackrec.Exporter against a receiver the test starts on 127.0.0.1: the
requests as they arrive, a retried 503, the stats, bad options, and
profiles the backend would refuse."""

import email.parser
import email.policy
import http.server
import json
import os
import threading
import unittest
import urllib.parse

import stackrec
from stackrec.tests.decoding import Decoded, decode_otlp

TYPES = [("cpu-samples", "count")]
MAIN = [("main", "app.py", 3)]


class Receiver:
    """An HTTP server on 127.0.0.1 (port 0) that answers the scripted
    statuses in turn (then 200) and keeps every request it read in full."""

    def __init__(self, statuses=()):
        self.statuses = list(statuses)
        self.requests = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.requests.append((self.path, dict(self.headers), body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.server.timeout = 5
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class ExporterTest(unittest.TestCase):
    def setUp(self):
        self.receiver = Receiver()
        self.addCleanup(self.receiver.close)
        self.recorder = stackrec.Recorder(TYPES)
        self.addCleanup(self.recorder.close)
        self.recorder.record(MAIN, [3])

    def exporter(self, protocol, **options):
        exporter = stackrec.Exporter(protocol, self.receiver.url, timeout_ms=5000,
                                     initial_backoff_ms=1, **options)
        self.addCleanup(exporter.close)
        return exporter

    def test_otlp_request_as_received(self):
        exporter = self.exporter("otlp", otlp_development_header=True)
        exporter.send(self.recorder.serialize(format="otlp", compression="none"))
        self.assertTrue(exporter.flush(5000))
        (path, headers, body), = self.receiver.requests
        self.assertEqual("/v1development/profiles", path)
        self.assertEqual("application/x-protobuf", headers["Content-Type"])
        self.assertEqual("1", headers["OTLP-Profiles-Development-Version"])
        request = decode_otlp(body)
        profile, = request.resource_profiles[0].scope_profiles[0].profiles
        self.assertEqual([3], [s.values[0] for s in profile.samples])
        stats = exporter.stats()
        self.assertEqual((1, 1, len(body)), (stats["requests_queued"], stats["requests_sent"],
                                             stats["bytes_sent"]))
        self.assertTrue(exporter.shutdown(1000))
        with self.assertRaises(stackrec.InvalidArgumentError):
            exporter.send(self.recorder.serialize(format="otlp"))

    def test_pyroscope_request_as_received(self):
        exporter = self.exporter("pyroscope", app_name="shop", tags={"env": "prod"})
        serialized = self.recorder.serialize(**stackrec.Exporter.serialize_options("pyroscope"))
        exporter.send(serialized)
        self.assertTrue(exporter.flush(5000))
        (path, headers, body), = self.receiver.requests
        url = urllib.parse.urlsplit(path)
        self.assertEqual("/ingest", url.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        self.assertEqual("shop{env=prod}", query["name"])
        # No format: with one, Pyroscope would read the whole form as the pprof.
        self.assertNotIn("format", query)
        self.assertEqual(serialized.start_ns // 10**9, int(query["from"]))
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + headers["Content-Type"].encode() + b"\r\n\r\n" + body)
        parts = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                 for part in message.iter_parts()}
        # Pyroscope's name for the type.
        self.assertEqual([(MAIN, {"samples": 3}, {})], Decoded(parts["profile"]).samples)

    def test_a_profile_the_backend_would_refuse_is_not_sent(self):
        exporter = self.exporter("pyroscope", app_name="shop")
        serialized = self.recorder.serialize()  # recorded names: "cpu-samples" holds a '-'
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            exporter.send(serialized)
        self.assertIn("not serialized for Pyroscope: set opts.target", raised.exception.message)
        stats = exporter.stats()
        self.assertEqual((1, 0), (stats["refused_before_sending"], stats["requests_queued"]))
        self.assertTrue(serialized.data)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            stackrec.Exporter("pyroscope", self.receiver.url, app_name="my app")
        self.assertIn("Pyroscope takes a service name of", raised.exception.message)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            stackrec.Exporter("datadog_agent", self.receiver.url, tags={"env": ""})
        self.assertIn("libdatadog refuses a tag", raised.exception.message)

    def test_datadog_files_the_profile_under_the_python_family_with_a_tracers_tags(self):
        exporter = self.exporter("datadog_agent", tags={"service": "shop"})
        exporter.send(self.recorder.serialize(**stackrec.Exporter.serialize_options("datadog_agent")))
        self.assertTrue(exporter.flush(5000))
        (path, headers, body), = self.receiver.requests
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + headers["Content-Type"].encode() + b"\r\n\r\n" + body)
        parts = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                 for part in message.iter_parts()}
        event = json.loads(parts["event"])
        self.assertEqual("python", event["family"])
        tags = event["tags_profiler"].split(",")
        self.assertEqual(["service:shop", "language:python", f"process_id:{os.getpid()}"], tags[:3])
        self.assertRegex(tags[3], r"\Aruntime-id:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-")
        self.assertTrue(tags[-1].startswith("runtime_platform:"))

    def test_a_503_is_retried_and_counted(self):
        self.receiver.statuses = [503]
        exporter = self.exporter("otlp")
        exporter.send(self.recorder.serialize(format="otlp"))
        self.assertTrue(exporter.flush(5000))
        stats = exporter.stats()
        self.assertEqual((1, 1, 200), (stats["retries"], stats["requests_sent"],
                                       stats["last_http_status"]))
        self.assertEqual(2, len(self.receiver.requests))

    def test_bad_options_are_refused_by_name(self):
        with self.assertRaises(ValueError):
            stackrec.Exporter("nope", self.receiver.url)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            stackrec.Exporter("otlp", "ftp://127.0.0.1:1")
        self.assertIn("opts.endpoint", raised.exception.message)
        with self.assertRaises(stackrec.InvalidArgumentError) as raised:
            stackrec.Exporter("pyroscope", self.receiver.url, app_name="shop",
                              tags={"env": "prod\nX-Evil: 1"})
        self.assertIn("opts.tags[0].value", raised.exception.message)
        with self.assertRaises(TypeError):
            self.exporter("otlp").send(b"not a serialization")


if __name__ == "__main__":
    unittest.main()
