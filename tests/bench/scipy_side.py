#!/usr/bin/python3
"""msperf bench: the scipy side of the side-by-side (run by tests/bench/bench, `make bench`).

usage: scipy_side.py POINTS ANSWERS LIMIT
       scipy_side.py --jsonl CSV ANSWERS.jsonl LIMIT

POINTS  one candidate row per line, "M K N latency" (latency as a C99 hex float), in CSV row
        order: the order msperf's candidate index keeps, which Qhull's output depends on.
ANSWERS one query per line, "dim M K N answer" (answer: msperf's value as a hex float).
LIMIT   how many queries to time (scipy is slow: ~ms to s per query).

For each query the candidate set is rebuilt as msperf's index builds it for that axis group
(dim 3: every point, axes M,K,N; dim 2: axes M,K with N equal to the target's), duplicates
aggregated by the median in first-occurrence order, and scipy.interpolate.griddata(points,
values, [x], method="linear") is called once per query — the upstream calling pattern, which
re-triangulates every time. Prints "S <median us per query> <max relative difference> <n>".

--jsonl (the end-to-end rows, bench_e2e.c): ANSWERS.jsonl is `msperf estimate --format jsonl`
output of 3-D GEMM queries and CSV the database's MatMulV2.csv. The candidate set is rebuilt
from the CSV as the compute module builds it (plugins/compute/compute_axes.c): the rows with the
query's input dtypes and ND;ND formats, in file order, M = lhs[0], K = lhs[1], N = rhs[1] if
rhs[0] == K else rhs[0]; its size must equal the answer's details.raw_count. In the answer's
space ("log": griddata over log2 coordinates and ln latencies, then exp — as msperf and
upstream's log mode do), griddata is called once per query on the median-aggregated points;
the time is the process's CPU time (time.process_time), as msperf's side is judged.
"""
import sys
import time

import numpy as np
from scipy.interpolate import griddata


def read_points(path):
    rows = []
    with open(path) as f:
        for line in f:
            m, k, n, lat = line.split()
            rows.append((float(m), float(k), float(n), float.fromhex(lat)))
    return rows


def aggregate(coords, values):
    """Median of duplicate coordinates, first-occurrence order (core/interp.h)."""
    order, groups = [], {}
    for c, v in zip(coords, values):
        if c not in groups:
            groups[c] = []
            order.append(c)
        groups[c].append(v)
    pts = np.array(order, dtype=float)
    vals = np.array([float(np.median(groups[c])) for c in order], dtype=float)
    return pts, vals


def csv_candidates(path, dtype):
    """(M, K, N) and latency of the rows of one input dtype, ND formats, in file order."""
    import csv
    want = f"{dtype};{dtype}"
    coords, values = [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["Input Data Types"] != want or row["Input Formats"] != "ND;ND":
                continue
            shapes = [[int(d) for d in s.split(",")] for s in row["Input Shapes"].split(";")]
            if len(shapes) != 2 or len(shapes[0]) != 2 or len(shapes[1]) != 2:
                continue
            (m, k), rhs = shapes[0], shapes[1]
            if rhs[0] == k:
                n = rhs[1]
            elif rhs[1] == k:
                n = rhs[0]
            else:
                continue
            coords.append((float(m), float(k), float(n)))
            values.append(float(row["Average Duration(us)"]))
    return coords, values


def main_jsonl(csv_path, answers_path, limit):
    import json
    cands = {}
    times, max_rel, n = [], 0.0, 0
    with open(answers_path) as f:
        for line in f:
            if n >= limit:
                break
            a = json.loads(line)
            if a.get("source") != "INTERPOLATED" or a.get("interpolation_dim") != 3:
                continue
            d = a["details"]
            dtype = "DT_BF16"  # the end-to-end traces are bf16 GEMMs (bench_e2e.c)
            if dtype not in cands:
                cands[dtype] = csv_candidates(csv_path, dtype)
            coords, values = cands[dtype]
            if len(coords) != d["raw_count"]:
                raise SystemExit("scipy_side.py: %d candidate rows, msperf used %d"
                                 % (len(coords), d["raw_count"]))
            x = [float(a["axes"][k]) for k in ("M", "K", "N")]
            log = d.get("space") == "log"
            # CPU time, as msperf's side is judged (the machine is shared).
            t0 = time.process_time()
            pts, vals = aggregate(coords, values)
            if log:
                got = float(np.exp(griddata(np.log2(pts), np.log(vals),
                                            np.log2(np.array([x])), method="linear")[0]))
            else:
                got = float(griddata(pts, vals, np.array([x]), method="linear")[0])
            times.append((time.process_time() - t0) * 1e6)
            ans = a["latency_us"]
            rel = float("inf") if np.isnan(got) else abs(got - ans) / max(abs(got), 1e-300)
            max_rel = max(max_rel, rel)
            n += 1
    print("S %.3f %.6g %d" % (float(np.median(times)) if times else float("nan"), max_rel, n))


def main():
    if sys.argv[1] == "--jsonl":
        main_jsonl(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    points_path, answers_path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rows = read_points(points_path)
    queries = []
    with open(answers_path) as f:
        for line in f:
            dim, m, k, n, ans = line.split()
            queries.append((int(dim), float(m), float(k), float(n), float.fromhex(ans)))
    queries = queries[:limit]
    times, max_rel = [], 0.0
    for dim, m, k, n, ans in queries:
        if dim == 3:
            sel = [((r[0], r[1], r[2]), r[3]) for r in rows]
            x = [m, k, n]
        elif dim == 2:
            sel = [((r[0], r[1]), r[3]) for r in rows if r[2] == n]
            x = [m, k]
        else:
            raise SystemExit("scipy_side.py: only 2-D and 3-D queries")
        coords = [c for c, _ in sel]
        values = [v for _, v in sel]
        t0 = time.perf_counter()
        pts, vals = aggregate(coords, values)
        got = griddata(pts, vals, np.array([x], dtype=float), method="linear")[0]
        times.append((time.perf_counter() - t0) * 1e6)
        if np.isnan(got) or np.isnan(ans):
            rel = 0.0 if (np.isnan(got) and np.isnan(ans)) else float("inf")
        else:
            rel = abs(got - ans) / max(abs(got), 1e-300)
        max_rel = max(max_rel, rel)
    print("S %.3f %.6g %d" % (float(np.median(times)), max_rel, len(queries)))


if __name__ == "__main__":
    main()
