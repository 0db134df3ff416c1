# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""Runs the Python examples of the package's guide, bindings/python/README.md,
as written, against the installed package, so the guide cannot drift from
the code:

    python run_doc_examples.py bindings/python/README.md              (CTest: python_docs_examples_run)
    python run_doc_examples.py --type-check bindings/python/README.md (CTest: python_package_types)

An example is the ```python block that follows a line
"<!-- python-example: NAME -->". Each runs in a fresh interpreter (this
one, so the package and the library it finds are the installed ones) in a
scratch directory, and must exit 0; the examples assert what they show.
With --type-check, mypy --strict checks the installed package (its shipped
tests aside) and every example instead, as a typed user's code would be.
"""

import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!-- python-example: ([a-z0-9-]+) -->$")


def examples(path):
    """[(name, code)] of the marked blocks of the guide."""
    with open(path, encoding="utf-8") as file:
        lines = file.read().split("\n")
    found, i = [], 0
    while i < len(lines):
        match = MARKER.match(lines[i])
        i += 1
        if not match:
            continue
        if lines[i] != "```python":
            sys.exit(f"{path}:{i + 1}: the example {match.group(1)} is not followed by a ```python block")
        close = lines.index("```", i + 1)
        found.append((match.group(1), "\n".join(lines[i + 1:close]) + "\n"))
        i = close + 1
    if not found:
        sys.exit(f"{path} has no <!-- python-example: NAME --> marker")
    return found


def main(argv):
    type_check = argv[:1] == ["--type-check"]
    if type_check:
        argv = argv[1:]
    if len(argv) != 1:
        sys.exit(__doc__)
    blocks = examples(argv[0])
    with tempfile.TemporaryDirectory() as scratch:
        if type_check:
            files = []
            for name, code in blocks:
                files.append(os.path.join(scratch, f"example_{name.replace('-', '_')}.py"))
                with open(files[-1], "w", encoding="utf-8") as file:
                    file.write(code)
            mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                    "--cache-dir", os.path.join(scratch, "cache")]
            status = 0
            # mypy takes a package or files, not both at once.
            for targets in (["--exclude", "/tests/", "-p", "stackrec"], files):
                print("$", " ".join(mypy + targets), flush=True)
                status |= subprocess.run(mypy + targets, cwd=scratch, check=False).returncode
            return status
        failed = []
        for name, code in blocks:
            print(f"--- {name}", flush=True)
            result = subprocess.run([sys.executable, "-c", code], cwd=scratch, timeout=120, check=False)
            if result.returncode != 0:
                failed.append(name)
        print(f"{len(blocks) - len(failed)} passed, {len(failed)} failed")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
