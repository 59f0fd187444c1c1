"""msperf.tensorcast.MsperfDataSource with stand-in invocations shaped like upstream's
OpInvokeInfo (func, args, kwargs, out; tensors with .shape, .dtype, .stride()), and with real
meta tensors when torch is installed (skipped, visibly, otherwise)."""
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

if os.environ.get("MSPERF_PY_SANITIZED") != "yes":
    import msperf.tensorcast as tc  # noqa: E402

SRC = os.environ.get("MSPERF_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MSPERF = os.environ.get("MSPERF_BIN", "msperf")
DB = os.path.join(SRC, "doc", "examples", "h200-db")


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class Tensor:
    """Like a torch tensor on the meta device: shape, dtype, stride(), no values."""

    def __init__(self, shape, dtype="bfloat16", stride=None):
        self.shape = tuple(shape)
        self.dtype = Dtype(dtype)
        self._stride = stride

    def stride(self):
        if self._stride is not None:
            return tuple(self._stride)
        out, acc = [], 1
        for d in reversed(self.shape):
            out.insert(0, acc)
            acc *= d
        return tuple(out)


class OpOverload:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class OpInvokeInfo:
    def __init__(self, func, args, kwargs=None, out=None):
        self.func, self.args, self.kwargs, self.out = func, args, kwargs or {}, out


class Parallel:
    tp_size, ep_size, dp_size, world_size = 1, None, 1, 1


def mm_invocation(m=2048, k=4096, n=4096, prefix=""):
    return OpInvokeInfo(OpOverload(prefix + "aten.mm.default"),
                        (Tensor((m, k)), Tensor((k, n))), out=Tensor((m, n)))


def cli_query(op):
    proc = subprocess.run([MSPERF, "query", "--profiling-database", DB, "--op", json.dumps(op)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def lookup_in_worker(source):
    r = source.lookup(mm_invocation())
    return r.latency_us, r.source.name


class Adapter(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ds = tc.MsperfDataSource(DB, None, Parallel())

    def test_mm_hit_equals_msperf_query(self):
        info = mm_invocation(prefix="torch.ops.")
        want = cli_query({"op": "aten.mm.default",
                          "args": [{"shape": [2048, 4096], "dtype": "bfloat16"},
                                   {"shape": [4096, 4096], "dtype": "bfloat16"}]})
        r = self.ds.lookup(info)
        self.assertIsNotNone(r)
        self.assertEqual(r.latency_us, want["latency_us"])
        self.assertEqual(r.source.name, "MEASURED")
        self.assertEqual(r.confidence, want["confidence"])
        self.assertEqual(r.details["kernel_type"], "MatMulV2")
        self.assertEqual(r.shape_match_info.simulation_shapes, [[2048, 4096], [4096, 4096]])
        self.assertEqual(r.shape_match_info.kernel_shapes, [[2048, 4096], [4096, 4096]])
        self.assertEqual(r.shape_match_info.shape_match_rule, "identity")
        self.assertIsNone(self.ds.last_miss_reason)

    def test_invocation_conversion(self):
        op = tc.invocation_to_op(OpInvokeInfo(
            OpOverload("torch.ops.aten.mm.default"), (Tensor((4, 8), stride=(1, 4)), 3, [1, 2], None),
            {"phase": "decode"}, (Tensor((4, 4), "float32"),)))
        self.assertEqual(op, {"op": "aten.mm.default",
                              "args": [{"shape": [4, 8], "dtype": "torch.bfloat16",
                                        "stride": [1, 4]}, 3, [1, 2], None],
                              "kwargs": {"phase": "decode"},
                              "out": [{"shape": [4, 4], "dtype": "torch.float32", "stride": [4, 1]}]})

    def test_miss_returns_none_with_reason(self):
        r = self.ds.lookup(OpInvokeInfo(OpOverload("aten.unmapped_thing.default"), (Tensor((4, 4)),)))
        self.assertIsNone(r)
        self.assertTrue(self.ds.last_miss_reason)
        self.assertIsNotNone(self.ds.last_shape_match_info)
        self.assertEqual(self.ds.last_shape_match_info.simulation_shapes, [[4, 4]])

    def test_interpolated_source_name(self):
        ds = tc.MsperfDataSource(DB)
        r = ds.lookup(mm_invocation(n=7168))
        self.assertIsNotNone(r)
        self.assertEqual(r.source.name, "INTERPOLATED")
        exact = tc.MsperfDataSource(DB, interpolation=False)
        self.assertIsNone(exact.lookup(mm_invocation(n=7168)))
        self.assertEqual(exact.last_miss_reason, "shape_mismatch")

    def test_store_is_read_only(self):
        with self.assertRaises(NotImplementedError):
            self.ds.store(mm_invocation(), None)

    def test_lookup_many_equals_lookup(self):
        infos = [mm_invocation(n=n) for n in (1024, 4096, 7168, 14336)] * 50
        many = self.ds.lookup_many(infos, jobs=2)
        one = [self.ds.lookup(i) for i in infos]
        self.assertEqual([(r.latency_us, r.source) if r else None for r in many],
                         [(r.latency_us, r.source) if r else None for r in one])

    def test_pickle_by_path_and_forked_worker(self):
        clone = pickle.loads(pickle.dumps(self.ds))
        self.assertEqual(clone.data_dir, self.ds.data_dir)
        self.assertEqual(clone.lookup(mm_invocation()).latency_us,
                         self.ds.lookup(mm_invocation()).latency_us)
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(2) as pool:
            got = pool.map(lookup_in_worker, [self.ds, self.ds])
        want = lookup_in_worker(self.ds)
        self.assertEqual(got, [want, want])

    def test_parallel_config_reaches_the_engine(self):
        class P:
            tp_size, ep_size, dp_size = 2, 4, 1
        ds = tc.MsperfDataSource(DB, parallel_config=P())
        self.assertEqual(ds.engine.policy["parallel"]["tp_size"], 2)
        self.assertEqual(ds.engine.policy["parallel"]["ep_size"], 4)
        ds = tc.MsperfDataSource(DB, parallel_config={"tensor_parallel_size": 2})
        self.assertEqual(ds.engine.policy["parallel"]["tp_size"], 2)

    def test_importing_the_adapter_never_imports_torch(self):
        code = ("import sys, msperf.tensorcast; "
                "sys.exit(1 if 'torch' in sys.modules else 0)")
        subprocess.run([sys.executable, "-c", code], check=True)


class RealTorch(unittest.TestCase):
    def setUp(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skipTest("python3-torch is not installed")

    def test_meta_tensors(self):
        import torch
        a = torch.empty((2048, 4096), dtype=torch.bfloat16, device="meta")
        b = torch.empty((4096, 4096), dtype=torch.bfloat16, device="meta")
        info = OpInvokeInfo(torch.ops.aten.mm.default, (a, b), out=torch.mm(a, b))
        r = tc.MsperfDataSource(DB).lookup(info)
        self.assertEqual(r.source.name, "MEASURED")
        self.assertEqual(r.latency_us, mm_lookup_latency())


def mm_lookup_latency():
    return tc.MsperfDataSource(DB).lookup(mm_invocation()).latency_us


if __name__ == "__main__":
    sys.exit(tap.main())
