"""msperf Python module against the CLI: the same answers on the sample traces, errors,
threads, reference counts. Run by `make check` (TAP, python/tests/tap.py)."""
import gc
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

if os.environ.get("MSPERF_PY_SANITIZED") != "yes":
    import msperf  # noqa: E402

SRC = os.environ.get("MSPERF_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MSPERF = os.environ.get("MSPERF_BIN", "msperf")
DB = os.path.join(SRC, "doc", "examples", "h200-db")
TRACES = [os.path.join(SRC, "doc", "examples", "traces", t) for t in
          ("llama3-8b-prefill.jsonl", "llama3-8b-decode.jsonl", "llama3-8b-prefill-tp2.jsonl")]
MM = {"op": "aten.mm.default", "args": [{"shape": [2048, 4096], "dtype": "bfloat16"},
                                        {"shape": [4096, 4096], "dtype": "bfloat16"}]}
# The fields of a JSONL record that the answer determines (not the input position).
ANSWER_KEYS = ("op", "count", "source", "confidence", "latency_us", "total_us",
               "analytic_latency_us", "kernel_type", "method", "interpolation_dim",
               "shape_match_rule", "miss_reason", "details")


def cli(*args):
    proc = subprocess.run([MSPERF, *args], capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise AssertionError(f"msperf {' '.join(args)}: exit {proc.returncode}: {proc.stderr}")
    return proc.stdout


def trace_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip() and not line.startswith("#")]


def rss_kib():
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def stable(record):
    """A record without what depends on the input position or on what the engine answered
    before (details.index_cache says whether a candidate index already existed)."""
    record = dict(record)
    record.pop("index", None)
    record.pop("line", None)
    if isinstance(record.get("details"), dict):
        record["details"] = {k: v for k, v in record["details"].items() if k != "index_cache"}
    return record


class CliParity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.engine = msperf.Engine(database=DB)

    def test_estimate_document_equals_cli_json(self):
        for trace in TRACES:
            want = json.loads(cli("estimate", "--profiling-database", DB, "--ops", trace,
                                  "--format", "json"))
            # A fresh engine, as each CLI run is: index_cache details then agree too.
            got = msperf.Engine(database=DB).estimate(trace).to_dict()
            self.assertEqual(got, want, trace)

    def test_estimate_summary_fields(self):
        s = self.engine.estimate(TRACES[0])
        want = json.loads(cli("estimate", "--ops", TRACES[0], "--format", "json"))
        self.assertEqual(s.total_us, want["summary"]["total_us"])
        self.assertEqual(s.by_source, want["summary"]["by_source"])
        self.assertEqual(s.metrics, want["metrics"])
        self.assertEqual(set(s.metrics), {"m1", "m2", "m3", "m4", "m5"})
        self.assertAlmostEqual(sum(s.shares.values()), 1.0, places=9)
        self.assertEqual(s.errors, [])

    def test_estimate_of_an_iterable_equals_the_file(self):
        for trace in TRACES:
            by_file = self.engine.estimate(trace).to_dict()
            by_list = self.engine.estimate(trace_lines(trace)).to_dict()
            self.assertEqual(by_list["summary"], by_file["summary"])
            self.assertEqual(by_list["metrics"], by_file["metrics"])

    def test_query_equals_cli_jsonl(self):
        for trace in TRACES:
            want = [json.loads(l) for l in
                    cli("estimate", "--ops", trace, "--format", "jsonl").splitlines()]
            ops = trace_lines(trace)
            self.assertEqual(len(ops), len(want))
            engine = msperf.Engine(database=DB)
            for op, rec in zip(ops, want):
                got = engine.query(op)
                self.assertEqual(got.latency_us, rec["latency_us"], op["op"])
                self.assertEqual(got.source, rec["source"], op["op"])
                d = got.to_dict()
                for key in ANSWER_KEYS:
                    self.assertEqual(d.get(key), rec.get(key), f"{op['op']}: {key}")

    def test_query_equals_cli_query(self):
        want = json.loads(cli("query", "--op", json.dumps(MM)))
        got = self.engine.query(MM)
        self.assertEqual(got.latency_us, want["latency_us"])
        self.assertEqual(got.source, "MEASURED")
        self.assertEqual(got.method, "exact")
        self.assertEqual(got.details, want["details"])
        self.assertEqual(got.analytic_latency_us, want["analytic_latency_us"])
        self.assertIsNone(got.miss_reason)
        self.assertEqual(self.engine.query(json.dumps(MM)).latency_us, got.latency_us)

    def test_result_attributes(self):
        r = self.engine.query(MM)
        self.assertIsInstance(r.details, dict)
        self.assertEqual(r.kernel_type, "MatMulV2")
        self.assertEqual(r.op, "aten.mm.default")
        self.assertEqual(r.count, 1)
        self.assertEqual(r.confidence, 1.0)
        self.assertIn("MEASURED", repr(r))
        miss = self.engine.query({"op": "no.such.op", "args": []})
        self.assertNotIn(miss.source, ("MEASURED", "INTERPOLATED"))
        self.assertTrue(miss.miss_reason)

    def test_torch_ops_prefix_is_stripped(self):
        op = dict(MM, op="torch.ops.aten.mm.default")
        self.assertEqual(self.engine.query(op).latency_us, self.engine.query(MM).latency_us)


class Errors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.engine = msperf.Engine(database=DB)

    def bad(self, op, *fragments):
        with self.assertRaises(ValueError) as ctx:
            self.engine.query(op)
        for f in fragments:
            self.assertIn(f, str(ctx.exception))

    def test_bad_ops_name_the_field(self):
        self.bad({"op": "aten.mm.default", "args": [{"shape": [-1], "dtype": "bfloat16"}]},
                 "args[0].shape")
        self.bad({"op": "aten.mm.default", "args": [{"shape": [2], "dtype": "bf17"}]},
                 "args[0]", "bf17")
        self.bad({"op": "aten.mm.default", "count": 0}, "count")
        self.bad({"op": 3}, "op")
        self.bad({"args": []}, "op")
        self.bad({"op": "x", "args": [float("nan")]}, "args[0]")
        self.bad({"op": "x", "args": [object()]}, "args[0]", "object")
        self.bad({"op": "x", "args": [{"shape": [2 ** 70], "dtype": "int8"}]}, "args[0].shape")
        self.bad(["not", "a", "dict"], "dict")
        self.bad("{not json", "JSON")

    def test_att_bound_symbols_meet_the_domain_checks(self):
        """att.bind values from Python get the checks `msperf att --bind` applies (one check in
        core/att): REJECTED with the reason naming the symbol, never a latency."""
        def duplicate(n):
            return self.engine.query({"op": "ascir.Broadcast",
                                      "att": {"kind": "duplicate", "dtype": "float16",
                                              "count": "n", "bind": {"n": n}}})
        for n, reason in ((2 ** 31, "count of a Duplicate (int32) is 2147483648"),
                          (-2 ** 63, "att.count is -9223372036854775808"),
                          (0, "att.count is 0"), (1.5, "att.count")):
            r = duplicate(n)
            self.assertEqual(r.source, "REJECTED", n)
            self.assertIn(f"att.bind.n = {n} is out of the parameter's domain: ", r.miss_reason)
            self.assertIn(reason, r.miss_reason)
        self.assertEqual(duplicate(64).source, "ANALYTIC")

    def test_query_many_names_the_op(self):
        ops = [MM, MM, {"op": "aten.mm.default", "args": [{"shape": [-1], "dtype": "int8"}]}]
        with self.assertRaises(ValueError) as ctx:
            self.engine.query_many(ops, jobs=2)
        self.assertIn("ops[2]", str(ctx.exception))
        self.assertIn("args[0].shape", str(ctx.exception))

    def test_configuration_errors(self):
        with self.assertRaises(msperf.FileError) as ctx:
            msperf.Engine(database="/nonexistent/db")
        self.assertIsInstance(ctx.exception, msperf.Error)
        self.assertIn("/nonexistent/db", str(ctx.exception))
        with self.assertRaises(msperf.Error):
            msperf.Engine(database=DB, device="no-such-device")
        with self.assertRaises(msperf.Error):
            msperf.Engine(database=DB, overrides={"parallel.no_such_key": 1})
        with self.assertRaises(ValueError):
            msperf.Engine(database=DB, performance_model="guess")

    def test_policy_error_has_file_and_line(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"msperf-py-policy-{os.getpid()}.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("interpolation:\n  enabled: true\n  max_interpolation_dim: 9\n")
        try:
            with self.assertRaises(msperf.Error) as ctx:
                msperf.Engine(database=DB, policy=path)
            self.assertRegex(str(ctx.exception), r"\.yaml:\d+")
        finally:
            os.unlink(path)

    def test_rejected_lines_in_estimate(self):
        s = self.engine.estimate([MM, {"op": "aten.mm.default", "count": 0}])
        self.assertEqual(s.rejected, 1)
        self.assertEqual(len(s.errors), 1)
        self.assertIn("<ops>:2", s.errors[0])


class BuildTree(unittest.TestCase):
    """From the build tree (python3 is not a build-tree program) the modules find the shipped
    data, the ATT cost table among it, without MSPERF_UNINSTALLED: no module is rejected."""

    def test_att_modules_load_without_msperf_uninstalled(self):
        env = {k: v for k, v in os.environ.items() if k != "MSPERF_UNINSTALLED"}
        code = ("import msperf\n"
                "e = msperf.Engine()\n"
                "r = e.query({'op': 'ascir.Cast', 'att': {'kind': 'cast', 'in_dtype': 'float32',"
                " 'out_dtype': 'float16', 'shape': [129]}})\n"
                "print(r.method)\n")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("module rejected", proc.stderr)
        self.assertNotIn("cannot read", proc.stderr)
        self.assertEqual(proc.stdout.strip(), "att")


class Threads(unittest.TestCase):
    def test_query_many_jobs_equal_jobs_1(self):
        engine = msperf.Engine(database=DB)
        ops = [op for t in TRACES for op in trace_lines(t)] * 40
        one = [stable(r.to_dict()) for r in engine.query_many(ops, jobs=1)]
        for jobs in (2, 4, 0):
            many = [stable(r.to_dict()) for r in engine.query_many(ops, jobs=jobs)]
            self.assertEqual(many, one, f"jobs={jobs}")
        fresh = msperf.Engine(database=DB)
        self.assertEqual([stable(r.to_dict()) for r in fresh.query_many(ops, jobs=4)], one)
        self.assertEqual([stable(engine.query(op).to_dict()) for op in ops[:80]], one[:80])

    def test_python_threads_share_an_engine(self):
        import threading
        engine = msperf.Engine(database=DB)
        ops = trace_lines(TRACES[0]) * 20
        want = [r.latency_us for r in engine.query_many(ops, jobs=1)]
        out, errors = {}, []

        def run(k):
            try:
                out[k] = [r.latency_us for r in (engine.query_many(ops, jobs=2) if k % 2
                                                 else map(engine.query, ops))]
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)
        threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for k in range(4):
            self.assertEqual(out[k], want)


class References(unittest.TestCase):
    def test_no_leak_over_100000_queries(self):
        engine = msperf.Engine(database=DB)
        ops = trace_lines(TRACES[0])
        op = ops[2]

        def one_round():
            for k in range(100000):
                r = engine.query(ops[k % len(ops)])
                r.details, r.to_dict() if k % 100 == 0 else None, r.kernel_shapes
            for _ in range(10):
                engine.query_many(ops * 1000, jobs=2)
            gc.collect()

        # The first round grows the caches, the allocator and the worker threads' arenas;
        # an identical second round must not grow: a leak of even 40 bytes a query would add
        # 4 MiB over its 100 000 queries (and more through query_many).
        # Allocator noise (the worker threads' arenas under a loaded machine) can add a few MiB
        # to one round; a leak adds them to every round. So the test fails only when two
        # identical rounds after the warm-up both grow.
        one_round()
        refs = sys.getrefcount(op)
        growth = []
        for _ in range(2):
            before = rss_kib()
            one_round()
            growth.append(rss_kib() - before)
        self.assertEqual(sys.getrefcount(op), refs)
        self.assertLess(min(growth), 4 * 1024,
                        f"RSS grew by {growth} KiB over each of two further 100 000-query rounds")

    def test_errors_do_not_leak(self):
        engine = msperf.Engine(database=DB)
        bad = {"op": "aten.mm.default", "args": [{"shape": [-1], "dtype": "int8"}]}
        for _ in range(2000):
            try:
                engine.query(bad)
            except ValueError:
                pass
        gc.collect()
        before = rss_kib()
        for _ in range(20000):
            try:
                engine.query(bad)
            except ValueError:
                pass
        gc.collect()
        self.assertLess(rss_kib() - before, 4 * 1024)


if __name__ == "__main__":
    sys.exit(tap.main())
