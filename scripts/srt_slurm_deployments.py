#!/usr/bin/env python3
"""Writes policies/deployments/*.csv from the TensorRT-LLM recipes of NVIDIA's srt-slurm.

Usage: srt_slurm_deployments.py REPO COMMIT RECIPE_DIR MODEL_PATH > FILE.csv

REPO is a git clone of https://github.com/NVIDIA/srt-slurm; every recipe YAML under RECIPE_DIR
at COMMIT becomes one line: the benchmark's isl, osl and concurrency (the keys a measured row
states), and what it does not state: the worker counts, each stage's attention TP / DP and EP
(enable_attention_dp spreads tensor_parallel_size over DP ranks), its max_batch_size (per rank)
and the decode workers' MTP draft tokens. MODEL_PATH is the Hugging Face name the measured rows
give the recipes' model. Needs python3-yaml; not part of the build.
"""
import csv
import subprocess
import sys

import yaml


def stage(cfg):
    tp = cfg["tensor_parallel_size"]
    dp = tp if cfg.get("enable_attention_dp") else 1
    return tp // dp, cfg.get("pipeline_parallel_size", 1), dp, cfg["moe_expert_parallel_size"], \
        cfg["max_batch_size"]


def main():
    repo, commit, recipe_dir, model_path = sys.argv[1:5]
    names = subprocess.check_output(
        ["git", "-C", repo, "ls-tree", "-r", "--name-only", commit, recipe_dir], text=True).split()
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["recipe", "model_path", "backend", "backend_version", "mode", "isl", "osl",
                  "concurrency", "nextn",
                  "prefill_num_workers", "prefill_tp_size", "prefill_pp_size",
                  "prefill_attention_dp_size", "prefill_moe_ep_size", "prefill_batch_size",
                  "decode_num_workers", "decode_tp_size", "decode_pp_size",
                  "decode_attention_dp_size", "decode_moe_ep_size", "decode_batch_size"])
    for name in sorted(n for n in names if n.endswith(".yaml")):
        doc = yaml.safe_load(subprocess.check_output(
            ["git", "-C", repo, "show", f"{commit}:{name}"], text=True))
        res, bench = doc["resources"], doc["benchmark"]
        trt = doc["backend"]["trtllm_config"]
        version = doc["model"]["container"].rsplit(":", 1)[1]
        nextn = (trt["decode"].get("speculative_config") or {}).get("num_nextn_predict_layers", 0)
        for clients in str(bench["concurrencies"]).split("x"):
            out.writerow([doc["name"], model_path, doc["backend"]["type"], version, "disagg",
                          bench["isl"], bench["osl"], int(clients), nextn,
                          res["prefill_workers"], *stage(trt["prefill"]),
                          res["decode_workers"], *stage(trt["decode"])])


if __name__ == "__main__":
    main()
