#!/usr/bin/env python3
"""Extrapolation accuracy one grid step beyond the data (doc/formats.md § Extrapolation).

For each axis of MatMulV2's bf16 grid in a database (default doc/examples/h200-db), hide every
row at the largest value of that axis, answer each hidden coordinate as an aten.mm op with
`msperf estimate` under a policy allowing extrapolation, and print the median / p90 relative
error per strategy. Usage: extrap_accuracy.py MSPERF_BIN [DB_DIR]. Needs only the standard
library (no numpy: the quantile is numpy's default linear one)."""
import csv, json, os, shutil, subprocess, sys, tempfile

def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

def mkn(row):
    a, b = row["Input Shapes"].split(";")
    m, k = (int(x) for x in a.split(","))
    b = [int(x) for x in b.split(",")]
    return m, k, (b[0] if b[1] == k else b[1])

def main():
    binary = sys.argv[1]
    db = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "doc", "examples", "h200-db")
    with open(os.path.join(db, "MatMulV2.csv"), newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    bf16 = [r for r in rows if r["Input Data Types"] == "DT_BF16;DT_BF16"]
    print("axis  hidden  strategy       answered  median_rel  p90_rel  max_rel")
    pooled = {"hold_analytic": [], "marginal": []}
    for j, axis in enumerate("MKN"):
        top = max(mkn(r)[j] for r in bf16)
        hidden = [r for r in bf16 if mkn(r)[j] == top]
        with tempfile.TemporaryDirectory() as tmp:
            tdb = os.path.join(tmp, "db")
            shutil.copytree(db, tdb)
            with open(os.path.join(tdb, "MatMulV2.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=fields)
                w.writeheader()
                w.writerows(r for r in rows if r not in hidden or r["Input Data Types"] != "DT_BF16;DT_BF16")
            trace = os.path.join(tmp, "trace.jsonl")
            with open(trace, "w") as f:
                for r in hidden:
                    m, k, n = mkn(r)
                    f.write(json.dumps({"op": "aten.mm.default",
                                        "args": [{"shape": [m, k], "dtype": "bfloat16"},
                                                 {"shape": [k, n], "dtype": "bfloat16"}],
                                        "out": [{"shape": [m, n], "dtype": "bfloat16"}]}) + "\n")
            for strategy in ("hold_analytic", "marginal"):
                pol = os.path.join(tmp, "p.yaml")
                with open(pol, "w") as f:
                    f.write("interpolation:\n  allow_extrapolation: true\n"
                            "  extrapolation: {strategy: %s, max_ratio: 2}\n" % strategy)
                out = subprocess.run([binary, "--policy", pol, "estimate", "--profiling-database", tdb,
                                      "--ops", trace, "--format", "jsonl"], check=True,
                                     capture_output=True, text=True).stdout
                answers = [json.loads(l) for l in out.splitlines() if l.startswith('{"index"')]
                errs = [abs(a["latency_us"] - float(r["Average Duration(us)"])) / float(r["Average Duration(us)"])
                        for a, r in zip(answers, hidden) if a["source"] == "EXTRAPOLATED"]
                pooled[strategy] += errs
                print("%-5s %6d  %-13s %9d  %9.2f%%  %6.2f%%  %6.2f%%" % (
                    axis, len(hidden), strategy, len(errs), 100 * quantile(errs, 0.5),
                    100 * quantile(errs, 0.9), 100 * max(errs) if errs else float("nan")))
    for strategy, errs in pooled.items():
        print("all   %6d  %-13s %9d  %9.2f%%  %6.2f%%  %6.2f%%" % (
            len(errs), strategy, len(errs), 100 * quantile(errs, 0.5), 100 * quantile(errs, 0.9),
            100 * max(errs)))

if __name__ == "__main__":
    main()
