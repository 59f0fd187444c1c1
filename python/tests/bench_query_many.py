"""query_many against `msperf estimate --format jsonl` on a generated trace (default 100 000
lines drawn from the sample traces). Prints both per-op times and their ratio.
Usage: bench_query_many.py --msperf BUILDDIR/msperf [--n 100000] [--jobs 0]"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import msperf

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def sample_ops():
    ops = []
    for name in ("llama3-8b-prefill.jsonl", "llama3-8b-decode.jsonl", "llama3-8b-prefill-tp2.jsonl"):
        with open(os.path.join(SRC, "doc", "examples", "traces", name), encoding="utf-8") as f:
            ops += [json.loads(l) for l in f if l.strip() and not l.startswith("#")]
    return ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msperf", required=True)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--jobs", type=int, default=0)
    a = ap.parse_args()
    base = sample_ops()
    ops = [base[k % len(base)] for k in range(a.n)]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for op in ops:
            f.write(json.dumps(op) + "\n")
        trace = f.name
    try:
        t0 = time.perf_counter()
        subprocess.run([a.msperf, "estimate", "--ops", trace, "--format", "jsonl"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cli = time.perf_counter() - t0
    finally:
        os.unlink(trace)
    t0 = time.perf_counter()
    engine = msperf.Engine()
    results = engine.query_many(ops, jobs=a.jobs)
    py = time.perf_counter() - t0
    t0 = time.perf_counter()
    results1 = engine.query_many(ops, jobs=1)
    py1 = time.perf_counter() - t0
    assert [r.latency_us for r in results] == [r.latency_us for r in results1]
    print(f"ops: {a.n}")
    print(f"msperf estimate --format jsonl: {cli:.3f} s, {cli / a.n * 1e6:.2f} us/op (process total)")
    print(f"query_many(jobs={a.jobs}): {py:.3f} s, {py / a.n * 1e6:.2f} us/op (incl. Engine start)")
    print(f"query_many(jobs=1), warm engine: {py1:.3f} s, {py1 / a.n * 1e6:.2f} us/op")
    print(f"query_many speed vs CLI: {cli / py * 100:.0f} % (jobs={a.jobs}), "
          f"{cli / py1 * 100:.0f} % (jobs=1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
