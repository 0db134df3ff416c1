# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""python -m stackrec.tests.upload_to_receiver URL PROTOCOL: what a Python
profiler built on the package sends, with the package's defaults: a
Recorder of the sample types and labels a Python profiler records
(cpu-time, cpu-samples, wall-time; thread id and name, local root span id,
trace endpoints, trace links), a few intervals serialized with
Exporter.serialize_options and sent. The receiver program runs it and
judges every request by the backend's own rules (testkit/receiver/backends/).
Exits 0 only if every part was sent."""

import sys

import stackrec


def main(url: str, protocol: str) -> int:
    recorder = stackrec.Recorder([("cpu-time", "nanoseconds"), ("cpu-samples", "count"),
                                  ("wall-time", "nanoseconds")],
                                 period_type=("wall-time", "nanoseconds"), period=10_000_000)
    if protocol == "otlp":
        exporter = stackrec.Exporter("otlp", url)
        options = stackrec.Exporter.serialize_options("otlp")
        options["service_name"] = "python-upload"
    elif protocol == "pyroscope":
        exporter = stackrec.Exporter("pyroscope", url, app_name="python-upload", tags={"env": "test"})
        options = stackrec.Exporter.serialize_options("pyroscope")
        options["series_labels"] = ["trace endpoint"]
    else:
        exporter = stackrec.Exporter("datadog_agent", url,
                                     tags={"service": "python-upload", "env": "test"})
        options = stackrec.Exporter.serialize_options("datadog_agent")
    for interval in range(3):
        for i in range(200):
            span = 1000 * (interval + 1) + i % 20
            recorder.record_endpoint(span, f"GET /items/{i % 4}")
            recorder.record([("Items.show", "app/items.py", 10 + i % 7), ("<module>", "app.py", 1)],
                            {"cpu-time": 1_000_000 * (1 + i % 3), "cpu-samples": 1,
                             "wall-time": 10_000_000},
                            labels={"thread id": 1 + i % 4, "thread name": f"worker {i % 4}",
                                    "local root span id": span},
                            link=stackrec.TraceLink((interval + 1) << 64 | (i + 1), i + 1))
        exporter.send(recorder.serialize(**options))
    flushed = exporter.flush(20_000)
    stats = exporter.stats()
    print(f"upload_to_receiver: {protocol}: flushed {flushed}, sent {stats['requests_sent']}, "
          f"refused {stats['refused_before_sending']}, last error {stats['last_error']!r}")
    exporter.close()
    recorder.close()
    ok = flushed and stats["requests_sent"] == stats["requests_queued"] >= 3
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
