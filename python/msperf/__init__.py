"""msperf — per-operator latency of models on AI accelerators, from a profiling database.

The Python face of libmsperf (doc/python.md). Every answer comes from the C engine the
``msperf`` command uses; this package adds no second implementation::

    import msperf
    engine = msperf.Engine(database="doc/examples/h200-db")
    r = engine.query({"op": "aten.mm.default",
                      "args": [{"shape": [2048, 4096], "dtype": "bfloat16"},
                               {"shape": [4096, 4096], "dtype": "bfloat16"}]})
    print(r.latency_us, r.source)
"""
import os

from msperf._msperf import (Error, FileError, ParseError, ConfigError, PluginError,
                            Result, version, uninstalled, default_database)
from msperf._msperf import Engine as _Engine
from msperf.serving import serve, recommend, ServeResult, Recommendation

__all__ = ["Engine", "Result", "Summary", "serve", "recommend", "ServeResult", "Recommendation", "Error", "FileError", "ParseError", "ConfigError",
           "PluginError", "version", "__version__"]
__version__ = version

# Sources, in the order `msperf estimate` prints them.
SOURCES = ("MEASURED", "INTERPOLATED", "EXTRAPOLATED", "PARTIAL", "ANALYTIC", "NONE", "REJECTED")


class Summary:
    """The outcome of Engine.estimate: the `msperf estimate --format json` document.

    total_us, by_source ({source: {invocations, distinct, time_us}}), shares
    ({source: fraction of total_us}), metrics (upstream M1–M5: m1 … m5), ops (one record per
    input line, FORMATS §5.1) and errors (the rejected lines' "FILE:LINE: reason").
    """

    def __init__(self, document, errors):
        self._doc = document
        self.errors = list(errors)

    def to_dict(self):
        """The whole document, as `msperf estimate --format json` prints it."""
        return self._doc

    @property
    def summary(self):
        return self._doc["summary"]

    @property
    def total_us(self):
        return self.summary["total_us"]

    @property
    def analytic_total_us(self):
        return self.summary["analytic_total_us"]

    @property
    def invocations(self):
        return self.summary["invocations"]

    @property
    def distinct_ops(self):
        return self.summary["distinct_ops"]

    @property
    def rejected(self):
        return self.summary["rejected"]

    @property
    def by_source(self):
        return self.summary["by_source"]

    @property
    def shares(self):
        """Fraction of the total time answered by each source (0 when the total is 0)."""
        total = self.total_us or 0.0
        return {name: (entry["time_us"] / total if total else 0.0)
                for name, entry in self.by_source.items()}

    @property
    def metrics(self):
        return self._doc["metrics"]

    m1 = property(lambda self: self.metrics["m1"])
    m2 = property(lambda self: self.metrics["m2"])
    m3 = property(lambda self: self.metrics["m3"])
    m4 = property(lambda self: self.metrics["m4"])
    m5 = property(lambda self: self.metrics["m5"])

    @property
    def ops(self):
        return self._doc["ops"]

    def breakdown(self, key="op"):
        """{op name: Σ latency × count} over the answered lines, largest first."""
        totals = {}
        for rec in self.ops:
            lat = rec.get("latency_us")
            if lat is None:
                continue
            name = rec.get(key) or "?"
            totals[name] = totals.get(name, 0.0) + lat * rec.get("count", 1)
        return dict(sorted(totals.items(), key=lambda kv: -kv[1]))

    def __repr__(self):
        parts = ", ".join(f"{k}={v['time_us']:.1f}us" for k, v in self.by_source.items())
        return (f"msperf.Summary(total_us={self.total_us:.3f}, invocations={self.invocations}, "
                f"rejected={self.rejected}, {parts})")


class Engine(_Engine):
    """Engine(database=None, policy=None, device=None, plugin_dirs=(), overrides={},
    database_root=None, performance_model=None)

    A started msperf engine, configured as `msperf estimate` configures it:
    database (default: the shipped H200 sample), policy (a YAML file), device (a profile
    name or YAML path), plugin_dirs (searched first), overrides ({"parallel.tp_size": 2,
    "interpolation.enabled": False}: the CLI's flags), performance_model ("profiling",
    "analytic" or both). Configuration errors raise msperf.Error subclasses whose message
    is the CLI's ("FILE:LINE: problem").

    query(op) and query_many(ops, jobs=0) answer trace-line dicts (doc/formats.md §2); a bad
    op raises ValueError naming the field. An Engine may be shared by Python threads.
    """

    def estimate(self, source, strict=False):
        """estimate(path_or_iterable, strict=False) -> Summary: every op of a trace file
        (JSON Lines or op-summary JSON) or of an iterable of ops, with the totals, shares
        and M1–M5 of `msperf estimate --format json`. Rejected lines are recorded in
        Summary.errors (strict: stop at the first), as the CLI does."""
        if isinstance(source, os.PathLike):
            source = os.fspath(source)
        document, errors = self._estimate(source, strict=strict)
        return Summary(document, errors)

    def __repr__(self):
        return f"msperf.Engine(database={self.database!r}, device={self.device_name!r})"
