"""msperf as a TensorCast (msmodeling) profiling data source (doc/python.md §TensorCast).

MsperfDataSource implements upstream's data-source contract (RFC §2.1.2,
DataSourcePerformanceModel): lookup(op_invoke_info) -> Optional[QueryResult], store() raises
NotImplementedError (read-only). Its constructor takes ProfilingDataSource's arguments
(data_dir, device_profile, parallel_config), so it can replace it where ModelRunner builds one.

Importing this module never imports torch: an invocation is read by duck typing —
str(func) without "torch.ops.", tensors by .shape, .dtype and .stride(), the parallel
config's tp/ep/dp/world sizes by attribute. When TensorCast itself is importable, its own
QueryResult / QuerySource / ShapeMatchInfo / SubKernelShapeInfo classes are used; otherwise
look-alike classes with the same fields are defined here.
"""
import dataclasses
import enum
import os
from typing import Any, Dict, List, Optional

import msperf

__all__ = ["MsperfDataSource", "QueryResult", "QuerySource", "ShapeMatchInfo",
           "SubKernelShapeInfo", "invocation_to_op"]

try:  # pragma: no cover - only with TensorCast installed
    from tensor_cast.performance_model.profiling_database.data_source import (
        DataSourcePerformanceModel as _Base, QueryResult, QuerySource, ShapeMatchInfo,
        SubKernelShapeInfo)
except Exception:  # ImportError, or a TensorCast without these names
    _Base = object

    class QuerySource(enum.Enum):
        """Where a latency came from (EXTRAPOLATED only with allow_extrapolation)."""
        MEASURED = "measured"
        INTERPOLATED = "interpolated"
        EXTRAPOLATED = "extrapolated"
        PARTIAL = "partial"

    @dataclasses.dataclass
    class ShapeMatchInfo:
        simulation_shapes: List[Any] = dataclasses.field(default_factory=list)
        kernel_shapes: List[Any] = dataclasses.field(default_factory=list)
        shape_match_rule: str = ""

    @dataclasses.dataclass
    class SubKernelShapeInfo:
        kernel_type: str = ""
        simulation_shapes: List[Any] = dataclasses.field(default_factory=list)
        kernel_shapes: List[Any] = dataclasses.field(default_factory=list)
        shape_match_rule: str = ""

    @dataclasses.dataclass
    class QueryResult:
        latency_us: float
        confidence: float
        source: QuerySource
        details: Dict[str, Any] = dataclasses.field(default_factory=dict)
        shape_match_info: Optional[ShapeMatchInfo] = None
        sub_kernel_shapes: Optional[List[SubKernelShapeInfo]] = None


_HITS = {"MEASURED": "MEASURED", "INTERPOLATED": "INTERPOLATED", "PARTIAL": "PARTIAL",
         "EXTRAPOLATED": "EXTRAPOLATED"}
# Parallel sizes: msperf override key -> attribute names tried on the parallel config.
_PARALLEL = {
    "parallel.tp_size": ("tp_size", "tensor_parallel_size", "tp"),
    "parallel.ep_size": ("ep_size", "expert_parallel_size", "ep"),
    "parallel.dp_size": ("dp_size", "data_parallel_size", "dp"),
    "parallel.world_size": ("world_size",),
}
_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_MAX_VALUES = 4096


def _is_tensor(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, type)


def _op_name(func):
    name = str(func)
    return name[len("torch.ops."):] if name.startswith("torch.ops.") else name


def _tensor_values(t, dtype):
    """The values of a small integer tensor (seq_lens, query_lens), when it has any."""
    if not dtype.endswith(_INT_DTYPES) or not hasattr(t, "tolist"):
        return None
    device = getattr(t, "device", None)
    if device is not None and getattr(device, "type", str(device)) == "meta":
        return None
    try:
        if len(t.shape) > 1 or (t.shape and int(t.shape[0]) > _MAX_VALUES):
            return None
        values = t.tolist()
    except Exception:
        return None
    return values if isinstance(values, list) else [values]


def _tensor(t):
    dtype = str(t.dtype)
    out = {"shape": [int(d) for d in t.shape], "dtype": dtype}
    stride = getattr(t, "stride", None)
    if callable(stride):
        try:
            out["stride"] = [int(s) for s in stride()]
        except Exception:  # sparse or symbolic layouts: no stride
            pass
    values = _tensor_values(t, dtype)
    if values is not None:
        out["values"] = values
    return out


def _value(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if _is_tensor(x):
        return _tensor(x)
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _value(v) for k, v in x.items()}
    if hasattr(x, "__index__"):
        return int(x)
    return None  # dtypes, devices, layouts: nothing the lookup reads


def _simulation_shapes(args):
    return [[int(d) for d in a.shape] for a in args if _is_tensor(a)]


def invocation_to_op(info) -> dict:
    """An OpInvokeInfo-like object (func, args, kwargs, out) as a msperf trace-line dict."""
    func = getattr(info, "func", None)
    if func is None:
        func = getattr(info, "op", None)
    op = {"op": _op_name(func),
          "args": [_value(a) for a in (getattr(info, "args", None) or ())]}
    kwargs = getattr(info, "kwargs", None)
    if kwargs:
        op["kwargs"] = {str(k): _value(v) for k, v in kwargs.items()}
    out = getattr(info, "out", None)
    if out is not None:
        outs = out if isinstance(out, (list, tuple)) else [out]
        tensors = [_tensor(t) for t in outs if _is_tensor(t)]
        if tensors:
            op["out"] = tensors
    return op


def _parallel_overrides(parallel_config) -> Dict[str, int]:
    sizes = {}
    if parallel_config is None:
        return sizes
    for key, names in _PARALLEL.items():
        for name in names:
            if isinstance(parallel_config, dict):
                value = parallel_config.get(name)
            else:
                value = getattr(parallel_config, name, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                sizes[key] = value
                break
    return sizes


class MsperfDataSource(_Base):
    """MsperfDataSource(data_dir, device_profile=None, parallel_config=None, *,
    interpolation=None, policy=None, plugin_dirs=())

    A read-only TensorCast data source answered by msperf. data_dir is a profiling
    database (op_mapping.yaml and kernel CSVs). device_profile: an msperf profile name or
    YAML path (other objects, such as TensorCast's DeviceProfile, are accepted and ignored:
    on a miss TensorCast runs its own analytic model). parallel_config: any object or dict
    with tp_size / ep_size / dp_size / world_size. interpolation: None keeps the policy's
    setting (msperf interpolates within the measured range by default), False answers
    exact lookups only, as upstream's ProfilingDataSource does.
    """

    def __init__(self, data_dir, device_profile=None, parallel_config=None, *,
                 interpolation=None, policy=None, plugin_dirs=()):
        self.data_dir = os.fspath(data_dir)
        self.device_profile = device_profile
        self._sizes = _parallel_overrides(parallel_config)
        self._options = {"interpolation": interpolation, "policy": policy,
                         "plugin_dirs": tuple(plugin_dirs)}
        self._open()

    def _open(self):
        overrides = dict(self._sizes)
        if self._options["interpolation"] is not None:
            overrides["interpolation.enabled"] = bool(self._options["interpolation"])
        device = self.device_profile if isinstance(self.device_profile, (str, os.PathLike)) else None
        self.engine = msperf.Engine(database=self.data_dir, device=device,
                                    policy=self._options["policy"],
                                    plugin_dirs=self._options["plugin_dirs"],
                                    overrides=overrides)
        self.last_miss_reason = None
        self.last_shape_match_info = None

    # Pickled by path: a worker process (upstream's --jobs forks) re-opens the database.
    def __getstate__(self):
        device = self.device_profile if isinstance(self.device_profile, (str, os.PathLike)) else None
        return {"data_dir": self.data_dir, "device_profile": device, "sizes": self._sizes,
                "options": self._options}

    def __setstate__(self, state):
        self.data_dir = state["data_dir"]
        self.device_profile = state["device_profile"]
        self._sizes = state["sizes"]
        self._options = state["options"]
        self._open()

    def _answer(self, result, simulation_shapes):
        """QueryResult for a hit, None (and the last_* fields) for a miss."""
        info = ShapeMatchInfo(simulation_shapes=simulation_shapes,
                              kernel_shapes=result.kernel_shapes,
                              shape_match_rule=result.shape_match_rule or "")
        self.last_shape_match_info = info
        source = _HITS.get(result.source)
        if source is None or result.latency_us is None:
            self.last_miss_reason = result.miss_reason or "unknown"
            return None
        self.last_miss_reason = None
        details = result.details
        subs = details.get("sub_kernel_shapes")
        sub_kernel_shapes = None
        if isinstance(subs, list):
            sub_kernel_shapes = [SubKernelShapeInfo(
                kernel_type=s.get("kernel_type", ""),
                simulation_shapes=s.get("simulation_shapes", []),
                kernel_shapes=s.get("kernel_shapes", []),
                shape_match_rule=s.get("shape_match_rule", "")) for s in subs]
        return QueryResult(latency_us=result.latency_us, confidence=result.confidence,
                           source=QuerySource[source], details=details,
                           shape_match_info=info, sub_kernel_shapes=sub_kernel_shapes)

    def lookup(self, op_invoke_info) -> Optional[QueryResult]:
        """The profiling answer for one invocation, or None on a miss (last_miss_reason)."""
        op = invocation_to_op(op_invoke_info)
        shapes = _simulation_shapes(getattr(op_invoke_info, "args", None) or ())
        try:
            result = self.engine.query(op)
        except ValueError as exc:
            self.last_miss_reason = f"invalid_args: {exc}"
            self.last_shape_match_info = ShapeMatchInfo(simulation_shapes=shapes,
                                                        shape_match_rule="invalid_args")
            return None
        return self._answer(result, shapes)

    def lookup_many(self, invocations, jobs=0) -> List[Optional[QueryResult]]:
        """lookup over many invocations on msperf's worker threads (answers equal lookup's);
        last_miss_reason ends as the last invocation's."""
        invocations = list(invocations)
        ops = [invocation_to_op(i) for i in invocations]
        results = self.engine.query_many(ops, jobs=jobs)
        return [self._answer(r, _simulation_shapes(getattr(i, "args", None) or ()))
                for r, i in zip(results, invocations)]

    def store(self, op_invoke_info, result) -> None:
        raise NotImplementedError("This data source is read-only")

    def __repr__(self):
        return f"MsperfDataSource({self.data_dir!r})"
