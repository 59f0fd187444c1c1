#!/usr/bin/python3
"""Generate tests/data/interp/log_space.txt, the golden values of interpolation space: log
(tests/interp/test_log_space.c).

Run ONCE with Debian 12's python3-scipy (1.10.1) and python3-numpy (1.24.2):

    /usr/bin/python3 tests/interp/gen_log_goldens.py tests/data/interp/log_space.txt

and commit the output; `make check` never runs Python. The C test compares with ==.
numpy's exp/log/log2 are its libm-based portable loops (see NPY_DISABLE_CPU_FEATURES below).

What msperf computes in log space (doc/decisions.md): the raw points are aggregated exactly as
in linear space (equal raw coordinates grouped, their raw latencies reduced by the median —
the mean of the two middle values for an even count — unique points in the order of their
first occurrence), then every coordinate goes through log2 and every aggregated latency
through ln; the answer is

    D >= 2:  numpy.exp(griddata(log2(U), log(V), log2([x]), method="linear"))[0]
    D == 1:  numpy.exp(numpy.interp(log2(x), log2(sorted U), log(V sorted alike)))

with NaN outside the convex hull / the range. Each query is its own griddata call (the walk
starts at simplex 0, as the engine calls it once per target).

File format ('#' starts a comment line; numbers are %.17g, which strtod reads back exactly):

    case NAME
    dim D
    space log|linear   linear: the same without any transform (the 4-D cases of
                       MSPERF_DELAUNAY_MAX_DIM 4: griddata(U, V, [x]) itself)
    points N           then N lines: x_0 .. x_{D-1} latency   (raw, duplicates allowed)
    build ok|degenerate   degenerate: scipy's Delaunay raised QhullError (or rank < D)
    queries Q          then Q lines: x_0 .. x_{D-1} expected  (nan outside)
    end
"""

import os
import sys

# numpy 1.24 dispatches float64 exp/log/log2 to AVX512F kernels on CPUs that have it; those
# differ from libm (glibc) in the last bit for some inputs, so numpy.exp/log results would
# depend on the machine. With the AVX512F family disabled numpy uses its portable loops, which
# call libm: the same functions msperf calls, on every machine.
os.environ["NPY_DISABLE_CPU_FEATURES"] = ("AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL "
                                          "AVX512_ICL")

import numpy as np
import scipy
from scipy.interpolate import griddata
from scipy.spatial import Delaunay, QhullError


def g17(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    return "%.17g" % v


def aggregate(points, lat):
    """msperf_interp_aggregate with the median: first-occurrence order."""
    keys = []
    groups = {}
    for p, y in zip(points, lat):
        k = tuple(float(c) for c in p)
        if k not in groups:
            groups[k] = []
            keys.append(k)
        groups[k].append(float(y))
    uc, uv = [], []
    for k in keys:
        ys = sorted(groups[k])
        n = len(ys)
        uv.append(ys[n // 2] if n % 2 else (ys[n // 2 - 1] + ys[n // 2]) / 2.0)
        uc.append(k)
    return np.array(uc, dtype=float), np.array(uv, dtype=float)


def rank_ok(u):
    d = u.shape[1]
    if len(u) < d + 1:
        return False
    return np.linalg.matrix_rank(u - u[0]) >= d


def expected(dim, u, v, queries, space="log"):
    if space == "linear":
        return expected_linear(dim, u, v, queries)
    lu, lv = np.log2(u), np.log(v)
    if dim == 1:
        order = np.argsort(lu[:, 0], kind="stable")
        xp, fp = lu[order, 0], lv[order]
        out = []
        for q in queries:
            x = np.log2(q[0])
            out.append(np.nan if x < xp[0] or x > xp[-1] else np.exp(np.interp(x, xp, fp)))
        return "ok", out
    if not rank_ok(lu):
        return "degenerate", []
    try:
        Delaunay(lu)
    except QhullError:
        return "degenerate", []
    out = []
    for q in queries:
        val = griddata(lu, lv, np.log2(np.array([q], dtype=float)), method="linear")[0]
        out.append(np.exp(val))
    return "ok", out


def expected_linear(dim, u, v, queries):
    if not rank_ok(u):
        return "degenerate", []
    try:
        Delaunay(u)
    except QhullError:
        return "degenerate", []
    return "ok", [griddata(u, v, np.array([q], dtype=float), method="linear")[0]
                  for q in queries]


def write_case(f, name, dim, points, lat, queries, space="log"):
    u, v = aggregate(points, lat)
    build, vals = expected(dim, u, v, queries, space)
    f.write("case %s\ndim %d\nspace %s\npoints %d\n" % (name, dim, space, len(points)))
    for p, y in zip(points, lat):
        f.write(" ".join(g17(c) for c in p) + " " + g17(y) + "\n")
    f.write("build %s\n" % build)
    if build != "ok":
        queries = []
    f.write("queries %d\n" % len(queries))
    for q, e in zip(queries, vals):
        f.write(" ".join(g17(c) for c in q) + " " + g17(e) + "\n")
    f.write("end\n")


def latency_model(p, rng, noise=0.05):
    # A roofline-ish latency: product of the axes with a floor, times noise.
    return 3.0 + 1e-6 * float(np.prod(p)) * float(rng.uniform(1.0 - noise, 1.0 + noise))


def grid(axes):
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def queries_for(rng, points, n_random, extra):
    lo, hi = points.min(axis=0), points.max(axis=0)
    llo, lhi = np.log2(lo), np.log2(hi)
    q = [list(np.exp2(rng.uniform(llo, lhi))) for _ in range(n_random)]
    # random integer coordinates (shapes are counts)
    q += [list(np.round(np.exp2(rng.uniform(llo, lhi)))) for _ in range(n_random // 2)]
    q += [list(points[k]) for k in rng.choice(len(points), size=min(5, len(points)),
                                              replace=False)]        # on vertices
    for _ in range(5):                                                # on edges (log midpoint)
        a, b = points[rng.choice(len(points), size=2, replace=False)]
        q.append(list(np.sqrt(a * b)))
    for _ in range(3):                                                # outside the box
        q.append(list(hi * 1.5))
    q += extra
    return q


def main(out):
    rng = np.random.default_rng(20261201)
    with open(out, "w") as f:
        f.write("# msperf golden fixture generated by tests/interp/gen_log_goldens.py\n"
                "# scipy %s, numpy %s (Debian 12 python3-scipy / python3-numpy); do not edit\n"
                % (scipy.__version__, np.__version__))

        # 1-D
        xs = np.array([[1.0], [16.0], [128.0], [1000.0], [4096.0], [16.0], [5000.0]])
        lat = [latency_model(p, rng) for p in xs]
        write_case(f, "line1d_dups", 1, xs, lat,
                   queries_for(rng, xs, 10, [[2.0], [300.0], [4999.0], [0.5]]))

        # 2-D grids: powers of two (log2 exact) and irregular shape grids
        g = grid([2.0 ** np.arange(4, 12), 2.0 ** np.arange(6, 13)])
        write_case(f, "grid2d_pow2", 2, g, [latency_model(p, rng) for p in g],
                   queries_for(rng, g, 30, [[100.0, 100.0], [16.0, 4096.0]]))
        g = grid([np.array([1.0, 3.0, 10.0, 30.0, 100.0, 300.0]),
                  np.array([7.0, 64.0, 100.0, 777.0, 4096.0])])
        write_case(f, "grid2d_shapes", 2, g, [latency_model(p, rng) for p in g],
                   queries_for(rng, g, 30, [[50.0, 500.0]]))

        # 2-D random with duplicates
        p = np.round(np.exp2(rng.uniform(3, 14, size=(80, 2))))
        p = np.concatenate([p, p[:10]])
        write_case(f, "random2d_dups", 2, p, [latency_model(x, rng, 0.3) for x in p],
                   queries_for(rng, p, 40, []))
        p = np.exp2(rng.uniform(0, 10, size=(300, 2)))
        write_case(f, "random2d_300", 2, p, [latency_model(x, rng, 0.3) for x in p],
                   queries_for(rng, p, 60, []))

        # 2-D degenerate: collinear in log space (a geometric progression on both axes)
        p = np.array([[2.0 ** k, 4.0 ** k] for k in range(1, 7)])
        write_case(f, "collinear2d_log", 2, p, [latency_model(x, rng) for x in p],
                   [[8.0, 64.0]])
        # collinear in linear space, NOT in log space (x, 2x + 1)
        p = np.array([[float(k), 2.0 * k + 1.0] for k in range(1, 9)])
        write_case(f, "linear_collinear2d", 2, p, [latency_model(x, rng) for x in p],
                   queries_for(rng, p, 20, [[4.0, 9.0], [4.5, 10.0]]))

        # 3-D
        g = grid([2.0 ** np.arange(4, 9), 2.0 ** np.arange(8, 12), 2.0 ** np.arange(6, 11)])
        write_case(f, "grid3d_pow2", 3, g, [latency_model(x, rng) for x in g],
                   queries_for(rng, g, 40, [[100.0, 1000.0, 300.0]]))
        g = grid([np.array([1.0, 7.0, 100.0, 333.0]), np.array([64.0, 96.0, 4096.0]),
                  np.array([3.0, 30.0, 3000.0])])
        write_case(f, "grid3d_shapes", 3, g, [latency_model(x, rng) for x in g],
                   queries_for(rng, g, 40, []))
        p = np.round(np.exp2(rng.uniform(4, 13, size=(120, 3))))
        p = np.concatenate([p, p[5:15]])
        write_case(f, "random3d_dups", 3, p, [latency_model(x, rng, 0.3) for x in p],
                   queries_for(rng, p, 60, []))
        p = np.array([[2.0 ** k, 3.0, 2.0 ** (2 * k)] for k in range(1, 6)]
                     + [[2.0, 5.0, 4.0]])   # coplanar in log space
        write_case(f, "coplanar3d_log", 3, p, [latency_model(x, rng) for x in p],
                   [[4.0, 4.0, 16.0]])

        # 4-D (MSPERF_DELAUNAY_MAX_DIM 4)
        g = grid([2.0 ** np.arange(0, 4), 2.0 ** np.arange(6, 9), 2.0 ** np.arange(7, 10),
                  2.0 ** np.arange(8, 11)])
        write_case(f, "grid4d_pow2", 4, g, [latency_model(x, rng) for x in g],
                   queries_for(rng, g, 40, [[3.0, 100.0, 300.0, 1000.0]]))
        p = np.round(np.exp2(rng.uniform(2, 12, size=(150, 4))))
        p = np.concatenate([p, p[:8]])
        write_case(f, "random4d_dups", 4, p, [latency_model(x, rng, 0.3) for x in p],
                   queries_for(rng, p, 60, []))
        p = np.array([[2.0 ** a, 2.0 ** b, 2.0 ** (a + b), 8.0]
                      for a in range(1, 4) for b in range(1, 4)])   # flat in log space
        write_case(f, "flat4d_log", 4, p, [latency_model(x, rng) for x in p],
                   [[4.0, 4.0, 16.0, 8.0]])

        # 4-D in linear space: scipy's griddata on the raw (aggregated) points
        p = rng.uniform(0, 1, size=(200, 4))
        write_case(f, "random4d_200_linear", 4, p, [1.0 + float(np.sum(x ** 2)) for x in p],
                   [list(rng.uniform(0, 1, size=4)) for _ in range(120)]
                   + [list(p[k]) for k in range(5)], "linear")
        g = grid([np.array([1.0, 2.0, 4.0]), np.array([64.0, 128.0, 192.0]),
                  np.array([3.0, 5.0, 8.0]), np.array([100.0, 1000.0])])
        g = np.concatenate([g, g[:6]])
        write_case(f, "grid4d_dups_linear", 4, g, [latency_model(x, rng, 0.3) for x in g],
                   queries_for(rng, g, 60, [[1.5, 100.0, 4.0, 500.0], [2.0, 128.0, 5.0, 550.0]]),
                   "linear")
        p = np.array([[a, b, a + b, 1.0] for a in range(1, 4) for b in range(1, 4)], dtype=float)
        write_case(f, "flat4d_linear", 4, p, [latency_model(x, rng) for x in p],
                   [[2.0, 2.0, 4.0, 1.0]], "linear")


if __name__ == "__main__":
    main(sys.argv[1])
