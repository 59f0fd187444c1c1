"""Serving-level figures from Python: msperf.serve and msperf.recommend (doc/python.md).

Both run the msperf program this package was built with (``msperf serve --format json``,
``msperf recommend --format jsonl``) and return its figures as plain objects, so a figure
from Python is the figure the command line prints. Keyword arguments are the commands'
flags with ``_`` for ``-``: ``serve(model, tp=4, concurrency=64, backend="sglang")``;
``True`` gives a flag without a value, a list or tuple a comma list, ``None`` leaves it out.
"""
import json
import subprocess

from msperf._msperf import Error, program

__all__ = ["serve", "recommend", "ServeResult", "Recommendation"]


def _flags(options):
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _run(command, model, options):
    argv = [program(), command, "--model", str(model)] + _flags(options)
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise Error(done.stderr.strip() or "msperf %s exited with %d" % (command, done.returncode))
    return done.stdout


def _flat(record, prefix=""):
    """{"ttft_ms": {"mean": 1}} -> {"ttft_ms_mean": 1}: one column per figure."""
    out = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(_flat(value, prefix + key + "_"))
        else:
            out[prefix + key] = value
    return out


class ServeResult:
    """The figures of one simulated deployment, as `msperf serve --format json` prints them.
    Every key is an attribute too (result.ttft_ms["p90"], result.tokens_s_gpu, ...)."""

    def __init__(self, document):
        self._doc = document

    def to_dict(self):
        return dict(self._doc)

    def row(self):
        """One flat dict (nested figures as key_subkey): a DataFrame row."""
        return _flat(self._doc)

    def __getattr__(self, name):
        try:
            return self._doc[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return "ServeResult(%s)" % ", ".join("%s=%r" % kv for kv in list(self._doc.items())[:6])


def _rank_key(p):
    if p["concurrency"] == 0:   # open loop: every point serves the offered tokens/s
        return (p["gpus"], 0.0, -p["tokens_s_user"], p["index"])
    return (0, -p["tokens_s_gpu"], -p["tokens_s_user"], p["index"])


class Recommendation:
    """Every point `msperf recommend` considered (ranked, excluded with a reason), the best
    one and its launch command."""

    def __init__(self, points):
        self.points = points

    @property
    def ranked(self):
        """The points meeting the SLA, best first: tokens/s/GPU, then tokens/s/user, then the
        candidate number; under an open loop (`rate=`, no clients) the GPUs used, fewest
        first, instead of tokens/s/GPU (the order `msperf recommend` ranks in,
        doc/recommend.md §3)."""
        ok = [p for p in self.points if p["status"] == "ok"]
        return sorted(ok, key=_rank_key)

    @property
    def best(self):
        ranked = self.ranked
        return ranked[0] if ranked else None

    @property
    def launch(self):
        best = self.best
        return best.get("launch") if best else None

    @property
    def serve_command(self):
        """The `msperf serve` command that simulates the best point alone."""
        best = self.best
        return best.get("serve_command") if best else None

    def rows(self):
        """One flat dict per point: pandas.DataFrame(rec.rows())."""
        return [_flat(p) for p in self.points]

    def to_dict(self):
        return {"points": self.points, "best": self.best}

    def __repr__(self):
        best = self.best
        return "Recommendation(%d points, best=%s)" % (
            len(self.points), best["layout"] if best else None)


def serve(model, **options):
    """Simulates one deployment (`msperf serve`); returns a ServeResult."""
    options["format"] = "json"
    return ServeResult(json.loads(_run("serve", model, options)))


def recommend(model, **options):
    """Searches deployments under an SLA (`msperf recommend`); returns a Recommendation."""
    options["format"] = "jsonl"
    text = _run("recommend", model, options)
    return Recommendation([json.loads(line) for line in text.splitlines() if line.strip()])
