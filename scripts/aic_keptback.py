#!/usr/bin/python3
"""Kept-back accuracy on real H200 GEMMs: build a database from the aiconfigurator table
(../shared/data/aic-h200-gemm, Apache-2.0) restricted to the shipped sample database's grid
(M = 1, 2, 4, ..., 8192; K, N in {256, 512, 1024, 2048, 3072, 4096, 6144, 8192}), then ask
msperf for every other measured shape of that table — inside the grid (off-grid on one to three
axes) and one grid step beyond it (M, K or N up to 16384, ratio <= 2) — and print the median and
p90 relative error per class, source and method. Same measurements on both sides, so the error
is the method's, not a difference between two benches.

usage: aic_keptback.py MSPERF AIC_DIR [POLICY.yaml|-] [N_QUERIES]
The POLICY is passed as --policy (e.g. interpolation: {space: log, allow_extrapolation: true}).
Python standard library only."""
import csv, json, os, random, statistics, subprocess, sys, tempfile

def main():
    msperf, aic = sys.argv[1], sys.argv[2]
    policy = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != '-' else None
    n_max = int(sys.argv[4]) if len(sys.argv) > 4 else 4000
    grid_m = {2 ** i for i in range(14)}
    grid_kn = {256, 512, 1024, 2048, 3072, 4096, 6144, 8192}
    rows = list(csv.reader(open(os.path.join(aic, 'MatMulV2.csv'))))
    keep, test = [rows[0]], []
    for r in rows[1:]:
        a, w = r[2].split(';')
        m, k = map(int, a.split(','))
        n = int(w.split(',')[0])
        if m in grid_m and k in grid_kn and n in grid_kn:
            keep.append(r)
        elif 1 <= m <= 8192 and 256 <= k <= 8192 and 256 <= n <= 8192:
            test.append((m, k, n, float(r[8]), 'inside'))
        elif 1 <= m <= 16384 and 256 <= k <= 16384 and 256 <= n <= 16384:
            test.append((m, k, n, float(r[8]), 'beyond'))
    random.seed(2)
    random.shuffle(test)
    test = test[:n_max]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'MatMulV2.csv'), 'w', newline='') as f:
            csv.writer(f).writerows(keep)
        with open(os.path.join(d, 'op_mapping.yaml'), 'w') as f:
            f.write('version: "1.0"\ndevice: NVIDIA_H200_SXM\noperator_mappings:\n'
                    '  "aten.mm.default":\n    kernel_type: MatMulV2\n')
        trace = os.path.join(d, 'trace.jsonl')
        with open(trace, 'w') as f:
            for m, k, n, _, _ in test:
                f.write(json.dumps({"op": "aten.mm.default",
                                    "args": [{"shape": [m, k], "dtype": "bfloat16"},
                                             {"shape": [k, n], "dtype": "bfloat16"}],
                                    "out": [{"shape": [m, n], "dtype": "bfloat16"}]}) + "\n")
        cmd = [msperf] + (['--policy', policy] if policy else []) + [
            'estimate', '--profiling-database', d, '--ops', trace, '--format', 'jsonl']
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    by = {}
    for line, (m, k, n, ref, cls) in zip(out, test):
        rec = json.loads(line)
        by.setdefault((cls, rec['source'], rec.get('method')), []).append(
            abs(rec['latency_us'] - ref) / ref)
    print(f"database: {len(keep) - 1} rows of the sample grid; {len(test)} kept-back shapes")
    for key, v in sorted(by.items()):
        v.sort()
        print(f"{key[0]:7s} {key[1]:13s} {str(key[2]):28s} {len(v):5d}  median "
              f"{100 * statistics.median(v):6.2f}%  p90 {100 * v[min(len(v) - 1, int(0.9 * len(v)))]:6.2f}%")

if __name__ == '__main__':
    main()
