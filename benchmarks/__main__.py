"""``python -m benchmarks [NAME ...]``: run every registered benchmark, or the ones named."""

from __future__ import annotations

import importlib
import sys
import traceback

from benchmarks import BENCHMARKS


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark {', '.join(map(repr, unknown))}; known: "
              f"{', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    failed = []
    for name in names:
        try:
            importlib.import_module(BENCHMARKS[name]).run()
        except Exception:  # report it and go on with the other benchmarks
            traceback.print_exc()
            print(f"benchmark {name} failed", file=sys.stderr)
            failed.append(name)
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
