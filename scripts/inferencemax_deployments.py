#!/usr/bin/env python3
"""Writes policies/deployments/*.csv lines for InferenceMAX's single-node (aggregated) configs.

Usage: inferencemax_deployments.py REPO COMMIT CONFIG_FILE BACKEND MODEL_PATH KEY... > FILE.csv

REPO is a git clone of https://github.com/SemiAnalysisAI/InferenceX; CONFIG_FILE its master
config at COMMIT (.github/configs/nvidia-master.yaml); each KEY a single-node entry. Every
concurrency of a search-space entry (conc-list, or conc-start to conc-end doubling, as
utils/matrix_logic/generate_sweep_configs.py expands it) becomes one line: tp and ep, attention
DP over the TP ranks when dp-attn is set, and the MTP depth of the entry's benchmark script —
benchmarks/single_node/dsr1_fp8_h200_trt_mtp.sh runs num_nextn_predict_layers 1 with attention
DP and 3 without (the rule is read from that script, not from the YAML, and only for
spec-decoding: mtp entries). The backend version is the image's tag. Needs python3-yaml; not
part of the build.
"""
import csv
import subprocess
import sys

import yaml


def concurrencies(space):
    if "conc-list" in space:
        return list(space["conc-list"])
    conc, end, out = space["conc-start"], space["conc-end"], []
    while conc <= end:
        out.append(conc)
        if conc == end:
            break
        conc = min(conc * 2, end)
    return out


def main():
    repo, commit, config, backend, model_path = sys.argv[1:6]
    doc = yaml.safe_load(subprocess.check_output(
        ["git", "-C", repo, "show", f"{commit}:{config}"], text=True))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["recipe", "model_path", "backend", "backend_version", "mode", "isl", "osl",
                  "concurrency", "nextn", "tp_size", "pp_size", "attention_dp_size",
                  "moe_ep_size"])
    for key in sys.argv[6:]:
        entry = doc[key]
        version = entry["image"].rsplit(":", 1)[1]
        for seq in entry["seq-len-configs"]:
            for space in seq["search-space"]:
                dp = space["tp"] if space.get("dp-attn") else 1
                mtp = space.get("spec-decoding") == "mtp"
                nextn = (1 if dp > 1 else 3) if mtp else 0
                for conc in concurrencies(space):
                    out.writerow([f"{key}/{'dep' if dp > 1 else 'tep'}{space['tp']}/c{conc}",
                                  model_path, backend, version, "agg", seq["isl"], seq["osl"],
                                  conc, nextn, space["tp"] // dp, 1, dp, space.get("ep", 1)])


if __name__ == "__main__":
    main()
