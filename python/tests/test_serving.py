"""msperf.serve and msperf.recommend against the CLI: the same figures, plain objects whose
rows a DataFrame takes, errors raised with the command's message. Run by `make check` (TAP)."""
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
MODEL = os.path.join(SRC, "tests", "data", "models", "configs", "meta-llama--Meta-Llama-3.1-8B.json")
SERVE = dict(tp=1, isl=512, osl=64, concurrency=8, num_requests=32, backend="vllm", no_cache=True)
RECOMMEND = dict(gpus=2, isl=512, osl=64, ttft_max=2000, tpot_max=50, mode="agg", no_cache=True,
                 jobs=1)


def cli(*args):
    proc = subprocess.run([MSPERF, *args], capture_output=True, text=True, check=True)
    return proc.stdout


def flags(options):
    out = []
    for k, v in options.items():
        out += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
    return out


class Serving(unittest.TestCase):
    def test_serve_is_the_cli(self):
        r = msperf.serve(MODEL, **SERVE)
        want = json.loads(cli("serve", "--model", MODEL, "--format", "json", *flags(SERVE)))
        self.assertEqual(r.to_dict(), want)
        self.assertIsInstance(r.row(), dict)
        self.assertFalse(any(isinstance(v, dict) for v in r.row().values()))

    def test_recommend_is_the_cli(self):
        rec = msperf.recommend(MODEL, **RECOMMEND)
        text = cli("recommend", "--model", MODEL, "--format", "jsonl", *flags(RECOMMEND))
        self.assertEqual(rec.points, [json.loads(line) for line in text.splitlines()])
        self.assertIsNotNone(rec.best)
        table = cli("recommend", "--model", MODEL, *flags(RECOMMEND))
        self.assertIn(rec.best["layout"], table.split("\n   1  ")[1].split("\n")[0])
        self.assertIn("vllm serve", rec.launch)
        self.assertIn(" serve --model ", rec.serve_command)
        self.assertIn(rec.serve_command.split(" serve ", 1)[1], table)
        rows = rec.rows()
        self.assertEqual(len(rows), len(rec.points))
        self.assertTrue(all(not isinstance(v, dict) for row in rows for v in row.values()))
        self.assertEqual(rec.to_dict()["best"], rec.best)

    def test_recommend_at_a_rate_is_the_cli(self):
        # an open loop ranks the fewest GPUs first, as the command's table does
        opts = dict(RECOMMEND, gpus=4, rate=100, tpot_max=15, top=100)
        rec = msperf.recommend(MODEL, **opts)
        table = cli("recommend", "--model", MODEL, *flags(opts))
        self.assertIsNotNone(rec.best)
        row = table.split("\n   1  ")[1].split("\n")[0]
        self.assertTrue(row.startswith(rec.best["layout"] + " "), row)
        self.assertIn(" %d " % rec.best["gpus"], row)
        self.assertEqual(min(p["gpus"] for p in rec.ranked), rec.best["gpus"])
        # the whole order: points on as many GPUs go by tokens/s/user, not by the window's noise
        rows = [line for line in table.splitlines() if line[:4].strip().isdigit()]
        self.assertEqual(len(rows), len(rec.ranked))
        for line, p in zip(rows, rec.ranked):
            self.assertTrue(line[6:].startswith(p["layout"] + " "), (line, p["layout"]))
            self.assertIn(" %d " % p["max_num_tokens"], line)
        users = [p["tokens_s_user"] for p in rec.ranked if p["gpus"] == rec.ranked[-1]["gpus"]]
        self.assertEqual(users, sorted(users, reverse=True))

    def test_errors_carry_the_message(self):
        with self.assertRaises(msperf.Error) as ctx:
            msperf.recommend(MODEL, gpus=0)
        self.assertIn("--gpus", str(ctx.exception))


if __name__ == "__main__":
    sys.exit(tap.main())
